//! Kinto 26.5.0 (PyPI `kinto`, Pyramid and Cornice): its own Swagger 2.0 description, read
//! from the running server, imported with the overlay that declares its paging header and
//! generated as a user's spec would (`specs/kinto.yaml`), and `workloads/kinto.rs` run
//! against it.

use remcall_real_server_tests::{Running, Workload, fetch, installed};

/// Kinto in memory, with HTTP Basic accounts as it ships them: any name and password is a
/// user of its own.
const SETTINGS: &str = "[app:main]
use = egg:kinto
kinto.storage_backend = kinto.core.storage.memory
kinto.storage_url =
kinto.cache_backend = kinto.core.cache.memory
kinto.cache_url =
kinto.permission_backend = kinto.core.permission.memory
kinto.permission_url =
kinto.bucket_create_principals = system.Authenticated
multiauth.policies = basicauth

[server:main]
use = egg:waitress#main
host = 127.0.0.1
port = %(http_port)s
";

const USER: (&str, &str) = ("workload", "s3cret");

#[test]
fn an_imported_kinto_client_drives_a_real_kinto() {
    let dir = installed("kinto").unwrap_or_else(|e| panic!("{e}"));
    let settings = tempfile::Builder::new().suffix(".ini").tempfile().unwrap();
    std::fs::write(settings.path(), SETTINGS).unwrap();
    let settings = settings.path().to_str().unwrap().to_owned();
    let server = Running::python(
        &dir,
        &[
            "-c",
            "import sys; from kinto.__main__ import main; sys.exit(main(sys.argv[1:]))",
            "start",
            "--ini",
            &settings,
            "--port",
            "{port}",
        ],
        "/v1/__heartbeat__",
    )
    .unwrap_or_else(|e| panic!("starting Kinto: {e:#}"));
    let api = format!("{}/v1", server.url());
    let description = fetch(&format!("{api}/__api__"), &[]).unwrap();
    let output = Workload::new("kinto")
        .and_then(|w| w.description("kinto-api.json", &description))
        .map(|w| w.learning(&["kinto-paging.yaml"]))
        .and_then(|w| {
            w.run(&[
                ("KINTO_URL", &api),
                ("KINTO_USERNAME", USER.0),
                ("KINTO_PASSWORD", USER.1),
            ])
        })
        .unwrap_or_else(|e| panic!("{e:#}\nserver log:\n{}", server.log_tail()));
    print!("{output}");
    // What the server holds now, asked apart from the client.
    let records = format!(
        "http://{}:{}@{}/v1/buckets/remcall/collections/notes/records",
        USER.0,
        USER.1,
        server.url().trim_start_matches("http://")
    );
    let listed = fetch(&records, &[]).unwrap();
    let listed = String::from_utf8(listed).unwrap();
    assert_eq!(listed.matches("\"title\"").count(), 4, "{listed}");
    assert!(listed.contains("note 3, edited"), "{listed}");
    assert!(!listed.contains("\"note 1\""), "{listed}");
}

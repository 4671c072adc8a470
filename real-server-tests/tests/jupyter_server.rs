//! Jupyter Server 2.21.1 (PyPI `jupyter-server`, Tornado): the Swagger 2.0 description it ships
//! and serves, read from the running server, imported and generated as a user's spec would
//! (`specs/jupyter-server.yaml`), and `workloads/jupyter-server.rs` run against it.

use remcall_real_server_tests::{Running, Workload, fetch, installed};

const TOKEN: &str = "workload-token";

#[test]
fn an_imported_jupyter_client_drives_a_real_jupyter_server() {
    let dir = installed("jupyter-server").unwrap_or_else(|e| panic!("{e}"));
    let token = format!("--IdentityProvider.token={TOKEN}");
    let server = Running::python(
        &dir,
        &[
            "-m",
            "jupyter_server",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.open_browser=False",
            "--ServerApp.root_dir=.",
            &token,
        ],
        "/api/status?token=workload-token",
    )
    .unwrap_or_else(|e| panic!("starting Jupyter Server: {e:#}"));
    let auth = format!("token {TOKEN}");
    let description = fetch(
        &format!("{}/api/spec.yaml", server.url()),
        &[("Authorization", &auth)],
    )
    .unwrap();
    let output = Workload::new("jupyter-server")
        .and_then(|w| w.description("jupyter-server-api.yaml", &description))
        .map(|w| w.learning(&[]))
        .and_then(|w| w.run(&[("JUPYTER_URL", &server.url()), ("JUPYTER_TOKEN", TOKEN)]))
        .unwrap_or_else(|e| panic!("{e:#}\nserver log:\n{}", server.log_tail()));
    print!("{output}");
    // What the server did, seen on its disk.
    let notes = server.folder().join("notes");
    assert_eq!(
        std::fs::read_to_string(notes.join("renamed.txt")).unwrap(),
        "hello, again"
    );
    assert!(!notes.join("hello.txt").exists());
    assert!(!notes.join("untitled.txt").exists());
}

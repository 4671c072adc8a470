//! Chroma 1.5.9 (PyPI `chromadb`; the server is Rust inside the wheel): its own OpenAPI 3.1
//! description, read from the running server, imported and generated as a user's spec would
//! (`specs/chromadb.yaml`), and `workloads/chromadb.rs` run against it.

use remcall_real_server_tests::{Running, Workload, fetch, installed};

#[test]
fn an_imported_chroma_client_drives_a_real_chroma() {
    let dir = installed("chromadb").unwrap_or_else(|e| panic!("{e}"));
    let server = Running::python(
        &dir,
        &[
            "-c",
            "import sys, chromadb_rust_bindings; chromadb_rust_bindings.cli(sys.argv)",
            "run",
            "--path",
            "data",
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
        ],
        "/api/v2/heartbeat",
    )
    .unwrap_or_else(|e| panic!("starting Chroma: {e:#}"));
    let description = fetch(&format!("{}/openapi.json", server.url()), &[]).unwrap();
    let output = Workload::new("chromadb")
        .and_then(|w| w.description("chromadb-api.json", &description))
        .map(|w| w.learning(&[]))
        .and_then(|w| w.run(&[("CHROMA_URL", &server.url())]))
        .unwrap_or_else(|e| panic!("{e:#}\nserver log:\n{}", server.log_tail()));
    print!("{output}");
    // What the server holds now, asked apart from the client.
    let listed = fetch(
        &format!(
            "{}/api/v2/tenants/default_tenant/databases/remcall/collections",
            server.url()
        ),
        &[],
    )
    .unwrap();
    let listed = String::from_utf8(listed).unwrap();
    assert!(listed.contains("\"beta-renamed\""), "{listed}");
    assert!(!listed.contains("\"gamma\""), "{listed}");
}

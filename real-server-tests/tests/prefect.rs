//! Prefect's API server (PyPI `prefect`, FastAPI with its SQLite database): its own OpenAPI 3.1
//! description, read from the running server, imported and generated as a user's spec would
//! (`specs/prefect.yaml`: renames only), and `workloads/prefect.rs` run against it — the four
//! things a new user found silently wrong: a PATCH that could not send `null`, a union tag the
//! description leaves optional, a 422 whose explanation was thrown away, the base path `/api`.

use remcall_real_server_tests::{Running, Workload, fetch, installed};

/// Starts the server with its analytics and its UI off (nothing leaves loopback) and its
/// database in the server's fresh working folder.
const START: &str = "import os, sys\n\
os.environ.update(PREFECT_SERVER_ANALYTICS_ENABLED='false', PREFECT_UI_ENABLED='false')\n\
from prefect.cli import app\n\
sys.exit(app())";

#[test]
fn an_imported_prefect_client_sends_nulls_reads_its_variants_and_keeps_every_value() {
    let dir = installed("prefect").unwrap_or_else(|e| panic!("{e}"));
    let server = Running::python(
        &dir,
        &[
            "-c",
            START,
            "server",
            "start",
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
        ],
        "/api/health",
    )
    .unwrap_or_else(|e| panic!("starting Prefect: {e:#}"));
    let description = fetch(&format!("{}/api/openapi.json", server.url()), &[]).unwrap();
    let output = Workload::new("prefect")
        .and_then(|w| w.description("prefect-api.json", &description))
        .map(|w| w.learning(&[]))
        .and_then(|w| w.run(&[("PREFECT_URL", &server.url())]))
        .unwrap_or_else(|e| panic!("{e:#}\nserver log:\n{}", server.log_tail()));
    print!("{output}");
    for step in [
        "description cleared with null, read back null",
        "PENDING aborted",
        "422 explained",
        "paged two at a time",
    ] {
        assert!(output.contains(step), "{output}");
    }
}

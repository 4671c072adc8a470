//! Arize Phoenix (PyPI `arize-phoenix`, an OpenTelemetry trace store on FastAPI and SQLite) as
//! the receiver of the `otel` feature's spans: `workloads/phoenix.rs` exports the spans of calls
//! with a retry, a hedge, a quota wait, a breaker opening and a fallback over OTLP/HTTP, and
//! reads them back through a client imported from Phoenix's own description
//! (`specs/phoenix.yaml`), checking names, parents, attributes, events and status, and that each
//! `traceparent` its loopback stand-in received names an attempt's span.

use remcall_real_server_tests::{Running, Workload, fetch, installed};

/// Starts the server on `{port}` with its OTLP gRPC receiver on the next port asked of the
/// system, its working folder (SQLite database) the test's, and nothing leaving loopback.
const START: &str = "import os, socket, sys\n\
grpc = socket.socket(); grpc.bind(('127.0.0.1', 0)); port = grpc.getsockname()[1]; grpc.close()\n\
os.environ.update(PHOENIX_HOST='127.0.0.1', PHOENIX_PORT=sys.argv[1], PHOENIX_GRPC_PORT=str(port),\n\
    PHOENIX_WORKING_DIR=os.getcwd(), PHOENIX_TELEMETRY_ENABLED='false')\n\
sys.argv = ['phoenix', 'serve']\n\
from phoenix.server.main import main\n\
sys.exit(main())";

/// The scratch crate's dependencies beyond remcall (with `otel`) and tokio: the same lines as
/// this crate's `cfg(any())` table, which keeps them in the workspace's lock.
const DEPENDENCIES: &[&str] = &[
    r#"opentelemetry = { version = "0.33", default-features = false, features = ["trace"] }"#,
    r#"opentelemetry_sdk = { version = "0.33", default-features = false, features = ["trace"] }"#,
    r#"opentelemetry-otlp = { version = "0.33", default-features = false, features = ["http-proto", "trace", "reqwest-blocking-client"] }"#,
    r#"tracing-opentelemetry = { version = "0.34", default-features = false }"#,
    r#"tracing-subscriber = { version = "0.3", default-features = false, features = ["registry", "std"] }"#,
    r#"tracing = "0.1""#,
    r#"axum = { version = "0.8", default-features = false, features = ["http1", "tokio", "json"] }"#,
];

#[test]
fn spans_exported_to_phoenix_read_back_with_every_decision_and_the_trace_on_the_wire() {
    let dir = installed("phoenix").unwrap_or_else(|e| panic!("{e}"));
    let server = Running::python(&dir, &["-c", START, "{port}"], "/healthz")
        .unwrap_or_else(|e| panic!("starting Phoenix: {e:#}"));
    let description = fetch(&format!("{}/openapi.json", server.url()), &[]).unwrap();
    let output = Workload::new("phoenix")
        .map(|w| w.with(&["otel"], DEPENDENCIES))
        .and_then(|w| w.description("phoenix-api.json", &description))
        .map(|w| w.learning(&[]))
        .and_then(|w| w.run(&[("PHOENIX_URL", &server.url())]))
        .unwrap_or_else(|e| panic!("{e:#}\nserver log:\n{}", server.log_tail()));
    print!("{output}");
    for step in [
        "retry read back: resend counts 0 and 1, the 503 named",
        "hedge read back",
        "quota wait read back",
        "breaker and fallback read back",
        "traceparent of every attempt read back",
    ] {
        assert!(output.contains(step), "{output}");
    }
}

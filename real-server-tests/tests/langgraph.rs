//! LangGraph's agent server (PyPI `langgraph-cli[inmem]`, its in-memory development server):
//! its own OpenAPI 3.1 description, read from the running server, imported and generated as a
//! user's spec would (`specs/langgraph.yaml`, which says what its text streams' events are),
//! and `workloads/langgraph.rs` run against it: typed events to a stream's end, a second
//! stream, an error event, a silent stream resumed from its last event id, and a run's end
//! posted to its webhook, received by the generated receiver (`webhooks:` in the spec).

use remcall_real_server_tests::{Running, Workload, fetch, installed};

/// The receiver's server (the same line as the workspace's lock pins, `Cargo.toml`).
const DEPENDENCIES: &[&str] = &[
    r#"axum = { version = "0.8", default-features = false, features = ["http1", "tokio", "json"] }"#,
];

/// Two graphs of plain Python, no model: `chat` plans and speaks (and fails on the prompt
/// `fail`, as a model out of memory would); `slow` plans, then waits 2.5 s before its last
/// state, longer than the workload's `timeout.idle` of 1 s.
const GRAPHS: &str = r#"import time
from typing import TypedDict
from langgraph.graph import StateGraph, START, END

class State(TypedDict, total=False):
    prompt: str
    answer: str

def think(state):
    if state.get("prompt") == "fail":
        raise RuntimeError("CUDA out of memory")
    return {"answer": "plan for " + state.get("prompt", "")}

def speak(state):
    return {"answer": state.get("answer", "") + ", said"}

def wait(state):
    time.sleep(2.5)
    return {"answer": state.get("answer", "") + ", waited"}

def graph(last, step):
    builder = StateGraph(State)
    builder.add_node("think", think)
    builder.add_node(last, step)
    builder.add_edge(START, "think")
    builder.add_edge("think", last)
    builder.add_edge(last, END)
    return builder.compile()

chat = graph("speak", speak)
slow = graph("wait", wait)
"#;

#[test]
fn an_imported_langgraph_client_streams_from_a_real_agent_server() {
    let dir = installed("langgraph").unwrap_or_else(|e| panic!("{e}"));
    let app = tempfile::tempdir().unwrap();
    let graphs = app.path().join("graphs.py");
    std::fs::write(&graphs, GRAPHS).unwrap();
    let graphs = graphs.to_str().unwrap();
    // Paths in the configuration are read from the server's working folder: written whole.
    // A run's webhook goes to the workload's receiver on loopback, which the server refuses
    // unless told (its guard against a webhook that calls its own routes).
    let config = serde_json::json!({
        "dependencies": [app.path()],
        "graphs": { "chat": format!("{graphs}:chat"), "slow": format!("{graphs}:slow") },
        "webhooks": { "url": { "disable_loopback": false, "require_https": false } },
    });
    let config_path = app.path().join("langgraph.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let server = Running::python(
        &dir,
        &[
            "-c",
            "import sys; from langgraph_cli.cli import cli; sys.exit(cli())",
            "dev",
            "--config",
            config_path.to_str().unwrap(),
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
            "--no-browser",
            "--no-reload",
            "--allow-blocking",
        ],
        "/ok",
    )
    .unwrap_or_else(|e| panic!("starting LangGraph: {e:#}"));
    let description = fetch(&format!("{}/openapi.json", server.url()), &[]).unwrap();
    let output = Workload::new("langgraph")
        .map(|w| w.with(&["webhooks"], DEPENDENCIES))
        .and_then(|w| w.description("langgraph-api.json", &description))
        .map(|w| w.learning(&[]))
        .and_then(|w| w.run(&[("LANGGRAPH_URL", &server.url())]))
        .unwrap_or_else(|e| panic!("{e:#}\nserver log:\n{}", server.log_tail()));
    print!("{output}");
    assert!(
        output.contains("ended with the server's error event"),
        "{output}"
    );
    assert!(output.contains("was resumed"), "{output}");
    assert!(
        output.contains("posted its end to the generated receiver"),
        "{output}"
    );
}

//! The client build.rs generated from an OpenAPI 3.2 description that streams
//! (`api/assistant.yaml`), against a loopback server: completions as typed events that end at
//! `[DONE]` (the operation also answers JSON, which its first method reads), a run's events by
//! name, records as JSON Lines.

use axum::Router;
use axum::extract::Path;
use axum::routing::{get, post};
use remcall::serde_json::{Value, json};
use remcall_example_openapi::streaming::{
    CompletionChunk, CompletionRequest, Failure, Record, Step, Streaming, WatchRunEvent,
};
use testkit::Server;

fn sse(body: String) -> ([(&'static str, &'static str); 1], String) {
    ([("content-type", "text/event-stream")], body)
}

async fn server() -> Server {
    let router = Router::new()
        .route(
            "/v1/chat/completions",
            post(|axum::Json(request): axum::Json<Value>| async move {
                if request["stream"] == json!(false) {
                    let json = [("content-type", "application/json")];
                    return (json, r#"{"text": "Hello"}"#.to_owned());
                }
                // Only the flag chooses: a request without it gets no answer of either kind.
                if request["stream"] != json!(true) {
                    let json = [("content-type", "application/json")];
                    return (json, r#"{"no": "flag"}"#.to_owned());
                }
                if request["prompt"] == json!("fail") {
                    let body = "data: {\"index\": 0, \"delta\": \"Hel\"}\n\n\
                                data: {\"error\": {\"message\": \"CUDA out of memory\", \"type\": \"generation\"}}\n\n";
                    return sse(body.to_owned());
                }
                let body = "data: {\"index\": 0, \"delta\": \"Hel\"}\n\n\
                            data: {\"index\": 1, \"delta\": \"lo\"}\n\n\
                            data: [DONE]\n\n";
                sse(body.to_owned())
            }),
        )
        .route(
            "/v1/runs/{id}/events",
            get(|Path(id): Path<String>| async move {
                let failed = if id == "r-fail" {
                    "event: error\ndata: {\"error\": {\"message\": \"the run was cancelled\"}}\n\n\
                     event: run.log\ndata: never read\n\n"
                } else {
                    ""
                };
                sse(format!(
                    "event: run.step\ndata: {{\"name\": \"{id}-plan\"}}\n\n\
                     event: run.log\ndata: thinking\ndata: still\n\n\
                     event: run.cost\ndata: 3\n\n{failed}"
                ))
            }),
        )
        .route(
            "/v1/exports",
            get(|query: axum::extract::Query<Value>| async move {
                let lines = if query.0["since"] == json!("99") {
                    "{\"id\": 1}\n{\"error\": {\"message\": \"the export store is gone\"}}\n{\"id\": 2}\n"
                } else {
                    "{\"id\": 1, \"label\": \"a\"}\n{\"id\": 2}\n"
                };
                ([("content-type", "application/jsonl")], lines)
            }),
        );
    Server::start(router).await
}

fn client(server: &Server) -> Streaming {
    Streaming::new(&format!("{}/v1", server.url())).unwrap()
}

#[tokio::test]
async fn an_operation_that_answers_json_or_events_is_two_methods() {
    let server = server().await;
    let client = client(&server);
    // Each method sets the body's `stream` flag itself, whatever the caller's body says.
    let request = CompletionRequest {
        prompt: "Say hello".to_owned(),
        stream: None,
    };
    assert_eq!(
        client.create_completion(&request).await.unwrap().text,
        "Hello"
    );
    let mut events = client.create_completion_events(&request).await.unwrap();
    let mut chunks: Vec<CompletionChunk> = Vec::new();
    while let Some(event) = events.next().await {
        chunks.push(event.unwrap().data);
    }
    let text: String = chunks.iter().map(|c| c.delta.as_str()).collect();
    assert_eq!(text, "Hello");
    assert_eq!(chunks[1].index, 1);
}

#[tokio::test]
async fn a_runs_events_are_typed_by_their_names() {
    let server = server().await;
    let mut events = client(&server).watch_run("r7").await.unwrap();
    let mut got = Vec::new();
    while let Some(event) = events.next().await {
        got.push(event.unwrap().data);
    }
    assert_eq!(
        got,
        [
            WatchRunEvent::RunStep(Step {
                name: "r7-plan".to_owned(),
                done: None,
            }),
            WatchRunEvent::RunLog("thinking\nstill".to_owned()),
            WatchRunEvent::Other {
                event: Some("run.cost".to_owned()),
                data: "3".to_owned(),
            },
        ]
    );
}

#[tokio::test]
async fn records_come_as_typed_json_lines() {
    let server = server().await;
    let mut lines = client(&server).export_records(Some(0)).await.unwrap();
    let mut records: Vec<Record> = Vec::new();
    while let Some(line) = lines.next().await {
        records.push(line.unwrap());
    }
    assert_eq!(records.len(), 2);
    assert_eq!((records[0].id, records[0].label.as_deref()), (1, Some("a")));
    assert_eq!((records[1].id, records[1].label.as_deref()), (2, None));
}

#[tokio::test]
async fn a_failure_mid_answer_ends_the_stream_with_the_declared_error() {
    let server = server().await;
    let client = client(&server);
    let request = CompletionRequest {
        prompt: "fail".to_owned(),
        stream: None,
    };
    let mut events = client.create_completion_events(&request).await.unwrap();
    assert_eq!(events.next().await.unwrap().unwrap().data.delta, "Hel");
    let error = events.next().await.unwrap().unwrap_err();
    assert_eq!(error.kind(), remcall::ErrorKind::ErrorEvent, "{error}");
    let failure = error.detail::<Failure>().unwrap();
    assert_eq!(failure.error.message, "CUDA out of memory");
    assert!(events.next().await.is_none());

    // An `error` event among the events by name ends the run's stream the same way.
    let mut events = client.watch_run("r-fail").await.unwrap();
    let mut items = Vec::new();
    while let Some(event) = events.next().await {
        items.push(event);
    }
    assert_eq!(items.len(), 4, "{items:?}");
    let error = items[3].as_ref().unwrap_err();
    assert_eq!(error.kind(), remcall::ErrorKind::ErrorEvent, "{error}");
    let failure = error.detail::<Failure>().unwrap();
    assert_eq!(failure.error.message, "the run was cancelled");
}

/// The spec's `methods:` entry changes how the imported export stream reads (`returns: {
/// error: Failure }`, no `type:`): a failure line ends it.
#[tokio::test]
async fn a_spec_entry_declares_an_imported_streams_error_lines() {
    let server = server().await;
    let mut lines = client(&server).export_records(Some(99)).await.unwrap();
    assert_eq!(lines.next().await.unwrap().unwrap().id, 1);
    let error = lines.next().await.unwrap().unwrap_err();
    assert_eq!(error.kind(), remcall::ErrorKind::ErrorEvent, "{error}");
    assert_eq!(
        error.detail::<Failure>().unwrap().error.message,
        "the export store is gone"
    );
    assert!(lines.next().await.is_none());
}

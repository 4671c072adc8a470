//! Streams wherever a description declares them: a Swagger 2.0 operation that `produces`
//! `application/x-ndjson` is typed JSON Lines (`remcall::Lines<Event>`), not one body of bytes;
//! an OpenAPI 3 event stream whose schema is the event object (`{event, id, data}`) gives its
//! `data`; an event stream of binary items gives each as text. Against a loopback server.

use axum::Router;
use axum::routing::{get, post};
use remcall_example_openapi::feed::{Event, Feed};
use remcall_example_openapi::values::{ChatRequest, JsonResponse, Values};
use testkit::Server;

async fn server() -> Server {
    let ndjson = [("content-type", "application/x-ndjson")];
    let sse = [("content-type", "text/event-stream")];
    let router = Router::new()
        .route(
            "/v1/events",
            get(move || async move {
                (
                    ndjson,
                    "{\"type\":\"start\",\"id\":\"c1\",\"attributes\":{\"image\":\"redis\"}}\n\
                     {\"type\":\"die\",\"id\":\"c1\"}\n",
                )
            }),
        )
        .route(
            "/chat/stream",
            post(move || async move {
                (
                    sse,
                    "event: chunk\nid: 1\ndata: {\"text\":\"Hel\"}\n\n\
                     event: chunk\nid: 2\ndata: {\"text\":\"lo\"}\n\n",
                )
            }),
        )
        .route(
            "/logs",
            get(move || async move { (sse, "data: line one\n\ndata: line two\n\n") }),
        );
    Server::start(router).await
}

#[tokio::test]
async fn a_swagger_feed_of_json_lines_is_a_typed_stream() {
    let server = server().await;
    // The description's `basePath: /v1` is the client's base path: the server's root is its URL.
    let feed = Feed::new(&server.url()).unwrap();
    let mut lines = feed.events().await.unwrap();
    let mut events: Vec<Event> = Vec::new();
    while let Some(line) = lines.next().await {
        events.push(line.unwrap());
    }
    assert_eq!(events.len(), 2);
    assert_eq!(
        (events[0].r#type.as_str(), events[0].id.as_str()),
        ("start", "c1")
    );
    assert_eq!(
        events[0].attributes.as_ref().unwrap()["image"],
        "redis",
        "a map of the event's attributes"
    );
    assert_eq!(events[1].r#type, "die");
}

#[tokio::test]
async fn an_event_object_schema_gives_its_data_and_binary_items_are_text() {
    let server = server().await;
    let values = Values::new(&server.url()).unwrap();
    let mut events = values
        .stream_chat(&ChatRequest::new(Vec::new()))
        .await
        .unwrap();
    let mut chunks: Vec<JsonResponse> = Vec::new();
    while let Some(event) = events.next().await {
        let event = event.unwrap();
        assert_eq!(event.event.as_deref(), Some("chunk"));
        chunks.push(event.data);
    }
    let text: String = chunks.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(text, "Hello");
    let mut logs = values.logs().await.unwrap();
    let mut lines: Vec<String> = Vec::new();
    while let Some(event) = logs.next().await {
        lines.push(event.unwrap().data);
    }
    assert_eq!(lines, ["line one", "line two"]);
}

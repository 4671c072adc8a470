//! An error's message and the server's body: a server that echoes the request in its 422 (as
//! FastAPI does) puts the caller's data into every log line that writes the error, unless the
//! profile's `errors: { body_in_message: 0 }` keeps the body out of `Display` and `Debug`;
//! `Error::body()` still has it for code that asks.

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::serde_json::json;
use remcall::{ErrorKind, Profile};
use testkit::Server;

static CREATE: MethodSpec = MethodSpec {
    index: 0,
    name: "create_flow",
    http_method: "POST",
    path: "/flows",
    idempotent: false,
    reads: false,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Flows",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&CREATE],
};

const PRIVATE: &str = "my-ssn-123-45-6789";

/// A server that refuses every body with a 422 quoting it back.
async fn echoing() -> Server {
    let router = Router::new().route(
        "/flows",
        post(|body: String| async move {
            let echoed = json!({
                "exception_message": "Invalid request received.",
                "request_body": body,
            });
            (StatusCode::UNPROCESSABLE_ENTITY, echoed.to_string())
        }),
    );
    Server::start(router).await
}

fn client(url: &str, yaml: &str) -> Client {
    ClientBuilder::new(&SPEC)
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

async fn refused(client: &Client) -> remcall::Error {
    client
        .call(
            CREATE.request().json(json!({ "limit": PRIVATE })),
            decode::unit,
        )
        .await
        .unwrap_err()
}

#[tokio::test]
async fn with_body_in_message_0_no_byte_of_the_body_reaches_display_or_debug() {
    let server = echoing().await;

    let default = refused(&client(&server.url(), "")).await;
    assert_eq!(default.kind(), ErrorKind::Status);
    assert!(default.to_string().contains(PRIVATE), "{default}");

    let quiet = refused(&client(&server.url(), "errors: { body_in_message: 0 }")).await;
    let (shown, debugged) = (quiet.to_string(), format!("{quiet:?}"));
    for text in [&shown, &debugged] {
        assert!(!text.contains(PRIVATE), "{text}");
        assert!(
            !text.contains("exception_message"),
            "no byte of the body: {text}"
        );
    }
    assert!(shown.contains("422"), "{shown}");
    let body = String::from_utf8_lossy(quiet.body().unwrap()).into_owned();
    assert!(body.contains(PRIVATE), "the body stays reachable: {body}");

    let short = refused(&client(&server.url(), "errors: { body_in_message: 10B }")).await;
    assert!(
        short.to_string().ends_with(": {\"exceptio"),
        "the first 10 bytes: {short}"
    );
}

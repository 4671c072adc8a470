//! What reaches the logs. One test binary with one global subscriber and one test: tracing's
//! per-callsite interest cache makes thread-scoped subscribers unreliable while other tests run
//! in parallel, so the scenarios run here in sequence.

use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use remcall::Profile;
use remcall::serde_json::json;
use remcall_example_committed::clients::user_client::UserClient;
use testkit::Server;
use testkit::logs::Captured;

const SECRET: &str = "s3cr3t-client-value";

#[tokio::test]
async fn logs_carry_calls_and_transitions_but_never_secrets() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    full_level_call_without_secrets(&captured).await;
    breaker_transitions(&captured).await;
    call_spans(&captured).await;
    basic_level_events(&captured).await;
    stream_spans(&captured).await;
}

/// A stream's span covers its life, and its resumption logs inside it, with the number of
/// events delivered and never the event data.
async fn stream_spans(captured: &Captured) {
    use remcall::Event;
    use remcall_example_committed::clients::assistant::stub::AssistantStub;
    use remcall_example_committed::clients::assistant::{Assistant, RunEvent};
    let stub = AssistantStub::start().await.unwrap();
    let note = |n: u32| Event::new(RunEvent::Note(format!("private {n}"))).with_id(n.to_string());
    stub.run_events()
        .with_request_header("last-event-id", "1")
        .returns_events(&[note(2)]);
    stub.run_events().returns_events(&[note(1), note(2)]);
    stub.run_events().faults().cut_after(1).times(1);
    let assistant = Assistant::new(&stub.url()).unwrap();
    let mut events = assistant.run_events("r1").await.unwrap();
    while let Some(event) = events.next().await {
        event.unwrap();
    }
    drop(events);
    let log = captured.take();
    let resumed = log
        .lines()
        .find(|l| l.contains("resuming the stream"))
        .unwrap_or_else(|| panic!("no resumption logged:\n{log}"));
    for field in [
        "remcall.stream{",
        "client=\"Assistant\"",
        "method=\"run_events\"",
        "delivered=1",
    ] {
        assert!(resumed.contains(field), "`{field}` not in {resumed}");
    }
    assert!(!log.contains("private"), "event data logged:\n{log}");
    assert!(
        log.lines()
            .any(|l| l.contains("remcall.stream{") && l.contains(": close")),
        "the stream's span closes when it ends:\n{log}"
    );
}

async fn basic_level_events(captured: &Captured) {
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(|| async { axum::Json(json!({ "id": 1, "name": "Ada" })) }),
    ))
    .await;
    let users = UserClient::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("log: basic").unwrap())
        .build()
        .unwrap();
    users.get_user(42, None, "basic").await.unwrap();
    let log = captured.take();
    let events: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("remcall::http: request") || l.contains("remcall::http: response"))
        .collect();
    assert_eq!(events.len(), 2, "a request and a response:\n{log}");
    for event in events {
        // With several instances, the log says which one answered.
        assert!(
            event.contains(&format!("endpoint=\"{}", server.url())),
            "{event}"
        );
        assert!(
            !event.contains("headers=") && !event.contains("body="),
            "basic logs no empty headers or body: {event}"
        );
    }
}

async fn call_spans(captured: &Captured) {
    let hits = Arc::new(AtomicU16::new(0));
    async fn flaky(
        State(hits): State<Arc<AtomicU16>>,
    ) -> (StatusCode, axum::Json<remcall::serde_json::Value>) {
        // The first attempt fails, the retry succeeds.
        let status = if hits.fetch_add(1, Ordering::SeqCst) == 0 {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::OK
        };
        (status, axum::Json(json!({ "id": 1, "name": "Ada" })))
    }
    let server = Server::start(
        Router::new()
            .route("/v1/api/users/{id}", get(flaky))
            .with_state(hits),
    )
    .await;
    let profile = Profile::from_yaml_str(&format!(
        "log: none\nretry: {{ backoff: {{ initial: 1ms, max: 1ms }} }}\nauth: {{ bearer: {{ token: \"{SECRET}\" }} }}"
    ))
    .unwrap();
    let users = UserClient::builder()
        .base_url(&server.url())
        .profile(profile)
        .build()
        .unwrap();
    users.get_user(42, Some(true), "trace-me").await.unwrap();

    let log = captured.take();
    let closes: Vec<&str> = log
        .lines()
        .filter(|l| {
            l.contains("remcall.call{") && !l.contains("remcall.attempt{") && l.contains(": close")
        })
        .collect();
    assert_eq!(closes.len(), 1, "one span per logical call:\n{log}");
    let close = closes[0];
    for field in [
        "client=\"UserClient\"",
        "method=\"get_user\"",
        "http.method=\"GET\"",
        "url.template=\"/v1/api/users/{id}\"",
        "attempts=2",
        "status=200",
        "outcome=\"success\"",
    ] {
        assert!(close.contains(field), "{field} missing from {close}");
    }
    for field in ["attempts=", "status="] {
        assert_eq!(close.matches(field).count(), 1, "{field} once: {close}");
    }
    assert_eq!(
        log.lines()
            .filter(|l| l.contains("remcall.attempt{") && l.contains(": close"))
            .count(),
        2,
        "{log}"
    );
    assert!(log.contains("retrying"), "a retry is an event: {log}");
    assert!(
        !log.contains(SECRET) && !log.contains("/users/42"),
        "no secret, no filled URL:\n{log}"
    );
}

async fn full_level_call_without_secrets(captured: &Captured) {
    async fn token() -> axum::Json<remcall::serde_json::Value> {
        axum::Json(json!({ "access_token": "tok-1", "expires_in": 3600 }))
    }
    async fn user() -> axum::Json<remcall::serde_json::Value> {
        axum::Json(json!({ "id": 1, "name": "Ada" }))
    }
    let server = Server::start(
        Router::new()
            .route("/oauth/token", post(token))
            .route("/v1/api/users/{id}", get(user)),
    )
    .await;
    let yaml = format!(
        "auth: {{ oauth2: {{ token_url: \"{}/oauth/token\", client_id: app, client_secret: \"{SECRET}\" }} }}\nlog: full\nheaders: {{ X-Api-Key: {{ value: k3y-v4lue, secret: true }}, X-App: crm }}\nquery: {{ key: {{ value: q-v4lue, secret: true }} }}",
        server.url()
    );
    let users = UserClient::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str(&yaml).unwrap())
        .build()
        .unwrap();
    users.get_user(7, None, "req-7").await.unwrap();
    let debug = format!("{users:?}");

    let log = captured.take();
    assert!(log.contains("url.template=\"/v1/api/users/{id}\""), "{log}");
    assert!(
        log.contains("x-app: crm") && log.contains("x-request-id: req-7"),
        "{log}"
    );
    assert!(
        log.contains(r#"body="{\"id\":1,\"name\":\"Ada\"}""#),
        "the full level logs bodies: {log}"
    );
    for secret in [
        SECRET,
        "tok-1",
        "k3y-v4lue",
        "q-v4lue",
        "YXBwOnMzY3IzdC1jbGllbnQtdmFsdWU=",
    ] {
        assert!(
            !log.contains(secret),
            "{secret} leaked into the log:\n{log}"
        );
        assert!(
            !debug.contains(secret),
            "{secret} leaked into Debug: {debug}"
        );
    }
}

async fn breaker_transitions(captured: &Captured) {
    let status = Arc::new(AtomicU16::new(500));
    async fn answer(
        State(status): State<Arc<AtomicU16>>,
        _: HeaderMap,
    ) -> (StatusCode, axum::Json<remcall::serde_json::Value>) {
        (
            StatusCode::from_u16(status.load(Ordering::SeqCst)).unwrap(),
            axum::Json(json!({ "id": 1, "name": "Ada" })),
        )
    }
    let server = Server::start(
        Router::new()
            .route("/v1/api/users/{id}", get(answer))
            .with_state(status.clone()),
    )
    .await;
    let profile = Profile::from_yaml_str(
        "log: none\nretry: { max_attempts: 1 }\nbreaker: { window: { calls: 10 }, min_calls: 5, failure_rate: 50, open_for: 300ms, half_open_calls: 2 }",
    )
    .unwrap();
    let users = UserClient::builder()
        .base_url(&server.url())
        .profile(profile)
        .build()
        .unwrap();
    for _ in 0..5 {
        let _ = users.get_user(1, None, "r").await;
    }
    status.store(200, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(350)).await;
    users.get_user(1, None, "r").await.unwrap();
    users.get_user(1, None, "r").await.unwrap();

    let log = captured.take();
    let transitions: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("circuit breaker state change"))
        .collect();
    assert_eq!(transitions.len(), 3, "{log}");
    for (line, (from, to)) in transitions.iter().zip([
        ("closed", "open"),
        ("open", "half_open"),
        ("half_open", "closed"),
    ]) {
        assert!(line.contains(" INFO "), "{line}");
        assert!(
            line.contains("client=\"UserClient\" method=\"get_user\""),
            "{line}"
        );
        assert!(
            line.contains(&format!("from=\"{from}\" to=\"{to}\"")),
            "{line}"
        );
    }
    assert!(
        !log.contains("remcall::http"),
        "log: none logs no calls:\n{log}"
    );
}

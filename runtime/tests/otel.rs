//! With the `otel` feature, through the `tracing-opentelemetry` layer a service installs and an
//! in-memory exporter: a call is one client span named `{METHOD} {url.template}` with a child
//! span per attempt (`http.request.resend_count` 0, 1), the conventions' attributes, a retry
//! event naming the status that caused it, status `Error` for what failed (a call answered by
//! its fallback included, with a fallback event); and the loopback server sees each attempt's
//! own span in its `traceparent`, or none with `trace_context: off`.
#![cfg(feature = "otel")]

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry::{Key, Value};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::Profile;
use remcall::serde_json::json;
use testkit::Server;
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt;

static GET_ITEM: MethodSpec = MethodSpec {
    index: 0,
    name: "get_item",
    http_method: "GET",
    path: "/items/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Items",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_ITEM],
};

/// A server that fails each item's first request with 503 (item 9: every request), keeping
/// every request's `traceparent`.
async fn server(seen: Arc<Mutex<Vec<Option<String>>>>) -> Server {
    let router = Router::new().route(
        "/items/{id}",
        get(
            move |axum::extract::Path(id): axum::extract::Path<u32>, headers: HeaderMap| {
                let seen = seen.clone();
                async move {
                    let mut seen = seen.lock().unwrap();
                    let parent = headers.get("traceparent");
                    seen.push(parent.and_then(|v| v.to_str().ok()).map(str::to_owned));
                    if id == 9 || seen.len() % 2 == 1 {
                        return StatusCode::SERVICE_UNAVAILABLE.into_response();
                    }
                    axum::Json(json!({ "id": id })).into_response()
                }
            },
        ),
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

async fn get_item(items: &Client, id: u32) -> Result<remcall::serde_json::Value, remcall::Error> {
    items
        .call(GET_ITEM.request().path("id", id), decode::json)
        .await
}

/// Runs `work` under a handler's span with spans exported to memory; the spans.
async fn traced(work: impl Future<Output = ()>) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("remcall-test")));
    let _guard = tracing::subscriber::set_default(subscriber);
    work.instrument(tracing::info_span!("handler")).await;
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key == Key::from(key.to_owned()))
        .map(|kv| &kv.value)
}

fn is_attempt(span: &SpanData) -> bool {
    attribute(span, "http.request.resend_count").is_some()
}

#[tokio::test(flavor = "current_thread")]
async fn a_retried_call_is_an_internal_span_over_a_client_span_per_request_each_on_the_wire() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = server(seen.clone()).await;
    let items = client(
        &server.url(),
        "retry: { max_attempts: 2, backoff: { initial: 1ms, max: 1ms } }",
    );
    let spans = traced(async {
        get_item(&items, 1).await.unwrap();
    })
    .await;

    let handler = spans.iter().find(|s| s.name == "handler").unwrap();
    let calls: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "GET /items/{id}" && !is_attempt(s))
        .collect();
    assert_eq!(calls.len(), 1, "{spans:#?}");
    let call = calls[0];
    // The call is no request of its own: each attempt is, and only they are CLIENT spans.
    assert_eq!(call.span_kind, SpanKind::Internal);
    assert_eq!(call.parent_span_id, handler.span_context.span_id());
    let clients = spans.iter().filter(|s| s.span_kind == SpanKind::Client);
    assert_eq!(
        clients.count(),
        2,
        "one CLIENT span per request sent: {spans:#?}"
    );
    assert_eq!(call.status, Status::Unset, "the call answered");
    assert_eq!(
        attribute(call, "http.request.method"),
        Some(&Value::from("GET"))
    );
    assert_eq!(
        attribute(call, "url.template"),
        Some(&Value::from("/items/{id}"))
    );
    assert_eq!(
        attribute(call, "remcall.client"),
        Some(&Value::from("Items"))
    );
    assert_eq!(
        attribute(call, "http.response.status_code"),
        Some(&Value::I64(200))
    );
    let retry = call
        .events
        .iter()
        .find(|e| e.name == "retrying")
        .unwrap_or_else(|| panic!("no retry event: {:?}", call.events));
    assert!(
        retry
            .attributes
            .iter()
            .any(|kv| kv.key.as_str() == "status" && kv.value == Value::I64(503)),
        "{retry:?}"
    );

    let mut attempts: Vec<_> = spans.iter().filter(|s| is_attempt(s)).collect();
    attempts.sort_by_key(|s| s.start_time);
    assert_eq!(attempts.len(), 2, "{spans:#?}");
    for (resends, attempt) in attempts.iter().enumerate() {
        assert_eq!(attempt.span_kind, SpanKind::Client);
        assert_eq!(attempt.parent_span_id, call.span_context.span_id());
        assert_eq!(
            attribute(attempt, "http.request.resend_count"),
            Some(&Value::I64(resends as i64))
        );
        assert_eq!(
            attribute(attempt, "server.address"),
            Some(&Value::from("127.0.0.1"))
        );
        assert_eq!(
            attribute(attempt, "url.full").map(|v| v.as_str().into_owned()),
            Some(format!("{}/items/1", server.url()))
        );
        assert_eq!(
            attribute(attempt, "network.protocol.version"),
            Some(&Value::from("1.1"))
        );
    }
    assert!(
        matches!(attempts[0].status, Status::Error { .. }),
        "{:?}",
        attempts[0].status
    );
    assert_eq!(
        attribute(attempts[0], "error.type"),
        Some(&Value::from("503"))
    );
    assert_eq!(attempts[1].status, Status::Unset);

    // Each request carried its own attempt's span, in the handler's trace.
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    for (parent, attempt) in seen.iter().zip(&attempts) {
        let context = attempt.span_context.clone();
        assert_eq!(
            parent.as_deref(),
            Some(format!("00-{}-{}-01", context.trace_id(), context.span_id()).as_str())
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_call_its_fallback_answered_is_an_error_span_with_a_fallback_event() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = server(seen.clone()).await;
    let items = client(
        &server.url(),
        "retry: { max_attempts: 1 }\ntrace_context: off",
    );
    let spans = traced(async {
        let answer = items
            .call_or_fallback(
                GET_ITEM.request().path("id", 9),
                decode::json::<remcall::serde_json::Value>,
                |_| async { Ok(json!({ "id": 0 })) },
            )
            .await
            .unwrap();
        assert_eq!(answer["id"], 0);
    })
    .await;
    let call = spans
        .iter()
        .find(|s| s.name == "GET /items/{id}" && !is_attempt(s))
        .unwrap();
    assert!(
        matches!(call.status, Status::Error { .. }),
        "{:?}",
        call.status
    );
    assert_eq!(attribute(call, "error.type"), Some(&Value::from("503")));
    assert!(
        call.events.iter().any(|e| e.name == "fallback taken"),
        "{:?}",
        call.events
    );
    // `trace_context: off`: the server heard nothing of the trace.
    assert_eq!(seen.lock().unwrap().clone(), [None]);
}

fn call_spans(spans: &[SpanData]) -> Vec<&SpanData> {
    let mut calls: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "GET /items/{id}" && !is_attempt(s))
        .collect();
    calls.sort_by_key(|s| s.start_time);
    calls
}

fn has_event(span: &SpanData, name: &str) -> bool {
    span.events.iter().any(|e| e.name == name)
}

/// What the policies decided is read in the trace: a quota wait (with the quota's name), a
/// hedge sent and won, the breaker opening and then short-circuiting a call that is a span of
/// its own, with status `Error`.
#[tokio::test(flavor = "current_thread")]
async fn the_policies_decisions_are_events_of_the_calls_span() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;
    use testkit::quota::{Dialect, QuotaWindow};

    // A quota of 2 calls a second, named `core`: the third call waits for the next window.
    let quota = Arc::new(QuotaWindow::named(
        Dialect::XRateLimit,
        "core",
        2,
        Duration::from_secs(1),
    ));
    let quoted = Server::start(quota.router("/items/{id}", "{\"id\":1}")).await;
    let items = client(&quoted.url(), "retry: { max_attempts: 1 }");
    let spans = traced(async {
        for _ in 0..3 {
            get_item(&items, 1).await.unwrap();
        }
    })
    .await;
    // An attempt waits for its turn: an event of the attempt's span.
    let waited: Vec<_> = spans
        .iter()
        .filter(|s| is_attempt(s))
        .flat_map(|s| s.events.iter())
        .filter(|e| e.name == "quota wait")
        .collect();
    assert_eq!(waited.len(), 1, "{spans:#?}");
    assert!(
        waited[0]
            .attributes
            .iter()
            .any(|kv| kv.key.as_str() == "quota" && kv.value == Value::from("core")),
        "{:?}",
        waited[0]
    );
    assert_eq!(quota.refused(), 0);

    // A first request that takes 2 s: a hedge goes after 50 ms and wins.
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let slow_first = Router::new().route(
        "/items/{id}",
        get(move || {
            let first = counted.fetch_add(1, Ordering::SeqCst) == 0;
            async move {
                if first {
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
                axum::Json(json!({ "id": 1 }))
            }
        }),
    );
    let slow = Server::start(slow_first).await;
    let items = client(
        &slow.url(),
        "retry: { max_attempts: 1 }\nhedge: { delay: 50ms, budget_percent: 100 }",
    );
    let spans = traced(async {
        get_item(&items, 1).await.unwrap();
    })
    .await;
    let call = call_spans(&spans)[0];
    assert!(has_event(call, "hedge sent"), "{:?}", call.events);
    assert!(has_event(call, "hedge won"), "{:?}", call.events);
    assert_eq!(spans.iter().filter(|s| is_attempt(s)).count(), 2);

    // Every call fails: two open the breaker, the third is refused unsent, a span all the same.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let failing = server(seen.clone()).await;
    let items = client(
        &failing.url(),
        "retry: { max_attempts: 1 }\nbreaker: { min_calls: 2, failure_rate: 50, open_for: 30s }",
    );
    let spans = traced(async {
        for _ in 0..3 {
            let _ = get_item(&items, 9).await;
        }
    })
    .await;
    let calls = call_spans(&spans);
    assert_eq!(calls.len(), 3);
    assert!(
        has_event(calls[1], "circuit breaker state change"),
        "{:?}",
        calls[1].events
    );
    assert!(
        has_event(calls[2], "breaker short-circuit"),
        "{:?}",
        calls[2].events
    );
    assert!(matches!(calls[2].status, Status::Error { .. }));
    assert_eq!(
        attribute(calls[2], "error.type"),
        Some(&Value::from("breaker_open"))
    );
    assert_eq!(seen.lock().unwrap().len(), 2, "the third call was not sent");
}

static TICKS: MethodSpec = MethodSpec {
    index: 0,
    name: "ticks",
    http_method: "GET",
    path: "/ticks",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: true,
    profile: "",
};

static STREAMS: ClientSpec = ClientSpec {
    name: "Ticks",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&TICKS],
};

/// A stream broken after its second event and resumed from it: one internal span for its life,
/// a client span for the opening and one for the reconnect, each on the wire in the
/// `traceparent` of its own request.
#[tokio::test(flavor = "current_thread")]
async fn a_resumed_stream_is_one_internal_span_and_each_reconnect_is_a_client_span_on_the_wire() {
    let seen: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let kept = seen.clone();
    let router = Router::new().route(
        "/ticks",
        get(move |headers: HeaderMap| {
            let seen = kept.clone();
            async move {
                let parent = headers.get("traceparent").and_then(|v| v.to_str().ok());
                seen.lock().unwrap().push(parent.map(str::to_owned));
                let body = if headers.contains_key("last-event-id") {
                    "id: 3\ndata: 3\n\n".to_owned()
                } else {
                    // The second event is cut off: the stream breaks after the first.
                    "retry: 1\n\nid: 1\ndata: 1\n\nid: 2\ndata: 2\n\nid: 3\nda".to_owned()
                };
                let mut parts = vec![Ok::<_, std::io::Error>(bytes::Bytes::from(body))];
                if !headers.contains_key("last-event-id") {
                    parts.push(Err(std::io::Error::other("cut")));
                }
                // Apart in time, so the first part is on the wire before the connection breaks.
                let stream = futures_util::stream::unfold(parts.into_iter(), |mut parts| async {
                    let part = parts.next()?;
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    Some((part, parts))
                });
                (
                    [("content-type", "text/event-stream")],
                    axum::body::Body::from_stream(stream),
                )
            }
        }),
    );
    let server = Server::start(router).await;
    let ticks = ClientBuilder::new(&STREAMS)
        .base_url(&server.url())
        .build()
        .unwrap();
    let spans = traced(async {
        let mut events = ticks
            .call_events(
                TICKS.request(),
                &remcall::__codegen::EventsSpec {
                    decode: remcall::__codegen::event_json::<remcall::serde_json::Value>,
                    end: None,
                    errors: None,
                },
            )
            .await
            .unwrap();
        let mut data = Vec::new();
        while let Some(event) = events.next().await {
            data.push(event.unwrap().data);
        }
        assert_eq!(data, [json!(1), json!(2), json!(3)]);
    })
    .await;

    let stream = spans
        .iter()
        .find(|s| s.name == "GET /ticks" && !is_attempt(s))
        .unwrap_or_else(|| panic!("no stream span: {spans:#?}"));
    assert_eq!(stream.span_kind, SpanKind::Internal);
    assert_eq!(stream.status, Status::Unset);
    assert_eq!(
        attribute(stream, "remcall.stream.events"),
        Some(&Value::I64(3))
    );
    assert_eq!(
        attribute(stream, "url.template"),
        Some(&Value::from("/ticks"))
    );
    let mut attempts: Vec<_> = spans.iter().filter(|s| is_attempt(s)).collect();
    attempts.sort_by_key(|s| s.start_time);
    assert_eq!(attempts.len(), 2, "{spans:#?}");
    assert!(attempts.iter().all(|a| a.span_kind == SpanKind::Client));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "the opening and the reconnect");
    for (parent, attempt) in seen.iter().zip(&attempts) {
        assert_eq!(attempt.parent_span_id, stream.span_context.span_id());
        let context = &attempt.span_context;
        assert_eq!(
            parent.as_deref(),
            Some(format!("00-{}-{}-01", context.trace_id(), context.span_id()).as_str())
        );
    }
}

/// What a trace never carries, and what goes to whom: the route under the base URL's path in
/// `url.template`; a method's own credential parameters written `REDACTED` in `url.full`; no
/// byte of the server's body in a retry's event (the caller's error keeps it); `tracestate`
/// only to a client whose profile trusts its servers, and never an empty one.
#[tokio::test(flavor = "current_thread")]
async fn a_trace_carries_no_credential_no_body_and_trace_state_only_where_trusted() {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    let states: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let kept = states.clone();
    let router = Router::new().route(
        "/api/items/{id}",
        get(move |headers: HeaderMap| {
            let states = kept.clone();
            async move {
                let state = headers.get("tracestate").and_then(|v| v.to_str().ok());
                let mut states = states.lock().unwrap();
                states.push(state.map(str::to_owned));
                if states.len() % 2 == 1 {
                    return (
                        StatusCode::SERVICE_UNAVAILABLE,
                        "echo: password=BODY-SECRET",
                    )
                        .into_response();
                }
                axum::Json(json!({ "id": 1 })).into_response()
            }
        }),
    );
    let server = Server::start(router).await;
    let base = format!("{}/api", server.url());
    let retried = "retry: { max_attempts: 2, backoff: { initial: 1ms, max: 1ms } }";
    let plain = client(&base, retried);
    let trusted = client(&base, &format!("{retried}\ntrace_context: trusted"));
    let parent = SpanContext::new(
        TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
        SpanId::from_hex("00f067aa0ba902b7").unwrap(),
        TraceFlags::SAMPLED,
        true,
        TraceState::from_key_value([("vendor", "caller-state")]).unwrap(),
    );
    let spans = traced(async {
        // A request the service received, whose caller's trace carries state of its own.
        let caller = tracing::info_span!("caller");
        let remote = opentelemetry::Context::new().with_remote_span_context(parent);
        caller.set_parent(remote).unwrap();
        let calls = async {
            for items in [&plain, &trusted] {
                let request = GET_ITEM
                    .request()
                    .path("id", 1)
                    .query("access_token", "TOKEN-SECRET")
                    .query("Signature", "SIG-SECRET")
                    .query("page", 2);
                let answer = items.call(request, decode::json::<remcall::serde_json::Value>);
                answer.await.unwrap();
            }
        };
        calls.instrument(caller).await;
        // A trace whose state is empty: no `tracestate:` of nothing, even to a trusted server.
        let request = GET_ITEM.request().path("id", 1);
        let answer = trusted.call(request, decode::json::<remcall::serde_json::Value>);
        answer.await.unwrap();
    })
    .await;

    let states = states.lock().unwrap().clone();
    assert_eq!(states.len(), 6, "two attempts a call");
    assert_eq!(&states[..2], [None, None], "not to an untrusted server");
    assert_eq!(
        &states[2..4],
        [
            Some("vendor=caller-state".to_owned()),
            Some("vendor=caller-state".to_owned())
        ],
        "to a trusted one"
    );
    assert_eq!(&states[4..], [None, None], "an empty state is not sent");
    let attempts: Vec<_> = spans.iter().filter(|s| is_attempt(s)).collect();
    assert_eq!(attempts.len(), 6, "{spans:#?}");
    for span in spans
        .iter()
        .filter(|s| s.name != "handler" && s.name != "caller")
    {
        assert_eq!(span.name, "GET /api/items/{id}");
        assert_eq!(
            attribute(span, "url.template"),
            Some(&Value::from("/api/items/{id}"))
        );
        let everything = format!("{:?} {:?}", span.attributes, span.events);
        for secret in ["TOKEN-SECRET", "SIG-SECRET", "BODY-SECRET"] {
            assert!(!everything.contains(secret), "{secret} in {everything}");
        }
    }
    let full = attribute(attempts[0], "url.full")
        .unwrap()
        .as_str()
        .into_owned();
    assert!(
        full.ends_with("/api/items/1?access_token=REDACTED&Signature=REDACTED&page=2"),
        "{full}"
    );
}

/// An empty secret is refused when it is made, not sent as `Bearer `.
#[test]
fn an_empty_secret_is_refused_when_it_is_made() {
    assert!(remcall::profile::Secret::value("").is_err());
    assert!(remcall::profile::Secret::value(" ").is_err());
    assert!(remcall::profile::Secret::value("t0ken").is_ok());
}

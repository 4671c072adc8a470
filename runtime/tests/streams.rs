//! Event and JSON Lines streams through a hand-written client spec, against loopback servers
//! that stream, break off, stall and never end an event: typed items, the declared end,
//! resumption with `Last-Event-ID` (each event once), the typed error of a stream that cannot
//! be resumed, `timeout.idle`, `max_event_bytes`, the bulkhead slot held while open, the breaker
//! and the statistics.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::HeaderMap;
use axum::routing::{get, post};
use bytes::Bytes;
use remcall::__codegen::{
    Client, ClientBuilder, ClientSpec, ErrorEvents, EventsSpec, LinesSpec, MethodSpec, event_json,
    line_json,
};
use remcall::serde_json::{Value, json};
use remcall::{BreakerState, Error, ErrorKind, Events, Profile};
use testkit::Server;

/// How the tests' event streams read: each event's data a `T`, until `[DONE]`, no error events.
fn until_done<T: remcall::serde::de::DeserializeOwned>() -> EventsSpec<T> {
    EventsSpec {
        decode: event_json,
        end: Some("[DONE]"),
        errors: None,
    }
}

/// How the tests' JSON Lines streams read: each line a `T`, no error lines.
fn lines_of<T: remcall::serde::de::DeserializeOwned>() -> LinesSpec<T> {
    LinesSpec {
        decode: line_json,
        errors: None,
    }
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

static COMPLETE: MethodSpec = MethodSpec {
    index: 1,
    name: "complete",
    http_method: "POST",
    path: "/complete",
    idempotent: false,
    reads: false,
    not_found_none: false,
    streams: true,
    profile: "",
};

static LOG: MethodSpec = MethodSpec {
    index: 2,
    name: "log",
    http_method: "GET",
    path: "/log",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: true,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Streams",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&TICKS, &COMPLETE, &LOG],
};

fn client_at(url: &str, yaml: &str) -> Client {
    ClientBuilder::new(&SPEC)
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

/// A body of `parts` sent as they are; `then_break` aborts it after them.
fn body_of(parts: Vec<String>, then_break: bool) -> Body {
    let mut items: Vec<std::io::Result<Bytes>> =
        parts.into_iter().map(|p| Ok(Bytes::from(p))).collect();
    if then_break {
        items.push(Err(std::io::Error::other("the server broke off")));
    }
    let stream = futures_util::stream::unfold(items.into_iter(), |mut items| async move {
        let item = items.next()?;
        tokio::time::sleep(Duration::from_millis(5)).await;
        Some((item, items))
    });
    Body::from_stream(stream)
}

fn sse(body: Body) -> ([(&'static str, &'static str); 1], Body) {
    ([("content-type", "text/event-stream")], body)
}

async fn ticks(client: &Client) -> Result<Events<Value>, Error> {
    client
        .call_events(TICKS.request(), &until_done::<Value>())
        .await
}

/// Every item of a stream, errors included.
async fn drain<T: Send + 'static>(mut events: Events<T>) -> Vec<Result<remcall::Event<T>, Error>> {
    let mut items = Vec::new();
    while let Some(item) = events.next().await {
        items.push(item);
    }
    items
}

#[tokio::test]
async fn typed_events_end_at_the_declared_end() {
    let router = Router::new().route(
        "/ticks",
        get(|| async {
            let parts = vec![
                ": a comment\n\nevent: tick\ndata: {\"n\": 1}\n\n".to_owned(),
                "data: {\"n\":".to_owned(),
                " 2}\r\n\r\ndata: [DONE]\n\ndata: {\"n\": 3}\n\n".to_owned(),
            ];
            sse(body_of(parts, false))
        }),
    );
    let server = Server::start(router).await;
    let client = client_at(&server.url(), "");
    let events = ticks(&client).await.unwrap();
    assert_eq!(client.stats().method("ticks").unwrap().streams_open, 1);
    let items = drain(events).await;
    let events: Vec<_> = items.into_iter().map(Result::unwrap).collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0].data, json!({ "n": 1 }));
    assert_eq!(events[0].event.as_deref(), Some("tick"));
    assert_eq!(events[1].data, json!({ "n": 2 }));
    assert_eq!(events[1].event, None);
    let stats = client.stats().method("ticks").unwrap().clone();
    assert_eq!((stats.calls, stats.successes, stats.events), (1, 1, 2));
    assert_eq!(stats.streams_open, 0);
    assert!(stats.stream_bytes > 40);
    let received = server.received();
    assert_eq!(received[0].headers["accept"], "text/event-stream");
}

/// A server that numbers its events 1 to 6 and resumes after the `Last-Event-ID` it is sent;
/// the first connection breaks off after event 3 and half of event 4.
fn numbered(breaks: Arc<AtomicUsize>, with_ids: bool) -> Router {
    let handler = move |headers: HeaderMap| {
        let breaks = breaks.clone();
        async move {
            let after: usize = headers
                .get("last-event-id")
                .and_then(|v| v.to_str().ok()?.parse().ok())
                .unwrap_or(0);
            let first = breaks.fetch_sub(1, Ordering::SeqCst) > 0;
            let mut parts = vec!["retry: 10\n\n".to_owned()];
            for n in after + 1..=6 {
                let id = if with_ids {
                    format!("id: {n}\n")
                } else {
                    String::new()
                };
                parts.push(format!("{id}data: {{\"n\": {n}}}\n\n"));
                if first && n == 3 {
                    parts.push("id: 4\ndata: {\"n\": 4".to_owned());
                    return sse(body_of(parts, true));
                }
            }
            parts.push("data: [DONE]\n\n".to_owned());
            sse(body_of(parts, false))
        }
    };
    Router::new()
        .route("/ticks", get(handler.clone()))
        .route("/complete", post(handler))
}

#[tokio::test]
async fn a_broken_stream_with_ids_resumes_and_each_event_comes_once() {
    let server = Server::start(numbered(Arc::new(AtomicUsize::new(1)), true)).await;
    let client = client_at(&server.url(), "");
    let items = drain(ticks(&client).await.unwrap()).await;
    let numbers: Vec<i64> = items
        .iter()
        .map(|item| item.as_ref().unwrap().data["n"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
    let ids: Vec<_> = items
        .iter()
        .map(|i| i.as_ref().unwrap().id.clone().unwrap())
        .collect();
    assert_eq!(ids, ["1", "2", "3", "4", "5", "6"]);
    let received = server.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].headers["last-event-id"], "3");
    let stats = client.stats().method("ticks").unwrap().clone();
    assert_eq!(
        (
            stats.calls,
            stats.resumes,
            stats.events,
            stats.streams_broken
        ),
        (1, 1, 6, 0)
    );
}

/// A server's `retry:` is bounded as its `Retry-After` is (`retry.retry_after.max`): a stream
/// that asks for three years before its resumption is resumed within the bound, and with
/// `retry_after: { max: 0s }` the field is ignored for the backoff. (Unbounded, this test would
/// wait out its own 20 s limit.)
#[tokio::test]
async fn a_servers_retry_field_is_bounded_like_its_retry_after() {
    for profile in [
        "retry: { retry_after: { max: 50ms } }",
        "retry: { retry_after: { max: 0s }, backoff: { initial: 10ms, max: 20ms } }",
    ] {
        let breaks = Arc::new(AtomicUsize::new(1));
        let router = Router::new().route(
            "/ticks",
            get(move |headers: HeaderMap| {
                let first = breaks.fetch_sub(1, Ordering::SeqCst) > 0;
                async move {
                    if first {
                        let parts =
                            vec!["retry: 99999999999\nid: 1\ndata: {\"n\": 1}\n\n".to_owned()];
                        return sse(body_of(parts, true));
                    }
                    assert_eq!(headers["last-event-id"], "1");
                    sse(body_of(
                        vec!["data: {\"n\": 2}\n\ndata: [DONE]\n\n".to_owned()],
                        false,
                    ))
                }
            }),
        );
        let server = Server::start(router).await;
        let client = client_at(&server.url(), profile);
        let items = tokio::time::timeout(Duration::from_secs(20), async {
            drain(ticks(&client).await.unwrap()).await
        })
        .await
        .unwrap_or_else(|_| panic!("the stream still waits for its `retry:` ({profile})"));
        let numbers: Vec<i64> = items
            .iter()
            .map(|item| item.as_ref().unwrap().data["n"].as_i64().unwrap())
            .collect();
        assert_eq!(numbers, [1, 2], "{profile}");
        assert_eq!(client.stats().method("ticks").unwrap().resumes, 1);
    }
}

#[tokio::test]
async fn a_broken_stream_without_ids_ends_with_an_error_counting_its_events() {
    let server = Server::start(numbered(Arc::new(AtomicUsize::new(1)), false)).await;
    let client = client_at(&server.url(), "");
    let items = drain(ticks(&client).await.unwrap()).await;
    assert_eq!(items.len(), 4, "three events and the error");
    let error = items[3].as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Connect);
    assert_eq!(error.delivered(), Some(3));
    let text = error.to_string();
    assert!(
        text.starts_with("Streams.ticks: the stream broke off after 3 items"),
        "{text}"
    );
    assert!(text.contains("no event id"), "{text}");
    assert_eq!(server.received().len(), 1);
    let stats = client.stats().method("ticks").unwrap().clone();
    assert_eq!(
        (stats.resumes, stats.streams_broken, stats.streams_open),
        (0, 1, 0)
    );
}

#[tokio::test]
async fn a_post_stream_is_not_resumed_since_it_may_not_be_repeated() {
    let server = Server::start(numbered(Arc::new(AtomicUsize::new(1)), true)).await;
    let client = client_at(&server.url(), "");
    let events = client
        .call_events(COMPLETE.request().json(json!({})), &until_done::<Value>())
        .await
        .unwrap();
    let items = drain(events).await;
    let error = items.last().unwrap().as_ref().unwrap_err();
    assert!(error.to_string().contains("idempotent: true"), "{error}");
    assert_eq!(error.delivered(), Some(3));
    assert_eq!(server.received().len(), 1);
}

/// A server of `/ticks` that sends one event, then nothing for longer than a test runs.
fn one_event_then_silence() -> Router {
    Router::new().route(
        "/ticks",
        get(|| async {
            let stream = futures_util::stream::unfold(0, |n| async move {
                if n > 0 {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                }
                Some((Ok::<_, std::io::Error>(Bytes::from("data: {}\n\n")), n + 1))
            });
            sse(Body::from_stream(stream))
        }),
    )
}

#[tokio::test]
async fn a_silent_stream_ends_after_the_idle_timeout() {
    let server = Server::start(one_event_then_silence()).await;
    let client = client_at(&server.url(), "timeout: { idle: 150ms }");
    let started = std::time::Instant::now();
    let items = drain(ticks(&client).await.unwrap()).await;
    assert_eq!(items.len(), 2);
    let error = items[1].as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Timeout);
    assert!(
        error.to_string().contains("sent nothing for 150ms"),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[tokio::test]
async fn an_event_that_never_ends_is_refused_within_max_event_bytes() {
    let router = Router::new().route(
        "/ticks",
        get(|| async {
            let chunk = Bytes::from(vec![b'x'; 1024]);
            let stream = futures_util::stream::iter(
                std::iter::once(Ok::<_, std::io::Error>(Bytes::from("data: ")))
                    .chain(std::iter::repeat_n(chunk, 100_000).map(Ok)),
            );
            sse(Body::from_stream(stream))
        }),
    );
    let server = Server::start(router).await;
    let client = client_at(&server.url(), "max_event_bytes: 8KiB");
    let items = drain(ticks(&client).await.unwrap()).await;
    assert_eq!(items.len(), 1);
    let error = items[0].as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BodyTooLarge);
    assert!(error.to_string().contains("8192 bytes"), "{error}");
    let read = client.stats().method("ticks").unwrap().stream_bytes;
    assert!(read < 64 << 10, "read {read} bytes of a 100 MB event");
}

#[tokio::test]
async fn an_open_stream_holds_its_bulkhead_slot_until_dropped() {
    let server = Server::start(one_event_then_silence()).await;
    let client = client_at(
        &server.url(),
        "isolation: { semaphore: { max_concurrent: 1, max_wait: 0s } }",
    );
    let mut open = ticks(&client).await.unwrap();
    assert!(open.next().await.unwrap().is_ok());
    let refused = ticks(&client).await.unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Rejected);
    assert_eq!(
        client.stats().method("ticks").unwrap().bulkhead,
        Some((1, 1))
    );
    drop(open);
    let again = ticks(&client).await;
    assert!(again.is_ok(), "{again:?}");
}

#[tokio::test]
async fn failed_openings_are_retried_and_open_the_breaker() {
    let hits = Arc::new(AtomicUsize::new(0));
    let seen = hits.clone();
    let router = Router::new().route(
        "/ticks",
        get(move || {
            seen.fetch_add(1, Ordering::SeqCst);
            async { (axum::http::StatusCode::SERVICE_UNAVAILABLE, "down") }
        }),
    );
    let server = Server::start(router).await;
    let client = client_at(
        &server.url(),
        "retry: { max_attempts: 2, backoff: { initial: 1ms } }\n\
         breaker: { window: { calls: 4 }, min_calls: 2, failure_rate: 50, open_for: 10s }",
    );
    for _ in 0..2 {
        let error = ticks(&client).await.unwrap_err();
        assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        4,
        "two openings, each retried once"
    );
    let stats = client.stats().method("ticks").unwrap().clone();
    assert_eq!(stats.breaker, BreakerState::Open);
    assert_eq!(
        ticks(&client).await.unwrap_err().kind(),
        ErrorKind::BreakerOpen
    );
}

#[tokio::test]
async fn json_lines_are_typed_and_the_last_may_go_without_its_newline() {
    let router = Router::new().route(
        "/log",
        get(|| async {
            let parts = vec![
                "{\"n\": 1}\n\n{\"n\"".to_owned(),
                ": 2}\r\n{\"n\": \"three\"}\n{\"n\": 4}".to_owned(),
            ];
            (
                [("content-type", "application/x-ndjson")],
                body_of(parts, false),
            )
        }),
    );
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Line {
        n: u32,
    }
    let server = Server::start(router).await;
    let client = client_at(&server.url(), "");
    let mut lines = client
        .call_lines(LOG.request(), &lines_of::<Line>())
        .await
        .unwrap();
    let mut items = Vec::new();
    while let Some(item) = lines.next().await {
        items.push(item);
    }
    assert_eq!(items.len(), 4);
    assert_eq!(items[0].as_ref().unwrap(), &Line { n: 1 });
    assert_eq!(items[1].as_ref().unwrap(), &Line { n: 2 });
    let error = items[2].as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    assert!(
        error
            .to_string()
            .starts_with("Streams.log: a streamed line"),
        "{error}"
    );
    assert_eq!(items[3].as_ref().unwrap(), &Line { n: 4 });
    assert_eq!(client.stats().method("log").unwrap().events, 4);
}

/// A stream asks for the media types its format reads, unless its profile asks for one itself:
/// a server that answers JSON or JSON lines by `Accept` alone (a task's log) is told which.
#[tokio::test]
async fn a_stream_asks_with_the_accept_its_profile_sets() {
    let router = Router::new().route(
        "/log",
        get(|| async { ([("content-type", "application/x-ndjson")], "{\"n\": 1}\n") }),
    );
    let server = Server::start(router).await;
    for yaml in ["", "headers: { Accept: application/x-ndjson }"] {
        let client = client_at(&server.url(), yaml);
        let mut lines = client
            .call_lines(LOG.request(), &lines_of::<Value>())
            .await
            .unwrap();
        while lines.next().await.is_some() {}
    }
    let received = server.received();
    let accepts: Vec<&str> = received
        .iter()
        .map(|r| r.headers["accept"].to_str().unwrap())
        .collect();
    assert_eq!(
        accepts,
        [
            "application/jsonl, application/x-ndjson",
            "application/x-ndjson"
        ]
    );
}

/// An event that does not decode says where and what it was: its `event:` and `id:`, the JSON
/// path and the declared type, and keeps its data (the first 512 bytes) as the error's body;
/// the stream goes on to the next event.
#[tokio::test]
async fn an_event_that_does_not_decode_is_located_and_keeps_its_data() {
    #[derive(Debug, remcall::serde::Deserialize)]
    #[serde(crate = "remcall::serde")]
    #[allow(dead_code)]
    struct Tick {
        n: u32,
    }
    let router = Router::new().route(
        "/ticks",
        get(|| async {
            let parts = vec![
                "event: tick\nid: 7\ndata: {\"n\": \"seven\"}\n\n".to_owned(),
                "event: tick\nid: 8\ndata: {\"n\": 8}\n\ndata: [DONE]\n\n".to_owned(),
            ];
            sse(body_of(parts, false))
        }),
    );
    let server = Server::start(router).await;
    let client = client_at(&server.url(), "");
    let events = client
        .call_events(TICKS.request(), &until_done::<Tick>())
        .await
        .unwrap();
    let items = drain(events).await;
    assert_eq!(items.len(), 2, "{items:?}");
    let error = items[0].as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    assert_eq!(error.body(), Some(&b"{\"n\": \"seven\"}"[..]));
    let text = error.to_string();
    assert!(
        text.starts_with("Streams.ticks: a streamed event (event: 'tick', id: '7') is not the declared type: at `$.n`: string \"seven\", where the description says u32"),
        "{text}"
    );
    assert_eq!(items[1].as_ref().unwrap().data.n, 8);
}

/// `decode: lax` repairs a streamed event's data and a JSON line as it repairs a body, and
/// counts each repair as the method's drift; strict, the same items are errors.
/// A server that reports a failure as the data of an unnamed event (`{"error": ..}`): with
/// error events declared, that event ends the stream with the decoded error, in lax mode too
/// (where the chunk's type would otherwise be repaired out of it); an event that is neither the
/// item nor the error stays a `Decode` item, and the stream goes on past it.
#[tokio::test]
async fn an_unnamed_error_event_ends_the_stream_even_in_lax_mode() {
    #[derive(Debug, remcall::serde::Deserialize)]
    #[serde(crate = "remcall::serde")]
    struct Tick {
        n: u32,
    }
    #[derive(Debug, PartialEq, remcall::serde::Deserialize)]
    #[serde(crate = "remcall::serde")]
    struct Oops {
        error: String,
    }
    let router = Router::new().route(
        "/ticks",
        get(|| async {
            let parts = vec![
                "data: {\"n\": 1}\n\n".to_owned(),
                "data: {\"other\": true}\n\n".to_owned(),
                "data: {\"error\": \"CUDA out of memory\"}\n\n".to_owned(),
                "data: {\"n\": 2}\n\ndata: [DONE]\n\n".to_owned(),
            ];
            sse(body_of(parts, false))
        }),
    );
    let server = Server::start(router).await;
    let errors = ErrorEvents::of::<Oops>(None, &["error"]);
    let quiet = "errors: { body_in_message: 0 }";
    for profile in ["", "decode: lax", quiet] {
        let client = client_at(&server.url(), profile);
        let events = client
            .call_events(
                TICKS.request(),
                &EventsSpec {
                    decode: event_json::<Tick>,
                    end: Some("[DONE]"),
                    errors: Some(errors),
                },
            )
            .await
            .unwrap();
        let items = drain(events).await;
        assert_eq!(items.len(), 3, "{profile}: {items:?}");
        assert_eq!(items[0].as_ref().unwrap().data.n, 1);
        if profile == quiet {
            // The profile's limit holds for a stream's errors as for a call's: the server's text
            // stays out of the message, and `body()` and `detail()` keep it for who asks.
            let (undecodable, reported) = (
                items[1].as_ref().unwrap_err(),
                items[2].as_ref().unwrap_err(),
            );
            for error in [undecodable, reported] {
                let shown = format!("{error} {error:?}");
                assert!(
                    !shown.contains("other") && !shown.contains("CUDA"),
                    "{shown}"
                );
                assert!(!error.body().unwrap_or_default().is_empty());
            }
            assert_eq!(
                reported.detail::<Oops>().unwrap().error,
                "CUDA out of memory"
            );
            continue;
        }
        if profile.is_empty() {
            assert_eq!(items[1].as_ref().unwrap_err().kind(), ErrorKind::Decode);
        } else {
            // Lax mode repairs what is no error: a tick of n = 0.
            assert_eq!(items[1].as_ref().unwrap().data.n, 0);
        }
        let error = items[2].as_ref().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::ErrorEvent, "{profile}: {error}");
        let oops = error.detail::<Oops>().unwrap();
        assert_eq!(oops.error, "CUDA out of memory");
        assert_eq!(
            error.to_string(),
            "Streams.ticks: the server reported an error in the stream: its event: {\"error\": \"CUDA out of memory\"}"
        );
    }
}

#[tokio::test]
async fn lax_decoding_repairs_events_and_lines_and_counts_their_drift() {
    #[derive(Debug, remcall::serde::Deserialize)]
    #[serde(crate = "remcall::serde")]
    struct Tick {
        n: u32,
        label: String,
    }
    let router = Router::new()
        .route(
            "/ticks",
            get(|| async {
                let parts = vec![
                    "data: {\"n\": null, \"label\": \"a\"}\n\n".to_owned(),
                    "data: {\"n\": 2, \"label\": [\"b\"]}\n\ndata: [DONE]\n\n".to_owned(),
                ];
                sse(body_of(parts, false))
            }),
        )
        .route(
            "/log",
            get(|| async {
                body_of(
                    vec!["{\"n\": 1}\n{\"n\": 2, \"label\": \"x\"}\n".to_owned()],
                    false,
                )
            }),
        );
    let server = Server::start(router).await;
    for (profile, lax) in [("", false), ("decode: lax", true)] {
        let client = client_at(&server.url(), profile);
        let events = client
            .call_events(TICKS.request(), &until_done::<Tick>())
            .await
            .unwrap();
        let events = drain(events).await;
        let lines = client
            .call_lines(LOG.request(), &lines_of::<Tick>())
            .await
            .unwrap();
        let mut lines = lines;
        let mut read = Vec::new();
        while let Some(line) = lines.next().await {
            read.push(line);
        }
        let stats = client.stats();
        if !lax {
            assert!(events.iter().all(Result::is_err), "{events:?}");
            assert!(read[0].is_err() && read[1].is_ok(), "{read:?}");
            assert_eq!(stats.method("ticks").unwrap().drift, 0);
            continue;
        }
        let events: Vec<Tick> = events.into_iter().map(|e| e.unwrap().data).collect();
        assert_eq!((events[0].n, events[0].label.as_str()), (0, "a"));
        assert_eq!((events[1].n, events[1].label.as_str()), (2, r#"["b"]"#));
        let lines: Vec<Tick> = read.into_iter().map(Result::unwrap).collect();
        assert_eq!((lines[0].n, lines[0].label.as_str()), (1, ""));
        assert_eq!(stats.method("ticks").unwrap().drift, 2);
        assert_eq!(stats.method("log").unwrap().drift, 1);
    }
}

/// The dashboard's figures count a stream's events and its breaks second by second, so a
/// streamed method's card draws them and a broken stream colours its health.
#[cfg(feature = "dashboard")]
#[tokio::test]
async fn the_dashboard_counts_a_streams_events_and_breaks() {
    use remcall::Observe;
    let server = Server::start(numbered(Arc::new(AtomicUsize::new(1)), false)).await;
    let client = client_at(&server.url(), "");
    let items = drain(ticks(&client).await.unwrap()).await;
    assert_eq!(items.len(), 4, "three events and the error");
    // The seconds shown are the complete ones: this one ends on the paused clock.
    tokio::time::pause();
    tokio::time::advance(Duration::from_secs(1)).await;
    let figures = remcall::dashboard::snapshot(&[client.observe()]);
    let recent = &figures["clients"][0]["methods"]["ticks"]["last_10s"];
    assert_eq!(recent["events"], 3, "{figures:#}");
    assert_eq!(recent["streams_broken"], 1, "{figures:#}");
    assert_eq!(recent["resumes"], 0, "{figures:#}");
}

//! The cache (`cache:`) against loopback servers: a fresh answer answers again unsent, an
//! `ETag` revalidates to a 304 that answers with the kept body, `no-store` is never kept, one
//! credential's answer is never another's, and a kept answer stands in for a failed call within
//! `stale_if_error`, then no longer.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::serde_json::{Value, json};
use remcall::{BoxError, ErrorKind, Interceptor, Outgoing, Profile};
use testkit::Server;

static GET_DOC: MethodSpec = MethodSpec {
    index: 0,
    name: "get_doc",
    http_method: "GET",
    path: "/docs/{id}",
    idempotent: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Docs",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_DOC],
};

fn client(url: &str, yaml: &str) -> Client {
    ClientBuilder::new(&SPEC)
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

async fn get_doc(client: &Client, id: u32) -> Result<Value, remcall::Error> {
    client
        .call(GET_DOC.request().path("id", id), decode::json)
        .await
}

fn stats(client: &Client) -> remcall::MethodStats {
    let stats = client.stats();
    let (_, method) = stats
        .methods
        .iter()
        .find(|(name, _)| *name == "get_doc")
        .expect("get_doc's figures");
    method.clone()
}

/// A document server whose answers carry `cache_control` (and an `ETag`), counting full
/// answers and 304s.
async fn documents(cache_control: &'static str) -> (Server, Arc<AtomicU64>, Arc<AtomicU64>) {
    let full = Arc::new(AtomicU64::new(0));
    let not_modified = Arc::new(AtomicU64::new(0));
    let (f, n) = (full.clone(), not_modified.clone());
    let router = Router::new().route(
        "/docs/{id}",
        get(move |headers: HeaderMap| {
            let (full, not_modified) = (f.clone(), n.clone());
            async move {
                let mut out = HeaderMap::new();
                out.insert("etag", HeaderValue::from_static("\"v1\""));
                out.insert("cache-control", HeaderValue::from_static(cache_control));
                if headers.get("if-none-match").is_some_and(|v| v == "\"v1\"") {
                    not_modified.fetch_add(1, Ordering::Relaxed);
                    return (StatusCode::NOT_MODIFIED, out, String::new());
                }
                full.fetch_add(1, Ordering::Relaxed);
                let body = json!({ "title": "Design", "text": "x".repeat(4000) });
                (StatusCode::OK, out, body.to_string())
            }
        }),
    );
    (Server::start(router).await, full, not_modified)
}

#[tokio::test]
async fn a_fresh_answer_answers_again_without_asking_the_server() {
    let (server, full, _) = documents("max-age=60").await;
    let client = client(&server.url(), "cache: { memory: 1MiB }");
    for _ in 0..10 {
        assert_eq!(get_doc(&client, 7).await.unwrap()["title"], "Design");
    }
    assert_eq!(full.load(Ordering::Relaxed), 1);
    assert_eq!(server.received().len(), 1);
    assert_eq!(stats(&client).cache_hits, 9);
    // Another URL is another answer.
    get_doc(&client, 8).await.unwrap();
    assert_eq!(full.load(Ordering::Relaxed), 2);
}

#[tokio::test]
async fn an_etag_revalidates_and_a_304_answers_with_the_kept_body() {
    let (server, full, not_modified) = documents("no-cache").await;
    let client = client(&server.url(), "cache: {}");
    for _ in 0..100 {
        let doc = get_doc(&client, 1).await.unwrap();
        assert_eq!(doc["text"].as_str().unwrap().len(), 4000);
    }
    assert_eq!(full.load(Ordering::Relaxed), 1, "the body came once");
    assert_eq!(not_modified.load(Ordering::Relaxed), 99);
    let stats = stats(&client);
    assert_eq!((stats.revalidated, stats.cache_hits), (99, 0));
    // The requests after the first asked with the kept ETag.
    let received = server.received();
    assert!(received[1..].iter().all(|r| {
        r.headers
            .get("if-none-match")
            .is_some_and(|v| v == "\"v1\"")
    }));
}

#[tokio::test]
async fn without_cache_in_the_profile_and_with_no_store_nothing_is_kept() {
    let (server, full, _) = documents("max-age=60").await;
    let plain = client(&server.url(), "");
    for _ in 0..3 {
        get_doc(&plain, 1).await.unwrap();
    }
    assert_eq!(full.load(Ordering::Relaxed), 3);
    let (server, full, _) = documents("no-store").await;
    let cached = client(&server.url(), "cache: {}");
    for _ in 0..3 {
        get_doc(&cached, 1).await.unwrap();
    }
    assert_eq!(full.load(Ordering::Relaxed), 3);
    assert!(
        server
            .received()
            .iter()
            .all(|r| r.headers.get("if-none-match").is_none())
    );
}

/// Signs each call with the next of two tokens: one client, two credentials.
#[derive(Debug, Default)]
struct TwoTenants(AtomicUsize);

impl Interceptor for TwoTenants {
    async fn before_send(&self, request: &mut Outgoing) -> Result<(), BoxError> {
        let tenant = self.0.fetch_add(1, Ordering::Relaxed) % 2;
        let mut token = HeaderValue::from_str(&format!("Bearer tenant-{tenant}"))?;
        token.set_sensitive(true);
        request.headers.insert("authorization", token);
        Ok(())
    }
}

#[tokio::test]
async fn one_credentials_answer_is_never_another_credentials() {
    let router = Router::new().route(
        "/docs/{id}",
        get(|headers: HeaderMap| async move {
            let who = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned();
            // Public and fresh for a minute: only the key keeps tenants apart.
            (
                [("cache-control", "public, max-age=60")],
                json!({ "for": who }).to_string(),
            )
                .into_response()
        }),
    );
    let server = Server::start(router).await;
    let client = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("cache: {}").unwrap())
        .interceptor(TwoTenants::default())
        .build()
        .unwrap();
    for call in 0..10 {
        let doc = get_doc(&client, 1).await.unwrap();
        assert_eq!(
            doc["for"],
            format!("Bearer tenant-{}", call % 2),
            "call {call}"
        );
    }
    assert_eq!(
        server.received().len(),
        2,
        "one answer per credential, then kept"
    );
    assert_eq!(stats(&client).cache_hits, 8);
}

/// A document server that answers `max-age=0` (stale at once) until `failing` is 1, then 503.
async fn kept_or_down() -> (Server, Arc<AtomicU64>) {
    let failing = Arc::new(AtomicU64::new(0));
    let f = failing.clone();
    let router = Router::new().route(
        "/docs/{id}",
        get(move || {
            let failing = f.clone();
            async move {
                if failing.load(Ordering::Relaxed) == 1 {
                    return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
                }
                ([("cache-control", "max-age=0")], "{\"title\":\"kept\"}").into_response()
            }
        }),
    );
    (Server::start(router).await, failing)
}

#[tokio::test]
async fn a_kept_answer_stands_in_for_a_failed_call_within_stale_if_error_then_no_longer() {
    let (server, failing) = kept_or_down().await;
    let client = client(
        &server.url(),
        "cache: { stale_if_error: 400ms }\nretry: { max_attempts: 2, backoff: { initial: 1ms, max: 1ms } }",
    );
    assert_eq!(get_doc(&client, 1).await.unwrap()["title"], "kept");
    failing.store(1, Ordering::Relaxed);
    // The server fails every attempt: the kept answer answers, counted, and the failure counts.
    assert_eq!(get_doc(&client, 1).await.unwrap()["title"], "kept");
    let stats = stats(&client);
    assert_eq!((stats.served_stale, stats.failures), (1, 1));
    // Another URL has nothing kept: the failure is the caller's.
    let error = get_doc(&client, 2).await.unwrap_err();
    assert_eq!(error.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
    // Past the window, the failure too.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let error = get_doc(&client, 1).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Status, "{error}");
    assert!(error.to_string().contains("get_doc"), "{error}");
}

#[tokio::test]
async fn a_stopped_server_is_answered_for_by_the_kept_answer() {
    let router = Router::new().route(
        "/docs/{id}",
        get(|| async { ([("cache-control", "max-age=0")], "{\"title\":\"kept\"}") }),
    );
    let server = Server::start(router).await;
    let client = client(
        &server.url(),
        "cache: { stale_if_error: 10m }\nretry: { max_attempts: 1 }",
    );
    get_doc(&client, 3).await.unwrap();
    server.stop().await;
    // The connection is refused: the kept answer answers.
    assert_eq!(get_doc(&client, 3).await.unwrap()["title"], "kept");
    assert_eq!(stats(&client).served_stale, 1);
    // A document never kept: the refusal is the caller's.
    let error = get_doc(&client, 4).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Connect, "{error}");
}

#[tokio::test]
async fn a_call_the_open_breaker_refuses_is_answered_by_the_kept_answer() {
    let (server, failing) = kept_or_down().await;
    let client = client(
        &server.url(),
        "cache: { stale_if_error: 10m }\nretry: { max_attempts: 1 }\nbreaker: { window: { calls: 10 }, min_calls: 2, failure_rate: 50, open_for: 60s }",
    );
    get_doc(&client, 1).await.unwrap();
    failing.store(1, Ordering::Relaxed);
    // A failure the kept answer answers opens the breaker (one success, one failure: 50 % of
    // its 2 calls), which sees it as the failure it is; the next call it refuses…
    for _ in 0..2 {
        assert_eq!(get_doc(&client, 1).await.unwrap()["title"], "kept");
    }
    let sent = server.received().len();
    // …and the calls it refuses, unsent, are answered by the kept answer too.
    assert_eq!(get_doc(&client, 1).await.unwrap()["title"], "kept");
    assert_eq!(
        server.received().len(),
        sent,
        "refused by the breaker: nothing sent"
    );
    let stats = stats(&client);
    assert_eq!((stats.served_stale, stats.short_circuited), (3, 2));
    // A document never kept: the breaker's refusal is the caller's.
    let error = get_doc(&client, 2).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BreakerOpen, "{error}");
}

#[tokio::test]
async fn a_kept_answer_answers_at_once_though_the_quota_is_spent() {
    // Fresh for a minute, and the last call of the quota's minute.
    let router = Router::new().route(
        "/docs/{id}",
        get(|| async {
            let mut out = HeaderMap::new();
            out.insert("cache-control", HeaderValue::from_static("max-age=60"));
            out.insert("x-ratelimit-limit", HeaderValue::from_static("10"));
            out.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
            out.insert("x-ratelimit-reset", HeaderValue::from_static("60"));
            (
                StatusCode::OK,
                out,
                json!({ "title": "Design" }).to_string(),
            )
        }),
    );
    let server = Server::start(router).await;
    let client = client(&server.url(), "cache: {}\ntimeout: { total: 1s }");
    get_doc(&client, 7).await.unwrap();
    // The quota is spent for a minute, past the call's deadline: the server would not be asked,
    // but the cache answers without asking it.
    assert_eq!(get_doc(&client, 7).await.unwrap()["title"], "Design");
    assert_eq!(stats(&client).cache_hits, 1);
    // Another URL has nothing kept: the spent quota refuses it, unsent.
    let error = get_doc(&client, 8).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RateLimited, "{error}");
    assert_eq!(server.received().len(), 1);
}

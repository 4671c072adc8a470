//! The cache (`cache:`) against loopback servers: a fresh answer answers again unsent, an
//! `ETag` revalidates to a 304 that answers with the kept body, `no-store` is never kept, one
//! credential's answer is never another's, and a kept answer stands in for a failed call within
//! `stale_if_error`, then no longer.
//!
//! And against hostile servers and callers that share one client: an answer kept for one
//! caller is never another's — through a stale lookup that ignored `Vary`, or a key that forgot
//! a header parameter or an interceptor's header; an answer the interceptors refused is neither
//! served again nor believed about its quota; no number a server writes in `Cache-Control` or
//! `Age` makes a call panic; `baggage` and `tracestate` (a tenant's context) key the answer;
//! a write marked `idempotent: true` is never answered from the cache.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::serde_json::{Value, json};
use remcall::{BoxError, CallInfo, ErrorKind, Interceptor, Outgoing, Profile, Response};
use testkit::Server;

static GET_DOC: MethodSpec = MethodSpec {
    index: 0,
    name: "get_doc",
    http_method: "GET",
    path: "/docs/{id}",
    idempotent: true,
    reads: true,
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

/// `get_doc(1)` for the user whose token goes in the method's `X-User-Token` header parameter.
async fn doc_for(client: &Client, token: &str) -> Result<Value, remcall::Error> {
    let request = GET_DOC
        .request()
        .path("id", 1)
        .header("x-user-token", token);
    client.call(request, decode::json).await
}

/// A server that answers each user with its own document (`{"for": token}`) under
/// `cache_control` and `Vary: X-User-Token`, until `down` is 1; then 503.
async fn per_user(cache_control: &'static str) -> (Server, Arc<AtomicU64>) {
    let down = Arc::new(AtomicU64::new(0));
    let d = down.clone();
    let router = Router::new().route(
        "/docs/{id}",
        get(move |headers: HeaderMap| {
            let down = d.clone();
            async move {
                if down.load(Ordering::SeqCst) == 1 {
                    return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
                }
                let who = headers
                    .get("x-user-token")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                (
                    [("cache-control", cache_control), ("vary", "X-User-Token")],
                    json!({ "for": who }).to_string(),
                )
                    .into_response()
            }
        }),
    );
    (Server::start(router).await, down)
}

#[tokio::test]
async fn a_stale_answer_for_a_failed_call_honours_vary_as_a_fresh_one_does() {
    // The profile says the token does not key the answer; the server's `Vary` says it does,
    // and its own `stale-if-error` a day long (the profile's is 0s).
    let (server, down) = per_user("max-age=0, stale-if-error=86400").await;
    let client = client(
        &server.url(),
        "cache: { stale_if_error: 0s, unkeyed: [x-user-token] }\nretry: { max_attempts: 1 }",
    );
    assert_eq!(doc_for(&client, "alice").await.unwrap()["for"], "alice");
    down.store(1, Ordering::SeqCst);
    // Alice's kept answer still answers alice's failed call…
    assert_eq!(doc_for(&client, "alice").await.unwrap()["for"], "alice");
    assert_eq!(stats(&client).served_stale, 1);
    // …and never bob's: his call fails as the server did.
    let error = doc_for(&client, "bob").await.unwrap_err();
    assert_eq!(
        error.status(),
        Some(StatusCode::SERVICE_UNAVAILABLE),
        "{error}"
    );
    assert_eq!(stats(&client).served_stale, 1);
}

#[tokio::test]
async fn a_call_the_breaker_refuses_gets_no_other_callers_stale_answer() {
    let (server, down) = per_user("max-age=0, stale-if-error=86400").await;
    let client = client(
        &server.url(),
        "cache: { unkeyed: [x-user-token] }\nretry: { max_attempts: 1 }\nbreaker: { window: { calls: 4 }, min_calls: 2, failure_rate: 50, open_for: 60s }",
    );
    doc_for(&client, "alice").await.unwrap();
    down.store(1, Ordering::SeqCst);
    for _ in 0..2 {
        assert_eq!(doc_for(&client, "alice").await.unwrap()["for"], "alice");
    }
    // The breaker is open: bob's call is refused unsent, and alice's answer is not his.
    let error = doc_for(&client, "bob").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BreakerOpen, "{error}");
}

#[tokio::test]
async fn a_header_parameter_keys_the_answer_though_the_server_says_nothing_of_it() {
    // Public, fresh for a minute, no `Vary`: only the key keeps the users apart.
    let router = Router::new().route(
        "/docs/{id}",
        get(|headers: HeaderMap| async move {
            let header = |name: &str| {
                headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned()
            };
            (
                [("cache-control", "public, max-age=60")],
                json!({ "for": header("x-user-token"), "tenant": header("x-tenant-id") })
                    .to_string(),
            )
        }),
    );
    let server = Server::start(router).await;
    let client = client(&server.url(), "cache: {}");
    for round in 0..3 {
        for user in ["alice", "bob"] {
            assert_eq!(
                doc_for(&client, user).await.unwrap()["for"],
                user,
                "{round}"
            );
        }
    }
    assert_eq!(server.received().len(), 2, "one answer per user, then kept");

    // An interceptor's header, not marked as a credential, keys the answer too.
    let tenants = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("cache: {}").unwrap())
        .interceptor(Tenants::default())
        .build()
        .unwrap();
    for call in 0..6 {
        let doc = doc_for(&tenants, "carol").await.unwrap();
        assert_eq!(doc["tenant"], format!("t{}", call % 2), "call {call}");
    }
    assert_eq!(server.received().len(), 4);
}

#[tokio::test]
async fn a_header_the_profile_leaves_out_of_the_key_does_not_split_the_answers() {
    let router = Router::new().route(
        "/docs/{id}",
        get(|| async { ([("cache-control", "max-age=60")], "{\"title\":\"kept\"}") }),
    );
    let server = Server::start(router).await;
    let client = client(&server.url(), "cache: { unkeyed: [X-Request-Id] }");
    for n in 0..5 {
        let request = GET_DOC
            .request()
            .path("id", 1)
            .header("x-request-id", format!("req-{n}"));
        client.call(request, decode::json::<Value>).await.unwrap();
    }
    assert_eq!(server.received().len(), 1);
}

/// Sets `X-Tenant-Id` to t0, t1, t0, … on successive calls, as a plain header.
#[derive(Default)]
struct Tenants(AtomicUsize);

impl Interceptor for Tenants {
    async fn before_send(&self, request: &mut Outgoing) -> Result<(), BoxError> {
        let tenant = self.0.fetch_add(1, Ordering::Relaxed) % 2;
        request
            .headers
            .insert("x-tenant-id", HeaderValue::from_str(&format!("t{tenant}"))?);
        Ok(())
    }
}

/// Refuses an answer whose body says it was tampered with (as a signature check would).
struct Verifier;

impl Interceptor for Verifier {
    async fn after_receive(&self, _call: &CallInfo, response: &Response) -> Result<(), BoxError> {
        if response.body.windows(8).any(|w| w == b"tampered") {
            return Err("the answer's signature does not hold".into());
        }
        Ok(())
    }
}

#[tokio::test]
async fn an_answer_the_verifier_refuses_is_neither_kept_nor_heard_about_its_quota() {
    let tampered = Arc::new(AtomicU64::new(1));
    let t = tampered.clone();
    let router = Router::new().route(
        "/docs/{id}",
        get(move || {
            let tampered = t.load(Ordering::SeqCst) == 1;
            async move {
                let mut out = HeaderMap::new();
                out.insert("cache-control", HeaderValue::from_static("max-age=60"));
                if tampered {
                    // And none left for a day: believed, it would stop every call.
                    out.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
                    out.insert("x-ratelimit-reset", HeaderValue::from_static("86400"));
                    return (out, "{\"title\":\"tampered\"}").into_response();
                }
                (out, "{\"title\":\"genuine\"}").into_response()
            }
        }),
    );
    let server = Server::start(router).await;
    let client = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .profile(
            Profile::from_yaml_str("cache: {}\nretry: { max_attempts: 1 }\ntimeout: { total: 2s }")
                .unwrap(),
        )
        .interceptor(Verifier)
        .build()
        .unwrap();
    for call in 1..=3 {
        let error = client
            .call(GET_DOC.request().path("id", 1), decode::json::<Value>)
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Interceptor, "call {call}: {error}");
        assert_eq!(server.received().len(), call, "each call asked the server");
    }
    assert_eq!(stats(&client).cache_hits, 0);
    assert!(
        client.stats().quotas.is_empty(),
        "{:?}",
        client.stats().quotas
    );
    tampered.store(0, Ordering::SeqCst);
    let doc = client
        .call(GET_DOC.request().path("id", 1), decode::json::<Value>)
        .await
        .unwrap();
    assert_eq!(doc["title"], "genuine");
}

#[tokio::test]
async fn no_number_in_cache_control_or_age_makes_a_call_panic() {
    const HOSTILE: [(&str, &str); 9] = [
        ("max-age=18446744073709551615", ""),
        ("max-age=18446744073709551616", ""),
        ("max-age=60", "18446744073709551615"),
        ("max-age=60", "99999999999999999999999999"),
        ("max-age=0, stale-if-error=18446744073709551615", ""),
        ("s-maxage=18446744073709551615, max-age=-1", "-5"),
        (
            "max-age=1e400, stale-while-revalidate=18446744073709551615",
            "1e19",
        ),
        ("max-age=60, max-age=18446744073709551615", "inf"),
        ("immutable, max-age=\"18446744073709551615\"", "0"),
    ];
    let which = Arc::new(AtomicUsize::new(0));
    let w = which.clone();
    let router = Router::new().route(
        "/docs/{id}",
        get(move || {
            let (cache_control, age) = HOSTILE[w.load(Ordering::SeqCst)];
            async move {
                let mut out = HeaderMap::new();
                out.insert("cache-control", HeaderValue::from_static(cache_control));
                if !age.is_empty() {
                    out.insert("age", HeaderValue::from_static(age));
                }
                out.insert("etag", HeaderValue::from_static("\"v1\""));
                (out, "{\"title\":\"doc\"}")
            }
        }),
    );
    let server = Server::start(router).await;
    for (index, (cache_control, age)) in HOSTILE.iter().enumerate() {
        which.store(index, Ordering::SeqCst);
        let client = client(&server.url(), "cache: { stale_if_error: 10m }");
        // Each call in a task of its own: a panic is a failed join, named here.
        for call in 0..3 {
            let client = client.clone();
            let answer = tokio::spawn(async move {
                client
                    .call(GET_DOC.request().path("id", 1), decode::json::<Value>)
                    .await
            })
            .await
            .unwrap_or_else(|e| panic!("`{cache_control}` / Age `{age}`, call {call}: {e}"));
            assert_eq!(answer.unwrap()["title"], "doc");
        }
    }
}

static GET_KEPT_LONG: MethodSpec = MethodSpec {
    index: 0,
    name: "get_kept_long",
    http_method: "GET",
    path: "/docs/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "cache: { stale_if_error: 10m }\nretry: { max_attempts: 1 }",
};

static GET_KEPT_FRESH_ONLY: MethodSpec = MethodSpec {
    index: 1,
    name: "get_kept_fresh_only",
    http_method: "GET",
    path: "/docs/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "cache: { stale_if_error: 0s }\nretry: { max_attempts: 1 }",
};

static TWO_CACHES: ClientSpec = ClientSpec {
    name: "TwoCaches",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_KEPT_LONG, &GET_KEPT_FRESH_ONLY],
};

#[tokio::test]
async fn each_method_keeps_its_own_cache_settings_whichever_calls_first() {
    let (server, failing) = kept_or_down().await;
    let client = ClientBuilder::new(&TWO_CACHES)
        .base_url(&server.url())
        .build()
        .unwrap();
    let doc = |method: &'static MethodSpec, id: u32| {
        let client = client.clone();
        async move {
            client
                .call(method.request().path("id", id), decode::json::<Value>)
                .await
        }
    };
    // The method without a stale window calls first, then the one with ten minutes.
    doc(&GET_KEPT_FRESH_ONLY, 1).await.unwrap();
    doc(&GET_KEPT_LONG, 2).await.unwrap();
    failing.store(1, Ordering::Relaxed);
    // Each method's own window: the kept answer stands in for the one, not for the other.
    assert_eq!(doc(&GET_KEPT_LONG, 2).await.unwrap()["title"], "kept");
    let error = doc(&GET_KEPT_FRESH_ONLY, 1).await.unwrap_err();
    assert_eq!(
        error.status(),
        Some(StatusCode::SERVICE_UNAVAILABLE),
        "{error}"
    );
}

static FILTER_FLOWS: MethodSpec = MethodSpec {
    index: 0,
    name: "filter_flows",
    http_method: "POST",
    path: "/flows/filter",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static CREATE_FLOW: MethodSpec = MethodSpec {
    index: 1,
    name: "create_flow",
    http_method: "POST",
    path: "/flows",
    idempotent: false,
    reads: false,
    not_found_none: false,
    streams: false,
    profile: "",
};

static FLOWS: ClientSpec = ClientSpec {
    name: "Flows",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&FILTER_FLOWS, &CREATE_FLOW],
};

/// A query sent as POST (Prefect's `POST /flows/filter`), marked `safe: true`: each answer is
/// kept under its body's digest, the server is asked every time while it answers, and when it
/// fails the answer to the same body stands in (another body's never); a POST that writes
/// keeps nothing.
#[tokio::test]
async fn a_query_sent_as_post_is_kept_by_its_body_for_failures_only() {
    let failing = Arc::new(AtomicU64::new(0));
    let asked = Arc::new(AtomicUsize::new(0));
    let (f, a) = (failing.clone(), asked.clone());
    let answer = move |body: axum::Json<Value>| {
        let (failing, asked) = (f.clone(), a.clone());
        async move {
            asked.fetch_add(1, Ordering::SeqCst);
            if failing.load(Ordering::Relaxed) == 1 {
                return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
            }
            axum::Json(json!({ "for": body.0["name"] })).into_response()
        }
    };
    let router = Router::new()
        .route("/flows/filter", axum::routing::post(answer.clone()))
        .route("/flows", axum::routing::post(answer));
    let server = Server::start(router).await;
    let flows = ClientBuilder::new(&FLOWS)
        .base_url(&server.url())
        .profile(
            Profile::from_yaml_str("cache: { stale_if_error: 10m }\nretry: { max_attempts: 1 }")
                .unwrap(),
        )
        .build()
        .unwrap();
    let filter = |name: &'static str| {
        flows.call(
            FILTER_FLOWS.request().json(json!({ "name": name })),
            decode::json::<Value>,
        )
    };
    let create = |name: &'static str| {
        flows.call(
            CREATE_FLOW.request().json(json!({ "name": name })),
            decode::json::<Value>,
        )
    };
    assert_eq!(filter("a").await.unwrap()["for"], "a");
    assert_eq!(filter("a").await.unwrap()["for"], "a");
    assert_eq!(create("a").await.unwrap()["for"], "a");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        3,
        "never answered from the cache while up"
    );

    failing.store(1, Ordering::Relaxed);
    assert_eq!(
        filter("a").await.unwrap()["for"],
        "a",
        "the same body's kept answer"
    );
    let error = filter("b").await.unwrap_err();
    assert_eq!(error.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
    let error = create("a").await.unwrap_err();
    assert_eq!(
        error.status(),
        Some(StatusCode::SERVICE_UNAVAILABLE),
        "a write: not kept"
    );
    let figures = flows.stats();
    let of = |name: &str| {
        figures
            .methods
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(of("filter_flows").served_stale, 1);
    assert_eq!(of("filter_flows").cache_hits, 0);
    assert_eq!(of("create_flow").served_stale, 0);
}

static CREATE_TRANSFER: MethodSpec = MethodSpec {
    index: 0,
    name: "create_transfer",
    http_method: "POST",
    path: "/transfers",
    idempotent: true,
    reads: false,
    not_found_none: false,
    streams: false,
    profile: "",
};

static TRANSFERS: ClientSpec = ClientSpec {
    name: "Transfers",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&CREATE_TRANSFER],
};

/// A write marked `idempotent: true` (retries allowed) under `stale_if_error`: a second,
/// identical transfer that the server refused is that refusal, never the first transfer's
/// "created" answered as its success.
#[tokio::test]
async fn a_write_marked_idempotent_is_never_answered_from_the_cache() {
    let failing = Arc::new(AtomicU64::new(0));
    let created = Arc::new(AtomicU64::new(0));
    let (f, c) = (failing.clone(), created.clone());
    let router = Router::new().route(
        "/transfers",
        axum::routing::post(move |_body: axum::Json<Value>| {
            let (failing, created) = (f.clone(), c.clone());
            async move {
                if failing.load(Ordering::Relaxed) == 1 {
                    return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
                }
                let id = created.fetch_add(1, Ordering::SeqCst) + 1;
                axum::Json(json!({ "created": id })).into_response()
            }
        }),
    );
    let server = Server::start(router).await;
    let transfers = ClientBuilder::new(&TRANSFERS)
        .base_url(&server.url())
        .profile(
            Profile::from_yaml_str("cache: { stale_if_error: 10m }\nretry: { max_attempts: 1 }")
                .unwrap(),
        )
        .build()
        .unwrap();
    let transfer = || {
        transfers.call(
            CREATE_TRANSFER
                .request()
                .json(json!({ "to": "acct-9", "amount": 100 })),
            decode::json::<Value>,
        )
    };
    assert_eq!(transfer().await.unwrap()["created"], 1);
    failing.store(1, Ordering::Relaxed);
    let refused = transfer().await.unwrap_err();
    assert_eq!(
        refused.status(),
        Some(StatusCode::SERVICE_UNAVAILABLE),
        "the refused transfer is a refusal: {refused}"
    );
    let stats = transfers.stats();
    let (_, figures) = &stats.methods[0];
    assert_eq!(figures.served_stale, 0);
}

/// A server that answers with the `baggage` it was sent (a tenant's), fresh for a minute.
async fn per_tenant() -> (Server, Arc<AtomicU64>) {
    let asked = Arc::new(AtomicU64::new(0));
    let counted = asked.clone();
    let router = Router::new().route(
        "/docs/{id}",
        get(move |headers: HeaderMap| {
            let asked = counted.clone();
            async move {
                asked.fetch_add(1, Ordering::SeqCst);
                let tenant = headers
                    .get("baggage")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                let mut out = HeaderMap::new();
                out.insert("cache-control", HeaderValue::from_static("max-age=60"));
                (StatusCode::OK, out, json!({ "for": tenant }).to_string())
            }
        }),
    );
    (Server::start(router).await, asked)
}

/// W3C `baggage` and `tracestate` carry the caller's context (a tenant, a user): the same on
/// every call of that caller, so they key the answer; only `traceparent`, new on each call,
/// does not. Tenant B is never answered with tenant A's document, fresh or stale.
#[tokio::test]
async fn baggage_and_tracestate_key_the_answer_and_traceparent_does_not() {
    let (server, asked) = per_tenant().await;
    let client = client(
        &server.url(),
        "cache: { stale_if_error: 10m }\nretry: { max_attempts: 1 }",
    );
    let doc = |baggage: &'static str, tracestate: &'static str, parent: &'static str| {
        client.call(
            GET_DOC
                .request()
                .path("id", 1)
                .header("baggage", baggage)
                .header("tracestate", tracestate)
                .header("traceparent", parent),
            decode::json::<Value>,
        )
    };
    const PARENT_1: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const PARENT_2: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    assert_eq!(
        doc("tenant=a", "v=1", PARENT_1).await.unwrap()["for"],
        "tenant=a"
    );
    // Another call of tenant A (a new traceparent): answered from the cache.
    assert_eq!(
        doc("tenant=a", "v=1", PARENT_2).await.unwrap()["for"],
        "tenant=a"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    // Tenant B, and tenant A with another tracestate: each asks the server.
    assert_eq!(
        doc("tenant=b", "v=1", PARENT_1).await.unwrap()["for"],
        "tenant=b"
    );
    doc("tenant=a", "v=2", PARENT_1).await.unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 3);
    // Server gone: tenant C gets no other tenant's kept answer.
    drop(server);
    let refused = doc("tenant=c", "v=1", PARENT_1).await.unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Connect, "{refused}");
}

static GET_SHARED_OWN: MethodSpec = MethodSpec {
    index: 0,
    name: "get_shared_own",
    http_method: "GET",
    path: "/docs/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "cache: { shared: { redis: \"redis://127.0.0.1:1\", key: other, secret: \"${SECRET_OF_A_METHOD}\" } }",
};

static SHARED_BY_A_METHOD: ClientSpec = ClientSpec {
    name: "SharedByAMethod",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_SHARED_OWN],
};

/// `cache.shared` is the client's (one Redis link, one key space): a method's own profile
/// that shares otherwise is refused when the client is built, naming the method, rather than
/// ignored.
#[test]
fn a_method_profile_sharing_the_cache_otherwise_is_refused() {
    let error = ClientBuilder::new(&SHARED_BY_A_METHOD)
        .base_url("http://127.0.0.1:1")
        .build()
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config, "{error}");
    assert_eq!(error.method(), "get_shared_own", "{error}");
    assert!(error.to_string().contains("cache.shared"), "{error}");
}

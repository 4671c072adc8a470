//! Quotas (`quota: { from_headers: auto }`, on by default) against hostile loopback servers: no
//! reset or wait a server writes makes a call panic; one answer cannot stop a client for longer
//! than its profile's `retry.retry_after.max` (a probe goes through after it), nor any method
//! whose own answers never named that quota; a server naming a new quota on every answer does
//! not grow the client.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::serde_json::Value;
use remcall::{ErrorKind, Profile};
use testkit::Server;

static GET_REPO: MethodSpec = MethodSpec {
    index: 0,
    name: "get_repo",
    http_method: "GET",
    path: "/repos/{id}",
    idempotent: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static GET_USER: MethodSpec = MethodSpec {
    index: 1,
    name: "get_user",
    http_method: "GET",
    path: "/users/{id}",
    idempotent: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Hosted",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_REPO, &GET_USER],
};

fn hosted(url: &str, yaml: &str) -> Client {
    ClientBuilder::new(&SPEC)
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

async fn repo(client: &Client) -> Result<Value, remcall::Error> {
    client
        .call(GET_REPO.request().path("id", 1), decode::json)
        .await
}

async fn user(client: &Client) -> Result<Value, remcall::Error> {
    client
        .call(GET_USER.request().path("id", 1), decode::json)
        .await
}

/// A server whose `/repos` answers carry `headers` (with `status`), and whose `/users` answers
/// say nothing of quotas; it counts the requests each route got.
async fn server(
    status: StatusCode,
    headers: &'static [(&'static str, &'static str)],
) -> (Server, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let repos = Arc::new(AtomicUsize::new(0));
    let users = Arc::new(AtomicUsize::new(0));
    let (r, u) = (repos.clone(), users.clone());
    let router = Router::new()
        .route(
            "/repos/{id}",
            get(move || {
                r.fetch_add(1, Ordering::SeqCst);
                async move {
                    let mut out = HeaderMap::new();
                    for (name, value) in headers {
                        out.insert(*name, HeaderValue::from_static(value));
                    }
                    (status, out, "{\"id\":1}").into_response()
                }
            }),
        )
        .route(
            "/users/{id}",
            get(move || {
                u.fetch_add(1, Ordering::SeqCst);
                async { "{\"id\":2}" }
            }),
        );
    (Server::start(router).await, repos, users)
}

#[tokio::test]
async fn no_reset_or_wait_a_server_writes_makes_a_call_panic() {
    let values = [
        "inf",
        "1e19",
        "18446744073709551615",
        "18446744073709551616",
        "1e308",
        "NaN",
        "-1",
    ];
    let names = [
        "x-ratelimit-reset",
        "ratelimit-reset",
        "x-ratelimit-reset-after",
        "retry-after",
    ];
    for name in names {
        for value in values {
            let router = Router::new().route(
                "/repos/{id}",
                get(move || async move {
                    let mut out = HeaderMap::new();
                    out.insert(name, HeaderValue::from_static(value));
                    out.insert("x-ratelimit-remaining", HeaderValue::from_static("5"));
                    out.insert("ratelimit-remaining", HeaderValue::from_static("5"));
                    (out, "{\"id\":1}")
                }),
            );
            let server = Server::start(router).await;
            let client = hosted(&server.url(), "timeout: { total: 2s }");
            for call in 0..3 {
                let client = client.clone();
                let answer = tokio::spawn(async move { repo(&client).await })
                    .await
                    .unwrap_or_else(|e| panic!("{name}: {value}, call {call}: {e}"));
                if let Err(error) = answer {
                    // Held past the deadline is the one failure allowed: never a panic.
                    assert_eq!(
                        error.kind(),
                        ErrorKind::RateLimited,
                        "{name}: {value}: {error}"
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn none_left_for_a_day_holds_the_method_no_longer_than_the_users_cap_and_no_other_method() {
    let (server, repos, users) = server(
        StatusCode::OK,
        &[
            ("x-ratelimit-limit", "60"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "86400"),
        ],
    )
    .await;
    let client = hosted(
        &server.url(),
        "retry: { retry_after: { max: 300ms } }\ntimeout: { total: 5s }",
    );
    repo(&client).await.unwrap();
    // A method whose answers never named the quota is not held by it.
    for _ in 0..5 {
        user(&client).await.unwrap();
    }
    assert_eq!(users.load(Ordering::SeqCst), 5);
    // The spent method waits the cap, then its call goes as the probe and is answered.
    let started = tokio::time::Instant::now();
    repo(&client).await.unwrap();
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(250), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    assert_eq!(
        repos.load(Ordering::SeqCst),
        2,
        "the probe reached the server"
    );
}

#[tokio::test]
async fn a_refusals_pause_is_bounded_by_retry_after_max_and_the_retry_succeeds() {
    // The first answer is a 429 asking for 30 s; the profile caps the server's wait at 400ms.
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let router = Router::new().route(
        "/repos/{id}",
        get(move || {
            let call = c.fetch_add(1, Ordering::SeqCst);
            async move {
                if call == 0 {
                    return (
                        StatusCode::TOO_MANY_REQUESTS,
                        [("retry-after", "30")],
                        "slow down",
                    )
                        .into_response();
                }
                "{\"id\":1}".into_response()
            }
        }),
    );
    let server = Server::start(router).await;
    let client = hosted(
        &server.url(),
        "retry: { max_attempts: 3, retry_after: { max: 400ms } }\ntimeout: { total: 3s }",
    );
    let started = tokio::time::Instant::now();
    repo(&client).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    // A refusal with a wait in year 9999 pauses no longer either.
    let router = Router::new().route(
        "/repos/{id}",
        get(|| async {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                [("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT")],
                "down",
            )
        }),
    );
    let server = Server::start(router).await;
    let client = hosted(
        &server.url(),
        "retry: { max_attempts: 1, retry_after: { max: 200ms } }\ntimeout: { total: 2s }",
    );
    assert!(repo(&client).await.is_err());
    let started = tokio::time::Instant::now();
    let error = repo(&client).await.unwrap_err();
    assert_eq!(
        error.status(),
        Some(StatusCode::SERVICE_UNAVAILABLE),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(server.received().len(), 2, "the second call was sent");
}

#[tokio::test]
async fn a_server_naming_a_new_quota_on_every_answer_leaves_a_bounded_few() {
    let n = Arc::new(AtomicUsize::new(0));
    let counter = n.clone();
    let router = Router::new().route(
        "/repos/{id}",
        get(move || {
            let name = format!("q-{}", counter.fetch_add(1, Ordering::SeqCst));
            async move {
                let mut out = HeaderMap::new();
                out.insert(
                    "x-ratelimit-resource",
                    HeaderValue::from_str(&name).unwrap(),
                );
                out.insert("x-ratelimit-limit", HeaderValue::from_static("1000"));
                out.insert("x-ratelimit-remaining", HeaderValue::from_static("999"));
                out.insert("x-ratelimit-reset", HeaderValue::from_static("60"));
                (out, "{\"id\":1}")
            }
        }),
    );
    let server = Server::start(router).await;
    let client = hosted(&server.url(), "");
    for _ in 0..300 {
        repo(&client).await.unwrap();
    }
    let quotas = client.stats().quotas;
    assert!(quotas.len() <= 32, "{} quotas kept", quotas.len());
}

//! Quotas the server announces, against a loopback server that enforces one: 20 calls per
//! 2-second window, announced in each dialect servers speak (the IETF fields, `X-RateLimit-*`,
//! GitHub's with a 403 when spent). 60 calls six at a time: with `quota: { from_headers: auto }`
//! (the default) the server refuses none; with it off, it refuses some and the calls get
//! through only by retrying. A spent quota fails a call that cannot wait without sending it.
//!
//! And against hostile servers: no reset or wait a server writes makes a call panic; one answer
//! cannot stop a client for longer than its profile's `retry.retry_after.max` (a probe goes
//! through after it), nor any method whose own answers never named that quota; a server naming
//! a new quota on every answer does not grow the client.

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
use testkit::quota::{Dialect, QuotaWindow};

static GET_REPO: MethodSpec = MethodSpec {
    index: 0,
    name: "get_repo",
    http_method: "GET",
    path: "/repos/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

/// A second route, whose answers say nothing of quotas (`none_left_for_a_day_…`).
static GET_USER: MethodSpec = MethodSpec {
    index: 1,
    name: "get_user",
    http_method: "GET",
    path: "/users/{id}",
    idempotent: true,
    reads: true,
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

async fn server(dialect: Dialect) -> (Server, Arc<QuotaWindow>) {
    let window = Arc::new(QuotaWindow::new(dialect, 20, Duration::from_secs(2)));
    let router = window.router("/repos/{id}", "{\"id\":1}");
    (Server::start(router).await, window)
}

fn client(url: &str, yaml: &str) -> Client {
    ClientBuilder::new(&SPEC)
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

/// 60 calls, six at a time; the errors' kinds.
async fn sixty_calls(client: &Client) -> Vec<ErrorKind> {
    six_at_a_time(client, &[&GET_REPO], 10).await
}

/// `batches` of six calls at a time, each call of the next of `methods` in turn; the errors'
/// kinds.
async fn six_at_a_time(
    client: &Client,
    methods: &[&'static MethodSpec],
    batches: usize,
) -> Vec<ErrorKind> {
    let mut failures = Vec::new();
    for _ in 0..batches {
        let batch = (0..6).map(|i| {
            let client = client.clone();
            let method = methods[i % methods.len()];
            async move {
                client
                    .call(method.request().path("id", i), decode::json::<Value>)
                    .await
            }
        });
        for result in futures_util::future::join_all(batch).await {
            if let Err(error) = result {
                failures.push(error.kind());
            }
        }
    }
    failures
}

// Retries of the default profile on 429 (with Retry-After) and budgets wide enough that, with
// quotas off, refused calls still get through by retrying: the difference is the refusals.
const GENEROUS: &str = "retry: { max_attempts: 10, retry_after: { max: 3s }, on: [connect, timeout, 429, 403], budget: { ratio: 1.0, min_per_second: 100 } }\ntimeout: { total: 30s }";

async fn paced_without_a_refusal(dialect: Dialect) {
    let (server, window) = server(dialect).await;
    let client = client(&server.url(), GENEROUS);
    let failures = sixty_calls(&client).await;
    assert_eq!(failures, [], "{dialect:?}");
    assert_eq!(window.served(), 60);
    assert_eq!(
        window.refused(),
        0,
        "{dialect:?}: the server refused calls the quota it announced did not allow"
    );
    // Seen: the time paced calls waited, and the quota as the last answers left it.
    let stats = client.stats();
    let waited = stats.method("get_repo").unwrap().quota_wait;
    assert!(
        waited > Duration::from_secs(1),
        "{dialect:?}: waited {waited:?}"
    );
    let [quota] = stats.quotas.as_slice() else {
        panic!("one quota: {:?}", stats.quotas)
    };
    assert_eq!(quota.limit, Some(20), "{dialect:?}");
    assert!(quota.remaining.is_some_and(|left| left <= 20), "{quota:?}");
    let name = match dialect {
        Dialect::Ietf => Some("window"),
        Dialect::XRateLimit => None,
        Dialect::GitHub => Some("core"),
    };
    assert_eq!(quota.name.as_deref(), name);
    let json = remcall::serde_json::to_value(&stats).unwrap();
    assert!(json["quotas"][0]["remaining"].is_u64(), "{json}");
}

#[tokio::test]
async fn ietf_fields_pace_sixty_calls_without_a_refusal() {
    paced_without_a_refusal(Dialect::Ietf).await;
}

#[tokio::test]
async fn x_ratelimit_fields_pace_sixty_calls_without_a_refusal() {
    paced_without_a_refusal(Dialect::XRateLimit).await;
}

#[tokio::test]
async fn githubs_fields_pace_sixty_calls_without_a_403() {
    paced_without_a_refusal(Dialect::GitHub).await;
}

#[tokio::test]
async fn with_quotas_off_the_server_refuses_calls_and_only_retries_get_them_through() {
    let (server, window) = server(Dialect::XRateLimit).await;
    let yaml = format!("{GENEROUS}\nquota: {{ from_headers: off }}");
    let failures = sixty_calls(&client(&server.url(), &yaml)).await;
    assert_eq!(failures, []);
    assert!(
        window.refused() > 0,
        "without quotas the client runs into the limit"
    );
}

#[tokio::test]
async fn a_spent_quota_fails_a_call_that_cannot_wait_without_sending_it() {
    let (server, window) = server(Dialect::GitHub).await;
    let client = client(
        &server.url(),
        "timeout: { total: 500ms }\nretry: { max_attempts: 1 }",
    );
    // Spend the window: 20 answered, the last saying none are left.
    for i in 0..20 {
        client
            .call(GET_REPO.request().path("id", i), decode::json::<Value>)
            .await
            .unwrap();
    }
    let sent = server.received().len();
    let error = client
        .call(GET_REPO.request().path("id", 99), decode::json::<Value>)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RateLimited, "{error}");
    let wait = error.retry_in().expect("the wait until the reset");
    assert!(
        wait > Duration::ZERO && wait <= Duration::from_secs(2),
        "{wait:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("Hosted") && text.contains("get_repo"),
        "{text}"
    );
    assert!(text.contains("`core`"), "{text}");
    assert_eq!(server.received().len(), sent, "nothing was sent");
    assert_eq!(window.refused(), 0);
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
async fn two_routes(
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
            let client = client(&server.url(), "timeout: { total: 2s }");
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
    let (server, repos, users) = two_routes(
        StatusCode::OK,
        &[
            ("x-ratelimit-limit", "60"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "86400"),
        ],
    )
    .await;
    let client = client(
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
    let capped = client(
        &server.url(),
        "retry: { max_attempts: 3, retry_after: { max: 400ms } }\ntimeout: { total: 3s }",
    );
    let started = tokio::time::Instant::now();
    repo(&capped).await.unwrap();
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
    let unavailable = client(
        &server.url(),
        "retry: { max_attempts: 1, retry_after: { max: 200ms } }\ntimeout: { total: 2s }",
    );
    assert!(repo(&unavailable).await.is_err());
    let started = tokio::time::Instant::now();
    let error = repo(&unavailable).await.unwrap_err();
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
    let client = client(&server.url(), "");
    for _ in 0..300 {
        repo(&client).await.unwrap();
    }
    let quotas = client.stats().quotas;
    assert!(quotas.len() <= 32, "{} quotas kept", quotas.len());
}

/// A server with a quota per route: `core` (20 calls a second) for `/repos`, `search` (4, fewer
/// than the callers at once) for `/users`, each named in its answers.
async fn two_quotas(dialect: Dialect) -> (Server, Arc<QuotaWindow>, Arc<QuotaWindow>) {
    let second = Duration::from_secs(1);
    let core = Arc::new(QuotaWindow::named(dialect, "core", 20, second));
    let search = Arc::new(QuotaWindow::named(dialect, "search", 4, second));
    let router = core
        .router("/repos/{id}", "{\"id\":1}")
        .merge(search.router("/users/{id}", "{\"id\":2}"));
    (Server::start(router).await, core, search)
}

/// One client spends two quotas one after the other, then both at once, six callers at a
/// time: the server refuses none, and no call fails. The second route's first six calls
/// neither borrow the first route's pace nor go at once: one learns its quota, the others wait
/// for its answer.
async fn two_quotas_without_a_refusal(dialect: Dialect) {
    let (server, core, search) = two_quotas(dialect).await;
    let client = client(&server.url(), GENEROUS);
    let mut failures = six_at_a_time(&client, &[&GET_REPO], 4).await;
    failures.extend(six_at_a_time(&client, &[&GET_USER], 2).await);
    failures.extend(six_at_a_time(&client, &[&GET_REPO, &GET_USER], 2).await);
    assert_eq!(failures, [], "{dialect:?}");
    assert_eq!((core.served(), search.served()), (30, 18), "{dialect:?}");
    assert_eq!(
        (core.refused(), search.refused()),
        (0, 0),
        "{dialect:?}: the server refused calls its quotas did not allow"
    );
    let names: Vec<Option<String>> = client.stats().quotas.into_iter().map(|q| q.name).collect();
    assert_eq!(
        names,
        [Some("core".to_owned()), Some("search".to_owned())],
        "{dialect:?}"
    );
}

#[tokio::test]
async fn one_client_spends_two_named_quotas_without_a_refusal_in_each_dialect() {
    tokio::join!(
        two_quotas_without_a_refusal(Dialect::Ietf),
        two_quotas_without_a_refusal(Dialect::XRateLimit),
        two_quotas_without_a_refusal(Dialect::GitHub),
    );
}

#[tokio::test]
async fn githubs_403_for_a_spent_quota_waits_for_the_reset_when_the_deadline_allows() {
    let window = Arc::new(QuotaWindow::new(Dialect::GitHub, 3, Duration::from_secs(2)));
    let server = Server::start(window.router("/repos/{id}", "{\"id\":1}")).await;
    // Another replica, counting only its own calls, spends the window.
    let other = client(&server.url(), "");
    for _ in 0..3 {
        repo(&other).await.unwrap();
    }
    // A 403 saying none are left is retried after the reset, as a 429 would be.
    let patient = client(&server.url(), "timeout: { total: 10s }");
    repo(&patient).await.unwrap();
    assert_eq!((window.refused(), window.served()), (1, 4));
    // The window spent again: a call that cannot wait for the reset fails `RateLimited`, the
    // 403 it met not handed over as the caller's to wait out…
    for _ in 0..2 {
        repo(&other).await.unwrap();
    }
    let hurried = client(&server.url(), "timeout: { total: 300ms }");
    let error = repo(&hurried).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RateLimited, "{error}");
    assert!(error.retry_in().is_some(), "{error:?}");
    // …and the next call knows the quota is spent: it fails at once, nothing sent.
    let sent = server.received().len();
    let error = repo(&hurried).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RateLimited, "{error}");
    assert_eq!(server.received().len(), sent, "not sent");
    // A 403 that says nothing of quotas is the caller's, at once.
    let router = Router::new().route(
        "/repos/{id}",
        get(|| async { (StatusCode::FORBIDDEN, "{\"message\":\"no access\"}") }),
    );
    let forbidden = Server::start(router).await;
    let error = repo(&client(&forbidden.url(), "")).await.unwrap_err();
    assert_eq!(error.status(), Some(StatusCode::FORBIDDEN), "{error}");
    assert_eq!(forbidden.received().len(), 1, "not retried");
}

/// A hedge helps an attempt a slow server keeps, not one the quota keeps: while the quota has no
/// turn the attempt waits unsent, and a hedge would wait for the same quota and take the next
/// call's turn. Found by the Phoenix workload (its spans showed a hedge that never left).
#[tokio::test]
async fn no_hedge_is_sent_while_the_attempt_waits_for_the_quota() {
    let (server, window) = {
        let window = Arc::new(QuotaWindow::new(
            Dialect::XRateLimit,
            1,
            Duration::from_secs(1),
        ));
        let router = window.router("/repos/{id}", "{\"id\":1}");
        (Server::start(router).await, window)
    };
    let hosted = client(
        &server.url(),
        "retry: { max_attempts: 1 }\nhedge: { delay: 50ms, budget_percent: 100 }",
    );
    repo(&hosted).await.unwrap();
    // The quota's one turn of this window is spent: the next call waits for the next window.
    repo(&hosted).await.unwrap();
    let stats = hosted.stats();
    let method = stats.method("get_repo").unwrap();
    assert!(method.quota_wait > Duration::from_millis(300), "{method:?}");
    assert_eq!(method.hedges, 0, "{method:?}");
    assert_eq!(window.served(), 2);
    assert_eq!(window.refused(), 0);
}

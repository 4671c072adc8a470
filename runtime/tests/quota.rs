//! Quotas the server announces, against a loopback server that enforces one: 20 calls per
//! 2-second window, announced in each dialect servers speak (the IETF fields, `X-RateLimit-*`,
//! GitHub's with a 403 when spent). 60 calls six at a time: with `quota: { from_headers: auto }`
//! (the default) the server refuses none; with it off, it refuses some and the calls get
//! through only by retrying. A spent quota fails a call that cannot wait without sending it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
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

static SPEC: ClientSpec = ClientSpec {
    name: "Hosted",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_REPO],
};

/// How the server announces its quota.
#[derive(Clone, Copy, Debug)]
enum Dialect {
    Ietf,
    XRateLimit,
    /// GitHub's: `x-ratelimit-*` with the reset as epoch seconds, and a 403 when spent.
    GitHub,
}

/// A fixed-window quota: `limit` calls per `window`, counted by the server.
struct Window {
    dialect: Dialect,
    limit: u64,
    window: Duration,
    started: Mutex<(Instant, u64)>,
    refused: AtomicU64,
    served: AtomicU64,
}

impl Window {
    fn new(dialect: Dialect) -> Arc<Window> {
        Arc::new(Window {
            dialect,
            limit: 20,
            window: Duration::from_secs(2),
            started: Mutex::new((Instant::now(), 0)),
            refused: AtomicU64::new(0),
            served: AtomicU64::new(0),
        })
    }

    fn answer(&self) -> Response {
        let (remaining, reset_in, exact, allowed) = {
            let mut state = self.started.lock().unwrap();
            let now = Instant::now();
            while now >= state.0 + self.window {
                state.0 += self.window;
                state.1 = 0;
            }
            let allowed = state.1 < self.limit;
            if allowed {
                state.1 += 1;
            }
            // Rounded up to the second, as servers do.
            let exact = state.0 + self.window - now;
            let reset_in = exact.as_secs_f64().ceil() as u64;
            (self.limit - state.1, reset_in, exact, allowed)
        };
        let mut headers = HeaderMap::new();
        let set = |headers: &mut HeaderMap, name: &'static str, value: String| {
            headers.insert(name, HeaderValue::from_str(&value).unwrap());
        };
        match self.dialect {
            Dialect::Ietf => {
                set(
                    &mut headers,
                    "ratelimit-policy",
                    format!("\"window\";q={};w=2", self.limit),
                );
                set(
                    &mut headers,
                    "ratelimit",
                    format!("\"window\";r={remaining};t={reset_in}"),
                );
            }
            Dialect::XRateLimit => {
                set(&mut headers, "x-ratelimit-limit", self.limit.to_string());
                set(&mut headers, "x-ratelimit-remaining", remaining.to_string());
                set(&mut headers, "x-ratelimit-reset", reset_in.to_string());
            }
            Dialect::GitHub => {
                // The epoch second the window has reset by, as GitHub says it.
                let reset_at = (SystemTime::now() + exact)
                    .duration_since(UNIX_EPOCH)
                    .unwrap()
                    .as_secs_f64()
                    .ceil() as u64;
                set(&mut headers, "x-ratelimit-limit", self.limit.to_string());
                set(&mut headers, "x-ratelimit-remaining", remaining.to_string());
                set(&mut headers, "x-ratelimit-reset", reset_at.to_string());
                set(&mut headers, "x-ratelimit-resource", "core".to_owned());
            }
        }
        if !allowed {
            self.refused.fetch_add(1, Ordering::Relaxed);
            let status = match self.dialect {
                Dialect::GitHub => StatusCode::FORBIDDEN,
                _ => {
                    set(&mut headers, "retry-after", reset_in.to_string());
                    StatusCode::TOO_MANY_REQUESTS
                }
            };
            return (status, headers, "{\"message\":\"quota spent\"}").into_response();
        }
        self.served.fetch_add(1, Ordering::Relaxed);
        (StatusCode::OK, headers, "{\"id\":1}").into_response()
    }
}

async fn server(dialect: Dialect) -> (Server, Arc<Window>) {
    let window = Window::new(dialect);
    let shared = window.clone();
    let router = Router::new().route(
        "/repos/{id}",
        get(move || {
            let window = shared.clone();
            async move { window.answer() }
        }),
    );
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
    let mut failures = Vec::new();
    for _ in 0..10 {
        let batch = (0..6).map(|i| {
            let client = client.clone();
            async move {
                client
                    .call(GET_REPO.request().path("id", i), decode::json::<Value>)
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
    assert_eq!(window.served.load(Ordering::Relaxed), 60);
    assert_eq!(
        window.refused.load(Ordering::Relaxed),
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
        window.refused.load(Ordering::Relaxed) > 0,
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
    assert_eq!(window.refused.load(Ordering::Relaxed), 0);
}

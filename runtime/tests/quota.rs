//! Quotas the server announces, against a loopback server that enforces one: 20 calls per
//! 2-second window, announced in each dialect servers speak (the IETF fields, `X-RateLimit-*`,
//! GitHub's with a 403 when spent). 60 calls six at a time: with `quota: { from_headers: auto }`
//! (the default) the server refuses none; with it off, it refuses some and the calls get
//! through only by retrying. A spent quota fails a call that cannot wait without sending it.

use std::sync::Arc;
use std::time::Duration;

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

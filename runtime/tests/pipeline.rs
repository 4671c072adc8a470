//! The resilience pipeline on its own, through a client spec written by hand (what generated
//! code hands the runtime), against real loopback servers: breaker, retries, Retry-After, budget,
//! bulkheads, pool isolation, rate limit, latency figures, per-client isolation. The example
//! crates test the same pipeline end to end through generated clients.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{any, get};
use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::serde_json::{Value, json};
use remcall::{BreakerState, Error, ErrorKind, Profile};
use testkit::{Flaky, Server};

static GET_USER: MethodSpec = MethodSpec {
    index: 0,
    name: "get_user",
    http_method: "GET",
    path: "/users/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static ADD_PET: MethodSpec = MethodSpec {
    index: 1,
    name: "add_pet",
    http_method: "POST",
    path: "/pets",
    idempotent: false,
    reads: false,
    not_found_none: false,
    streams: false,
    profile: "",
};

/// A client of a user service (GET, idempotent) and a pet store (POST, not idempotent).
static SPEC: ClientSpec = ClientSpec {
    name: "Pipeline",
    base_urls: &[],
    base_path: "/v1/api",
    profile: "",
    methods: &[&GET_USER, &ADD_PET],
};

/// The same methods under another name, so its pool's threads can be told apart.
static POOLED: ClientSpec = ClientSpec {
    name: "PoolOwner",
    base_urls: &[],
    base_path: "/v1/api",
    profile: "",
    methods: &[&GET_USER, &ADD_PET],
};

fn profile(yaml: &str) -> Profile {
    Profile::from_yaml_str(yaml).unwrap()
}

/// A client of the service at `url`, with `yaml` over remcall's default profile.
fn client_at(url: &str, yaml: &str) -> Client {
    ClientBuilder::new(&SPEC)
        .base_url(url)
        .profile(profile(yaml))
        .build()
        .unwrap()
}

async fn get_user(client: &Client) -> Result<Value, Error> {
    client
        .call(GET_USER.request().path("id", 1), decode::json)
        .await
}

async fn add_pet(client: &Client) -> Result<Value, Error> {
    let pet = json!({ "name": "Rex" });
    client
        .call(ADD_PET.request().json(&pet), decode::json)
        .await
}

const FAST_BREAKER: &str = "
retry: { max_attempts: 1 }
breaker: { window: { calls: 10 }, min_calls: 5, failure_rate: 50, open_for: 300ms, half_open_calls: 2 }
";

fn slow_server_router(delay: Duration) -> Router {
    Router::new().route(
        "/v1/api/users/{id}",
        get(move || testkit::slow(delay, axum::Json(json!({ "id": 1, "name": "Ada" })))),
    )
}

/// Threads of this process whose name starts with `prefix` (Linux).
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|name| name.starts_with(prefix))
                .count()
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn two_clients_from_one_profile_share_nothing() {
    let downstream = Flaky::start().await;
    let build = || client_at(&downstream.server.url(), FAST_BREAKER);
    let (tripped, other) = (build(), build());
    downstream.status.store(500, Ordering::SeqCst);
    for _ in 0..5 {
        let _ = get_user(&tripped).await;
    }
    assert_eq!(
        tripped.stats().method("get_user").unwrap().breaker,
        BreakerState::Open
    );
    assert_eq!(
        other.stats_all().method("get_user").unwrap().breaker,
        BreakerState::Closed
    );
    downstream.status.store(200, Ordering::SeqCst);
    assert!(get_user(&other).await.is_ok());
}

#[tokio::test]
async fn a_breaker_ignores_4xx_unless_recorded() {
    let downstream = Flaky::start().await;
    let users = client_at(&downstream.server.url(), FAST_BREAKER);
    downstream.status.store(400, Ordering::SeqCst);
    for _ in 0..10 {
        let _ = get_user(&users).await;
    }
    assert_eq!(
        users.stats().method("get_user").unwrap().breaker,
        BreakerState::Closed
    );
}

#[tokio::test]
async fn idempotent_calls_retry_a_503_and_post_does_not() {
    let downstream = Flaky::start().await;
    let users = client_at(
        &downstream.server.url(),
        "retry: { max_attempts: 3, backoff: { initial: 1ms, max: 5ms } }",
    );
    downstream.status.store(503, Ordering::SeqCst);
    let _ = get_user(&users).await;
    assert_eq!(
        downstream.hits.load(Ordering::SeqCst),
        3,
        "GET: three attempts"
    );
    assert_eq!(users.stats().method("get_user").unwrap().retries, 2);

    // add_pet is a plain POST: a 503 may have been processed, so it is not retried.
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let pets = Server::start(Router::new().route(
        "/v1/api/pets",
        any(move || {
            h.fetch_add(1, Ordering::SeqCst);
            async { StatusCode::SERVICE_UNAVAILABLE }
        }),
    ))
    .await;
    let store = client_at(
        &pets.url(),
        "retry: { max_attempts: 3, backoff: { initial: 1ms } }",
    );
    let error = add_pet(&store).await.unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    assert_eq!(hits.load(Ordering::SeqCst), 1, "POST: one attempt");
    // Whoever wrote `retry:` for it learns why it was not retried.
    assert!(
        error
            .to_string()
            .ends_with("; not retried, since the method is not idempotent: mark it `idempotent: true`, or give it an `idempotency_key:`"),
        "{error}"
    );
    // A GET that runs out of attempts says nothing of the kind.
    let users = client_at(&pets.url(), "retry: { max_attempts: 1 }");
    let error = get_user(&users).await.unwrap_err();
    assert!(!error.to_string().contains("idempotent"), "{error}");
}

#[tokio::test]
async fn retry_after_is_honoured_and_never_past_the_deadline() {
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let n = h.fetch_add(1, Ordering::SeqCst);
            async move {
                let mut headers = HeaderMap::new();
                headers.insert("retry-after", "1".parse().unwrap());
                if n == 0 {
                    (
                        StatusCode::TOO_MANY_REQUESTS,
                        headers,
                        axum::Json(json!(null)),
                    )
                } else {
                    (
                        StatusCode::OK,
                        HeaderMap::new(),
                        axum::Json(json!({ "id": 1, "name": "Ada" })),
                    )
                }
            }
        }),
    ))
    .await;
    let users = client_at(
        &server.url(),
        "retry: { max_attempts: 2, backoff: { initial: 1ms, max: 1ms } }",
    );
    let started = Instant::now();
    get_user(&users).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited for Retry-After: {:?}",
        started.elapsed()
    );

    // With a total deadline shorter than Retry-After, the call fails at once instead of sleeping.
    hits.store(0, Ordering::SeqCst);
    let impatient = client_at(
        &server.url(),
        "timeout: { total: 500ms }\nretry: { max_attempts: 2 }",
    );
    let started = Instant::now();
    let err = get_user(&impatient).await.unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(429));
    assert!(
        started.elapsed() < Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_exhausted_budget_stops_retries() {
    let downstream = Flaky::start().await;
    let users = client_at(
        &downstream.server.url(),
        "retry: { max_attempts: 5, backoff: { initial: 1ms, max: 1ms }, budget: { ratio: 0.5, min_per_second: 0 } }\nbreaker: { min_calls: 1000 }",
    );
    downstream.status.store(503, Ordering::SeqCst);
    for _ in 0..10 {
        let _ = get_user(&users).await;
    }
    let retries = users.stats().method("get_user").unwrap().retries;
    assert_eq!(retries, 5, "half a retry per call");
    assert_eq!(downstream.hits.load(Ordering::SeqCst), 15);
}

#[tokio::test]
async fn a_bulkhead_of_4_rejects_exactly_4_of_8_and_cancelled_calls_free_their_slots() {
    let server = Server::start(slow_server_router(Duration::from_millis(300))).await;
    let users = client_at(
        &server.url(),
        "isolation: { semaphore: { max_concurrent: 4, max_wait: 0s } }\nretry: { max_attempts: 1 }",
    );
    let calls: Vec<_> = (0..8)
        .map(|_| {
            let users = users.clone();
            tokio::spawn(async move { get_user(&users).await })
        })
        .collect();
    let mut rejected = 0;
    for call in calls {
        if let Err(e) = call.await.unwrap() {
            assert_eq!(e.kind(), ErrorKind::Rejected);
            rejected += 1;
        }
    }
    assert_eq!(rejected, 4);
    assert_eq!(users.stats().method("get_user").unwrap().rejected, 4);

    // Four calls in flight, cancelled: their slots come back.
    let in_flight: Vec<_> = (0..4)
        .map(|_| {
            let users = users.clone();
            tokio::spawn(async move { get_user(&users).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(50)).await;
    for call in &in_flight {
        call.abort();
    }
    for call in in_flight {
        let _ = call.await;
    }
    let again: Vec<_> = (0..4)
        .map(|_| {
            let users = users.clone();
            tokio::spawn(async move { get_user(&users).await })
        })
        .collect();
    for call in again {
        assert!(call.await.unwrap().is_ok(), "all four admitted");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_isolated_client_stuck_on_a_hanging_downstream_does_not_slow_another() {
    let hanging = Server::start(slow_server_router(Duration::from_secs(30))).await;
    let healthy = Server::start(slow_server_router(Duration::ZERO)).await;
    let stuck = client_at(
        &hanging.url(),
        "isolation: { pool: { workers: 2, queue: 2, queue_timeout: 50ms } }\nretry: { max_attempts: 1 }\ntimeout: { attempt: 20s, total: 20s }",
    );
    let fine = client_at(&healthy.url(), "");

    let blocked: Vec<_> = (0..16)
        .map(|_| {
            let stuck = stuck.clone();
            tokio::spawn(async move { get_user(&stuck).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    for _ in 0..20 {
        get_user(&fine).await.unwrap();
    }
    let healthy_time = started.elapsed();
    assert!(
        healthy_time < Duration::from_secs(2),
        "20 healthy calls took {healthy_time:?}"
    );
    let stats = stuck.stats();
    assert!(
        stats.method("get_user").unwrap().rejected >= 12,
        "only workers + queue admitted: {stats:?}"
    );
    for call in blocked {
        call.abort();
    }
}

#[tokio::test]
async fn a_rate_limit_refuses_calls_past_the_burst() {
    let downstream = Flaky::start().await;
    let users = client_at(
        &downstream.server.url(),
        "rate_limit: { per_second: 1, burst: 3, max_wait: 0s }",
    );
    let mut limited = 0;
    for _ in 0..5 {
        if let Err(e) = get_user(&users).await {
            assert_eq!(e.kind(), ErrorKind::RateLimited);
            limited += 1;
        }
    }
    assert_eq!(limited, 2);
    assert_eq!(downstream.hits.load(Ordering::SeqCst), 3);
    let stats = users.stats();
    let stats = stats.method("get_user").unwrap();
    assert_eq!(
        (stats.rate_limited, stats.rejected, stats.failures),
        (2, 0, 2),
        "the limiter's refusals are not the bulkhead's"
    );
}

#[tokio::test]
async fn latency_percentiles_reflect_recent_calls() {
    let server = Server::start(slow_server_router(Duration::from_millis(20))).await;
    let users = client_at(&server.url(), "");
    for _ in 0..5 {
        get_user(&users).await.unwrap();
    }
    let stats = users.stats();
    let get_user = stats.method("get_user").unwrap();
    assert!(
        get_user.p50 >= Duration::from_millis(20) && get_user.p99 >= get_user.p50,
        "{get_user:?}"
    );
}

#[tokio::test]
async fn the_pool_shuts_down_when_the_last_clone_drops() {
    if !std::path::Path::new("/proc/self/task").exists() {
        return; // thread names are read from procfs
    }
    let server = Server::start(slow_server_router(Duration::ZERO)).await;
    let store = ClientBuilder::new(&POOLED)
        .base_url(&server.url())
        .profile(profile(
            "isolation: { pool: { workers: 3, queue: 0, queue_timeout: 1s } }",
        ))
        .build()
        .unwrap();
    // The pool's threads are named after the client (procfs shows 15 bytes of the name).
    let prefix = "remcall-PoolOwn";
    // Workers start (and take their names) asynchronously.
    let mut waited = Duration::ZERO;
    while threads_named(prefix) < 3 && waited < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
        waited += Duration::from_millis(10);
    }
    assert_eq!(threads_named(prefix), 3);
    let clone = store.clone();
    drop(store);
    assert_eq!(threads_named(prefix), 3, "a clone still holds the pool");
    drop(clone);
    let mut waited = Duration::ZERO;
    while threads_named(prefix) > 0 && waited < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
        waited += Duration::from_millis(10);
    }
    assert_eq!(threads_named(prefix), 0, "the pool's threads ended");
}

/// A method of `MANY_POOLS`, with a pool bulkhead of its own (`profile`).
const fn pooled(index: usize, profile: &'static str) -> MethodSpec {
    MethodSpec {
        index,
        name: "get_user",
        http_method: "GET",
        path: "/users/{id}",
        idempotent: true,
        reads: true,
        not_found_none: false,
        streams: false,
        profile,
    }
}

const POOL_8: &str = "isolation: { pool: { workers: 8, queue: 4 } }";
const POOL_9: &str = "isolation: { pool: { workers: 9, queue: 4 } }";
const POOL_10: &str = "isolation: { pool: { workers: 10, queue: 4 } }";

/// Twenty methods, each with a pool bulkhead of its own (8 to 10 workers).
static POOLED_METHODS: [MethodSpec; 20] = [
    pooled(0, POOL_8),
    pooled(1, POOL_9),
    pooled(2, POOL_10),
    pooled(3, POOL_8),
    pooled(4, POOL_9),
    pooled(5, POOL_10),
    pooled(6, POOL_8),
    pooled(7, POOL_9),
    pooled(8, POOL_10),
    pooled(9, POOL_8),
    pooled(10, POOL_9),
    pooled(11, POOL_10),
    pooled(12, POOL_8),
    pooled(13, POOL_9),
    pooled(14, POOL_10),
    pooled(15, POOL_8),
    pooled(16, POOL_9),
    pooled(17, POOL_10),
    pooled(18, POOL_8),
    pooled(19, POOL_9),
];

static MANY_POOLS: ClientSpec = ClientSpec {
    name: "ManyPools",
    base_urls: &[],
    base_path: "/v1/api",
    profile: "isolation: { pool: { workers: 2 } }",
    methods: &[
        &POOLED_METHODS[0],
        &POOLED_METHODS[1],
        &POOLED_METHODS[2],
        &POOLED_METHODS[3],
        &POOLED_METHODS[4],
        &POOLED_METHODS[5],
        &POOLED_METHODS[6],
        &POOLED_METHODS[7],
        &POOLED_METHODS[8],
        &POOLED_METHODS[9],
        &POOLED_METHODS[10],
        &POOLED_METHODS[11],
        &POOLED_METHODS[12],
        &POOLED_METHODS[13],
        &POOLED_METHODS[14],
        &POOLED_METHODS[15],
        &POOLED_METHODS[16],
        &POOLED_METHODS[17],
        &POOLED_METHODS[18],
        &POOLED_METHODS[19],
    ],
};

/// A client's pools share one runtime: as many threads as its largest pool has workers, not
/// the sum of every method's (20 methods × `workers: 256` started 5,121 threads).
#[tokio::test]
async fn a_clients_pools_start_the_threads_of_the_largest_one_not_of_all() {
    let server = Server::start(slow_server_router(Duration::ZERO)).await;
    let client = ClientBuilder::new(&MANY_POOLS)
        .base_url(&server.url())
        .build()
        .unwrap();
    let prefix = "remcall-ManyPoo";
    let mut waited = Duration::ZERO;
    while threads_named(prefix) < 10 && waited < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
        waited += Duration::from_millis(10);
    }
    assert_eq!(threads_named(prefix), 10, "the largest pool's workers");
    for method in &POOLED_METHODS {
        let user: Value = client
            .call(method.request().path("id", 1), decode::json)
            .await
            .unwrap();
        assert_eq!(user["name"], "Ada", "method {}", method.index);
    }
    assert_eq!(threads_named(prefix), 10);
    drop(client);
}

/// A service that redirects every user request to `to` (with a 302), and one that answers.
async fn redirecting_to(to: &str) -> Server {
    let location = format!("{to}/v1/api/users/1");
    Server::start(Router::new().route(
        "/v1/api/users/{id}",
        any(move || {
            let location = location.clone();
            async move { (StatusCode::FOUND, [("location", location)]) }
        }),
    ))
    .await
}

#[tokio::test]
async fn a_client_with_secrets_follows_no_redirect_to_another_origin() {
    let elsewhere = Server::start(slow_server_router(Duration::ZERO)).await;
    let redirecting = redirecting_to(&elsewhere.url()).await;
    let secret = client_at(
        &redirecting.url(),
        "headers: { X-Api-Key: { value: k3y-secret, secret: true } }\nretry: { max_attempts: 1 }",
    );
    let err = get_user(&secret).await.unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(302), "{err}");
    assert!(
        elsewhere.received().is_empty(),
        "the API key went to another origin"
    );

    // Without secrets the same redirect is followed, as reqwest does.
    let plain = client_at(&redirecting.url(), "retry: { max_attempts: 1 }");
    assert_eq!(get_user(&plain).await.unwrap()["name"], "Ada");
    assert_eq!(elsewhere.received().len(), 1);
    assert!(!elsewhere.received()[0].headers.contains_key("x-api-key"));
}

#[tokio::test]
async fn credentials_in_a_base_url_are_refused_and_never_shown() {
    let err = ClientBuilder::new(&SPEC)
        .base_url("http://ada:hunter2@127.0.0.1:9")
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
    assert!(err.to_string().contains("carries credentials"), "{err}");
    for shown in [err.to_string(), format!("{err:?}")] {
        assert!(
            !shown.contains("hunter2") && !shown.contains("ada"),
            "{shown}"
        );
    }
    // A broken one with credentials does not show them either.
    let err = ClientBuilder::new(&SPEC)
        .base_url("http://ada:hunter2@127.0.0.1:notaport")
        .build()
        .unwrap_err();
    assert!(!err.to_string().contains("hunter2"), "{err}");
}

#[test]
fn a_base_url_without_a_scheme_says_so() {
    for (url, expected) in [
        (
            "localhost:8080",
            "Pipeline: base URL `localhost:8080` has no scheme: write `http://localhost:8080` (or `https://`)",
        ),
        (
            "127.0.0.1:8080/v1",
            "Pipeline: base URL `127.0.0.1:8080/v1` has no scheme: write `http://127.0.0.1:8080/v1` (or `https://`)",
        ),
    ] {
        let err = ClientBuilder::new(&SPEC).base_url(url).build().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Config);
        assert_eq!(err.to_string(), expected);
    }
}

/// A discovery that finds `count` endpoints, all on one server under different prefixes.
struct Many {
    base: String,
    count: usize,
}

impl remcall::Discover for Many {
    async fn discover(&self) -> Result<Vec<remcall::DiscoveredEndpoint>, remcall::BoxError> {
        Ok((0..self.count)
            .map(|i| remcall::DiscoveredEndpoint {
                url: format!("{}/n{i}", self.base),
                weight: 1,
                host: None,
            })
            .collect())
    }
}

#[tokio::test]
async fn a_discovery_keeps_at_most_ten_thousand_endpoints() {
    let server = Server::start(slow_server_router(Duration::ZERO)).await;
    let client = ClientBuilder::new(&SPEC)
        .discover(Many {
            base: server.url(),
            count: 30_000,
        })
        .profile(profile("retry: { max_attempts: 1 }"))
        .build()
        .unwrap();
    // The first call waits for the first discovery; the prefix makes it a 404, which is fine.
    let _ = get_user(&client).await;
    assert_eq!(client.stats().endpoints.len(), 10_000);
}

#[tokio::test]
async fn an_endless_header_line_is_a_failure_that_is_not_retried() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut request = [0_u8; 4096];
                let _ = socket.read(&mut request).await;
                let mut answer = b"HTTP/1.1 200 OK\r\nX-Long: ".to_vec();
                answer.extend(std::iter::repeat_n(b'a', 1 << 20));
                let _ = socket.write_all(&answer).await;
            });
        }
    });
    let client = client_at(
        &url,
        "retry: { max_attempts: 3, backoff: { initial: 1ms } }",
    );
    let err = get_user(&client).await.unwrap_err();
    assert!(err.to_string().contains("not valid HTTP"), "{err}");
    assert_eq!(connections.load(Ordering::SeqCst), 1, "not retried");
    assert_eq!(client.stats().method("get_user").unwrap().retries, 0);
}

#[tokio::test]
async fn a_method_is_made_on_its_first_call_and_stats_say_which_are_untouched() {
    let downstream = Flaky::start().await;
    let users = client_at(&downstream.server.url(), "");
    let used = |c: &Client| {
        let stats = c.stats_all();
        (
            stats.method("get_user").unwrap().used,
            stats.method("add_pet").unwrap().used,
        )
    };
    assert_eq!(used(&users), (false, false));
    assert!(
        users.stats().methods.is_empty(),
        "stats() lists the used ones"
    );
    get_user(&users).await.unwrap();
    assert_eq!(used(&users), (true, false));
    let names: Vec<_> = users.stats().methods.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["get_user"]);
    let stats = users.stats_all();
    let untouched = stats.method("add_pet").unwrap();
    assert_eq!(
        (untouched.calls, untouched.breaker),
        (0, BreakerState::Closed)
    );

    // A client-scoped breaker is the untouched methods' too.
    let shared = client_at(
        &downstream.server.url(),
        "retry: { max_attempts: 1 }\nbreaker: { scope: client, window: { calls: 4 }, min_calls: 4, failure_rate: 50, open_for: 60s }",
    );
    downstream.status.store(503, Ordering::SeqCst);
    for _ in 0..4 {
        let _ = get_user(&shared).await;
    }
    let stats = shared.stats_all();
    assert_eq!(stats.method("add_pet").unwrap().breaker, BreakerState::Open);
    assert!(!stats.method("add_pet").unwrap().used);
}

/// A failed connection says what happened, and where, at the top of its message: not "error
/// sending request" with the cause three sources down.
#[tokio::test]
async fn a_refused_connection_says_so_and_names_the_address() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = closed.local_addr().unwrap();
    drop(closed);
    let client = client_at(&format!("http://{address}"), "retry: { max_attempts: 1 }");
    let error = get_user(&client).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Connect);
    assert_eq!(
        error.to_string(),
        format!("Pipeline.get_user: connection refused ({address})")
    );
}

//! Quotas and kept answers a fleet shares through a real `redis-server` (`quota.shared`,
//! `cache.shared`): two clients stand for two replicas, each with its own connection. One
//! replica's spending and one replica's refusal hold the other; what one replica kept answers
//! the other, under the same credentials only, and never another service's (a client is its
//! name and base URLs, or a `scope:` shared on purpose); a slow Redis costs a call nothing past
//! its deadline and opens no breaker; a server naming a new quota on every answer fills no
//! Redis; Redis killed mid-run, each goes on alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use remcall::{ErrorKind, Profile};
use remcall_example_committed::clients::user_client::UserClient;
use testkit::Server;
use testkit::quota::{Dialect, QuotaWindow};
use testkit::redis::{RedisServer, SlowProxy};

const USER: &str = r#"{"id":7,"name":"Ada","email":"ada@example.test"}"#;

fn replica(url: &str, yaml: &str) -> UserClient {
    UserClient::builder()
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

/// A user service enforcing `limit` calls per `window` and announcing it.
async fn quota_server(
    dialect: Dialect,
    limit: u64,
    window: Duration,
) -> (Server, Arc<QuotaWindow>) {
    let quota = Arc::new(QuotaWindow::new(dialect, limit, window));
    let router = quota.router("/v1/api/users/{id}", USER);
    (Server::start(router).await, quota)
}

/// A profile sharing its quotas on `redis` under `key`; calls give up after `total`.
fn sharing(redis: &str, key: &str, total: &str) -> String {
    format!(
        "retry: {{ max_attempts: 1 }}\ntimeout: {{ total: {total} }}\nquota: {{ shared: {{ redis: \"{redis}\", key: {key}, timeout: 1s }} }}"
    )
}

/// Waits until Redis holds `keys` keys (an answer's word reaches it in the background).
async fn redis_holds(redis: &RedisServer, keys: usize) {
    for _ in 0..200 {
        if redis.command("DBSIZE").await.trim() == format!(":{keys}") {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "Redis holds {} keys, not {keys}",
        redis.command("DBSIZE").await
    );
}

/// Waits until the fleet's quota (of `key`, unnamed) in Redis has `field` at `value`: an
/// answer's word reaches Redis in the background.
async fn fleet_quota_has(redis: &RedisServer, key: &str, field: &str, value: Option<&str>) {
    let command = format!("HGET remcall:{{{key}}}:quota: {field}");
    let mut last = String::new();
    for _ in 0..300 {
        last = redis.command(&command).await;
        // RESP: `$-1` for none, else `$<len>` and the value on the next line.
        let found = last.lines().nth(1);
        if found.is_some() && value.is_none_or(|value| found == Some(value)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the fleet's quota has no {field} {value:?}: {last:?}");
}

/// A user service answering its requests in turn as `script` says (the last again past its
/// end): a status, the calls its quota of 5 a minute has left, and a `Retry-After` if any.
async fn scripted(script: &'static [(u16, u32, Option<u32>)]) -> (Server, Arc<AtomicU64>) {
    let asked = Arc::new(AtomicU64::new(0));
    let counted = asked.clone();
    let router = Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let n = counted.fetch_add(1, Ordering::SeqCst) as usize;
            let (status, left, retry_after) = script[n.min(script.len() - 1)];
            async move {
                let mut headers = HeaderMap::new();
                headers.insert("x-ratelimit-limit", 5.into());
                headers.insert("x-ratelimit-reset", 60.into());
                headers.insert("x-ratelimit-remaining", left.into());
                if let Some(seconds) = retry_after {
                    headers.insert("retry-after", seconds.into());
                }
                let status = StatusCode::from_u16(status).unwrap();
                let body = if status.is_success() { USER } else { "{}" };
                (status, headers, body).into_response()
            }
        }),
    );
    (Server::start(router).await, asked)
}

/// 4 calls left, then none (others spent them), then a refusal.
const SPENT: &[(u16, u32, Option<u32>)] = &[(200, 4, None), (200, 0, None), (429, 0, Some(60))];

#[tokio::test]
async fn a_quota_another_replica_heard_spent_is_not_sent_to() {
    let redis = RedisServer::start().await;
    let (server, asked) = scripted(SPENT).await;
    let yaml = sharing(&redis.url(), "fleet-a", "1s");
    let (first, second) = (replica(&server.url(), &yaml), replica(&server.url(), &yaml));
    // The second replica hears 4 calls are left; the first hears none are.
    second.get_user(7, None, "f").await.unwrap();
    first.get_user(7, None, "f").await.unwrap();
    fleet_quota_has(&redis, "fleet-a", "heard", Some("0")).await;
    let error = second.get_user(7, None, "f").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RateLimited, "{error}");
    // Held until the reset, or the profile's `retry.retry_after.max` (10 s by default) if
    // sooner: then one call goes through as the fleet's probe.
    assert!(
        error
            .retry_in()
            .is_some_and(|wait| wait > Duration::from_secs(5) && wait <= Duration::from_secs(10)),
        "{error:?}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 2, "not sent");
}

#[tokio::test]
async fn without_sharing_the_other_replica_sends_and_is_refused() {
    // The contrast to the test above: each replica counts only its own answers.
    let (server, asked) = scripted(SPENT).await;
    let yaml = "retry: { max_attempts: 1 }\ntimeout: { total: 1s }";
    let (first, second) = (replica(&server.url(), yaml), replica(&server.url(), yaml));
    second.get_user(7, None, "f").await.unwrap();
    first.get_user(7, None, "f").await.unwrap();
    let error = second.get_user(7, None, "f").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Status, "{error}");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        3,
        "sent, and refused by the server"
    );
}

/// Plenty left, then a refusal of a 30 s pause with plenty still left, then plenty again.
const PAUSED: &[(u16, u32, Option<u32>)] = &[(200, 4, None), (429, 3, Some(30)), (200, 3, None)];

#[tokio::test]
async fn one_replicas_refusal_pauses_the_whole_fleet() {
    let redis = RedisServer::start().await;
    let (server, asked) = scripted(PAUSED).await;
    let yaml = sharing(&redis.url(), "fleet-b", "1s");
    let (first, second) = (replica(&server.url(), &yaml), replica(&server.url(), &yaml));
    first.get_user(7, None, "f").await.unwrap();
    second.get_user(7, None, "f").await.unwrap_err();
    fleet_quota_has(&redis, "fleet-b", "paused", None).await;
    // The first replica heard no refusal itself, and its own count has calls left; yet its
    // call waits for the fleet's pause, past its deadline.
    let error = first.get_user(7, None, "f").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RateLimited, "{error}");
    // The server asked for 30 s; the profile caps its word at `retry.retry_after.max` (10 s).
    assert!(
        error
            .retry_in()
            .is_some_and(|wait| wait > Duration::from_secs(5) && wait <= Duration::from_secs(10)),
        "{error:?}"
    );
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "the paused call was not sent"
    );
    // Without sharing, the same call is sent and answered.
    let (server, asked) = scripted(PAUSED).await;
    let alone = "retry: { max_attempts: 1 }\ntimeout: { total: 1s }";
    let (first, second) = (replica(&server.url(), alone), replica(&server.url(), alone));
    first.get_user(7, None, "f").await.unwrap();
    second.get_user(7, None, "f").await.unwrap_err();
    first.get_user(7, None, "f").await.unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn two_replicas_split_one_quota_and_go_on_alone_when_redis_is_killed() {
    let mut redis = RedisServer::start().await;
    let (server, quota) = quota_server(Dialect::GitHub, 20, Duration::from_secs(2)).await;
    let yaml = format!(
        "retry: {{ max_attempts: 6, on: [connect, timeout, 403, 429], retry_after: {{ max: 3s }}, budget: {{ ratio: 1.0, min_per_second: 100 }} }}\ntimeout: {{ total: 20s }}\nquota: {{ shared: {{ redis: \"{}\", key: fleet-c, timeout: 100ms }} }}",
        redis.url()
    );
    let replicas = [replica(&server.url(), &yaml), replica(&server.url(), &yaml)];
    // Each replica learns the quota from one answer first.
    for users in &replicas {
        users.get_user(7, None, "f").await.unwrap();
    }
    // The quota's hash, and the names of the quotas the key knows.
    redis_holds(&redis, 2).await;
    let calls = |n: usize| {
        let replicas = replicas.clone();
        async move {
            let mut tasks = Vec::new();
            for users in &replicas {
                for _ in 0..n {
                    let users = users.clone();
                    tasks.push(tokio::spawn(
                        async move { users.get_user(7, None, "f").await },
                    ));
                }
            }
            for task in tasks {
                task.await.unwrap().unwrap();
            }
        }
    };
    // 2 × 19 calls against 20 per 2 s: the fleet splits the quota, and the server refuses none.
    calls(19).await;
    assert_eq!(quota.refused(), 0, "the fleet ran into the quota it shares");
    assert_eq!(quota.served(), 40);
    // Redis killed: each replica paces on its own answers; every call still gets through.
    redis.stop();
    calls(10).await;
    assert_eq!(quota.served(), 60);
    for users in &replicas {
        let stats = users.stats();
        assert!(stats.method("get_user").unwrap().without_redis > 0);
    }
}

/// A user service whose answers are fresh for a minute, counting the requests it answers.
async fn fresh_for_a_minute() -> (Server, Arc<AtomicU64>) {
    fresh_for_a_minute_setting(None).await
}

/// The same, its answers setting `cookie` when one is given.
async fn fresh_for_a_minute_setting(cookie: Option<&'static str>) -> (Server, Arc<AtomicU64>) {
    let asked = Arc::new(AtomicU64::new(0));
    let counted = asked.clone();
    let router = Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async move {
                let mut headers = HeaderMap::new();
                headers.insert("cache-control", "max-age=60".parse().unwrap());
                headers.insert("content-type", "application/json".parse().unwrap());
                if let Some(cookie) = cookie {
                    headers.insert("set-cookie", cookie.parse().unwrap());
                }
                (StatusCode::OK, headers, USER).into_response()
            }
        }),
    );
    (Server::start(router).await, asked)
}

/// A profile keeping answers in memory and on `redis`, sending `token` as its credential.
fn caching(redis: &str, token: &str) -> String {
    format!(
        "cache: {{ shared: {{ redis: \"{redis}\", key: fleet-d, timeout: 1s, secret: fleet-secret-for-tests-of-32-bytes-at-least }} }}\nheaders: {{ authorization: {{ value: \"Bearer {token}\", secret: true }} }}"
    )
}

#[tokio::test]
async fn what_one_replica_kept_answers_another_with_the_same_credentials_only() {
    let redis = RedisServer::start().await;
    let (server, asked) = fresh_for_a_minute().await;
    let first = replica(&server.url(), &caching(&redis.url(), "tenant-1"));
    let user = first.get_user(7, None, "f").await.unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    redis_holds(&redis, 1).await;
    // Neither the credential nor the URL is in Redis's key space.
    let keys = redis.command("KEYS *").await;
    assert!(
        !keys.contains("tenant") && !keys.contains("users"),
        "{keys}"
    );
    let second = replica(&server.url(), &caching(&redis.url(), "tenant-1"));
    assert_eq!(second.get_user(7, None, "f").await.unwrap(), user);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "answered from the fleet's cache"
    );
    assert_eq!(second.stats().method("get_user").unwrap().cache_hits, 1);
    // Another credential: the server is asked.
    let other = replica(&server.url(), &caching(&redis.url(), "tenant-2"));
    other.get_user(7, None, "f").await.unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    assert_eq!(other.stats().method("get_user").unwrap().cache_hits, 0);
}

#[tokio::test]
async fn with_redis_gone_a_replica_keeps_answers_in_its_memory_alone() {
    let mut redis = RedisServer::start().await;
    let url = redis.url();
    redis.stop();
    let (server, asked) = fresh_for_a_minute().await;
    let users = replica(&server.url(), &caching(&url, "tenant-1"));
    for _ in 0..3 {
        users.get_user(7, None, "f").await.unwrap();
    }
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(users.stats().method("get_user").unwrap().cache_hits, 2);
}

#[tokio::test]
async fn redis_holds_no_query_no_cookie_and_no_entry_a_writer_without_the_secret_made() {
    let redis = RedisServer::start().await;
    let (server, asked) = fresh_for_a_minute_setting(Some("session=cookie-of-the-user")).await;
    // The API key goes in the URL's query, marked secret.
    let profile = format!(
        "{}\nquery: {{ api_key: {{ value: key-in-the-query, secret: true }} }}",
        caching(&redis.url(), "tenant-1")
    );
    let first = replica(&server.url(), &profile);
    first.get_user(7, None, "f").await.unwrap();
    redis_holds(&redis, 1).await;
    let keys = redis.command_whole("KEYS *").await;
    let key = keys
        .lines()
        .find(|line| line.contains(":cache:"))
        .unwrap_or_else(|| panic!("no kept answer in {keys}"))
        .to_owned();
    let value = redis.command_whole(&format!("HGETALL {key}")).await;
    assert!(value.contains("Ada"), "the answer is kept: {value}");
    for secret in [
        "key-in-the-query",
        "cookie-of-the-user",
        "set-cookie",
        "users/7",
        "tenant-1",
    ] {
        assert!(!value.contains(secret), "`{secret}` in Redis: {value}");
    }
    // A writer without the fleet's secret replaces the body: no replica takes it.
    redis
        .command(&format!("HSET {key} body forged-by-a-writer"))
        .await;
    let second = replica(&server.url(), &profile);
    let user = second.get_user(7, None, "f").await.unwrap();
    assert_eq!(user.map(|u| u.name).as_deref(), Some("Ada"));
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "the forged entry was not a hit"
    );
    assert_eq!(second.stats().method("get_user").unwrap().cache_hits, 0);
}

#[tokio::test]
async fn a_shared_cache_without_a_secret_is_refused_when_the_client_is_built() {
    for secret in ["", ", secret: \"\""] {
        let yaml =
            format!("cache: {{ shared: {{ redis: \"redis://127.0.0.1:1\", key: k{secret} }} }}");
        let error = UserClient::builder()
            .base_url("http://127.0.0.1:1")
            .profile(Profile::from_yaml_str(&yaml).unwrap())
            .build()
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config, "{error}");
        assert!(error.to_string().contains("secret"), "{error}");
    }
}

#[tokio::test]
async fn a_shared_cache_secret_shorter_than_32_bytes_is_refused_naming_its_variable() {
    let yaml = "cache: { shared: { redis: \"redis://127.0.0.1:1\", key: k, secret: \"${REMCALL_TEST_UNSET_SECRET:-only-16-bytes-xx}\" } }";
    let error = UserClient::builder()
        .base_url("http://127.0.0.1:1")
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config, "{error}");
    let message = error.to_string();
    assert!(
        message.contains("${REMCALL_TEST_UNSET_SECRET}") && message.contains("32"),
        "{message}"
    );
    assert!(
        !message.contains("only-16-bytes"),
        "the secret shown: {message}"
    );
}

/// Two services whose profiles share the cache fragment (Redis, key, secret) are two clients:
/// neither is answered from the other's kept answers. The same `scope:` in both shares them on
/// purpose; a `${VAR}` in the key is resolved, not taken as written.
#[tokio::test]
async fn a_shared_cache_is_the_clients_own_unless_a_scope_says_otherwise() {
    let redis = RedisServer::start().await;
    let (service_a, asked_a) = fresh_for_a_minute().await;
    let (service_b, asked_b) = fresh_for_a_minute().await;
    let fragment = |scope: &str| {
        format!(
            "cache: {{ shared: {{ redis: \"{}\", key: \"${{REMCALL_TEST_UNSET_KEY:-fleet-e}}\", timeout: 1s, secret: fleet-secret-for-tests-of-32-bytes-at-least{scope} }} }}",
            redis.url()
        )
    };
    let a = replica(&service_a.url(), &fragment(""));
    a.get_user(7, None, "f").await.unwrap();
    redis_holds(&redis, 1).await;
    let keys = redis.command("KEYS *").await;
    assert!(
        keys.contains("{fleet-e}") && !keys.contains("REMCALL_TEST"),
        "{keys}"
    );
    let b = replica(&service_b.url(), &fragment(""));
    b.get_user(7, None, "f").await.unwrap();
    assert_eq!(
        (
            asked_a.load(Ordering::SeqCst),
            asked_b.load(Ordering::SeqCst)
        ),
        (1, 1),
        "service B asked its own server"
    );
    assert_eq!(b.stats().method("get_user").unwrap().cache_hits, 0);
    // One scope named in both: shared on purpose.
    let scoped_a = replica(&service_a.url(), &fragment(", scope: users-everywhere"));
    scoped_a.get_user(8, None, "f").await.unwrap();
    redis_holds(&redis, 3).await;
    let scoped_b = replica(&service_b.url(), &fragment(", scope: users-everywhere"));
    scoped_b.get_user(8, None, "f").await.unwrap();
    assert_eq!(asked_b.load(Ordering::SeqCst), 1, "answered from the scope");
    assert_eq!(scoped_b.stats().method("get_user").unwrap().cache_hits, 1);
}

/// A user service that answers at once and keeps nothing (`no-store`): every call looks in
/// the fleet's Redis first.
async fn never_kept() -> Server {
    let router = Router::new().route(
        "/v1/api/users/{id}",
        get(|| async {
            let mut headers = HeaderMap::new();
            headers.insert("cache-control", "no-store".parse().unwrap());
            headers.insert("content-type", "application/json".parse().unwrap());
            (StatusCode::OK, headers, USER).into_response()
        }),
    );
    Server::start(router).await
}

/// Redis answering slower than a call's whole deadline: the lookup in the fleet's cache gives
/// up half way to the deadline and the server, which answers at once, gets the other half.
/// Every call succeeds; the breaker (two calls, half failing) stays closed.
#[tokio::test]
async fn a_redis_slower_than_the_deadline_costs_no_call_and_opens_no_breaker() {
    let redis = RedisServer::start().await;
    let proxy = SlowProxy::start(redis.addr()).await;
    proxy.set_delay(Duration::from_secs(3));
    let server = never_kept().await;
    let users = replica(
        &server.url(),
        &format!(
            "timeout: {{ total: 2s }}\nretry: {{ max_attempts: 1 }}\nbreaker: {{ min_calls: 2, failure_rate: 50 }}\ncache: {{ shared: {{ redis: \"{}\", key: slow, timeout: 5s, secret: fleet-secret-for-tests-of-32-bytes-at-least }} }}",
            proxy.url()
        ),
    );
    for call in 0..3 {
        let user = users.get_user(7, None, "slow").await;
        assert!(user.is_ok(), "call {call}: {:?}", user.err());
    }
    let figures = users.stats();
    let figures = figures.method("get_user").unwrap();
    assert_eq!((figures.successes, figures.failures), (3, 0));
    assert_eq!(figures.breaker, remcall::BreakerState::Closed);
}

/// A server naming a new quota on every answer: the fleet keeps at most 32 of them in Redis,
/// as each replica does in its memory.
#[tokio::test]
async fn a_new_quota_name_on_every_answer_fills_no_redis() {
    let redis = RedisServer::start().await;
    let named = Arc::new(AtomicU64::new(0));
    let counter = named.clone();
    let router = Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            async move {
                let mut headers = HeaderMap::new();
                let policy = format!("\"q{n}\";q=100;w=60");
                let left = format!("\"q{n}\";r=99;t=60");
                headers.insert("ratelimit-policy", policy.parse().unwrap());
                headers.insert("ratelimit", left.parse().unwrap());
                headers.insert("content-type", "application/json".parse().unwrap());
                (StatusCode::OK, headers, USER).into_response()
            }
        }),
    );
    let server = Server::start(router).await;
    let users = replica(&server.url(), &sharing(&redis.url(), "names", "5s"));
    for _ in 0..100 {
        users.get_user(7, None, "f").await.unwrap();
    }
    assert_eq!(named.load(Ordering::SeqCst), 100);
    let quota_hashes = || async {
        let keys = redis.command_whole("KEYS *:quota:*").await;
        keys.lines().filter(|line| line.contains(":quota:")).count()
    };
    // The answers' word reaches Redis in the background: wait for the 32 names it takes (as
    // long as a busy machine needs, a minute at most)...
    let mut held = 0;
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        held = quota_hashes().await;
        if held >= 32 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(held, 32);
    // ...and a while for the others': no more come.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(quota_hashes().await, 32, "more quotas than the fleet keeps");
}

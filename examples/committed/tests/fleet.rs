//! Limits a fleet shares through a real `redis-server` (started by each test on a loopback port):
//! the aggregate rate of several clients, every `on_error` mode when Redis goes away and the
//! return to Redis when it comes back, a slow Redis held to `timeout`, NOSCRIPT after a script
//! flush, and a retry budget that caps the fleet's retries.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use remcall::serde_json::json;
use remcall::{ErrorKind, Profile};
use remcall_example_committed::clients::user_client::UserClient;
use testkit::Server;
use testkit::redis::{RedisServer, SlowProxy};

/// A user service that answers every request, counting them.
async fn service() -> (Server, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let router = Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let counted = counted.clone();
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                axum::Json(json!({ "id": 1, "name": "Ada" }))
            }
        }),
    );
    (Server::start(router).await, hits)
}

fn client(url: &str, yaml: &str) -> UserClient {
    UserClient::builder()
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

/// A shared limit of one call a second after a burst of `burst`, on `redis`.
fn limited(redis: &str, key: &str, burst: u32, on_error: &str) -> String {
    limited_at(redis, key, 1, burst, on_error)
}

/// A shared limit of `per_second` after a burst of `burst`, for two replicas.
fn limited_at(redis: &str, key: &str, per_second: u32, burst: u32, on_error: &str) -> String {
    format!(
        "retry: {{ max_attempts: 1 }}\nrate_limit: {{ per_second: {per_second}, burst: {burst}, shared: {{ redis: \"{redis}\", key: {key}, timeout: 50ms, on_error: {on_error}, replicas: 2 }} }}"
    )
}

/// Of `calls` calls made at once by each client, how many got through.
async fn admitted(clients: &[UserClient], calls: usize) -> usize {
    let mut tasks = Vec::new();
    for users in clients {
        for _ in 0..calls {
            let users = users.clone();
            tasks.push(tokio::spawn(
                async move { users.get_user(1, None, "f").await },
            ));
        }
    }
    let mut passed = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => passed += 1,
            Err(error) => assert_eq!(error.kind(), ErrorKind::RateLimited, "{error}"),
        }
    }
    passed
}

#[tokio::test]
async fn clients_on_separate_connections_share_one_limit() {
    let redis = RedisServer::start().await;
    let (server, hits) = service().await;
    let fleet: Vec<UserClient> = (0..3)
        .map(|_| {
            client(
                &server.url(),
                &limited(&redis.url(), "shared-api", 6, "closed"),
            )
        })
        .collect();
    // 30 calls at once across three replicas: the burst of 6 in all, not 6 each.
    let passed = admitted(&fleet, 10).await;
    assert!((6..=7).contains(&passed), "{passed} admitted");
    assert_eq!(hits.load(Ordering::SeqCst), passed);
    let stats = fleet[0].stats();
    assert_eq!(stats.method("get_user").unwrap().without_redis, 0);
    // A separate key is a separate limit.
    let other = client(
        &server.url(),
        &limited(&redis.url(), "other-api", 6, "closed"),
    );
    assert_eq!(admitted(&[other], 6).await, 6);
}

#[tokio::test]
async fn when_redis_goes_away_each_mode_decides_at_once_and_redis_is_back_when_it_returns() {
    let mut redis = RedisServer::start().await;
    let (server, _) = service().await;
    let url = redis.url();
    let open = client(&server.url(), &limited(&url, "down", 1, "open"));
    let closed = client(&server.url(), &limited(&url, "down", 1, "closed"));
    let local = client(
        &server.url(),
        &limited_at(&url, "down-local", 4, 4, "local_share"),
    );
    // Up: the three share one key and its burst of 1, which the first call takes.
    assert!(open.get_user(1, None, "a").await.is_ok());
    assert_eq!(
        closed.get_user(1, None, "b").await.unwrap_err().kind(),
        ErrorKind::RateLimited
    );

    // The local-share client spends the fleet's burst of 4; another key's fleet spends none.
    assert_eq!(admitted(std::slice::from_ref(&local), 4).await, 4);
    let rested = client(
        &server.url(),
        &limited_at(&url, "down-rested", 4, 4, "local_share"),
    );

    let port = redis.stop();
    let started = Instant::now();
    // Open: everything passes; closed: nothing; local share: per_second / replicas (2/s) with
    // a burst of 4 / 2, starting with the part of the fleet's burst that Redis last said was
    // left, grown by the time since: none just after the four calls (a fleet's turn comes back
    // every 250 ms), all of its share for the rested fleet.
    assert_eq!(admitted(std::slice::from_ref(&open), 5).await, 5);
    assert_eq!(admitted(std::slice::from_ref(&closed), 5).await, 0);
    assert_eq!(admitted(std::slice::from_ref(&local), 5).await, 0);
    assert_eq!(admitted(std::slice::from_ref(&rested), 5).await, 2);
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "no call waited on the dead Redis: {:?}",
        started.elapsed()
    );
    // At 2/s, a second gives the local share its burst of 2 again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(admitted(std::slice::from_ref(&local), 5).await, 2);
    for users in [&open, &closed, &local] {
        assert!(users.stats().method("get_user").unwrap().without_redis >= 5);
    }

    // Back: within the reconnection backoff, decisions are Redis's again.
    let _redis = RedisServer::start_on(port).await;
    let mut back = false;
    for _ in 0..60 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let before = closed.stats().method("get_user").unwrap().without_redis;
        let _ = closed.get_user(1, None, "c").await;
        if closed.stats().method("get_user").unwrap().without_redis == before {
            back = true;
            break;
        }
    }
    assert!(back, "the closed client decides with Redis again");
    // With Redis back, the open client is limited again (the burst of 1 is Redis's to give),
    // and it decides nothing without it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = open.stats().method("get_user").unwrap().without_redis;
    assert!(admitted(std::slice::from_ref(&open), 3).await <= 1);
    assert_eq!(
        open.stats().method("get_user").unwrap().without_redis,
        before
    );
}

#[tokio::test]
async fn a_slow_redis_is_waited_on_no_longer_than_timeout() {
    let redis = RedisServer::start().await;
    let proxy = SlowProxy::start(redis.addr()).await;
    let (server, _) = service().await;
    let users = client(&server.url(), &limited(&proxy.url(), "slow", 100, "open"));
    users.get_user(1, None, "warm").await.unwrap();
    proxy.set_delay(Duration::from_millis(500));
    let started = Instant::now();
    users.get_user(1, None, "slow").await.unwrap();
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(300),
        "waited {took:?} on a slow Redis"
    );
    assert_eq!(users.stats().method("get_user").unwrap().without_redis, 1);
}

/// A loaded host: Redis answers steadily, but in 80 ms, above the profile's 50 ms. The first
/// command expires and the next waits twice as long; from the round trips measured then, the
/// link waits as long as they need, and the fleet decides with Redis again instead of calling
/// it down at every call.
#[tokio::test]
async fn a_redis_slower_than_timeout_but_steady_is_waited_on_as_its_round_trips_need() {
    let redis = RedisServer::start().await;
    let proxy = SlowProxy::start(redis.addr()).await;
    let (server, _) = service().await;
    let users = client(
        &server.url(),
        &limited(&proxy.url(), "steady", 100, "closed"),
    );
    users.get_user(1, None, "warm").await.unwrap();
    proxy.set_delay(Duration::from_millis(80));
    let without = || users.stats().method("get_user").unwrap().without_redis;
    // The first command expires; the reconnection's pings wait longer each time, until one is
    // answered (a fixed 50 ms would never be).
    let started = Instant::now();
    loop {
        let before = without();
        let _ = users.get_user(1, None, "steady").await;
        if without() == before {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "Redis was never waited on long enough"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // From then on every decision is Redis's: the timeout follows the round trips.
    let before = without();
    for _ in 0..20 {
        let _ = users.get_user(1, None, "steady").await;
    }
    assert_eq!(without(), before, "decisions without a live Redis");
}

#[tokio::test]
async fn the_script_is_loaded_again_after_a_flush() {
    let redis = RedisServer::start().await;
    let (server, _) = service().await;
    let users = client(
        &server.url(),
        &limited(&redis.url(), "flushed", 100, "closed"),
    );
    users.get_user(1, None, "a").await.unwrap();
    assert_eq!(redis.command("SCRIPT FLUSH").await, "+OK");
    users.get_user(1, None, "b").await.unwrap();
    assert_eq!(users.stats().method("get_user").unwrap().without_redis, 0);
}

#[tokio::test]
async fn a_shared_retry_budget_caps_the_fleets_retries() {
    let redis = RedisServer::start().await;
    let attempts = Arc::new(AtomicUsize::new(0));
    let counted = attempts.clone();
    let failing = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let counted = counted.clone();
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                StatusCode::SERVICE_UNAVAILABLE
            }
        }),
    ))
    .await;
    // One retry a second for the whole fleet: 10 in the ten-second window, however many
    // replicas. Four local budgets of the same figure would allow 40.
    let budget = |shared: bool| {
        let shared = if shared {
            format!(
                ", shared: {{ redis: \"{}\", key: fleet-budget }}",
                redis.url()
            )
        } else {
            String::new()
        };
        format!(
            "retry: {{ max_attempts: 3, backoff: {{ initial: 1ms, max: 1ms }}, budget: {{ ratio: 0, min_per_second: 1{shared} }} }}\nbreaker: {{ min_calls: 1000 }}"
        )
    };
    let fleet: Vec<UserClient> = (0..4)
        .map(|_| client(&failing.url(), &budget(true)))
        .collect();
    for users in &fleet {
        for _ in 0..10 {
            assert!(users.get_user(1, None, "r").await.is_err());
        }
    }
    let retries: u64 = fleet
        .iter()
        .map(|u| u.stats().method("get_user").unwrap().retries)
        .sum();
    assert_eq!(retries, 10, "the fleet's budget");
    assert_eq!(attempts.load(Ordering::SeqCst), 40 + 10);

    let local: Vec<UserClient> = (0..4)
        .map(|_| client(&failing.url(), &budget(false)))
        .collect();
    for users in &local {
        for _ in 0..10 {
            let _ = users.get_user(1, None, "r").await;
        }
    }
    let retries: u64 = local
        .iter()
        .map(|u| u.stats().method("get_user").unwrap().retries)
        .sum();
    assert_eq!(retries, 40, "four budgets of 10 each");
}

#[tokio::test]
async fn a_call_cancelled_while_it_waits_gives_its_shared_turn_back() {
    let redis = RedisServer::start().await;
    let (server, _) = service().await;
    let users = client(
        &server.url(),
        &format!(
            // Redis's own timeout is wide: past the 50 ms default, a busy machine would have
            // the local share decide, and this test is about the turn given back in Redis.
            "retry: {{ max_attempts: 1 }}\nrate_limit: {{ per_second: 0.25, burst: 1, max_wait: 10s, shared: {{ redis: \"{}\", key: give-back, timeout: 2s }} }}",
            redis.url()
        ),
    );
    users.get_user(1, None, "first").await.unwrap();
    // Turns are four seconds apart, so that a busy machine's pauses are small beside them. The
    // second call's turn is four seconds away; it is cancelled after 50 ms.
    let second = users.get_user(1, None, "second");
    assert!(
        tokio::time::timeout(Duration::from_millis(50), second)
            .await
            .is_err()
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The third gets the turn the second gave back: about 3.9 s from now, not 7.9 s.
    let started = Instant::now();
    users.get_user(1, None, "third").await.unwrap();
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(6),
        "waited {waited:?}: the cancelled turn was not given back"
    );
}

#[tokio::test]
async fn a_redis_cluster_holds_the_limit_whichever_node_a_replica_enters_by() {
    let cluster = testkit::redis::RedisCluster::start().await;
    let (server, hits) = service().await;
    // Three replicas, each entering the cluster by another node; the key's hash tag puts its
    // parts in one slot, wherever that is.
    let fleet: Vec<UserClient> = (0..3)
        .map(|node| {
            // A first command to a cluster learns its slots and connects to their node: more
            // than the 50 ms the other tests allow when the machine is busy, and this test is
            // about where the key lives, not about timeouts.
            let profile = limited(&cluster.url(node), "clustered", 6, "closed")
                .replace("timeout: 50ms", "timeout: 2s");
            client(&server.url(), &profile)
        })
        .collect();
    let passed = admitted(&fleet, 10).await;
    assert!((6..=7).contains(&passed), "{passed} admitted");
    assert_eq!(hits.load(Ordering::SeqCst), passed);
    for users in &fleet {
        assert_eq!(users.stats().method("get_user").unwrap().without_redis, 0);
    }
}

/// A spec that says `redis: "${FLEET_REDIS_URL:-}"` runs where no Redis is (a test, a
/// developer's machine): with the variable unset the client builds, and its limit is this
/// process's own, burst and rate as written; set, the same profile shares the limit.
#[tokio::test]
async fn an_empty_redis_url_leaves_the_limit_in_the_process() {
    let (server, hits) = service().await;
    let yaml = "retry: { max_attempts: 1 }\nrate_limit: { per_second: 1, burst: 3, max_wait: 0s, shared: { redis: \"${REMCALL_TEST_UNSET_REDIS_URL:-}\", key: local-when-empty } }";
    let alone = client(&server.url(), yaml);
    let passed = admitted(std::slice::from_ref(&alone), 6).await;
    assert_eq!(passed, 3, "the burst, kept in the process");
    assert_eq!(hits.load(Ordering::SeqCst), 3);
    let stats = alone.stats();
    assert_eq!(stats.method("get_user").unwrap().rate_limited, 3);
    assert_eq!(
        stats.method("get_user").unwrap().without_redis,
        0,
        "no Redis was asked"
    );
}

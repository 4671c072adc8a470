//! Tail latency and overload through generated clients against loopback servers: hedged requests
//! (the winner, the loser's connection closed, a failed hedge that does not fail the call, no
//! hedge for a POST without a key, the budget, a cancelled caller) and the adaptive limit.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::{any, get};
use remcall::serde_json::json;
use remcall::{ErrorKind, Profile};
use remcall_example_committed::clients::pet_store::{NewPet, PetStore, Status};
use remcall_example_committed::clients::user_client::UserClient;
use testkit::Server;

/// What a request does, by its arrival order (0 for the first).
type Script = Arc<dyn Fn(usize) -> (Duration, StatusCode) + Send + Sync>;

/// Requests seen, and handlers dropped before they answered (their connection was closed).
#[derive(Clone, Default)]
struct Seen {
    arrived: Arc<AtomicUsize>,
    abandoned: Arc<AtomicUsize>,
}

/// Counts an answer that was never given: the handler's future dropped mid-sleep.
struct Abandoned(Option<Arc<AtomicUsize>>);

impl Drop for Abandoned {
    fn drop(&mut self) {
        if let Some(count) = self.0.take() {
            count.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// A user service whose requests sleep and answer as `script` says.
async fn scripted(script: Script) -> (Server, Seen) {
    let seen = Seen::default();
    let handler = {
        let seen = seen.clone();
        move || {
            let (seen, script) = (seen.clone(), script.clone());
            async move {
                let n = seen.arrived.fetch_add(1, Ordering::SeqCst);
                let (delay, status) = script(n);
                let mut guard = Abandoned(Some(seen.abandoned.clone()));
                tokio::time::sleep(delay).await;
                guard.0 = None;
                (status, axum::Json(json!({ "id": n, "name": "Ada" })))
            }
        }
    };
    let router = Router::new()
        .route("/v1/api/users/{id}", get(handler.clone()))
        .route("/api/v3/pets", any(handler));
    (Server::start(router).await, seen)
}

fn users(url: &str, yaml: &str) -> UserClient {
    UserClient::builder()
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

/// Waits (on real time: the server's side of a closed connection) for `count` to reach
/// `expected`: at once on a quiet machine, up to a minute on a busy one.
async fn eventually(count: &AtomicUsize, expected: usize) {
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if count.load(Ordering::SeqCst) >= expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(count.load(Ordering::SeqCst), expected);
}

const SLOW: Duration = Duration::from_secs(10);

#[tokio::test]
async fn a_hedge_answers_first_and_the_slow_attempt_is_cut_off() {
    let (server, seen) = scripted(Arc::new(|n| match n {
        0 => (SLOW, StatusCode::OK),
        _ => (Duration::ZERO, StatusCode::OK),
    }))
    .await;
    // Hedges are a share of calls: 100% lets the first call have one.
    let users = users(&server.url(), "hedge: { delay: 20ms, budget_percent: 100 }");
    let started = std::time::Instant::now();
    let user = users.get_user(1, None, "r").await.unwrap().unwrap();
    assert_eq!(user.id, 1, "the hedge's answer");
    assert!(started.elapsed() < SLOW / 2);
    let stats = users.stats();
    let get_user = stats.method("get_user").unwrap();
    assert_eq!((get_user.hedges, get_user.hedge_wins), (1, 1));
    assert_eq!(get_user.retries, 0);
    // The first attempt's connection was dropped: the server saw its request abandoned.
    eventually(&seen.abandoned, 1).await;
    assert_eq!(seen.arrived.load(Ordering::SeqCst), 2);
    assert!(stats.endpoints.iter().all(|e| e.in_flight == 0));
}

#[tokio::test]
async fn a_failed_hedge_does_not_fail_the_call_while_the_first_attempt_runs() {
    let (server, seen) = scripted(Arc::new(|n| match n {
        0 => (Duration::from_millis(150), StatusCode::OK),
        _ => (Duration::ZERO, StatusCode::SERVICE_UNAVAILABLE),
    }))
    .await;
    let users = users(
        &server.url(),
        "retry: { max_attempts: 1 }\nhedge: { delay: 10ms, budget_percent: 100 }",
    );
    let user = users.get_user(1, None, "r").await.unwrap().unwrap();
    assert_eq!(user.id, 0, "the first attempt's answer");
    let get_user = users.stats().method("get_user").cloned().unwrap();
    assert_eq!((get_user.hedges, get_user.hedge_wins), (1, 0));
    assert_eq!(seen.arrived.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_post_without_a_key_is_never_hedged() {
    let (server, seen) = scripted(Arc::new(|_| (Duration::from_millis(100), StatusCode::OK))).await;
    let store = PetStore::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("hedge: { delay: 5ms, max_extra: 3 }").unwrap())
        .build()
        .unwrap();
    let pet = NewPet {
        name: "Rex".to_owned(),
        status: Status::Available,
        tags: vec![],
    };
    // The answer does not decode as a Pet; what matters is what the server got.
    let _ = store.add_pet(&pet).await;
    assert_eq!(seen.arrived.load(Ordering::SeqCst), 1, "one POST");
    assert_eq!(store.stats().method("add_pet").unwrap().hedges, 0);
}

#[tokio::test]
async fn hedges_stop_when_their_budget_is_spent() {
    let (server, seen) = scripted(Arc::new(|_| (Duration::from_millis(30), StatusCode::OK))).await;
    let users = users(
        &server.url(),
        "hedge: { delay: 2ms, budget_percent: 10 }\nretry: { budget: { ratio: 1.0 } }",
    );
    for _ in 0..20 {
        users.get_user(1, None, "r").await.unwrap();
    }
    let get_user = users.stats().method("get_user").cloned().unwrap();
    assert_eq!(get_user.hedges, 2, "10% of 20 calls");
    assert_eq!(seen.arrived.load(Ordering::SeqCst), 22);
}

#[tokio::test]
async fn a_cancelled_caller_takes_every_hedge_with_it() {
    let (server, seen) = scripted(Arc::new(|n| match n {
        0 => (Duration::ZERO, StatusCode::OK),
        _ => (SLOW, StatusCode::OK),
    }))
    .await;
    let users = users(
        &server.url(),
        "hedge: { delay: 20ms, max_extra: 2, budget_percent: 100 }\nretry: { budget: { ratio: 1.0 } }",
    );
    // A quick call first: two calls at 100% earn the two hedges.
    users.get_user(1, None, "r").await.unwrap();
    let call = users.get_user(1, None, "r");
    // Long enough for both hedges (20 ms apart) on a loaded machine, short of the attempt
    // timeout's retry (1 s): at 300 ms a busy host once cancelled before the second hedge.
    assert!(
        tokio::time::timeout(Duration::from_millis(800), call)
            .await
            .is_err()
    );
    assert_eq!(
        seen.arrived.load(Ordering::SeqCst),
        4,
        "the quick call, then the attempt and two hedges"
    );
    eventually(&seen.abandoned, 3).await;
    let stats = users.stats();
    assert_eq!(stats.method("get_user").unwrap().hedges, 2);
    assert!(stats.endpoints.iter().all(|e| e.in_flight == 0));
}

#[tokio::test]
async fn the_adaptive_limit_rejects_past_it_and_shows_in_the_stats() {
    let (server, _) = scripted(Arc::new(|_| (Duration::from_millis(200), StatusCode::OK))).await;
    let users = users(
        &server.url(),
        "isolation: { adaptive: { initial: 2, min: 2, max: 2 } }",
    );
    assert_eq!(
        users.stats().method("get_user").unwrap().concurrency_limit,
        Some(2)
    );
    let (a, b, c) = tokio::join!(
        users.get_user(1, None, "a"),
        users.get_user(2, None, "b"),
        async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            users.get_user(3, None, "c").await
        }
    );
    assert!(a.is_ok() && b.is_ok());
    assert_eq!(c.unwrap_err().kind(), ErrorKind::Rejected);
}

#[tokio::test]
async fn a_callers_deadline_travels_down_the_chain_and_stops_work_nobody_waits_for() {
    const HEADER: &str = "X-Request-Timeout-Ms";
    // C: half a second of work, unless its caller goes away first.
    let (c, c_seen) = scripted(Arc::new(|_| (Duration::from_millis(500), StatusCode::OK))).await;
    // B: reads the deadline A sends, and calls C inside it, sending on what is left.
    let to_c = users(
        &c.url(),
        &format!("retry: {{ max_attempts: 1 }}\ndeadline: {{ propagate: {HEADER} }}"),
    );
    let b_errors = Arc::new(std::sync::Mutex::new(Vec::new()));
    // B does its downstream work in a task of its own, as services that must not lose work when
    // their caller hangs up do: A going away does not cancel it, only the deadline can. A task
    // does not inherit the scope: it is handed on with `scope_until`.
    let handler = {
        let b_errors = b_errors.clone();
        move || {
            let (to_c, b_errors) = (to_c.clone(), b_errors.clone());
            async move {
                let by = remcall::deadline::current().expect("the layer's scope");
                let left = remcall::deadline::remaining();
                let work = tokio::spawn(remcall::deadline::scope_until(by, async move {
                    match to_c.get_user(1, None, "b").await {
                        Ok(_) => StatusCode::OK,
                        Err(error) => {
                            b_errors.lock().unwrap().push((left, error.kind()));
                            StatusCode::GATEWAY_TIMEOUT
                        }
                    }
                }));
                work.await.unwrap()
            }
        }
    };
    let b = Server::start(
        Router::new()
            .route("/v1/api/users/{id}", get(handler))
            .layer(remcall::deadline::DeadlineLayer::new(HEADER)),
    )
    .await;
    // A: 150 ms for the whole call.
    let a = users(
        &b.url(),
        &format!(
            "retry: {{ max_attempts: 1 }}\ntimeout: {{ total: 150ms }}\ndeadline: {{ propagate: {HEADER} }}"
        ),
    );
    let started = std::time::Instant::now();
    // A's call ends at its deadline: its own timeout, or B's 504 for the same deadline when
    // that answer wins the race to A (B gives up on C at the time A sent it; on a busy machine
    // B's answer can arrive a moment before A's timer fires).
    let error = a.get_user(1, None, "a").await.unwrap_err();
    let b_gave_up = error.status() == Some(StatusCode::GATEWAY_TIMEOUT);
    assert!(error.kind() == ErrorKind::Timeout || b_gave_up, "{error}");
    assert!(started.elapsed() < Duration::from_millis(400));

    // B ran with A's deadline, not its own 30 s, and gave up on C in time.
    eventually(&c_seen.abandoned, 1).await;
    let errors = b_errors.lock().unwrap().clone();
    let (left, kind) = errors[0];
    assert!(left.unwrap() <= Duration::from_millis(150), "{left:?}");
    assert_eq!(kind, ErrorKind::Timeout);
    // C was told how long it had.
    let sent: u64 = c.received()[0].headers[HEADER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(sent <= 150, "{sent} ms");
    // And it did not finish the work after A's deadline.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(c_seen.arrived.load(Ordering::SeqCst), 1);
    assert_eq!(c_seen.abandoned.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_call_with_no_time_left_sends_nothing() {
    let (server, seen) = scripted(Arc::new(|_| (Duration::ZERO, StatusCode::OK))).await;
    let users = users(&server.url(), "");
    let error = remcall::deadline::scope(Duration::ZERO, users.get_user(1, None, "r"))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Timeout);
    assert!(error.to_string().contains("no time left"), "{error}");
    assert_eq!(seen.arrived.load(Ordering::SeqCst), 0);
    // Within a scope with time, calls go as usual, capped by it.
    let user = remcall::deadline::scope(Duration::from_secs(1), users.get_user(1, None, "r"))
        .await
        .unwrap();
    assert!(user.is_some());
}

#[tokio::test]
async fn callers_running_out_of_their_own_time_do_not_open_the_breaker_for_everyone() {
    // A healthy downstream that answers in 20 ms, and callers that give each call 3 ms: each
    // call times out, but of the caller's deadline, which says nothing about the downstream.
    let (server, _) = scripted(Arc::new(|_| (Duration::from_millis(20), StatusCode::OK))).await;
    let users = users(
        &server.url(),
        "retry: { max_attempts: 1 }\nbreaker: { min_calls: 5, failure_rate: 50, window: { calls: 20 }, record: [timeout, connect, 5xx] }\nisolation: { adaptive: { initial: 4, min: 1, max: 8 } }",
    );
    for _ in 0..30 {
        let error =
            remcall::deadline::scope(Duration::from_millis(3), users.get_user(1, None, "hurried"))
                .await
                .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Timeout, "{error}");
        assert!(error.is_callers_deadline(), "{error}");
        assert!(error.to_string().contains("caller's deadline"), "{error}");
    }
    let stats = users.stats();
    let method = stats.method("get_user").unwrap();
    assert_eq!(method.breaker, remcall::BreakerState::Closed);
    assert_eq!(method.short_circuited, 0);
    assert_eq!(
        method.concurrency_limit,
        Some(4),
        "the adaptive limit did not shrink"
    );
    assert!(!stats.endpoints[0].ejected, "the endpoint was not ejected");
    // The next caller, with time, is answered.
    assert!(users.get_user(1, None, "patient").await.unwrap().is_some());
    // The method's own total deadline still counts: the downstream was too slow for it.
    let strict = self::users(
        &server.url(),
        "retry: { max_attempts: 1 }\ntimeout: { total: 5ms, attempt: 5ms }\nbreaker: { min_calls: 5, failure_rate: 50, window: { calls: 20 } }",
    );
    for _ in 0..5 {
        let error = strict.get_user(1, None, "r").await.unwrap_err();
        assert!(!error.is_callers_deadline(), "{error}");
    }
    assert_eq!(
        strict.stats().method("get_user").unwrap().breaker,
        remcall::BreakerState::Open
    );
}

#[tokio::test]
async fn a_post_with_an_idempotency_key_is_hedged_under_the_same_key() {
    use remcall_example_committed::clients::payments::{NewRefund, Payments};
    let arrived = Arc::new(AtomicUsize::new(0));
    let refunds = {
        let arrived = arrived.clone();
        axum::routing::post(move || {
            let arrived = arrived.clone();
            async move {
                if arrived.fetch_add(1, Ordering::SeqCst) == 0 {
                    tokio::time::sleep(SLOW).await;
                }
                axum::Json(json!({ "id": "re_1", "charge": "ch_1", "amount": 500 }))
            }
        })
    };
    let server = Server::start(Router::new().route("/v1/refunds", refunds)).await;
    let payments = Payments::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("hedge: { delay: 20ms, budget_percent: 100 }").unwrap())
        .build()
        .unwrap();
    let refund = payments
        .create_refund(&NewRefund {
            charge: "ch_1".into(),
            amount: 500,
        })
        .await
        .unwrap();
    assert_eq!(refund.id, "re_1");
    let received = server.received();
    assert_eq!(received.len(), 2, "the POST and its hedge");
    assert_eq!(
        received[0].headers["idempotency-key"], received[1].headers["idempotency-key"],
        "one key: the server applies it once"
    );
    assert_eq!(
        payments.stats().method("create_refund").unwrap().hedge_wins,
        1
    );
}

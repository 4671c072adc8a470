//! The resilience pipeline end to end, through generated clients against real loopback servers:
//! a 5xx burst opening the breaker and trials closing it, and a POST retried on another endpoint
//! after a refused connection. The pipeline's policies one by one are tested in the runtime's
//! own tests (`runtime/tests/pipeline.rs`).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::any;
use remcall::serde_json::json;
use remcall::{BreakerState, ErrorKind, Profile};
use remcall_example_committed::clients::pet_store::{NewPet, PetStore, Status};
use remcall_example_committed::clients::user_client::UserClient;
use testkit::{Flaky, Server};

fn profile(yaml: &str) -> Profile {
    Profile::from_yaml_str(yaml).unwrap()
}

/// A user client of the service at `url`, with `yaml` layered over the spec's profile.
fn users_at(url: &str, yaml: &str) -> UserClient {
    UserClient::builder()
        .base_url(url)
        .profile(profile(yaml))
        .build()
        .unwrap()
}

const FAST_BREAKER: &str = "
retry: { max_attempts: 1 }
breaker: { window: { calls: 10 }, min_calls: 5, failure_rate: 50, open_for: 300ms, half_open_calls: 2 }
";

#[tokio::test]
async fn a_5xx_burst_opens_the_breaker_and_half_open_trials_close_it() {
    let downstream = Flaky::start().await;
    let users = users_at(&downstream.server.url(), FAST_BREAKER);

    downstream.status.store(503, Ordering::SeqCst);
    for _ in 0..5 {
        assert_eq!(
            users.get_user(1, None, "r").await.unwrap_err().kind(),
            ErrorKind::Status
        );
    }
    assert_eq!(
        users.stats().method("get_user").unwrap().breaker,
        BreakerState::Open
    );

    let hits_before = downstream.hits.load(Ordering::SeqCst);
    let started = Instant::now();
    let err = users.get_user(1, None, "r").await.unwrap_err();
    let short_circuit = started.elapsed();
    assert_eq!(err.kind(), ErrorKind::BreakerOpen);
    assert!(
        err.retry_in().unwrap() > Duration::ZERO
            && err.retry_in().unwrap() <= Duration::from_millis(300)
    );
    assert_eq!(
        downstream.hits.load(Ordering::SeqCst),
        hits_before,
        "the server saw nothing"
    );
    // Generous for a shared machine; the bench measures the real figure.
    assert!(
        short_circuit < Duration::from_millis(50),
        "short-circuit took {short_circuit:?}"
    );

    // Recovery: after open_for, two successful trials close it.
    downstream.status.store(200, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(350)).await;
    users.get_user(1, None, "r").await.unwrap();
    assert_eq!(
        users.stats().method("get_user").unwrap().breaker,
        BreakerState::HalfOpen
    );
    users.get_user(1, None, "r").await.unwrap();
    let stats = users.stats();
    let get_user = stats.method("get_user").unwrap();
    assert_eq!(get_user.breaker, BreakerState::Closed);
    assert_eq!(
        (get_user.calls, get_user.short_circuited, get_user.failures),
        (8, 1, 6)
    );
}

#[tokio::test]
async fn post_is_retried_after_a_refused_connection_on_another_endpoint() {
    let refused = testkit::refused_url().await;
    let good = Server::start(Router::new().route("/api/v3/pets", any(|| async { axum::Json(json!({ "id": 3, "name": "Rex", "photoUrls": [], "tags": [], "status": "available", "attributes": {} })) }))).await;
    let store = PetStore::builder()
        .base_urls([refused.as_str(), good.url().as_str()])
        .profile(profile(
            "retry: { max_attempts: 2, backoff: { initial: 1ms } }",
        ))
        .build()
        .unwrap();
    let pet = NewPet {
        name: "Rex".to_owned(),
        status: Status::Available,
        tags: vec![],
    };
    assert_eq!(
        store.add_pet(&pet).await.unwrap().id,
        3,
        "nothing was sent to the refused endpoint, so the POST was retried"
    );
    assert_eq!(store.stats().method("add_pet").unwrap().retries, 1);
}

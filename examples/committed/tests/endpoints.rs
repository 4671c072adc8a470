//! Load balancing over real loopback servers, ejection and readmission, discovery.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use remcall::serde_json::json;
use remcall::{DnsDiscover, Profile, Resolve};
use remcall_example_committed::clients::user_client::UserClient;
use testkit::Server;

fn user_router(delay: Duration) -> Router {
    Router::new().route(
        "/v1/api/users/{id}",
        get(move || testkit::slow(delay, axum::Json(json!({ "id": 1, "name": "Ada" })))),
    )
}

async fn servers(delays: [Duration; 3]) -> Vec<Server> {
    let mut servers = Vec::new();
    for delay in delays {
        servers.push(Server::start(user_router(delay)).await);
    }
    servers
}

fn client(servers: &[Server], profile: &str) -> UserClient {
    UserClient::builder()
        .base_urls(servers.iter().map(Server::url))
        .profile(Profile::from_yaml_str(profile).unwrap())
        .build()
        .unwrap()
}

fn counts(servers: &[Server]) -> Vec<usize> {
    servers.iter().map(|s| s.received().len()).collect()
}

#[tokio::test]
async fn round_robin_spreads_calls_evenly() {
    let servers = servers([Duration::ZERO; 3]).await;
    let users = client(&servers, "retry: { max_attempts: 1 }");
    for _ in 0..300 {
        users.get_user(1, None, "r").await.unwrap();
    }
    assert_eq!(counts(&servers), [100, 100, 100]);
}

#[tokio::test]
async fn weights_shift_the_share() {
    let servers = servers([Duration::ZERO; 3]).await;
    let users = client(
        &servers,
        "retry: { max_attempts: 1 }\nendpoints: { weights: [2, 1, 1] }",
    );
    for _ in 0..400 {
        users.get_user(1, None, "r").await.unwrap();
    }
    assert_eq!(counts(&servers), [200, 100, 100]);
}

#[tokio::test]
async fn a_dead_endpoint_is_retried_around_ejected_and_readmitted() {
    let mut servers = servers([Duration::ZERO; 3]).await;
    let users = client(
        &servers,
        "retry: { max_attempts: 3, backoff: { initial: 1ms, max: 1ms } }\nendpoints: { eject: { after: 2, for: 300ms, max_percent: 50 } }",
    );
    let dead = servers.remove(1);
    let dead_addr = dead.stop().await;
    for _ in 0..60 {
        users
            .get_user(1, None, "r")
            .await
            .expect("the other endpoints answer");
    }
    let stats = users.stats();
    let ejected: Vec<&str> = stats
        .endpoints
        .iter()
        .filter(|e| e.ejected)
        .map(|e| e.url.as_str())
        .collect();
    assert_eq!(ejected, [format!("http://{dead_addr}/v1/api")]);
    assert!(
        stats.method("get_user").unwrap().retries <= 3,
        "once ejected, the dead endpoint costs no retries"
    );

    // It comes back; once its ejection ends it gets calls again.
    let back = Server::start_on(user_router(Duration::ZERO), dead_addr).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    for _ in 0..30 {
        users.get_user(1, None, "r").await.unwrap();
    }
    assert!(
        back.received().len() >= 5,
        "readmitted: {} calls",
        back.received().len()
    );
    assert!(users.stats().endpoints.iter().all(|e| !e.ejected));
}

/// Calls at a steady concurrency; returns how many each server got.
async fn under_load(servers: &[Server], strategy: &str) -> Vec<usize> {
    let users = client(
        servers,
        &format!("retry: {{ max_attempts: 1 }}\nendpoints: {{ strategy: {strategy} }}"),
    );
    let workers: Vec<_> = (0..12)
        .map(|_| {
            let users = users.clone();
            tokio::spawn(async move {
                for _ in 0..8 {
                    users.get_user(1, None, "r").await.unwrap();
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.unwrap();
    }
    counts(servers)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn least_in_flight_and_p2c_send_less_to_a_slow_server() {
    for strategy in ["least_in_flight", "p2c"] {
        let servers = servers([
            Duration::from_millis(2),
            Duration::from_millis(2),
            Duration::from_millis(150),
        ])
        .await;
        let got = under_load(&servers, strategy).await;
        assert_eq!(got.iter().sum::<usize>(), 96);
        assert!(got[2] < got[0] && got[2] < got[1], "{strategy}: {got:?}");
    }
}

/// A resolver whose answer the test changes.
#[derive(Clone, Default)]
struct Switchable(Arc<Mutex<Vec<SocketAddr>>>);

impl Resolve for Switchable {
    async fn resolve(&self, host: &str, _port: u16) -> std::io::Result<Vec<SocketAddr>> {
        assert_eq!(host, "users.internal");
        Ok(self.0.lock().unwrap().clone())
    }
}

#[tokio::test]
async fn dns_discovery_follows_a_scaled_deployment() {
    let servers = servers([Duration::ZERO; 3]).await;
    let resolver = Switchable::default();
    *resolver.0.lock().unwrap() = vec![servers[0].addr()];
    let base = remcall::reqwest::Url::parse("http://users.internal:8080").unwrap();
    let discover = DnsDiscover::new(vec![(base, 1)], Duration::from_millis(100))
        .with_resolver(resolver.clone());
    let users = UserClient::builder()
        .discover(discover)
        .profile(Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
        .build()
        .unwrap();
    for _ in 0..10 {
        users.get_user(1, None, "r").await.unwrap();
    }
    assert_eq!(counts(&servers), [10, 0, 0]);
    assert_eq!(
        servers[0].received()[0].headers["host"],
        "users.internal:8080",
        "the service's name, not the address"
    );

    // Scaled out: the next resolution finds the two new instances.
    *resolver.0.lock().unwrap() = vec![servers[1].addr(), servers[2].addr()];
    tokio::time::sleep(Duration::from_millis(150)).await;
    for _ in 0..21 {
        users.get_user(1, None, "r").await.unwrap();
    }
    let got = counts(&servers);
    assert!(got[0] <= 11 && got[1] >= 9 && got[2] >= 9, "{got:?}");
}

#[tokio::test]
async fn dns_discovery_is_refused_for_https() {
    let err = UserClient::builder()
        .base_url("https://users.internal")
        .profile(Profile::from_yaml_str("endpoints: { dns: { refresh: 10s } }").unwrap())
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), remcall::ErrorKind::Config);
    assert!(err.to_string().contains("Discover"), "{err}");
}

#[tokio::test]
async fn stats_serialise_to_json() {
    let servers = servers([Duration::ZERO; 3]).await;
    let users = client(&servers, "");
    users.get_user(1, None, "r").await.unwrap();
    let json: remcall::serde_json::Value = remcall::serde_json::to_value(users.stats()).unwrap();
    assert_eq!(json["client"], "UserClient");
    assert_eq!(json["methods"]["get_user"]["calls"], 1);
    assert_eq!(json["methods"]["get_user"]["breaker"], "closed");
    assert!(json["methods"]["get_user"]["p50_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(json["endpoints"].as_array().unwrap().len(), 3);
}

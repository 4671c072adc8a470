//! A flaky user service and a client with a breaker and a fallback: prints each breaker
//! transition (CLOSED → OPEN → HALF_OPEN → CLOSED) and each fallback answer as it happens.
//!
//! `cargo run -p remcall-demo --bin flaky`

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use remcall::serde_json::json;
use remcall::{Error, Profile};
use remcall_demo::user_client::{User, UserClient, UserClientFallback};

/// Answers from a stale cache when the service cannot.
struct CachedUsers;

impl UserClientFallback for CachedUsers {
    async fn get_user(
        &self,
        id: i64,
        _: Option<bool>,
        _: &str,
        cause: Error,
    ) -> Result<Option<User>, Error> {
        println!("    fallback for get_user({id}) because: {cause}");
        Ok(Some(User {
            id,
            name: "(cached) Ada".to_owned(),
            email: None,
            created_at: None,
        }))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Breaker transitions are tracing INFO events of the `remcall` target.
    tracing_subscriber::fmt()
        .with_env_filter("remcall=info")
        .with_target(false)
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stdout())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .without_time()
        .init();

    let healthy = Arc::new(AtomicBool::new(true));
    let flag = healthy.clone();
    let router = Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let up = flag.load(Ordering::SeqCst);
            async move {
                if up {
                    (
                        StatusCode::OK,
                        axum::Json(json!({ "id": 1, "name": "Ada" })),
                    )
                } else {
                    (
                        StatusCode::SERVICE_UNAVAILABLE,
                        axum::Json(json!({ "error": "overloaded" })),
                    )
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, router).await });

    let profile = Profile::from_yaml_str(
        "retry: { max_attempts: 1 }\nbreaker: { window: { calls: 10 }, min_calls: 4, failure_rate: 50, open_for: 500ms, half_open_calls: 2 }",
    )?;
    let client = UserClient::builder()
        .base_url(&url)
        .profile(profile)
        .fallback(CachedUsers)
        .build()?;

    let call = |n: u32| {
        let client = client.clone();
        async move {
            let user = client.get_user(1, None, &format!("demo-{n}")).await;
            let breaker = client
                .stats()
                .method("get_user")
                .map_or_else(String::new, |s| format!("{:?}", s.breaker));
            println!(
                "call {n:>2}: {:?} (breaker {breaker})",
                user.map(|u| u.map(|u| u.name))
            );
        }
    };

    println!("-- the service is healthy");
    for n in 1..=3 {
        call(n).await;
    }
    println!("-- the service starts failing with 503");
    healthy.store(false, Ordering::SeqCst);
    for n in 4..=9 {
        call(n).await;
    }
    println!("-- the service recovers; waiting for the breaker's open period");
    healthy.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(600)).await;
    for n in 10..=12 {
        call(n).await;
    }
    let stats = client.stats();
    if let Some(s) = stats.method("get_user") {
        println!(
            "-- get_user: {} calls, {} failures, {} short-circuited, {} fallbacks, p50 {:?}",
            s.calls, s.failures, s.short_circuited, s.fallbacks, s.p50
        );
    }
    Ok(())
}

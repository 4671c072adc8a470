//! The live statistics page against a flaky local service under a steady load.
//!
//! `cargo run -p remcall-demo --bin dashboard` then open the printed URL; `--seconds N` stops
//! after N seconds (default 60).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use remcall::Profile;
use remcall::serde_json::json;
use remcall_demo::dashboard;
use remcall_demo::user_client::UserClient;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: u64 = std::env::args()
        .skip_while(|a| a != "--seconds")
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);

    // The service fails for two seconds out of every six.
    let started = std::time::Instant::now();
    let service = Router::new().route(
        "/v1/api/users/{id}",
        get(move || async move {
            if started.elapsed().as_secs() % 6 < 2 {
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    axum::Json(json!({ "error": "overloaded" })),
                )
            } else {
                (
                    StatusCode::OK,
                    axum::Json(json!({ "id": 1, "name": "Ada" })),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let service_url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, service).await });

    let profile = Profile::from_yaml_str(
        "retry: { max_attempts: 2 }\nbreaker: { window: { calls: 20 }, min_calls: 10, open_for: 1s, half_open_calls: 3 }",
    )?;
    let client = UserClient::builder()
        .base_url(&service_url)
        .profile(profile)
        .build()?;
    let sent = Arc::new(AtomicU64::new(0));
    for _ in 0..4 {
        let (client, sent) = (client.clone(), sent.clone());
        tokio::spawn(async move {
            loop {
                let _ = client.get_user(1, None, "dashboard").await;
                sent.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
    }

    let page = dashboard::router(Arc::new(move || vec![client.stats()]));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!(
        "dashboard: http://{}/ (JSON at /stats.json) for {seconds} s",
        listener.local_addr()?
    );
    tokio::spawn(async move { axum::serve(listener, page).await });
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    println!("{} calls made", sent.load(Ordering::Relaxed));
    Ok(())
}

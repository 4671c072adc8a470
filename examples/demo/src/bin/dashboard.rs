//! remcall's live dashboard over a `UserClient` under a steady load, against a local service
//! that fails two seconds out of every six.
//!
//! `cargo run -p remcall-demo --bin dashboard` then open the printed URL; `--seconds N` stops
//! after N seconds (default 60); `--screenshot PATH` lets it run for eight seconds, writes a PNG
//! of the page with headless Chromium, and stops (docs/dashboard.png is made so).

use std::time::Duration;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let after = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let live = remcall_demo::live::start(true).await?;
    if let Some(path) = after("--screenshot") {
        tokio::time::sleep(Duration::from_secs(8)).await;
        let page = live.page.clone();
        tokio::task::spawn_blocking(move || {
            remcall_demo::live::screenshot(&page, std::path::Path::new(&path))
        })
        .await??;
        println!("screenshot written");
        return Ok(());
    }
    let seconds: u64 = after("--seconds")
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    println!(
        "dashboard: {} (JSON at stats.json, Prometheus at metrics) for {seconds} s",
        live.page
    );
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    println!(
        "{} calls made",
        live.calls.load(std::sync::atomic::Ordering::Relaxed)
    );
    Ok(())
}

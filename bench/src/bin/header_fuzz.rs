//! `header_fuzz [--seconds N] [--seed S]`: hostile quota and cache headers against a client for
//! N seconds (600 by default); prints the calls made, the panics (must be 0) and the resident
//! memory each minute (must stay flat). Exits 1 on any panic.

use std::time::Duration;

fn resident_mib() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str, default: u64| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (seconds, seed) = (value("--seconds", 600), value("--seed", 1));
    println!(
        "header fuzz: seed {seed}, {seconds} s; resident {:.1} MiB at the start",
        resident_mib()
    );
    let outcome =
        remcall_bench::fuzz::run(seed, u64::MAX, Duration::from_secs(seconds), |so_far| {
            println!(
                "{} calls, {} answered, {} panics; resident {:.1} MiB",
                so_far.calls,
                so_far.answered,
                so_far.panics,
                resident_mib()
            );
        })
        .await;
    println!(
        "done: {} calls, {} answered, {} panics; resident {:.1} MiB",
        outcome.calls,
        outcome.answered,
        outcome.panics,
        resident_mib()
    );
    if outcome.panics > 0 {
        std::process::exit(1);
    }
}

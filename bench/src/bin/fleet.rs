//! A fleet's shared rate limit, measured: 4 replica processes (this binary again, each with its
//! own client and Redis connection) share `rate_limit: { per_second: 100, shared: .. }` against
//! one loopback server for `--seconds` (60); Redis is killed half way, and `local_share` takes
//! over. The server counts what it admits per second. Then the same 4 replicas with per-process
//! limits of 100/s, and what one Redis round trip adds to a call.
//!
//! `cargo run --release -p remcall-bench --bin fleet -- [--seconds 60]` (needs `redis-server`)

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use remcall_bench::harness::{arg, client, quantile, serve, user_json};

const REPLICAS: usize = 4;
const CALLERS: usize = 8;

/// One replica: `CALLERS` tasks calling as fast as the limit lets them, for `seconds`.
fn replica(server: &str, profile: &str, seconds: u64) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let users = client(server, profile);
        let until = Instant::now() + Duration::from_secs(seconds);
        let callers: Vec<_> = (0..CALLERS)
            .map(|_| {
                let users = users.clone();
                tokio::spawn(async move {
                    while Instant::now() < until {
                        if users.get_user(7, None, "fleet").await.is_err() {
                            // Refused (no turn within max_wait): a moment before asking again.
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                    }
                })
            })
            .collect();
        for caller in callers {
            let _ = caller.await;
        }
        let stats = users.stats();
        let m = stats.method("get_user").expect("get_user");
        eprintln!(
            "replica: {} calls, {} rate-limited, {} decided without Redis",
            m.calls, m.rate_limited, m.without_redis
        );
    });
}

/// A server counting requests per second since `start`, and noting when each came (ms).
fn counting(
    start: Instant,
    per_second: Arc<Mutex<Vec<u64>>>,
    times: Arc<Mutex<Vec<u64>>>,
) -> Router {
    Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let (per_second, times) = (per_second.clone(), times.clone());
            async move {
                times
                    .lock()
                    .expect("times")
                    .push(start.elapsed().as_millis() as u64);
                let second = start.elapsed().as_secs() as usize;
                let mut counts = per_second.lock().expect("counts");
                if counts.len() <= second {
                    counts.resize(second + 1, 0);
                }
                counts[second] += 1;
                axum::Json(user_json())
            }
        }),
    )
}

/// Runs the replicas with `profile` for `seconds`; `during(elapsed)` is called every 100 ms.
fn run_fleet(server: &str, profile: &str, seconds: u64, mut during: impl FnMut(Duration)) {
    let exe = std::env::current_exe().expect("this binary");
    let mut children: Vec<_> = (0..REPLICAS)
        .map(|_| {
            std::process::Command::new(&exe)
                .args(["--replica", server, profile, &seconds.to_string()])
                .spawn()
                .expect("replica process")
        })
        .collect();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_millis(100));
        during(started.elapsed());
    }
    for child in &mut children {
        let _ = child.wait();
    }
}

fn windows(counts: &[u64], from: usize, to: usize, size: usize) -> Vec<String> {
    (from..to)
        .step_by(size)
        .map(|start| {
            let end = (start + size).min(to).min(counts.len());
            let total: u64 = counts.get(start..end).map(|c| c.iter().sum()).unwrap_or(0);
            format!(
                "{start}–{end} s: {:.1}/s",
                total as f64 / (end.saturating_sub(start)).max(1) as f64
            )
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--replica") {
        replica(&args[2], &args[3], args[4].parse().expect("seconds"));
        return;
    }
    let seconds = arg("--seconds", 60);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let redis = Arc::new(Mutex::new(Some(
        runtime.block_on(testkit::redis::RedisServer::start()),
    )));
    let redis_url = redis.lock().expect("redis").as_ref().expect("redis").url();

    // What a Redis round trip adds to a call: the same calls with a shared limit that never
    // limits, and with none.
    let started = Instant::now();
    let probe_counts = Arc::new(Mutex::new(Vec::new()));
    let probe_url = serve(vec![counting(started, probe_counts, Arc::default())]).remove(0);
    let latencies = |profile: &str| {
        runtime.block_on(async {
            let users = client(&probe_url, profile);
            let mut all = Vec::with_capacity(5_000);
            for _ in 0..5_000 {
                let t = Instant::now();
                users.get_user(7, None, "probe").await.expect("probe call");
                all.push(t.elapsed());
            }
            all.sort();
            all
        })
    };
    let alone = latencies("retry: { max_attempts: 1 }");
    let shared = latencies(&format!(
        "retry: {{ max_attempts: 1 }}\nrate_limit: {{ per_second: 1000000, burst: 1000000, shared: {{ redis: \"{redis_url}\", key: probe }} }}"
    ));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;

    println!(
        "## A fleet's shared limit: {REPLICAS} replica processes × {CALLERS} callers, 100/s for the fleet\n"
    );
    println!(
        "What Redis adds to a call (5,000 sequential calls, loopback): p50 {:.3} → {:.3} ms, p99 {:.3} → {:.3} ms (+{:.3} ms).\n",
        ms(quantile(&alone, 0.5)),
        ms(quantile(&shared, 0.5)),
        ms(quantile(&alone, 0.99)),
        ms(quantile(&shared, 0.99)),
        ms(quantile(&shared, 0.99).saturating_sub(quantile(&alone, 0.99))),
    );

    // The shared limit, Redis killed half way: local_share takes over.
    let counts = Arc::new(Mutex::new(Vec::new()));
    let times = Arc::new(Mutex::new(Vec::new()));
    let start = Instant::now();
    let url = serve(vec![counting(start, counts.clone(), times.clone())]).remove(0);
    let profile = format!(
        "retry: {{ max_attempts: 1 }}\nrate_limit: {{ per_second: 100, burst: 10, max_wait: 100ms, shared: {{ redis: \"{redis_url}\", key: fleet, timeout: 50ms, on_error: local_share, replicas: {REPLICAS} }} }}"
    );
    let killed_at = Arc::new(AtomicU64::new(0));
    let half = seconds / 2;
    run_fleet(&url, &profile, seconds, |elapsed| {
        if elapsed >= Duration::from_secs(half) && killed_at.load(Ordering::Relaxed) == 0 {
            if let Some(mut server) = redis.lock().expect("redis").take() {
                server.stop();
            }
            killed_at.store(start.elapsed().as_millis() as u64, Ordering::Relaxed);
        }
    });
    let counts = counts.lock().expect("counts").clone();
    let times = times.lock().expect("times").clone();
    let total = seconds as usize;
    let killed = killed_at.load(Ordering::Relaxed);
    // The longest time without an admission, in the second before the kill and the second after:
    // how long the switch to `local_share` took, beside the ordinary gaps at 100/s.
    let longest_gap = |from: u64, to: u64| {
        let inside: Vec<u64> = times
            .iter()
            .copied()
            .filter(|t| (from..to).contains(t))
            .collect();
        inside.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    };
    println!("| limit | per 10 s window (admitted by the server) | max in any second |");
    println!("| --- | --- | --- |");
    let first = counts.iter().position(|c| *c > 0).unwrap_or(0);
    let kill_second = (killed_at.load(Ordering::Relaxed) / 1000) as usize;
    println!(
        "| shared, Redis up | {} | {} |",
        windows(&counts, first, kill_second, 10).join(", "),
        counts[first..kill_second.min(counts.len())]
            .iter()
            .max()
            .unwrap_or(&0)
    );
    println!(
        "| shared, Redis killed at {:.1} s, `local_share` | {} | {} (the second of the switch: {}) |",
        killed as f64 / 1000.0,
        windows(&counts, kill_second, (first + total).min(counts.len()), 10).join(", "),
        counts
            .get(kill_second + 1..)
            .and_then(|rest| rest.iter().max())
            .unwrap_or(&0),
        counts.get(kill_second).unwrap_or(&0),
    );

    println!(
        "\nLongest time without an admission: {} ms in the second before the kill, {} ms in the second after (the switch to `local_share`; `timeout` is 50 ms).\n",
        longest_gap(killed.saturating_sub(1000), killed),
        longest_gap(killed, killed + 1000),
    );

    // The same replicas, each with a limit of its own.
    let local_counts = Arc::new(Mutex::new(Vec::new()));
    let local_start = Instant::now();
    let local_url = serve(vec![counting(
        local_start,
        local_counts.clone(),
        Arc::default(),
    )])
    .remove(0);
    let local_seconds = (seconds / 3).max(5);
    run_fleet(
        &local_url,
        "retry: { max_attempts: 1 }\nrate_limit: { per_second: 100, burst: 10, max_wait: 100ms }",
        local_seconds,
        |_| {},
    );
    let local_counts = local_counts.lock().expect("counts").clone();
    let first = local_counts.iter().position(|c| *c > 0).unwrap_or(0);
    println!("| limit | per 10 s window (admitted by the server) | max in any second |");
    println!("| --- | --- | --- |");
    println!(
        "| per process (no `shared`) | {} | {} |",
        windows(
            &local_counts,
            first,
            (first + local_seconds as usize).min(local_counts.len()),
            10
        )
        .join(", "),
        local_counts.iter().max().unwrap_or(&0)
    );
    println!();
}

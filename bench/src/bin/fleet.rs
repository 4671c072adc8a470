//! A fleet's shared rate limit, measured: 4 replica processes (this binary again, each with its
//! own client and Redis connection) share `rate_limit: { per_second: 100, shared: .. }` against
//! one loopback server for `--seconds` (60); Redis is killed half way, and `local_share` takes
//! over. The server counts what it admits per second. Then the same 4 replicas with per-process
//! limits of 100/s, and what one Redis round trip adds to a call.
//!
//! Then a busy host (`--busy-seconds`, 30): 2 replicas sending bursts of 40 calls every 2 s into
//! a shared 20/s with a burst of 40, beside as many CPU-hogging processes as the host has cores,
//! Redis killed at a third and back at two thirds; and the same without the hogs. Per phase: the
//! rate admitted against the limit (per 2 s period of the fleet's bursts), the fewest calls one
//! of the fleet's bursts got, the decisions made without a live Redis, and the fleet's bursts
//! refused whole.
//!
//! `cargo run --release -p remcall-bench --bin fleet -- [--seconds 60] [--busy-seconds 30]
//! [--busy-only 1]` (needs `redis-server`); `FLEET_BURSTS=1` lists each replica's bursts.

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
pub(crate) fn counting(
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
    match args.get(1).map(String::as_str) {
        Some("--replica") => {
            replica(&args[2], &args[3], args[4].parse().expect("seconds"));
            return;
        }
        Some("--burst-replica") => {
            busy::replica(&args[2], &args[3], args[4].parse().expect("seconds"));
            return;
        }
        Some("--hog") => {
            busy::hog(args[2].parse().expect("seconds"));
            return;
        }
        _ => {}
    }
    let seconds = arg("--seconds", 60);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    if arg("--busy-only", 0) == 1 {
        busy::compare(&runtime, arg("--busy-seconds", 30));
        return;
    }
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
    busy::compare(&runtime, arg("--busy-seconds", 30));
}

/// The shared limit on a busy host: bursts, CPU hogs, Redis away and back.
mod busy {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use remcall_bench::harness::{client, serve};

    const REPLICAS: usize = 2;
    const BURST: usize = 40;
    const PER_SECOND: f64 = 20.0;
    const EVERY: Duration = Duration::from_secs(2);

    /// A process that keeps one core busy for `seconds`.
    pub fn hog(seconds: u64) {
        let until = Instant::now() + Duration::from_secs(seconds);
        let mut x: u64 = 1;
        while Instant::now() < until {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
    }

    /// One replica: a burst of `BURST` calls at once every `EVERY`; one line a burst on stdout:
    /// milliseconds since start, calls admitted, decisions made without Redis.
    pub fn replica(server: &str, profile: &str, seconds: u64) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let users = client(server, profile);
            let start = Instant::now();
            let mut next = start;
            while next < start + Duration::from_secs(seconds) {
                tokio::time::sleep_until(next.into()).await;
                next += EVERY;
                let at = start.elapsed();
                let without = || {
                    users
                        .stats()
                        .method("get_user")
                        .expect("get_user")
                        .without_redis
                };
                let before = without();
                let calls: Vec<_> = (0..BURST)
                    .map(|_| {
                        let users = users.clone();
                        tokio::spawn(async move { users.get_user(7, None, "burst").await.is_ok() })
                    })
                    .collect();
                let mut admitted = 0;
                for call in calls {
                    admitted += usize::from(call.await.unwrap_or(false));
                }
                println!("{} {admitted} {}", at.as_millis(), without() - before);
            }
        });
    }

    /// One burst as a replica reported it.
    struct Burst {
        at_ms: u64,
        admitted: u64,
        without_redis: u64,
    }

    /// Runs the fleet for `seconds`, with hogs when `busy`; prints one table row a phase.
    fn run(runtime: &tokio::runtime::Runtime, seconds: u64, busy: bool) {
        let mut redis = runtime.block_on(testkit::redis::RedisServer::start());
        let redis_url = redis.url();
        let start = Instant::now();
        let url = serve(vec![super::counting(start, Arc::default(), Arc::default())]).remove(0);
        let profile = format!(
            "retry: {{ max_attempts: 1 }}\nrate_limit: {{ per_second: {PER_SECOND}, burst: {BURST}, max_wait: 0s, shared: {{ redis: \"{redis_url}\", key: busy, timeout: 50ms, on_error: local_share, replicas: {REPLICAS} }} }}"
        );
        let exe = std::env::current_exe().expect("this binary");
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let hogs: Vec<_> = (0..if busy { cores } else { 0 })
            .map(|_| {
                Command::new(&exe)
                    .args(["--hog", &(seconds + 1).to_string()])
                    .spawn()
                    .expect("hog")
            })
            .collect();
        let replicas: Vec<_> = (0..REPLICAS)
            .map(|_| {
                Command::new(&exe)
                    .args(["--burst-replica", &url, &profile, &seconds.to_string()])
                    .stdout(Stdio::piped())
                    .spawn()
                    .expect("replica")
            })
            .collect();
        // Between two bursts, so each phase holds whole ones.
        let third = Duration::from_secs(seconds) / 3;
        std::thread::sleep(third + EVERY / 2);
        let killed = start.elapsed();
        let port = redis.stop();
        std::thread::sleep(third);
        let back = start.elapsed();
        let restarted = runtime.block_on(testkit::redis::RedisServer::start_on(port));
        let mut bursts = Vec::new();
        for mut child in replicas {
            let out = child.stdout.take().expect("stdout");
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let n: Vec<u64> = line.split(' ').filter_map(|x| x.parse().ok()).collect();
                if let [at_ms, admitted, without_redis] = n[..] {
                    bursts.push(Burst {
                        at_ms,
                        admitted,
                        without_redis,
                    });
                }
            }
            let _ = child.wait();
        }
        for mut hog in hogs {
            let _ = hog.wait();
        }
        drop(restarted);
        let phases = [
            ("Redis up", Duration::ZERO, killed),
            ("Redis away (`local_share`)", killed, back),
            ("Redis back", back, Duration::from_secs(seconds)),
        ];
        let every_ms = EVERY.as_millis() as u64;
        if std::env::var_os("FLEET_BURSTS").is_some() {
            for b in &bursts {
                eprintln!(
                    "burst at {} ms: {} admitted, {} without Redis",
                    b.at_ms, b.admitted, b.without_redis
                );
            }
            eprintln!("killed {killed:?}, back {back:?}");
        }
        for (name, from, to) in phases {
            // The fleet's bursts (the replicas' at one time) that started inside the phase.
            let mut slots: std::collections::BTreeMap<u64, u64> = Default::default();
            let mut without = 0;
            for burst in &bursts {
                if (from.as_millis() as u64..to.as_millis() as u64).contains(&burst.at_ms) {
                    *slots
                        .entry((burst.at_ms + every_ms / 2) / every_ms)
                        .or_default() += burst.admitted;
                    without += burst.without_redis;
                }
            }
            let admitted: u64 = slots.values().sum();
            let rate = admitted as f64 / (slots.len().max(1) as f64 * EVERY.as_secs_f64());
            let refused_whole = slots.values().filter(|a| **a == 0).count();
            let fewest = slots.values().min().copied().unwrap_or(0);
            println!(
                "| {} | {name} | {rate:.1}/s ({:+.0} %) | {fewest} | {without} | {refused_whole} of {} |",
                if busy {
                    "busy (a hog on every core)"
                } else {
                    "quiet"
                },
                (rate / PER_SECOND - 1.0) * 100.0,
                slots.len()
            );
        }
    }

    /// The busy host against the quiet one.
    pub fn compare(runtime: &tokio::runtime::Runtime, seconds: u64) {
        println!(
            "\n## A shared limit on a busy host: {REPLICAS} replicas, bursts of {BURST} every {EVERY:?} into {PER_SECOND}/s (burst {BURST}), `timeout: 50ms`, `local_share`\n"
        );
        println!(
            "| host | phase | admitted (the limit: {PER_SECOND}/s) | fewest admitted of a fleet's burst | decisions without Redis | fleet's bursts refused whole |"
        );
        println!("| --- | --- | --- | --- | --- | --- |");
        run(runtime, seconds, false);
        run(runtime, seconds, true);
    }
}

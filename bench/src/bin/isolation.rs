//! The failure-isolation bench: one caller (one client runtime) calls two downstreams. A turns
//! sick — it answers after 2 s — while B stays healthy. Once the warm-up is over (remcall's breaker
//! has opened by then), the bench reports the caller's latency on A and B's throughput, beside a
//! run where A is healthy; for remcall, reqwest-middleware + reqwest-retry (no breaker) and the
//! tower stack. Every contestant has the same 500 ms attempt timeout.
//!
//! A's callers are request handlers with a pace (a call, then 2 ms of other work); B's are a
//! closed loop, as in the load bench. Rounds interleave the contestants; medians over rounds.
//!
//! `cargo run --release -p remcall-bench --bin isolation -- [--rounds 3] [--warmup 6] [--seconds 4]`

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use remcall_bench::contestants::{Caller, Contestant, Setup};
use remcall_bench::harness::{arg, median_min_max, quantile, serve, user_json};

const A_CALLERS: usize = 16;
const B_CALLERS: usize = 48;
const A_PACE: Duration = Duration::from_millis(2);
const SICK_DELAY: Duration = Duration::from_secs(2);
const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(500);

/// What one run measured, after the warm-up.
struct Run {
    a_p50: Duration,
    a_p99: Duration,
    a_per_second: f64,
    b_per_second: f64,
}

fn run(contestant: Contestant, urls: &[String], warmup: Duration, window: Duration) -> Run {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let setup = Setup {
            attempt_timeout: Some(ATTEMPT_TIMEOUT),
            outsider: false,
        };
        let a = Caller::new(contestant, &urls[0], setup);
        let b = Caller::new(contestant, &urls[1], setup);
        let started = Instant::now();
        let measuring_from = started + warmup;
        let stop_at = measuring_from + window;
        let stop = Arc::new(AtomicBool::new(false));
        let b_calls = Arc::new(AtomicU64::new(0));

        // Shared, so that the calls of a caller still stuck when the window ends are kept.
        let a_latencies = Arc::new(Mutex::new(Vec::new()));
        let a_callers: Vec<_> = (0..A_CALLERS)
            .map(|_| {
                let (mut a, latencies) = (a.clone(), a_latencies.clone());
                tokio::spawn(async move {
                    loop {
                        let t = Instant::now();
                        a.call().await;
                        // Calls that start in the window count, however long they take.
                        if t >= measuring_from && t < stop_at {
                            latencies.lock().expect("latencies").push(t.elapsed());
                        }
                        tokio::time::sleep(A_PACE).await;
                    }
                })
            })
            .collect();
        let b_callers: Vec<_> = (0..B_CALLERS)
            .map(|_| {
                let (mut b, stop, b_calls) = (b.clone(), stop.clone(), b_calls.clone());
                tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        let t = Instant::now();
                        let ok = b.call().await;
                        assert!(ok, "B is healthy: every call must answer");
                        if t >= measuring_from && Instant::now() < stop_at {
                            b_calls.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();

        tokio::time::sleep_until(stop_at.into()).await;
        stop.store(true, Ordering::Relaxed);
        for caller in b_callers {
            caller.await.expect("B caller");
        }
        // A call that started in the window may still be running: give it the longest a call
        // can take (three attempts, backoff) before reading the latencies.
        tokio::time::sleep(ATTEMPT_TIMEOUT * 4).await;
        for caller in a_callers {
            caller.abort();
        }
        let mut latencies = std::mem::take(&mut *a_latencies.lock().expect("latencies"));
        latencies.sort_unstable();
        Run {
            a_p50: quantile(&latencies, 0.5),
            a_p99: quantile(&latencies, 0.99),
            a_per_second: latencies.len() as f64 / window.as_secs_f64(),
            b_per_second: b_calls.load(Ordering::Relaxed) as f64 / window.as_secs_f64(),
        }
    })
}

fn main() {
    let rounds = arg("--rounds", 3) as usize;
    let warmup = Duration::from_secs(arg("--warmup", 6));
    let window = Duration::from_secs(arg("--seconds", 4));

    let sick = Arc::new(AtomicBool::new(false));
    let a_sick = sick.clone();
    let a = Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let sick = a_sick.load(Ordering::Relaxed);
            async move {
                if sick {
                    tokio::time::sleep(SICK_DELAY).await;
                }
                axum::Json(user_json())
            }
        }),
    );
    let b = Router::new().route(
        "/v1/api/users/{id}",
        get(|| async { axum::Json(user_json()) }),
    );
    let urls = serve(vec![a, b]);

    let contestants = [
        Contestant::Remcall,
        Contestant::Middleware,
        Contestant::Tower,
    ];
    // [contestant][healthy, sick] → runs
    let mut results: Vec<[Vec<Run>; 2]> = contestants.iter().map(|_| Default::default()).collect();
    for r in 0..rounds {
        for (i, c) in contestants.iter().enumerate() {
            for (j, is_sick) in [false, true].into_iter().enumerate() {
                sick.store(is_sick, Ordering::Relaxed);
                results[i][j].push(run(*c, &urls, warmup, window));
            }
        }
        eprintln!("round {}/{rounds} done", r + 1);
    }

    println!(
        "{rounds} rounds; {A_CALLERS} callers on A (a call, then {A_PACE:?}), {B_CALLERS} on B; \
         A sick = answers after {SICK_DELAY:?}; attempt timeout {ATTEMPT_TIMEOUT:?}; \
         measured for {window:?} after {warmup:?} of warm-up; medians [min, max]"
    );
    println!(
        "| contestant | A p99 ms, A healthy | A p50 ms, A sick | A p99 ms, A sick | A calls/s, A sick | B req/s, A healthy | B req/s, A sick | B sick ÷ healthy |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    // Median, min and max of one figure of contestant `i`'s healthy (0) or sick (1) runs.
    let figure = |i: usize, j: usize, f: &dyn Fn(&Run) -> f64| {
        median_min_max(results[i][j].iter().map(f).collect())
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for (i, c) in contestants.iter().enumerate() {
        let healthy_p99 = figure(i, 0, &|r| ms(r.a_p99));
        let sick_p50 = figure(i, 1, &|r| ms(r.a_p50));
        let sick_p99 = figure(i, 1, &|r| ms(r.a_p99));
        let sick_rate = figure(i, 1, &|r| r.a_per_second);
        let b_healthy = figure(i, 0, &|r| r.b_per_second);
        let b_sick = figure(i, 1, &|r| r.b_per_second);
        println!(
            "| {} | {:.2} | {:.3} | {:.3} [{:.3}, {:.3}] | {:.0} | {:.0} [{:.0}, {:.0}] | {:.0} [{:.0}, {:.0}] | {:.3} |",
            c.name(),
            healthy_p99.0,
            sick_p50.0,
            sick_p99.0,
            sick_p99.1,
            sick_p99.2,
            sick_rate.0,
            b_healthy.0,
            b_healthy.1,
            b_healthy.2,
            b_sick.0,
            b_sick.1,
            b_sick.2,
            b_sick.0 / b_healthy.0,
        );
    }
    let remcall_p99 = figure(0, 1, &|r| ms(r.a_p99)).0;
    let remcall_b = figure(0, 1, &|r| r.b_per_second).0 / figure(0, 0, &|r| r.b_per_second).0;
    let verdict = |met: bool| if met { "met" } else { "missed" };
    println!(
        "targets: remcall's p99 on the sick A ≤ 1 ms: {remcall_p99:.3} ms — {}; B ≥ 0.95× its healthy throughput: {remcall_b:.3}× — {}",
        verdict(remcall_p99 <= 1.0),
        verdict(remcall_b >= 0.95)
    );
}

//! The load bench: contestants take turns (A B C D A B C D …) against one in-process server on
//! loopback, 64 concurrent callers each, GET /v1/api/users/{id} and a JSON decode.
//!
//! The primary figure is client CPU per call — the client runtime is one thread, so its thread CPU
//! time over the calls it made — because loopback throughput on a shared 2-core machine swings
//! ±30 % between rounds. Throughput and latency are printed beside it, as medians over the rounds
//! with min and max.
//!
//! `cargo run --release -p remcall-bench --bin load -- [--rounds 9] [--seconds 1]`
//! `[--only N]` runs the N-th contestant alone (1 = raw reqwest), for a profiler, and
//! `[--only 1,2,4]` those contestants, for more rounds in the same time; `[--pair]` runs raw
//! reqwest and remcall only;
//! `[--calls N]` makes each caller do N calls instead of running for a time, so that two runs
//! under `valgrind --tool=callgrind` differ by an exact number of calls.
//! `[--callers N]` runs N concurrent callers instead of 64 (1: every call's own cost, none
//! shared with calls in flight beside it).
//! `[--timeout-ms N]` is every contestant's attempt timeout (default 10000, the spec profile's);
//! with 0 the others run without one (remcall always has one), which shows what a timer costs.
//! `[--outsider]` sets the contestants up as an independent bench did: remcall with every
//! policy on, raw reqwest and reqwest-middleware with no timeout, tower's full stack
//! (`contestants::Setup::outsider`); `BENCH_PROFILE=<yaml>` replaces remcall's profile there,
//! to find which of its policies costs what.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use remcall_bench::contestants::{Caller, Contestant, Setup};
use remcall_bench::harness::{
    arg, median_min_max, quantile, serve, thread_cpu, thread_user_cpu, user_json,
};

/// Concurrent callers per contestant, unless `--callers N` says otherwise.
const CALLERS: usize = 64;

struct Round {
    per_second: f64,
    p50: Duration,
    p99: Duration,
    cpu_per_call: Duration,
    /// The user-space part of `cpu_per_call`: the libraries' own work.
    user_per_call: Duration,
}

/// One round of one contestant on a fresh single-threaded client runtime.
fn round(
    contestant: Contestant,
    base: &str,
    length: Duration,
    calls: usize,
    callers: usize,
    attempt_timeout: Option<Duration>,
) -> Round {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let outsider = std::env::args().any(|a| a == "--outsider");
        let setup = Setup {
            attempt_timeout,
            outsider,
        };
        let mut caller = Caller::new(contestant, base, setup);
        // Warm the connection pool.
        for _ in 0..callers {
            caller.call().await;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let failures = Arc::new(AtomicU64::new(0));
        let (cpu_before, user_before) = (thread_cpu(), thread_user_cpu());
        let started = Instant::now();
        let workers: Vec<_> = (0..callers)
            .map(|_| {
                let (mut caller, stop, failures) = (caller.clone(), stop.clone(), failures.clone());
                tokio::spawn(async move {
                    let mut latencies = Vec::with_capacity(4096);
                    // A fixed number of calls each (for callgrind), or until told to stop.
                    let mut left = if calls == 0 { usize::MAX } else { calls };
                    while left > 0 && !stop.load(Ordering::Relaxed) {
                        left -= 1;
                        let t = Instant::now();
                        if !caller.call().await {
                            failures.fetch_add(1, Ordering::Relaxed);
                        }
                        latencies.push(t.elapsed());
                    }
                    latencies
                })
            })
            .collect();
        if calls == 0 {
            tokio::time::sleep(length).await;
            stop.store(true, Ordering::Relaxed);
        }
        let mut latencies = Vec::new();
        for worker in workers {
            latencies.extend(worker.await.unwrap_or_default());
        }
        let elapsed = started.elapsed();
        let (cpu, user) = (thread_cpu() - cpu_before, thread_user_cpu() - user_before);
        assert_eq!(
            failures.load(Ordering::Relaxed),
            0,
            "{} failed calls",
            contestant.name()
        );
        latencies.sort_unstable();
        let calls = u32::try_from(latencies.len()).unwrap_or(u32::MAX);
        Round {
            per_second: latencies.len() as f64 / elapsed.as_secs_f64(),
            p50: quantile(&latencies, 0.5),
            p99: quantile(&latencies, 0.99),
            cpu_per_call: cpu / calls,
            user_per_call: user / calls,
        }
    })
}

/// The contestants `--only` names (1-based, comma-separated), in that order.
fn only() -> Option<Vec<Contestant>> {
    let args: Vec<String> = std::env::args().collect();
    let list = args.get(args.iter().position(|a| a == "--only")? + 1)?;
    let picked = list
        .split(',')
        .map(|n| {
            n.trim()
                .parse::<usize>()
                .ok()
                .and_then(|n| Contestant::ALL.get(n.checked_sub(1)?).copied())
                .unwrap_or_else(|| {
                    panic!("--only takes contestants 1 to 4, comma-separated: {list}")
                })
        })
        .collect();
    Some(picked)
}

fn main() {
    let rounds = arg("--rounds", 9) as usize;
    let length = Duration::from_secs(arg("--seconds", 1));
    let calls = arg("--calls", 0) as usize;
    let callers = arg("--callers", CALLERS as u64) as usize;
    let attempt_timeout = match arg("--timeout-ms", 10_000) {
        0 => None,
        ms => Some(Duration::from_millis(ms)),
    };
    let contestants = only().unwrap_or_else(|| Contestant::ALL.to_vec());
    // `--pair`: raw reqwest and remcall alone, so that more rounds fit in the same time.
    let contestants = if std::env::args().any(|a| a == "--pair") {
        Contestant::ALL[..2].to_vec()
    } else {
        contestants
    };

    let app = Router::new().route(
        "/v1/api/users/{id}",
        get(|| async { axum::Json(user_json()) }),
    );
    let base = serve(vec![app]).remove(0);

    let mut results: Vec<Vec<Round>> = contestants.iter().map(|_| Vec::new()).collect();
    for r in 0..rounds {
        // Every other round runs the contestants in reverse, so a drift in the machine's load
        // during a round falls on each of them alike.
        let mut order: Vec<usize> = (0..contestants.len()).collect();
        if r % 2 == 1 {
            order.reverse();
        }
        for i in order {
            results[i].push(round(
                contestants[i],
                &base,
                length,
                calls,
                callers,
                attempt_timeout,
            ));
        }
        eprintln!("round {}/{rounds} done", r + 1);
    }

    let figure =
        |i: usize, f: &dyn Fn(&Round) -> f64| median_min_max(results[i].iter().map(f).collect());
    let cpu = |i: usize| figure(i, &|r| r.cpu_per_call.as_secs_f64() * 1e6);
    let rps = |i: usize| figure(i, &|r| r.per_second);
    let p50 = |i: usize| figure(i, &|r| r.p50.as_secs_f64() * 1e3);
    let p99 = |i: usize| figure(i, &|r| r.p99.as_secs_f64() * 1e3);
    // Ratios are to the first contestant run (raw reqwest unless `--only` picked another).
    let (base_cpu, base_rps, base_p99) = (cpu(0).0, rps(0).0, p99(0).0);
    let limits = match attempt_timeout {
        _ if std::env::args().any(|a| a == "--outsider") => {
            "the outsider's configuration (remcall all on; reqwest without a timeout; tower's full stack)".to_owned()
        }
        Some(timeout) => format!("every contestant with a {timeout:?} attempt timeout"),
        None => "no attempt timeout but remcall's own (10s)".to_owned(),
    };
    println!("{rounds} rounds of {length:?}, {callers} callers, {limits}; medians [min, max]");
    // Interference on a shared machine only ever adds CPU time, so the ratio of the minimums is
    // printed beside the ratio of the medians.
    let base_cpu_min = cpu(0).1;
    // Paired: each round's ratio to the first contestant's figure of the same round, whose
    // neighbours on the machine were the same; the median of those ratios.
    let paired_by = |i: usize, f: &dyn Fn(&Round) -> Duration| {
        median_min_max(
            results[i]
                .iter()
                .zip(&results[0])
                .map(|(r, b)| f(r).as_secs_f64() / f(b).as_secs_f64())
                .collect(),
        )
    };
    let paired = |i: usize| paired_by(i, &|r| r.cpu_per_call);
    println!(
        "| contestant | client CPU µs/call | ×reqwest paired [min, max] | ×reqwest (medians) | ×reqwest (min) | req/s | ×reqwest | p50 ms | p99 ms | ×reqwest |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (i, c) in contestants.iter().enumerate() {
        let (pair_med, pair_min, pair_max) = paired(i);
        let (c_med, c_min, c_max) = cpu(i);
        let (r_med, r_min, r_max) = rps(i);
        let (p50_med, ..) = p50(i);
        let (p99_med, p99_min, p99_max) = p99(i);
        println!(
            "| {} | {c_med:.2} [{c_min:.2}, {c_max:.2}] | {pair_med:.3} [{pair_min:.3}, {pair_max:.3}] | {:.3} | {:.3} | {r_med:.0} [{r_min:.0}, {r_max:.0}] | {:.3} | {p50_med:.2} | {p99_med:.2} [{p99_min:.2}, {p99_max:.2}] | {:.3} |",
            c.name(),
            c_med / base_cpu,
            c_min / base_cpu_min,
            r_med / base_rps,
            p99_med / base_p99
        );
    }
    // The user-space part alone: what the libraries do, without the network stack's share.
    println!();
    println!("| contestant | user-space CPU µs/call | ×reqwest paired [min, max] |");
    println!("| --- | --- | --- |");
    for (i, c) in contestants.iter().enumerate() {
        let (u_med, u_min, u_max) = figure(i, &|r| r.user_per_call.as_secs_f64() * 1e6);
        let (pair_med, pair_min, pair_max) = paired_by(i, &|r| r.user_per_call);
        println!(
            "| {} | {u_med:.2} [{u_min:.2}, {u_max:.2}] | {pair_med:.3} [{pair_min:.3}, {pair_max:.3}] |",
            c.name()
        );
    }
    if contestants.len() == Contestant::ALL.len() {
        let ratio = paired(1).0;
        let verdict = |met: bool| if met { "met" } else { "missed" };
        println!(
            "target: remcall CPU/call ≤ 1.03× raw reqwest: {ratio:.3}× paired (minimums: {:.3}×) — {}; below reqwest-middleware ({:.3}×) and tower ({:.3}×): {}",
            cpu(1).1 / base_cpu_min,
            verdict(ratio <= 1.03),
            paired(2).0,
            paired(3).0,
            verdict(ratio < paired(2).0 && ratio < paired(3).0)
        );
    }
}

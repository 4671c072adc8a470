//! Tail latency and overload, measured: hedged requests against stragglers, the adaptive limit
//! against overload, deadline propagation down a chain. All on loopback; the servers sleep on
//! timers (no CPU burn) on a thread of their own.
//!
//! `cargo run --release -p remcall-bench --bin tail -- [--calls 20000] [--step-seconds 3]`
//!
//! 1. Stragglers: two endpoints where 2% of requests take 500 ms and the rest 5 ms; 32 callers
//!    make `--calls` GETs. p50/p99/p99.9 and the extra requests, for no hedging, a fixed 10 ms
//!    hedge, `delay: p95`, and tower-resilience's hedge (fixed 10 ms); then every request slow
//!    (50 ms), to show the budget holding hedges to their share.
//! 2. Overload: a server of capacity C (8 workers × 10 ms); offered load stepped from 0.5× to 3×
//!    C, open loop; goodput, admitted-call p99 and rejections for `semaphore: 128` and
//!    `adaptive`; then C halves in the middle of a 3× step and the adaptive limit is followed.
//! 3. Deadlines: A → B → C, A's total 50 ms, C's work 200 ms; how many of C's requests ran to
//!    the end after A had given up, with and without propagation.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use remcall::{ErrorKind, Profile};
use remcall_bench::harness::{arg, quantile, serve, user_json};
use remcall_example_committed::clients::user_client::UserClient;
use tower::{Layer, Service, ServiceExt};

fn client(urls: &[String], yaml: &str) -> UserClient {
    UserClient::builder()
        .base_urls(urls)
        .profile(Profile::from_yaml_str(yaml).expect("profile"))
        .build()
        .expect("client")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A user service whose every request sleeps as `delay(n)` says (n: the request's number) and
/// counts requests.
fn sleepy(requests: Arc<AtomicU64>, delay: fn(u64) -> Duration) -> Router {
    Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let requests = requests.clone();
            async move {
                let n = requests.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(delay(n)).await;
                axum::Json(user_json())
            }
        }),
    )
}

/// 2% of requests, spread by a hash of their number, are stragglers.
fn straggler(n: u64) -> Duration {
    let mixed = n.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    if mixed.is_multiple_of(50) {
        Duration::from_millis(500)
    } else {
        Duration::from_millis(5)
    }
}

fn all_slow(_: u64) -> Duration {
    Duration::from_millis(50)
}

/// One caller's way of making a call: `true` when it answered.
#[derive(Clone)]
enum Caller {
    Remcall(UserClient),
    TowerHedge(
        tower_resilience_hedge::Hedge<
            tower::util::BoxCloneSyncService<(), u16, String>,
            tower_resilience_hedge::AlwaysHedge,
        >,
    ),
}

impl Caller {
    async fn call(&mut self) -> bool {
        match self {
            Caller::Remcall(users) => users.get_user(7, None, "b").await.is_ok(),
            Caller::TowerHedge(service) => match service.ready().await {
                Ok(ready) => ready.call(()).await.is_ok_and(|status| status == 200),
                Err(_) => false,
            },
        }
    }
}

/// tower-resilience's hedge over plain reqwest, alternating the two endpoints as remcall's
/// round robin does.
fn tower_hedge(urls: &[String], delay: Duration) -> Caller {
    let http = remcall::reqwest::Client::new();
    let urls: Arc<Vec<String>> =
        Arc::new(urls.iter().map(|u| format!("{u}/v1/api/users/7")).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let inner = tower::service_fn(move |()| {
        let url = urls[next.fetch_add(1, Ordering::Relaxed) % urls.len()].clone();
        let http = http.clone();
        async move {
            let response = http.get(url).send().await.map_err(|e| e.to_string())?;
            let status = response.status().as_u16();
            response.bytes().await.map_err(|e| e.to_string())?;
            Ok::<u16, String>(status)
        }
    });
    let layer = tower_resilience_hedge::HedgeLayer::builder()
        .delay(delay)
        .max_hedged_attempts(2)
        .build();
    Caller::TowerHedge(layer.layer(tower::util::BoxCloneSyncService::new(inner)))
}

struct Tally {
    latencies: Vec<Duration>,
    failures: usize,
}

/// `callers` tasks make `calls` calls in all, one after another each.
async fn closed_loop(caller: &Caller, callers: usize, calls: usize) -> Tally {
    let tasks: Vec<_> = (0..callers)
        .map(|_| {
            let mut caller = caller.clone();
            let share = calls / callers;
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(share);
                let mut failures = 0;
                for _ in 0..share {
                    let started = Instant::now();
                    if caller.call().await {
                        latencies.push(started.elapsed());
                    } else {
                        failures += 1;
                    }
                }
                (latencies, failures)
            })
        })
        .collect();
    let mut tally = Tally {
        latencies: Vec::with_capacity(calls),
        failures: 0,
    };
    for task in tasks {
        let (latencies, failures) = task.await.expect("caller");
        tally.latencies.extend(latencies);
        tally.failures += failures;
    }
    tally.latencies.sort();
    tally
}

fn stragglers(runtime: &tokio::runtime::Runtime, calls: usize) {
    println!(
        "## Stragglers: 2% of requests take 500 ms, the rest 5 ms; 2 endpoints, 32 callers, {calls} GETs\n"
    );
    println!(
        "| contestant | p50 ms | p99 ms | p99.9 ms | extra requests | hedges won | failures |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let plain = "retry: { max_attempts: 1 }\ntimeout: { attempt: 2s }";
    let contestants: [(&str, Option<&str>); 4] = [
        ("remcall, no hedging", Some("")),
        (
            "remcall, `hedge: { delay: 10ms }`",
            Some("hedge: { delay: 10ms }"),
        ),
        (
            "remcall, `hedge: { delay: p95 }`",
            Some("hedge: { delay: p95 }"),
        ),
        ("tower-resilience-hedge 0.14, 10 ms, 2 attempts", None),
    ];
    let mut p99_without = Duration::ZERO;
    for (name, profile) in contestants {
        let requests = Arc::new(AtomicU64::new(0));
        let urls = serve(vec![
            sleepy(requests.clone(), straggler),
            sleepy(requests.clone(), straggler),
        ]);
        runtime.block_on(async {
            let caller = match profile {
                Some(extra) => Caller::Remcall(client(&urls, &format!("{plain}\n{extra}"))),
                None => tower_hedge(&urls, Duration::from_millis(10)),
            };
            // A warm-up of a tenth, so the percentile has calls to be read from.
            closed_loop(&caller, 32, calls / 10).await;
            let before = requests.load(Ordering::Relaxed);
            let hedges_before = hedge_counts(&caller);
            let tally = closed_loop(&caller, 32, calls).await;
            let sent = requests.load(Ordering::Relaxed) - before;
            let made = (calls / 32 * 32) as u64;
            let (hedges, wins) = hedge_counts(&caller);
            let won = match profile {
                Some(_) => format!("{} of {}", wins - hedges_before.1, hedges - hedges_before.0),
                None => "—".to_owned(),
            };
            let p99 = quantile(&tally.latencies, 0.99);
            if profile == Some("") {
                p99_without = p99;
            }
            println!(
                "| {name} | {:.1} | {:.1}{} | {:.1} | {:.1}% | {won} | {} |",
                ms(quantile(&tally.latencies, 0.5)),
                ms(p99),
                if profile == Some("") {
                    String::new()
                } else {
                    format!(
                        " ({:.1}× lower)",
                        p99_without.as_secs_f64() / p99.as_secs_f64()
                    )
                },
                ms(quantile(&tally.latencies, 0.999)),
                (sent.saturating_sub(made)) as f64 * 100.0 / made as f64,
                tally.failures,
            );
        });
    }

    // Every request slow: a hedge after 10 ms fires for every call; the budget stops it at its share.
    let requests = Arc::new(AtomicU64::new(0));
    let urls = serve(vec![
        sleepy(requests.clone(), all_slow),
        sleepy(requests.clone(), all_slow),
    ]);
    runtime.block_on(async {
        let budgeted = 4_000;
        let caller = Caller::Remcall(client(
            &urls,
            &format!("{plain}\nhedge: {{ delay: 10ms, budget_percent: 10 }}"),
        ));
        let tally = closed_loop(&caller, 32, budgeted).await;
        let sent = requests.load(Ordering::Relaxed);
        let made = (budgeted / 32 * 32) as u64;
        println!(
            "\nEvery request 50 ms, `hedge: {{ delay: 10ms, budget_percent: 10 }}`, {made} calls: {} requests, {:.1}% extra (the budget: 10%), p99 {:.1} ms.\n",
            sent,
            (sent - made) as f64 * 100.0 / made as f64,
            ms(quantile(&tally.latencies, 0.99))
        );
    });
}

fn hedge_counts(caller: &Caller) -> (u64, u64) {
    match caller {
        Caller::Remcall(users) => {
            let stats = users.stats();
            let m = stats.method("get_user").expect("get_user");
            (m.hedges, m.hedge_wins)
        }
        Caller::TowerHedge(_) => (0, 0),
    }
}

/// A server of `workers` × 10 ms: a request waits for a worker, then takes 10 ms. The workers can
/// be cut while it runs.
fn capacity(workers: Arc<tokio::sync::Semaphore>) -> Router {
    Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let workers = workers.clone();
            async move {
                let _worker = workers.acquire().await.expect("workers");
                tokio::time::sleep(Duration::from_millis(10)).await;
                axum::Json(user_json())
            }
        }),
    )
}

const WORKERS: usize = 8;

/// One open-loop step: `rate` calls a second for `seconds`; goodput, admitted p99, rejections.
async fn offered(users: &UserClient, rate: f64, seconds: f64) -> (f64, Duration, usize, usize) {
    let gap = Duration::from_secs_f64(1.0 / rate);
    let count = (rate * seconds) as usize;
    let started = tokio::time::Instant::now();
    let begun = Instant::now();
    let calls: Vec<_> = (0..count)
        .map(|i| {
            let users = users.clone();
            tokio::spawn(async move {
                tokio::time::sleep_until(started + gap * i as u32).await;
                let t = Instant::now();
                let result = users.get_user(7, None, "o").await;
                (result.map_err(|e| e.kind()), t.elapsed())
            })
        })
        .collect();
    let mut admitted = Vec::new();
    let (mut rejected, mut failed) = (0, 0);
    for call in calls {
        match call.await.expect("call") {
            (Ok(_), latency) => admitted.push(latency),
            (Err(ErrorKind::Rejected), _) => rejected += 1,
            (Err(_), _) => failed += 1,
        }
    }
    admitted.sort();
    // Answers over the time they took to come: calls a queue answers after the step are not
    // goodput of the step.
    let goodput = admitted.len() as f64 / begun.elapsed().as_secs_f64().max(seconds);
    (goodput, quantile(&admitted, 0.99), rejected, failed)
}

fn overload(runtime: &tokio::runtime::Runtime, seconds: f64) {
    let c = WORKERS as f64 * 100.0;
    println!(
        "## Overload: capacity C = {WORKERS} workers × 10 ms = {c:.0} calls/s; open loop, {seconds} s a step\n"
    );
    println!(
        "| isolation | offered | goodput (% of C) | admitted p99 ms | rejected | other failures |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    let plain = "retry: { max_attempts: 1 }\ntimeout: { attempt: 5s, total: 5s }";
    for (name, isolation) in [
        (
            "semaphore: 128",
            "isolation: { semaphore: { max_concurrent: 128 } }",
        ),
        (
            "adaptive (gradient2)",
            "isolation: { adaptive: { initial: 20, min: 2, max: 500 } }",
        ),
        (
            "adaptive (vegas)",
            "isolation: { adaptive: { algorithm: vegas, initial: 20, min: 2, max: 500 } }",
        ),
        (
            "adaptive (aimd)",
            "isolation: { adaptive: { algorithm: aimd, initial: 20, min: 2, max: 500 } }",
        ),
    ] {
        let workers = Arc::new(tokio::sync::Semaphore::new(WORKERS));
        let urls = serve(vec![capacity(workers)]);
        runtime.block_on(async {
            let users = client(&urls, &format!("{plain}\n{isolation}"));
            for load in [0.5, 1.0, 1.5, 2.0, 3.0] {
                let (goodput, p99, rejected, failed) = offered(&users, c * load, seconds).await;
                println!(
                    "| {name} | {load}× C | {goodput:.0} ({:.0}%) | {:.1} | {rejected} | {failed} |",
                    goodput * 100.0 / c,
                    ms(p99)
                );
            }
        });
    }

    // C halves in the middle of a 3× step: where the adaptive limit goes, and when it settles.
    for algorithm in ["gradient2", "vegas"] {
        let workers = Arc::new(tokio::sync::Semaphore::new(WORKERS));
        let urls = serve(vec![capacity(workers.clone())]);
        runtime.block_on(async {
        let users = client(
            &urls,
            &format!("{plain}\nisolation: {{ adaptive: {{ algorithm: {algorithm}, initial: 20, min: 2, max: 500 }} }}"),
        );
        let limit = |users: &UserClient| {
            users
                .stats()
                .method("get_user")
                .and_then(|m| m.concurrency_limit)
                .unwrap_or(0)
        };
        let load = tokio::spawn({
            let users = users.clone();
            async move { offered(&users, c * 3.0, 10.0).await }
        });
        let mut trace = Vec::new();
        let started = Instant::now();
        let mut halved_at = None;
        while started.elapsed() < Duration::from_secs(10) {
            if halved_at.is_none() && started.elapsed() >= Duration::from_secs(4) {
                // Busy workers hold their permits: take half of them as they come free, for good.
                let workers = workers.clone();
                tokio::spawn(async move {
                    workers
                        .acquire_many((WORKERS / 2) as u32)
                        .await
                        .expect("workers")
                        .forget();
                });
                halved_at = Some(started.elapsed());
            }
            trace.push((started.elapsed(), limit(&users)));
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        let _ = load.await;
        let halved_at = halved_at.expect("halved");
        let before: Vec<u32> = trace
            .iter()
            .filter(|(t, _)| *t < halved_at && *t >= halved_at.saturating_sub(Duration::from_secs(1)))
            .map(|(_, l)| *l)
            .collect();
        let after: Vec<u32> = trace
            .iter()
            .filter(|(t, _)| *t >= Duration::from_secs(9))
            .map(|(_, l)| *l)
            .collect();
        let settled = average(&after);
        // Settled: from when on every reading stays within 25% of where it ends.
        let settled_at = trace
            .iter()
            .rposition(|(t, l)| *t >= halved_at && (f64::from(*l) - settled).abs() > settled * 0.25)
            .and_then(|i| trace.get(i + 1))
            .map_or(halved_at, |(t, _)| *t);
        println!(
            "\n{algorithm}: C halved at {:.1} s of a 3× C load; the limit went from {:.0} (the second before) to {:.0} (the last second), settled {:.2} s after the cut.\n",
            halved_at.as_secs_f64(),
            average(&before),
            settled,
            (settled_at - halved_at).as_secs_f64(),
        );
        let readings: Vec<String> = trace
            .iter()
            .step_by(2)
            .map(|(t, l)| format!("{:.1}s {l}", t.as_secs_f64()))
            .collect();
        println!("Limit every 0.5 s: {}\n", readings.join(", "));
    });
    }
}

fn average(values: &[u32]) -> f64 {
    values.iter().map(|v| f64::from(*v)).sum::<f64>() / values.len().max(1) as f64
}

/// C: 200 ms of work per request, counting those that run to the end.
fn worker(finished: Arc<AtomicU64>) -> Router {
    Router::new().route(
        "/v1/api/users/{id}",
        get(move || {
            let finished = finished.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                finished.fetch_add(1, Ordering::Relaxed);
                axum::Json(user_json())
            }
        }),
    )
}

fn deadlines(runtime: &tokio::runtime::Runtime) {
    const HEADER: &str = "X-Request-Timeout-Ms";
    const CALLS: usize = 200;
    println!(
        "## Deadlines: A → B → C on loopback; A's total 50 ms, C's work 200 ms, {CALLS} calls\n"
    );
    println!("| propagation | C's requests | run to the end after A gave up |");
    println!("| --- | --- | --- |");
    for propagate in [false, true] {
        let finished = Arc::new(AtomicU64::new(0));
        let c_urls = serve(vec![worker(finished.clone())]);
        let deadline = if propagate {
            format!("\ndeadline: {{ propagate: {HEADER} }}")
        } else {
            String::new()
        };
        let to_c = client(&c_urls, &format!("retry: {{ max_attempts: 1 }}{deadline}"));
        // B calls C in a task of its own, so that A hanging up does not cancel it (hyper drops
        // a handler whose connection closes): only a deadline can stop it.
        let b = Router::new().route(
            "/v1/api/users/{id}",
            get(move || {
                let to_c = to_c.clone();
                async move {
                    let call = async move { to_c.get_user(7, None, "b").await.is_ok() };
                    let work = match remcall::deadline::current() {
                        Some(by) => tokio::spawn(remcall::deadline::scope_until(by, call)),
                        None => tokio::spawn(call),
                    };
                    if work.await.unwrap_or(false) {
                        axum::http::StatusCode::OK
                    } else {
                        axum::http::StatusCode::GATEWAY_TIMEOUT
                    }
                }
            }),
        );
        let b = if propagate {
            b.layer(remcall::deadline::DeadlineLayer::new(HEADER))
        } else {
            b
        };
        let b_urls = serve(vec![b]);
        runtime.block_on(async {
            let a = client(
                &b_urls,
                &format!("retry: {{ max_attempts: 1 }}\ntimeout: {{ total: 50ms }}{deadline}"),
            );
            let calls: Vec<_> = (0..CALLS)
                .map(|_| {
                    let a = a.clone();
                    tokio::spawn(async move { a.get_user(7, None, "a").await.is_err() })
                })
                .collect();
            for call in calls {
                assert!(call.await.expect("call"), "A gives up after 50 ms");
            }
            // Long enough for every request C got to finish, if it was going to.
            tokio::time::sleep(Duration::from_millis(400)).await;
        });
        println!(
            "| {} | {CALLS} | {} |",
            if propagate { "on" } else { "off" },
            finished.load(Ordering::Relaxed)
        );
    }
    println!();
}

fn main() {
    let calls = arg("--calls", 20_000) as usize;
    let step = arg("--step-seconds", 3) as f64;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    stragglers(&runtime, calls);
    overload(&runtime, step);
    deadlines(&runtime);
}

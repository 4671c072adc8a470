//! The load bench: contestants take turns (A B C A B C …) against one in-process server on
//! loopback, 64 concurrent callers each, GET /v1/api/users/{id} and a JSON decode.
//!
//! The primary figure is client CPU per call — the client runtime is one thread, so its thread CPU
//! time over the calls it made — because loopback throughput on a shared 2-core machine swings
//! ±30 % between rounds. Throughput and latency are printed beside it, as medians over the rounds
//! with min and max.
//!
//! `cargo run --release -p remcall-bench --bin load -- [--rounds 9] [--seconds 2]`

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use remcall::Profile;
use remcall_example_committed::clients::user_client::{User, UserClient};

const CALLERS: usize = 64;

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[derive(Clone, Copy)]
enum Contestant {
    Reqwest,
    Remcall,
    Middleware,
}

impl Contestant {
    fn name(self) -> &'static str {
        match self {
            Contestant::Reqwest => "raw reqwest",
            Contestant::Remcall => "remcall (retry, breaker, bulkhead)",
            Contestant::Middleware => "reqwest-middleware + reqwest-retry",
        }
    }
}

/// One contestant's client, ready to call.
#[derive(Clone)]
enum Caller {
    Reqwest(reqwest::Client, Arc<str>),
    Remcall(UserClient),
    Middleware(reqwest_middleware::ClientWithMiddleware, Arc<str>),
}

impl Caller {
    fn new(contestant: Contestant, base: &str) -> Caller {
        let url: Arc<str> = format!("{base}/v1/api/users/7").into();
        match contestant {
            Contestant::Reqwest => Caller::Reqwest(reqwest::Client::new(), url),
            Contestant::Remcall => {
                // The spec's profile: retries, a breaker and a semaphore bulkhead, all on; the
                // bulkhead sized above the callers so it admits every call.
                let profile =
                    Profile::from_yaml_str("isolation: { semaphore: { max_concurrent: 256 } }")
                        .unwrap_or_default();
                Caller::Remcall(
                    UserClient::builder()
                        .base_url(base)
                        .profile(profile)
                        .build()
                        .expect("client"),
                )
            }
            Contestant::Middleware => {
                let policy = reqwest_retry::policies::ExponentialBackoff::builder()
                    .build_with_max_retries(2);
                let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
                    .with(reqwest_retry::RetryTransientMiddleware::new_with_policy(
                        policy,
                    ))
                    .build();
                Caller::Middleware(client, url)
            }
        }
    }

    async fn call(&self) -> bool {
        match self {
            // Every contestant sends the header the generated method has as a parameter.
            Caller::Reqwest(client, url) => match client
                .get(&**url)
                .header("x-request-id", "bench")
                .send()
                .await
            {
                Ok(r) => r.json::<User>().await.is_ok(),
                Err(_) => false,
            },
            Caller::Remcall(client) => {
                matches!(client.get_user(7, None, "bench").await, Ok(Some(_)))
            }
            Caller::Middleware(client, url) => match client
                .get(&**url)
                .header("x-request-id", "bench")
                .send()
                .await
            {
                Ok(r) => r.json::<User>().await.is_ok(),
                Err(_) => false,
            },
        }
    }
}

struct Round {
    per_second: f64,
    p50: Duration,
    p99: Duration,
    cpu_per_call: Duration,
}

/// One round of one contestant on a fresh single-threaded client runtime.
fn round(contestant: Contestant, base: &str, length: Duration, calls: usize) -> Round {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let caller = Caller::new(contestant, base);
        // Warm the connection pool.
        for _ in 0..CALLERS {
            caller.call().await;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let failures = Arc::new(AtomicU64::new(0));
        let cpu_before = thread_cpu();
        let started = Instant::now();
        let workers: Vec<_> = (0..CALLERS)
            .map(|_| {
                let (caller, stop, failures) = (caller.clone(), stop.clone(), failures.clone());
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
        let cpu = thread_cpu() - cpu_before;
        assert_eq!(
            failures.load(Ordering::Relaxed),
            0,
            "{} failed calls",
            contestant.name()
        );
        latencies.sort_unstable();
        let at =
            |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
        Round {
            per_second: latencies.len() as f64 / elapsed.as_secs_f64(),
            p50: at(0.5),
            p99: at(0.99),
            cpu_per_call: cpu / u32::try_from(latencies.len()).unwrap_or(u32::MAX),
        }
    })
}

fn median_min_max(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(|a, b| a.total_cmp(b));
    (
        values[values.len() / 2],
        values[0],
        values[values.len() - 1],
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1)?.parse().ok())
            .unwrap_or(default)
    };
    let rounds = arg("--rounds", 9) as usize;
    let length = Duration::from_secs(arg("--seconds", 2));
    let calls = arg("--calls", 0) as usize;

    // The server runs on its own runtime and thread.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("server runtime");
        runtime.block_on(async move {
            let app = Router::new().route(
                "/v1/api/users/{id}",
                get(|| async { axum::Json(serde_json_user()) }),
            );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            tx.send(format!("http://{}", listener.local_addr().expect("addr")))
                .expect("send");
            axum::serve(listener, app).await.expect("serve");
        });
    });
    let base = rx.recv().expect("server address");

    let all = [
        Contestant::Reqwest,
        Contestant::Remcall,
        Contestant::Middleware,
    ];
    // `--only N` (1-based) runs one contestant alone, for a profiler.
    let contestants: Vec<Contestant> = match arg("--only", 0) as usize {
        0 => all.to_vec(),
        n => all.get(n - 1).copied().into_iter().collect(),
    };
    let mut results: Vec<Vec<Round>> = contestants.iter().map(|_| Vec::new()).collect();
    for r in 0..rounds {
        for (i, c) in contestants.iter().enumerate() {
            results[i].push(round(*c, &base, length, calls));
        }
        eprintln!("round {}/{rounds} done", r + 1);
    }

    let cpu = |i: usize| {
        median_min_max(
            results[i]
                .iter()
                .map(|r| r.cpu_per_call.as_secs_f64() * 1e6)
                .collect(),
        )
    };
    let rps = |i: usize| median_min_max(results[i].iter().map(|r| r.per_second).collect());
    let p50 = |i: usize| {
        median_min_max(
            results[i]
                .iter()
                .map(|r| r.p50.as_secs_f64() * 1e3)
                .collect(),
        )
    };
    let p99 = |i: usize| {
        median_min_max(
            results[i]
                .iter()
                .map(|r| r.p99.as_secs_f64() * 1e3)
                .collect(),
        )
    };
    // Ratios are to the first contestant run (raw reqwest unless `--only` picked another).
    let (base_cpu, base_rps, base_p99) = (cpu(0).0, rps(0).0, p99(0).0);
    println!("{rounds} rounds of {length:?}, {CALLERS} callers, medians [min, max]");
    println!(
        "| contestant | client CPU µs/call | ×reqwest | req/s | ×reqwest | p50 ms | p99 ms | ×reqwest |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (i, c) in contestants.iter().enumerate() {
        let (c_med, c_min, c_max) = cpu(i);
        let (r_med, r_min, r_max) = rps(i);
        let (p50_med, ..) = p50(i);
        let (p99_med, p99_min, p99_max) = p99(i);
        println!(
            "| {} | {c_med:.2} [{c_min:.2}, {c_max:.2}] | {:.3} | {r_med:.0} [{r_min:.0}, {r_max:.0}] | {:.3} | {p50_med:.2} | {p99_med:.2} [{p99_min:.2}, {p99_max:.2}] | {:.3} |",
            c.name(),
            c_med / base_cpu,
            r_med / base_rps,
            p99_med / base_p99
        );
    }
}

/// The user the server answers with.
fn serde_json_user() -> remcall::serde_json::Value {
    remcall::serde_json::json!({ "id": 7, "name": "Ada", "email": "ada@example.test", "createdAt": "2026-01-01T00:00:00Z" })
}

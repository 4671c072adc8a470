//! Policy microbenches: remcall's breaker against failsafe and recloser (closed path, two threads
//! on one breaker, open path), the semaphore bulkhead, the retry decision, the rate limiter
//! against governor, the retry budget against tower's `TpsBudget`, the latency histogram against
//! hdrhistogram, and a whole short-circuited call with its allocations.

use std::sync::Arc;
use std::time::{Duration, Instant as StdInstant};

use criterion::{Criterion, criterion_group, criterion_main};
use remcall::__bench::{
    AttemptFailure, Breaker, Bulkhead, IsolationSettings, Latencies, Outcome, PoolThreads,
    RateLimitSettings, RateLimiter, RetryBudget, Settings, backoff, is_retryable,
};
use remcall::__codegen::{ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::Profile;
use remcall_bench::{CountingAllocator, allocations};
use tokio::time::Instant;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn settings(yaml: &str) -> Settings {
    Settings::from_profile(&Profile::from_yaml_str(yaml).unwrap())
}

fn remcall_breaker() -> Breaker {
    let s = settings(
        "breaker: { window: { calls: 100 }, min_calls: 20, failure_rate: 50, open_for: 60m }",
    );
    Breaker::new(s.breaker, "Bench", "call", Instant::now())
}

/// The spec profiles' kind of window: the last 10 s in ten buckets.
fn remcall_time_window_breaker() -> Breaker {
    let s = settings(
        "breaker: { window: { time: 10s }, min_calls: 20, failure_rate: 50, open_for: 60m }",
    );
    Breaker::new(s.breaker, "Bench", "call", Instant::now())
}

fn recloser_breaker() -> recloser::Recloser {
    recloser::Recloser::custom()
        .error_rate(0.5)
        .closed_len(100)
        .open_wait(Duration::from_secs(3600))
        .build()
}

/// Runs `per_call` `iters` times split over two threads; returns the wall time.
fn two_threads(iters: u64, per_call: impl Fn() + Send + Sync + 'static) -> Duration {
    let per_call = Arc::new(per_call);
    let start = StdInstant::now();
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let per_call = per_call.clone();
            std::thread::spawn(move || {
                for _ in 0..iters / 2 {
                    per_call();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    // Per call: both threads ran at once, so wall time over all calls made.
    start.elapsed()
}

fn breaker_closed(c: &mut Criterion) {
    let mut group = c.benchmark_group("breaker_closed_permit_and_record");
    let b = remcall_breaker();
    group.bench_function("remcall", |bench| {
        bench.iter(|| {
            let now = Instant::now();
            let permit = b.try_acquire(now).unwrap();
            b.record(permit, Outcome::Success { slow: false }, now);
        })
    });
    // The pipeline reads the clock for latency anyway and hands the breaker that timestamp.
    let now = Instant::now();
    group.bench_function("remcall_timestamp_given", |bench| {
        bench.iter(|| {
            let permit = b.try_acquire(now).unwrap();
            b.record(permit, Outcome::Success { slow: false }, now);
        })
    });
    let t = remcall_time_window_breaker();
    group.bench_function("remcall_time_window_timestamp_given", |bench| {
        bench.iter(|| {
            let permit = t.try_acquire(now).unwrap();
            t.record(permit, Outcome::Success { slow: false }, now);
        })
    });
    let f = failsafe::Config::new().build();
    group.bench_function("failsafe", |bench| {
        bench.iter(|| {
            assert!(f.is_call_permitted());
            f.on_success();
        })
    });
    let r = recloser_breaker();
    group.bench_function("recloser", |bench| {
        bench.iter(|| r.call(|| Ok::<(), ()>(())).unwrap())
    });
    group.finish();

    let mut group = c.benchmark_group("breaker_closed_two_threads");
    let b = Arc::new(remcall_breaker());
    group.bench_function("remcall", |bench| {
        bench.iter_custom(|iters| {
            let b = b.clone();
            two_threads(iters, move || {
                let now = Instant::now();
                let permit = b.try_acquire(now).unwrap();
                b.record(permit, Outcome::Success { slow: false }, now);
            })
        })
    });
    let given = Instant::now();
    group.bench_function("remcall_timestamp_given", |bench| {
        bench.iter_custom(|iters| {
            let b = b.clone();
            two_threads(iters, move || {
                let permit = b.try_acquire(given).unwrap();
                b.record(permit, Outcome::Success { slow: false }, given);
            })
        })
    });
    let t = Arc::new(remcall_time_window_breaker());
    group.bench_function("remcall_time_window_timestamp_given", |bench| {
        bench.iter_custom(|iters| {
            let t = t.clone();
            two_threads(iters, move || {
                let permit = t.try_acquire(given).unwrap();
                t.record(permit, Outcome::Success { slow: false }, given);
            })
        })
    });
    let f = Arc::new(failsafe::Config::new().build());
    group.bench_function("failsafe", |bench| {
        bench.iter_custom(|iters| {
            let f = f.clone();
            two_threads(iters, move || {
                assert!(f.is_call_permitted());
                f.on_success();
            })
        })
    });
    let r = Arc::new(recloser_breaker());
    group.bench_function("recloser", |bench| {
        bench.iter_custom(|iters| {
            let r = r.clone();
            two_threads(iters, move || r.call(|| Ok::<(), ()>(())).unwrap())
        })
    });
    group.finish();
}

fn breaker_open(c: &mut Criterion) {
    let mut group = c.benchmark_group("breaker_open_check");
    let b = remcall_breaker();
    let now = Instant::now();
    while let Ok(permit) = b.try_acquire(now) {
        b.record(permit, Outcome::Failure, now);
    }
    group.bench_function("remcall", |bench| {
        bench.iter(|| assert!(b.try_acquire(Instant::now()).is_err()))
    });
    // Open for an hour, so it stays open through the two-thread run as well.
    let f = failsafe::Config::new()
        .failure_policy(failsafe::failure_policy::consecutive_failures(
            5,
            failsafe::backoff::constant(Duration::from_secs(3600)),
        ))
        .build();
    for _ in 0..30 {
        f.on_error();
    }
    group.bench_function("failsafe", |bench| {
        bench.iter(|| assert!(!f.is_call_permitted()))
    });
    let r = recloser_breaker();
    for _ in 0..200 {
        let _ = r.call(|| Err::<(), ()>(()));
    }
    group.bench_function("recloser", |bench| {
        bench.iter(|| assert!(r.call(|| Ok::<(), ()>(())).is_err()))
    });
    group.finish();

    let mut group = c.benchmark_group("breaker_open_check_two_threads");
    let b = Arc::new(b);
    group.bench_function("remcall", |bench| {
        bench.iter_custom(|iters| {
            let b = b.clone();
            two_threads(iters, move || {
                assert!(b.try_acquire(Instant::now()).is_err())
            })
        })
    });
    let f = Arc::new(f);
    group.bench_function("failsafe", |bench| {
        bench.iter_custom(|iters| {
            let f = f.clone();
            two_threads(iters, move || assert!(!f.is_call_permitted()))
        })
    });
    let r = Arc::new(r);
    group.bench_function("recloser", |bench| {
        bench.iter_custom(|iters| {
            let r = r.clone();
            two_threads(iters, move || assert!(r.call(|| Ok::<(), ()>(())).is_err()))
        })
    });
    group.finish();
}

/// Polls a future that is ready at once (an uncontended semaphore), outside any runtime, so
/// that two plain threads can share one bulkhead.
fn ready_now<T>(future: impl std::future::Future<Output = T>) -> T {
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match std::pin::pin!(future).poll(&mut context) {
        std::task::Poll::Ready(value) => value,
        std::task::Poll::Pending => panic!("the bench's bulkhead is never full"),
    }
}

fn other_policies(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let bulkhead = Bulkhead::new(
        &IsolationSettings::Semaphore {
            max_concurrent: 128,
            max_wait: Duration::ZERO,
        },
        &PoolThreads::new("Bench", 1),
    )
    .unwrap();
    c.bench_function("bulkhead_semaphore_acquire_release", |bench| {
        bench
            .to_async(&rt)
            .iter(|| async { drop(bulkhead.acquire().await.unwrap()) })
    });
    let shared = Arc::new(bulkhead);
    c.bench_function("bulkhead_semaphore_acquire_release_two_threads", |bench| {
        bench.iter_custom(|iters| {
            let bulkhead = shared.clone();
            two_threads(iters, move || drop(ready_now(bulkhead.acquire()).unwrap()))
        })
    });

    let retry = settings("").retry;
    c.bench_function("retry_decision_and_backoff", |bench| {
        bench.iter(|| {
            let retry_it = is_retryable(&retry, AttemptFailure::Status(503), true);
            (retry_it, backoff(&retry, 2, 0.5))
        })
    });

    let limiter = RateLimiter::new(
        &RateLimitSettings {
            per_second: 1e12,
            // A second of tolerance: a thread preempted between reading the clock and reserving
            // is late by milliseconds on this machine, and must not be refused.
            burst: 1_000_000_000,
            max_wait: Duration::ZERO,
            shared: None,
        },
        Instant::now(),
    );
    c.bench_function("rate_limiter_check", |bench| {
        bench.iter(|| drop(limiter.reserve(Instant::now()).unwrap()))
    });
    let limiter = Arc::new(limiter);
    c.bench_function("rate_limiter_check_two_threads", |bench| {
        bench.iter_custom(|iters| {
            let limiter = limiter.clone();
            two_threads(iters, move || {
                drop(limiter.reserve(Instant::now()).unwrap())
            })
        })
    });
}

static PING: MethodSpec = MethodSpec {
    index: 0,
    name: "ping",
    http_method: "GET",
    path: "/ping",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};
static SPEC: ClientSpec = ClientSpec {
    name: "Bench",
    base_urls: &["http://127.0.0.1:9"],
    base_path: "",
    profile: "retry: { max_attempts: 1 }\nbreaker: { window: { calls: 10 }, min_calls: 5, open_for: 60m }\ntimeout: { connect: 100ms }",
    methods: &[&PING],
};

fn short_circuited_call(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(async {
        // Port 9 on loopback refuses: five connect failures open the breaker.
        let client = ClientBuilder::new(&SPEC).build().unwrap();
        for _ in 0..5 {
            let _ = client.call(PING.request(), decode::unit).await;
        }
        client
    });
    let before = allocations();
    let calls = 10_000;
    rt.block_on(async {
        for _ in 0..calls {
            let err = client.call(PING.request(), decode::unit).await.unwrap_err();
            assert_eq!(err.kind(), remcall::ErrorKind::BreakerOpen);
        }
    });
    let per_call = (allocations() - before) as f64 / calls as f64;
    println!("short-circuited call: {per_call:.1} allocations per call (the boxed error)");
    c.bench_function("short_circuited_call_end_to_end", |bench| {
        bench
            .to_async(&rt)
            .iter(|| async { client.call(PING.request(), decode::unit).await.unwrap_err() })
    });
}

/// The libraries remcall could use instead of its own limiter, budget and histogram, on the
/// operation the call path makes: one check, one deposit, one record.
fn against_libraries(c: &mut Criterion) {
    // Rate limiter: one admission.
    let mut group = c.benchmark_group("rate_limit_check");
    let ours = Arc::new(RateLimiter::new(
        &RateLimitSettings {
            per_second: 1e12,
            burst: 1_000_000_000,
            max_wait: Duration::ZERO,
            shared: None,
        },
        Instant::now(),
    ));
    let quota = governor::Quota::per_second(std::num::NonZeroU32::MAX)
        .allow_burst(std::num::NonZeroU32::MAX);
    let theirs = Arc::new(governor::RateLimiter::direct(quota));
    group.bench_function("remcall", |bench| {
        bench.iter(|| drop(ours.reserve(Instant::now()).unwrap()))
    });
    // The pipeline reads the clock before the limiter anyway, for the breaker.
    group.bench_function("remcall_timestamp_given", |bench| {
        let now = Instant::now();
        bench.iter(|| drop(ours.reserve(now).unwrap()))
    });
    group.bench_function("governor", |bench| bench.iter(|| theirs.check().unwrap()));
    group.bench_function("remcall_two_threads", |bench| {
        bench.iter_custom(|iters| {
            let ours = ours.clone();
            two_threads(iters, move || drop(ours.reserve(Instant::now()).unwrap()))
        })
    });
    group.bench_function("governor_two_threads", |bench| {
        bench.iter_custom(|iters| {
            let theirs = theirs.clone();
            two_threads(iters, move || theirs.check().unwrap())
        })
    });
    group.finish();

    // Retry budget: every call deposits; the happy path never withdraws.
    let mut group = c.benchmark_group("retry_budget_deposit");
    let ours = Arc::new(RetryBudget::new(0.2, 10, Instant::now()));
    let theirs = Arc::new(tower::retry::budget::TpsBudget::new(
        Duration::from_secs(10),
        10,
        0.2,
    ));
    // The pipeline has the call's start time at hand and passes it on.
    group.bench_function("remcall_timestamp_given", |bench| {
        let now = Instant::now();
        bench.iter(|| ours.deposit(now))
    });
    group.bench_function("remcall", |bench| {
        bench.iter(|| ours.deposit(Instant::now()))
    });
    group.bench_function("tower_tps_budget", |bench| {
        use tower::retry::budget::Budget;
        bench.iter(|| theirs.deposit())
    });
    group.bench_function("remcall_two_threads", |bench| {
        bench.iter_custom(|iters| {
            let ours = ours.clone();
            two_threads(iters, move || ours.deposit(Instant::now()))
        })
    });
    group.bench_function("tower_tps_budget_two_threads", |bench| {
        bench.iter_custom(|iters| {
            use tower::retry::budget::Budget;
            let theirs = theirs.clone();
            two_threads(iters, move || theirs.deposit())
        })
    });
    group.finish();

    // Latency histogram: one record. Calls finish on many threads at once, so hdrhistogram
    // (which records through `&mut`) needs a lock; remcall's records with one atomic add.
    let mut group = c.benchmark_group("latency_record");
    let ours = Arc::new(Latencies::new(Instant::now()));
    let theirs = Arc::new(std::sync::Mutex::new(
        hdrhistogram::Histogram::<u32>::new_with_bounds(1, 60_000_000, 2).unwrap(),
    ));
    let latency = Duration::from_micros(1234);
    group.bench_function("remcall", |bench| {
        let now = Instant::now();
        bench.iter(|| ours.record(latency, now))
    });
    group.bench_function("hdrhistogram_behind_a_mutex", |bench| {
        bench.iter(|| theirs.lock().unwrap().record(1234).unwrap())
    });
    group.bench_function("remcall_two_threads", |bench| {
        bench.iter_custom(|iters| {
            let ours = ours.clone();
            let now = Instant::now();
            two_threads(iters, move || ours.record(latency, now))
        })
    });
    group.bench_function("hdrhistogram_behind_a_mutex_two_threads", |bench| {
        bench.iter_custom(|iters| {
            let theirs = theirs.clone();
            two_threads(iters, move || theirs.lock().unwrap().record(1234).unwrap())
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    breaker_closed,
    breaker_open,
    other_policies,
    against_libraries,
    short_circuited_call
);
criterion_main!(benches);

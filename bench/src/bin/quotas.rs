//! Quotas and the cache, measured against loopback servers (issue 50's figures):
//!
//! 1. A server allowing `--limit` calls (100) per `--window` seconds (2), announcing it in each
//!    dialect (IETF fields, `X-RateLimit-*`, GitHub's with a 403 when spent); `--calls` (500)
//!    calls from 4 callers of one client: the refusals with quotas on and off, and the time
//!    against the best schedule the quota allows (every window spent at its start).
//! 2. 1,000 GETs of an unchanged resource with an `ETag`, answered `no-cache`: bytes of body the
//!    server sent and requests it counted, without and with `cache: {}` (GitHub does not count
//!    a 304 against the quota).
//! 3. CPU of a call the cache answers (`max-age`) against a full call, per call, on the client
//!    thread.
//! 4. The fleet: 4 replica processes (this binary again, each its own client and Redis
//!    connection) make `--fleet-calls` (1,000) calls together against one server allowing
//!    `--fleet-limit` (100) per `--fleet-window` seconds (10), with `quota.shared` on a real
//!    `redis-server`, and with quotas off: the refusals and the time against the best schedule.
//! 5. Two quotas of one client: `core` (`--limit`) for reading a user and `search` (a quarter
//!    of it) for listing them, each named in its answers; `--two-calls` (200) calls from six
//!    callers alternating the two routes: the refusals and the time against the best schedule
//!    (the slower quota's).
//! 6. The fleet spending those two quotas: 4 replica processes alternating the two routes,
//!    `--fleet-two-calls` (400) calls, the quotas shared through Redis and off.
//!
//! `cargo run --release -p remcall-bench --bin quotas -- [--calls 500] [--limit 100] [--window 2]
//! [--fleet-calls 1000] [--fleet-limit 100] [--fleet-window 10] [--fleet-only 1] [--two-calls 200]
//! [--two-only 1] [--fleet-two-calls 400] [--fleet-two-only 1]` (needs
//! `redis-server`)

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use remcall_bench::harness::{arg, client, serve, thread_cpu, user_json};
use remcall_example_committed::clients::user_client::UserClient;
use testkit::quota::{Dialect, QuotaWindow};

/// The user the quota server answers with (`user_json`, written out: its body is a static).
const USER: &str =
    r#"{"id":7,"name":"Ada","email":"ada@example.test","createdAt":"2026-01-01T00:00:00Z"}"#;

const CALLERS: u64 = 4;

/// A page of one user, as `list_users` reads it.
const PAGE: &str = r#"{"users":[{"id":7,"name":"Ada","email":"ada@example.test","createdAt":"2026-01-01T00:00:00Z"}],"hasMore":false}"#;

/// A server of two named quotas: `core` of `limit` for reading a user, `search` of `search`
/// for listing users, each per `window`; its URL and the two.
fn two_quota_server(
    dialect: Dialect,
    limit: u64,
    search: u64,
    window: Duration,
) -> (String, Arc<QuotaWindow>, Arc<QuotaWindow>) {
    let core_quota = Arc::new(QuotaWindow::named(dialect, "core", limit, window));
    let search_quota = Arc::new(QuotaWindow::named(dialect, "search", search, window));
    let router = core_quota
        .router("/v1/api/users/{id}", USER)
        .merge(search_quota.router("/v1/api/users", PAGE));
    (serve(vec![router]).remove(0), core_quota, search_quota)
}

async fn two_quotas() {
    let calls = arg("--two-calls", 200);
    let limit = arg("--limit", 100);
    let search = (limit / 4).max(1);
    let window = Duration::from_secs(arg("--window", 2));
    // Half the calls list users: the best schedule is `search`'s, every window spent at its
    // start.
    let listed = calls / 2;
    let best = window * u32::try_from(listed.saturating_sub(1) / search).expect("windows");
    println!(
        "\n## Two quotas of one client: {calls} calls, 6 callers alternating `core` ({limit} per {window:?}) and `search` ({search}) (best schedule: {best:?})\n"
    );
    println!("| dialect | refused (core, search) | calls failed | time | × best |");
    println!("| --- | --- | --- | --- | --- |");
    for dialect in [Dialect::Ietf, Dialect::XRateLimit, Dialect::GitHub] {
        let (url, core_quota, search_quota) = two_quota_server(dialect, limit, search, window);
        let users = client(&url, RETRYING);
        let started = Instant::now();
        let failed = alternate(&users, calls, 6).await;
        let took = started.elapsed();
        println!(
            "| {dialect:?} | {}, {} | {} | {:.2} s | {:.2} |",
            core_quota.refused(),
            search_quota.refused(),
            failed,
            took.as_secs_f64(),
            took.as_secs_f64() / best.as_secs_f64().max(1e-9)
        );
    }
}

/// `calls` calls from `callers` callers of one client, reading a user (`core`) and listing
/// users (`search`) in turn; the calls that failed.
async fn alternate(users: &UserClient, calls: u64, callers: u64) -> u64 {
    let failed = Arc::new(AtomicU64::new(0));
    let tasks: Vec<_> = (0..callers)
        .map(|caller| {
            let (users, failed) = (users.clone(), failed.clone());
            tokio::spawn(async move {
                for call in (caller..calls).step_by(callers as usize) {
                    let done = if call % 2 == 0 {
                        users.get_user(7, None, "two").await.map(|_| ())
                    } else {
                        users.list_users().await.map(|_| ())
                    };
                    if done.is_err() {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("caller");
    }
    failed.load(Ordering::Relaxed)
}

/// `calls` calls from `CALLERS` callers of one client; the failures and the time taken.
async fn spend(users: &UserClient, calls: u64) -> (u64, Duration) {
    let started = Instant::now();
    let failed = Arc::new(AtomicU64::new(0));
    let callers: Vec<_> = (0..CALLERS)
        .map(|caller| {
            let (users, failed) = (users.clone(), failed.clone());
            tokio::spawn(async move {
                for _ in (caller..calls).step_by(CALLERS as usize) {
                    if users.get_user(7, None, "quota").await.is_err() {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for caller in callers {
        caller.await.expect("caller");
    }
    (failed.load(Ordering::Relaxed), started.elapsed())
}

// Retries wide enough that calls with quotas off get through by retrying after `Retry-After`.
const RETRYING: &str = "retry: { max_attempts: 20, retry_after: { max: 5s }, on: [connect, timeout, 429, 403], budget: { ratio: 1.0, min_per_second: 1000 } }\ntimeout: { total: 120s }";

async fn quotas() {
    let calls = arg("--calls", 500);
    let limit = arg("--limit", 100);
    let window = Duration::from_secs(arg("--window", 2));
    // The best schedule spends every window at its start: the last call goes out when the
    // window it falls in opens.
    let best = window * u32::try_from(calls.saturating_sub(1) / limit.max(1)).expect("windows");
    println!(
        "## {calls} calls, 4 callers, against {limit} calls per {window:?} announced (best schedule: {best:?})\n"
    );
    println!("| dialect | quotas | refused by the server | calls failed | time | × best |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for dialect in [Dialect::Ietf, Dialect::XRateLimit, Dialect::GitHub] {
        for on in [true, false] {
            let server = Arc::new(QuotaWindow::new(dialect, limit, window));
            let url = serve(vec![server.router("/v1/api/users/{id}", USER)]).remove(0);
            let profile = if on {
                RETRYING.to_owned()
            } else {
                format!("{RETRYING}\nquota: {{ from_headers: off }}")
            };
            let (failed, took) = spend(&client(&url, &profile), calls).await;
            println!(
                "| {dialect:?} | {} | {} | {failed} | {:.2} s | {:.2} |",
                if on { "on" } else { "off" },
                server.refused(),
                took.as_secs_f64(),
                took.as_secs_f64() / best.as_secs_f64().max(1e-9)
            );
        }
    }
}

/// A resource that does not change: its `ETag`, `cache_control`, and the bytes and requests
/// the server sent and counted.
fn unchanged(
    cache_control: &'static str,
    bytes: Arc<AtomicU64>,
    counted: Arc<AtomicU64>,
) -> Router {
    let body = user_json().to_string();
    Router::new().route(
        "/v1/api/users/{id}",
        get(move |headers: HeaderMap| {
            let (bytes, counted, body) = (bytes.clone(), counted.clone(), body.clone());
            async move {
                let tag = [("etag", "\"u7\""), ("cache-control", cache_control)];
                if headers.get("if-none-match").is_some_and(|v| v == "\"u7\"") {
                    return (StatusCode::NOT_MODIFIED, tag).into_response();
                }
                counted.fetch_add(1, Ordering::Relaxed);
                bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
                (
                    StatusCode::OK,
                    tag,
                    [("content-type", "application/json")],
                    body,
                )
                    .into_response()
            }
        }),
    )
}

async fn cache() {
    println!("\n## 1,000 GETs of an unchanged resource with an ETag (`no-cache`)\n");
    println!("| client | body bytes sent | requests the quota counts (not 304s) | 304s |");
    println!("| --- | --- | --- | --- |");
    for cached in [false, true] {
        let (bytes, counted) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let url = serve(vec![unchanged("no-cache", bytes.clone(), counted.clone())]).remove(0);
        let users = client(&url, if cached { "cache: {}" } else { "" });
        for _ in 0..1000 {
            users.get_user(7, None, "cache").await.expect("a user");
        }
        let stats = users.stats();
        let m = stats.method("get_user").expect("get_user");
        println!(
            "| {} | {} | {} | {} |",
            if cached { "cache: {}" } else { "no cache" },
            bytes.load(Ordering::Relaxed),
            counted.load(Ordering::Relaxed),
            m.revalidated
        );
    }
    println!("\n## CPU per call on the client thread: the cache's answer against a full call\n");
    println!("| call | µs per call |");
    println!("| --- | --- |");
    let mut per_call = Vec::new();
    for cached in [false, true] {
        let (bytes, counted) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let url = serve(vec![unchanged("max-age=600", bytes, counted)]).remove(0);
        let users = client(&url, if cached { "cache: {}" } else { "" });
        users.get_user(7, None, "warm").await.expect("a user");
        let n = 20_000;
        let cpu = thread_cpu();
        for _ in 0..n {
            users.get_user(7, None, "cpu").await.expect("a user");
        }
        let micros = (thread_cpu() - cpu).as_secs_f64() * 1e6 / f64::from(n);
        per_call.push(micros);
        println!(
            "| {} | {micros:.2} |",
            if cached {
                "answered by the cache (fresh)"
            } else {
                "full call"
            }
        );
    }
    println!("\ncache hit / full call: {:.3}", per_call[1] / per_call[0]);
}

const REPLICAS: u64 = 4;

/// What each replica calls: one route, or two with a quota each in turn.
#[derive(Clone, Copy)]
enum Routes {
    One,
    Two,
}

/// One replica process: `calls` calls from `CALLERS` callers; prints the calls that failed.
fn replica(url: &str, profile: &str, calls: u64, routes: Routes) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let users = client(url, profile);
    let failed = runtime.block_on(async {
        match routes {
            Routes::One => spend(&users, calls).await.0,
            Routes::Two => alternate(&users, calls, CALLERS).await,
        }
    });
    println!("{failed}");
}

/// The fleet's calls from `REPLICAS` processes with `profile`; the calls that failed.
fn run_fleet(url: &str, profile: &str, calls: u64, routes: Routes) -> u64 {
    let exe = std::env::current_exe().expect("this binary");
    let routes = match routes {
        Routes::One => "one",
        Routes::Two => "two",
    };
    let children: Vec<_> = (0..REPLICAS)
        .map(|_| {
            std::process::Command::new(&exe)
                .args([
                    "--replica",
                    url,
                    profile,
                    &(calls / REPLICAS).to_string(),
                    routes,
                ])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("replica process")
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().expect("replica");
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse::<u64>()
                .expect("the replica's failures")
        })
        .sum()
}

fn fleet(runtime: &tokio::runtime::Runtime) {
    let calls = arg("--fleet-calls", 1000);
    let limit = arg("--fleet-limit", 100);
    let window = Duration::from_secs(arg("--fleet-window", 10));
    let best = window * u32::try_from(calls.saturating_sub(1) / limit.max(1)).expect("windows");
    let redis = runtime.block_on(testkit::redis::RedisServer::start());
    println!(
        "\n## The fleet: {REPLICAS} processes, {calls} calls, against {limit} calls per {window:?} announced (best schedule: {best:?})\n"
    );
    println!(
        "| dialect | quotas | refused by the server | calls failed | time | × best | served per window |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for dialect in [Dialect::Ietf, Dialect::XRateLimit, Dialect::GitHub] {
        for shared in [true, false] {
            let profile = fleet_profile(&redis.url(), &format!("{dialect:?}"), shared);
            // The server's first window opens as the replicas start.
            let server = Arc::new(QuotaWindow::new(dialect, limit, window));
            let url = serve(vec![server.router("/v1/api/users/{id}", USER)]).remove(0);
            let started = Instant::now();
            let failed = run_fleet(&url, &profile, calls, Routes::One);
            let took = started.elapsed();
            println!(
                "| {dialect:?} | {} | {} | {failed} | {:.2} s | {:.3} | {:?} |",
                if shared { "shared" } else { "off" },
                server.refused(),
                took.as_secs_f64(),
                took.as_secs_f64() / best.as_secs_f64().max(1e-9),
                server.per_window()
            );
        }
    }
}

/// The profile of a replica: quotas shared on `redis` under `key`, or not followed at all.
fn fleet_profile(redis: &str, key: &str, shared: bool) -> String {
    if shared {
        format!(
            "{RETRYING}\nquota: {{ shared: {{ redis: \"{redis}\", key: {key}, timeout: 100ms }} }}"
        )
    } else {
        format!("{RETRYING}\nquota: {{ from_headers: off }}")
    }
}

/// The fleet spending two quotas: `core` (`--fleet-limit`) for reading a user, `search` (a
/// quarter of it) for listing users, each named in its answers and shared through Redis.
fn fleet_two(runtime: &tokio::runtime::Runtime) {
    let calls = arg("--fleet-two-calls", 400);
    let limit = arg("--fleet-limit", 100);
    let search = (limit / 4).max(1);
    let window = Duration::from_secs(arg("--fleet-window", 10));
    let listed = calls / 2;
    let best = window * u32::try_from(listed.saturating_sub(1) / search).expect("windows");
    let redis = runtime.block_on(testkit::redis::RedisServer::start());
    println!(
        "\n## The fleet, two quotas: {REPLICAS} processes, {calls} calls alternating `core` ({limit} per {window:?}) and `search` ({search}) (best schedule: {best:?})\n"
    );
    println!("| dialect | quotas | refused (core, search) | calls failed | time | × best |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for dialect in [Dialect::Ietf, Dialect::XRateLimit, Dialect::GitHub] {
        for shared in [true, false] {
            let profile = fleet_profile(&redis.url(), &format!("two-{dialect:?}"), shared);
            let (url, core_quota, search_quota) = two_quota_server(dialect, limit, search, window);
            let started = Instant::now();
            let failed = run_fleet(&url, &profile, calls, Routes::Two);
            let took = started.elapsed();
            println!(
                "| {dialect:?} | {} | {}, {} | {failed} | {:.2} s | {:.3} |",
                if shared { "shared" } else { "off" },
                core_quota.refused(),
                search_quota.refused(),
                took.as_secs_f64(),
                took.as_secs_f64() / best.as_secs_f64().max(1e-9),
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--replica") {
        let calls = args[i + 3].parse().expect("calls");
        let routes = match args[i + 4].as_str() {
            "two" => Routes::Two,
            _ => Routes::One,
        };
        replica(&args[i + 1], &args[i + 2], calls, routes);
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // `--two-only 1`: the two quotas of one client alone.
    if arg("--two-only", 0) == 1 {
        runtime.block_on(two_quotas());
        return;
    }
    // `--fleet-two-only 1`: the fleet spending two quotas alone.
    if arg("--fleet-two-only", 0) == 1 {
        fleet_two(&runtime);
        return;
    }
    // `--fleet-only 1`: the fleet's part alone.
    if arg("--fleet-only", 0) == 0 {
        runtime.block_on(async {
            cache().await;
            println!();
            quotas().await;
            two_quotas().await;
        });
    }
    fleet(&runtime);
    fleet_two(&runtime);
}

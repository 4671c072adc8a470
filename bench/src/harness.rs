//! What the load and isolation benches share: loopback servers on their own thread, the client
//! thread's CPU clock, and medians over rounds.

use std::time::Duration;

use axum::Router;
use remcall_example_committed::clients::user_client::UserClient;

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// User-space CPU time of the calling thread (`getrusage(RUSAGE_THREAD)`): the library's own
/// work, without the kernel's network stack, whose share of a loopback exchange falls on the
/// client or the server thread as their timing happens to interleave. The kernel splits the
/// thread's exact CPU time between user and system by its tick samples, so a round needs some
/// hundreds of ticks (a second) for the split to hold.
pub fn thread_user_cpu() -> Duration {
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage; RUSAGE_THREAD is a constant the kernel knows.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    Duration::new(
        usage.ru_utime.tv_sec as u64,
        usage.ru_utime.tv_usec as u32 * 1000,
    )
}

/// Serves each router on its own loopback port, all on one thread and runtime of their own (so
/// the server's CPU never counts as the client's); returns their base URLs.
pub fn serve(routers: Vec<Router>) -> Vec<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let count = routers.len();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("server runtime");
        runtime.block_on(async move {
            let mut servers = Vec::new();
            for router in routers {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                tx.send(format!("http://{}", listener.local_addr().expect("addr")))
                    .expect("send");
                servers.push(tokio::spawn(async move {
                    axum::serve(listener, router).await.expect("serve");
                }));
            }
            for server in servers {
                let _ = server.await;
            }
        });
    });
    (0..count)
        .map(|_| rx.recv().expect("server address"))
        .collect()
}

/// The committed example's user client at `url`, with `yaml` over its spec's profile.
pub fn client(url: &str, yaml: &str) -> UserClient {
    UserClient::builder()
        .base_url(url)
        .profile(remcall::Profile::from_yaml_str(yaml).expect("profile"))
        .build()
        .expect("client")
}

/// The user every server answers with.
pub fn user_json() -> remcall::serde_json::Value {
    remcall::serde_json::json!({ "id": 7, "name": "Ada", "email": "ada@example.test", "createdAt": "2026-01-01T00:00:00Z" })
}

/// The value at quantile `q` of sorted `values` (exact: every latency is kept).
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 * q) as usize).min(sorted.len() - 1)]
}

/// Median, min and max.
pub fn median_min_max(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(|a, b| a.total_cmp(b));
    (
        values[values.len() / 2],
        values[0],
        values[values.len() - 1],
    )
}

/// `--name value` from the command line, or `default`.
pub fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(default)
}

//! What a big client costs before it is used: the resident memory and the build time of a client
//! with 1,000 methods (what an API description of that size gives) of which none is called, and
//! the cost of a method's first call.
//!
//! Ten clients are built and kept, and the growth of `VmRSS` divided by ten; the build time is
//! the median of the ten.
//!
//! `cargo run --release -p remcall-bench --bin bigclient`

use std::time::{Duration, Instant};

use remcall::__codegen::{ClientBuilder, ClientSpec, MethodSpec};

const METHODS: usize = 1_000;
const CLIENTS: usize = 10;

/// Resident memory of this process, in KiB (Linux).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// A client spec with `METHODS` methods, each without a profile of its own (as imported ones are).
fn spec() -> &'static ClientSpec {
    let methods: Vec<&'static MethodSpec> = (0..METHODS)
        .map(|index| {
            &*Box::leak(Box::new(MethodSpec {
                index,
                name: leak(format!("method_{index}")),
                http_method: "GET",
                path: leak(format!("/things/{index}/{{id}}")),
                idempotent: true,
                reads: true,
                not_found_none: false,
                streams: false,
                profile: "",
            }))
        })
        .collect();
    Box::leak(Box::new(ClientSpec {
        name: "Big",
        base_urls: &["http://127.0.0.1:9"],
        base_path: "",
        profile: "",
        methods: Box::leak(methods.into_boxed_slice()),
    }))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let _guard = runtime.enter();
    let spec = spec();
    // One build first: it reads the system's TLS roots, once per process, which is not the
    // methods' cost (nor a second client's).
    let start = Instant::now();
    let first = ClientBuilder::new(spec).build().expect("client");
    let first_build = start.elapsed();
    drop(first);
    let before = rss_kib();
    let mut clients = Vec::new();
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..CLIENTS {
        let start = Instant::now();
        clients.push(ClientBuilder::new(spec).build().expect("client"));
        times.push(start.elapsed());
    }
    let after = rss_kib();
    times.sort();
    let per_client = (after.saturating_sub(before)) / CLIENTS as u64;
    println!("| a client of {METHODS} methods, none called | |");
    println!("| --- | --- |");
    println!("| resident memory, each (VmRSS growth / {CLIENTS}) | {per_client} KiB |");
    println!(
        "| build time, median of {CLIENTS} | {:?} |",
        times[CLIENTS / 2]
    );
    println!("| the process's first build (reads the TLS roots) | {first_build:?} |");
    // The same, with one HTTP client given to all: what the methods cost, without the
    // connection pool and TLS config of each new reqwest::Client.
    let http = reqwest::Client::new();
    let mut given: Vec<Duration> = (0..CLIENTS)
        .map(|_| {
            let start = Instant::now();
            let client = ClientBuilder::new(spec)
                .http_client(http.clone())
                .build()
                .expect("client");
            let elapsed = start.elapsed();
            drop(client);
            elapsed
        })
        .collect();
    given.sort();
    println!(
        "| build time with a reqwest::Client given, median of {CLIENTS} | {:?} |",
        given[CLIENTS / 2]
    );
    let stats = clients[0].stats();
    println!(
        "| methods shown by stats() / used | {} / {} |",
        stats.methods.len(),
        stats.methods.iter().filter(|(_, m)| m.calls > 0).count()
    );
}

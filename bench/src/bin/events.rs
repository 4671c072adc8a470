//! Server-Sent Events: remcall's `Events<T>` against `eventsource-stream` on reqwest (what
//! `reqwest-eventsource` and async-openai read streams with), in one run. Each round reads a
//! stream of `--events` typed events (JSON data, decoded into the same struct) over loopback
//! from a server on its own thread, and measures the client thread's CPU per event and events
//! per second; rounds alternate the order. Then remcall reads one stream of `--long` events and
//! samples its resident memory as it goes: it must not grow with the stream.
//!
//! `cargo run --release -p remcall-bench --bin events -- [--events 1000] [--rounds 21] [--long 1000000]`

use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::Query;
use axum::routing::get;
use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use remcall::__codegen::{ClientBuilder, ClientSpec, MethodSpec, event_json};
use remcall::bytes::Bytes;
use remcall_bench::harness::{arg, median_min_max, serve, thread_cpu};

static EVENTS: MethodSpec = MethodSpec {
    index: 0,
    name: "events",
    http_method: "GET",
    path: "/events",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Bench",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&EVENTS],
};

/// One event's data, as a chat completion's chunk reads.
#[derive(Debug, serde::Deserialize)]
struct Chunk {
    index: u64,
    text: String,
}

#[derive(serde::Deserialize)]
struct Count {
    n: u64,
}

/// The chunks' stream: each event's data a `Chunk`, no end marker, no error events.
static CHUNKS: remcall::__codegen::EventsSpec<Chunk> = remcall::__codegen::EventsSpec {
    decode: event_json,
    end: None,
    errors: None,
};

/// Events `from..to`, each with its id, 32 to a chunk of the body (as a server flushing
/// tokens in small batches writes them).
fn events_body(n: u64) -> Body {
    let chunks = (0..n.div_ceil(32)).map(move |c| {
        let mut text = String::new();
        for i in c * 32..((c + 1) * 32).min(n) {
            text.push_str(&format!(
                "id: {i}\ndata: {{\"index\": {i}, \"text\": \"a token of text\"}}\n\n"
            ));
        }
        Ok::<_, std::io::Error>(Bytes::from(text))
    });
    Body::from_stream(futures_util::stream::iter(chunks))
}

#[derive(Clone, Copy, Debug)]
enum Contestant {
    EventsourceStream,
    Remcall,
}

struct Round {
    cpu_per_event: Duration,
    per_second: f64,
}

fn round(contestant: Contestant, base: &str, n: u64) -> Round {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let url = format!("{base}/events?n={n}");
    let http = reqwest::Client::new();
    let client = ClientBuilder::new(&SPEC)
        .base_url(base)
        .build()
        .expect("client");
    runtime.block_on(async {
        let (cpu, started) = (thread_cpu(), Instant::now());
        let mut seen = 0u64;
        match contestant {
            Contestant::EventsourceStream => {
                let response = http.get(&url).send().await.expect("send");
                let mut events = response.bytes_stream().eventsource();
                while let Some(event) = events.next().await {
                    let chunk: Chunk =
                        remcall::serde_json::from_str(&event.expect("event").data).expect("json");
                    assert_eq!(chunk.index, seen);
                    seen += 1;
                }
            }
            Contestant::Remcall => {
                let request = EVENTS.request().query("n", n);
                let mut events = client.call_events(request, &CHUNKS).await.expect("open");
                while let Some(event) = events.next().await {
                    let chunk = event.expect("event").data;
                    assert_eq!(chunk.index, seen);
                    seen += 1;
                }
            }
        }
        assert_eq!(seen, n, "{contestant:?}");
        let (cpu, wall) = (thread_cpu() - cpu, started.elapsed());
        Round {
            cpu_per_event: cpu / u32::try_from(n).unwrap_or(u32::MAX),
            per_second: n as f64 / wall.as_secs_f64(),
        }
    })
}

/// Resident memory of this process (`VmRSS`), in KiB.
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// One long stream through remcall: resident memory every tenth of the way.
fn long_stream(base: &str, n: u64) -> Vec<(u64, u64)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = ClientBuilder::new(&SPEC)
        .base_url(base)
        .build()
        .expect("client");
    runtime.block_on(async {
        let request = EVENTS.request().query("n", n);
        let mut events = client.call_events(request, &CHUNKS).await.expect("open");
        let mut samples = vec![(0, resident_kib())];
        let mut seen = 0u64;
        while let Some(event) = events.next().await {
            let chunk = event.expect("event").data;
            assert!(!chunk.text.is_empty());
            seen += 1;
            if seen.is_multiple_of((n / 10).max(1)) {
                samples.push((seen, resident_kib()));
            }
        }
        assert_eq!(seen, n);
        samples
    })
}

fn main() {
    let n = arg("--events", 1000);
    let rounds = arg("--rounds", 21) as usize;
    let long = arg("--long", 1_000_000);
    let app = Router::new().route(
        "/events",
        get(|Query(count): Query<Count>| async move {
            (
                [("content-type", "text/event-stream")],
                events_body(count.n),
            )
        }),
    );
    let base = serve(vec![app]).remove(0);
    let contestants = [Contestant::EventsourceStream, Contestant::Remcall];
    let mut results: Vec<Vec<Round>> = vec![Vec::new(), Vec::new()];
    for r in 0..rounds {
        let mut order = [0, 1];
        if r % 2 == 1 {
            order.reverse();
        }
        for i in order {
            results[i].push(round(contestants[i], &base, n));
        }
    }
    let cpu = |i: usize| {
        median_min_max(
            results[i]
                .iter()
                .map(|r| r.cpu_per_event.as_secs_f64() * 1e9)
                .collect(),
        )
    };
    let rate = |i: usize| median_min_max(results[i].iter().map(|r| r.per_second).collect());
    let ratios = median_min_max(
        results[1]
            .iter()
            .zip(&results[0])
            .map(|(remcall, other)| {
                remcall.cpu_per_event.as_secs_f64() / other.cpu_per_event.as_secs_f64()
            })
            .collect(),
    );
    println!("{n} events a stream, {rounds} rounds (median [min, max])");
    println!("| contestant | client CPU per event (ns) | events per second |");
    println!("|---|---|---|");
    for (i, contestant) in contestants.iter().enumerate() {
        let (c, c_min, c_max) = cpu(i);
        let (e, e_min, e_max) = rate(i);
        println!(
            "| {contestant:?} | {c:.0} [{c_min:.0}, {c_max:.0}] | {e:.0} [{e_min:.0}, {e_max:.0}] |"
        );
    }
    println!(
        "remcall's CPU per event over eventsource-stream's, paired by round: {:.3}x [{:.3}, {:.3}]",
        ratios.0, ratios.1, ratios.2
    );
    if long > 0 {
        let samples = long_stream(&base, long);
        let line: Vec<String> = samples
            .iter()
            .map(|(seen, kib)| format!("{seen}: {kib} KiB"))
            .collect();
        println!(
            "resident memory over one stream of {long} events: {}",
            line.join(", ")
        );
        let after_first = samples.get(1).map_or(0, |s| s.1);
        let last = samples.last().map_or(0, |s| s.1);
        println!(
            "growth after the first tenth: {} KiB",
            last.saturating_sub(after_first)
        );
    }
}

//! The header fuzz: a client with a cache and quotas (on by default) calls a loopback server
//! whose every answer carries hostile quota and cache headers (`testkit::hostile`), from four
//! tasks at once, each call with a hostile caller's `baggage` and `tracestate` (which key the
//! cache). Each call runs in a task of its own, so a panic anywhere in the client is a
//! failed join, counted and never hidden. `cargo run -p remcall-bench --bin header_fuzz --
//! --seconds 600` runs it for ten minutes and prints the process's resident memory each minute;
//! `bench/tests/header_fuzz.rs` runs a short one in `cargo xtask test`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::Profile;
use remcall::serde_json::Value;
use testkit::Server;
use testkit::hostile::{HostileAnswers, router};

static GET_ITEM: MethodSpec = MethodSpec {
    index: 0,
    name: "get_item",
    http_method: "GET",
    path: "/items/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Fuzzed",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_ITEM],
};

/// The client's profile: a cache that keeps stale answers, quotas from the headers (the
/// default), short holds so that held calls end quickly.
const PROFILE: &str = "cache: { memory: 1MiB, stale_if_error: 1m }
retry: { max_attempts: 2, backoff: { initial: 1ms, max: 2ms }, retry_after: { max: 20ms } }
timeout: { total: 200ms }";

/// What a run saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
    pub calls: u64,
    pub answered: u64,
    pub panics: u64,
}

/// Runs calls until `calls` are made or `until` passes, whichever first; `each_minute` is
/// called with the figures so far about once a minute.
pub async fn run(
    seed: u64,
    calls: u64,
    until: Duration,
    mut each_minute: impl FnMut(Outcome),
) -> Outcome {
    let answers = Arc::new(Mutex::new(HostileAnswers::new(seed)));
    let server = Server::start(router(answers)).await;
    let mut callers = HostileAnswers::new(seed.wrapping_add(1));
    let client: Client = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .profile(Profile::from_yaml_str(PROFILE).expect("the fuzz profile reads"))
        .build()
        .expect("the fuzz client builds");
    let started = Instant::now();
    let mut outcome = Outcome::default();
    let mut minute = 1;
    while outcome.calls < calls && started.elapsed() < until {
        let batch = (0..4u64).map(|_| {
            let client = client.clone();
            let (id, context) = callers.caller_context();
            tokio::spawn(async move {
                let mut request = GET_ITEM.request().path("id", id);
                for (name, value) in &context {
                    request = request.header(name, value.as_str());
                }
                client.call(request, decode::json::<Value>).await
            })
        });
        for joined in futures_util::future::join_all(batch).await {
            outcome.calls += 1;
            match joined {
                Ok(Ok(_)) => outcome.answered += 1,
                Ok(Err(_)) => {}
                Err(_) => outcome.panics += 1,
            }
        }
        if started.elapsed() >= Duration::from_secs(60 * minute) {
            minute += 1;
            each_minute(outcome);
        }
    }
    outcome
}

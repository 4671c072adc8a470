//! Spans without log lines (feature `otel`): a service that keeps `remcall=info` for its logs
//! gets the client spans and their events in its traces, and an outage writes no line per call;
//! remcall's decision lines (`remcall::log` at DEBUG, for whoever asks) come at most once per
//! method per interval, with the count held back. One test in its own binary: the subscriber is
//! global (tracing's callsite cache makes thread-scoped ones unreliable beside other tests).
#![cfg(feature = "otel")]

use std::time::Instant;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use remcall::__codegen::{ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::Profile;
use testkit::Server;
use testkit::logs::Captured;
use tracing::Level;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;

static DOWN: MethodSpec = MethodSpec {
    index: 0,
    name: "down",
    http_method: "GET",
    path: "/down",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Outage",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&DOWN],
};

/// The lines of `log` that say what a call decided (a retry, a refusal, a fallback).
fn decision_lines(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| {
            ["retrying", "breaker short-circuit", "fallback taken"]
                .iter()
                .any(|d| l.contains(d))
        })
        .collect()
}

#[tokio::test]
async fn an_outage_is_in_the_traces_and_not_a_line_per_call_in_the_logs() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    // The service's logs at `remcall=info`, and a second writer that asks for the decisions.
    let (info, decisions) = (Captured::default(), Captured::default());
    let (to_info, to_decisions) = (info.clone(), decisions.clone());
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("outage")))
        .with(
            tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(move || to_info.clone())
                .with_filter(Targets::new().with_target("remcall", Level::INFO)),
        )
        .with(
            tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(move || to_decisions.clone())
                .with_filter(Targets::new().with_target("remcall::log", Level::DEBUG)),
        );
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let server = Server::start(
        Router::new().route("/down", get(|| async { StatusCode::SERVICE_UNAVAILABLE })),
    )
    .await;
    let client = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .profile(
            Profile::from_yaml_str(
                "retry: { max_attempts: 2, backoff: { initial: 1ms, max: 1ms } }\nbreaker: { min_calls: 4, failure_rate: 50, open_for: 60s }",
            )
            .unwrap(),
        )
        .build()
        .unwrap();
    const CALLS: usize = 40;
    let started = Instant::now();
    for _ in 0..CALLS {
        let answer = client
            .call_or_fallback(DOWN.request(), decode::unit, |_| async { Ok(()) })
            .await;
        answer.unwrap();
    }
    let elapsed = started.elapsed();
    provider.force_flush().unwrap();

    // The traces: every call, each a failure, the refusals among them with their event.
    let spans = exporter.get_finished_spans().unwrap();
    let calls: Vec<_> = spans
        .iter()
        .filter(|s| s.span_kind == SpanKind::Internal && s.name == "GET /down")
        .collect();
    assert_eq!(calls.len(), CALLS);
    assert!(
        calls
            .iter()
            .all(|c| matches!(c.status, Status::Error { .. }))
    );
    let refused = calls
        .iter()
        .filter(|c| c.events.iter().any(|e| e.name == "breaker short-circuit"))
        .count();
    assert!(
        refused >= CALLS - 4,
        "the open breaker refused the rest: {refused}"
    );
    assert!(
        calls
            .iter()
            .all(|c| c.events.iter().any(|e| e.name == "fallback taken")),
        "every call went to its fallback"
    );

    // `remcall=info`: the breaker's change, no line per call.
    let info = info.take();
    assert!(decision_lines(&info).is_empty(), "{info}");
    assert!(info.contains("circuit breaker state change"), "{info}");
    assert!(info.lines().count() <= 2, "{info}");

    // `remcall::log=debug`: the decisions, one line an interval, saying how many it held back.
    let decisions = decisions.take();
    let lines = decision_lines(&decisions);
    let intervals = 1 + (elapsed.as_secs() / 10) as usize;
    assert!(
        !lines.is_empty() && lines.len() <= intervals,
        "{} lines in {elapsed:?}:\n{decisions}",
        lines.len()
    );
    if lines.len() == 1 {
        // The first line of the outage comes first; the others are counted at the next one.
        assert!(lines[0].contains("held=0"), "{}", lines[0]);
    }
}

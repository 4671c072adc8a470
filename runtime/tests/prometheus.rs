//! A service's own `/metrics` carries remcall's series through one public call
//! (`remcall::prometheus::text`): served beside the service's series by its own axum route,
//! scraped over loopback and parsed; an open breaker shows the time to its next trial.

use std::collections::HashMap;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use remcall::__codegen::{ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::{Observe, Observer, Profile};

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
    name: "Pinger",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&PING],
};

/// The samples of a Prometheus text, by name and labels as written; every line that is not a
/// comment must be `name{labels} value` with a number, every family announced by `# TYPE`.
fn parse(text: &str) -> HashMap<String, f64> {
    let mut typed = Vec::new();
    let mut samples = HashMap::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        if let Some(family) = line.strip_prefix("# TYPE ") {
            let (name, kind) = family.split_once(' ').expect("a TYPE line names a kind");
            assert!(["counter", "gauge"].contains(&kind), "{line}");
            typed.push(name.to_owned());
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').expect("a sample has a value");
        let name = series.split('{').next().unwrap();
        assert!(
            typed.iter().any(|t| t == name),
            "`{name}` has no # TYPE: {line}"
        );
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("{line}"));
        samples.insert(series.to_owned(), value);
    }
    samples
}

#[tokio::test]
async fn a_services_own_metrics_carry_remcalls_series_and_the_breakers_next_trial() {
    let downstream = testkit::Server::start(
        Router::new().route("/ping", get(|| async { StatusCode::SERVICE_UNAVAILABLE })),
    )
    .await;
    let pinger = ClientBuilder::new(&SPEC)
        .base_url(&downstream.url())
        .profile(
            Profile::from_yaml_str(
                "retry: { max_attempts: 1 }\nbreaker: { min_calls: 4, failure_rate: 50, open_for: 30s }",
            )
            .unwrap(),
        )
        .build()
        .unwrap();
    for _ in 0..4 {
        let _ = pinger.call(PING.request(), decode::unit).await;
    }

    // The service's own `/metrics`: its series, then remcall's through one call.
    let observers: Vec<Observer> = vec![pinger.observe()];
    let service = testkit::Server::start(Router::new().route(
        "/metrics",
        get(move || {
            let observers = observers.clone();
            async move {
                let mut text = String::from(
                    "# HELP service_requests_total Requests.\n# TYPE service_requests_total counter\nservice_requests_total 3\n",
                );
                text.push_str(&remcall::prometheus::text(&observers));
                text
            }
        }),
    ))
    .await;
    let scraped = reqwest::get(format!("{}/metrics", service.url()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let samples = parse(&scraped);
    let of_ping = |name: &str| samples[&format!("{name}{{client=\"Pinger\",method=\"ping\"}}")];
    assert_eq!(samples["service_requests_total"], 3.0);
    assert_eq!(of_ping("remcall_method_calls_total"), 4.0);
    assert_eq!(of_ping("remcall_method_failures_total"), 4.0);
    assert_eq!(of_ping("remcall_method_breaker_state"), 2.0, "open");
    let next_trial = of_ping("remcall_method_breaker_next_trial_seconds");
    assert!(next_trial > 25.0 && next_trial <= 30.0, "{next_trial}");
}

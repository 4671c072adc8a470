//! With the `metrics` feature, calls and retries reach the installed recorder with their labels,
//! and `remcall::metrics::publish` sets the statistics' families.
#![cfg(feature = "metrics")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use remcall::__codegen::{ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::Observe;

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
/// 503 until told otherwise, answered by a fallback; two open its breaker.
static DOWN: MethodSpec = MethodSpec {
    index: 1,
    name: "down",
    http_method: "GET",
    path: "/down",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "retry: { max_attempts: 1 }\nbreaker: { min_calls: 2, failure_rate: 50, open_for: 100ms, half_open_calls: 1 }",
};
static SPEC: ClientSpec = ClientSpec {
    name: "Metered",
    base_urls: &[],
    base_path: "",
    profile: "retry: { backoff: { initial: 1ms, max: 1ms } }",
    methods: &[&PING, &DOWN],
};

#[tokio::test]
async fn calls_and_retries_are_counted_with_low_cardinality_labels() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    recorder.install().unwrap();

    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let recovered = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let up = recovered.clone();
    let server = testkit::Server::start(
        Router::new()
            .route(
                "/down",
                get(move || {
                    let up = up.load(Ordering::SeqCst);
                    async move {
                        if up {
                            StatusCode::OK
                        } else {
                            StatusCode::SERVICE_UNAVAILABLE
                        }
                    }
                }),
            )
            .route(
                "/ping",
                get(move || {
                    let n = h.fetch_add(1, Ordering::SeqCst);
                    async move {
                        if n == 0 {
                            StatusCode::SERVICE_UNAVAILABLE
                        } else {
                            StatusCode::OK
                        }
                    }
                }),
            ),
    )
    .await;
    let client = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .build()
        .unwrap();
    client.call(PING.request(), decode::unit).await.unwrap();
    for _ in 0..2 {
        client
            .call_or_fallback(DOWN.request(), decode::unit, |_| async { Ok(()) })
            .await
            .unwrap();
    }
    // The statistics' families, published where the recorder reads.
    remcall::metrics::publish(&[client.observe()]);

    let metrics = read(&snapshotter);
    // `ping`'s series (`down`'s are read below).
    let find = |name: &str| {
        metrics
            .iter()
            .find(|(n, labels, _)| n == name && !labels.iter().any(|(_, v)| v == "down"))
            .unwrap_or_else(|| panic!("{name} missing: {metrics:?}"))
    };
    let (_, labels, value) = find("remcall_calls_total");
    assert_eq!(
        labels,
        &[
            ("client".into(), "Metered".into()),
            ("method".into(), "ping".into()),
            ("outcome".into(), "success".into())
        ]
    );
    assert_eq!(value, &DebugValue::Counter(1));
    assert_eq!(find("remcall_retries_total").2, DebugValue::Counter(1));
    assert!(
        matches!(&find("remcall_call_duration_seconds").2, DebugValue::Histogram(h) if h.len() == 1)
    );

    // By the conventions, per attempt: the 503 and the 200, each with its status code.
    let attempts: Vec<_> = metrics
        .iter()
        .filter(|(name, labels, _)| {
            name == "http_client_request_duration_seconds"
                && labels
                    .iter()
                    .any(|(k, v)| k == "url.template" && v == "/ping")
        })
        .collect();
    assert_eq!(attempts.len(), 2, "one series per status: {attempts:?}");
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    let label = |labels: &Labels, key: &str| {
        labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    for status in ["503", "200"] {
        let (_, labels, value) = attempts
            .iter()
            .find(|(_, labels, _)| {
                label(labels, "http.response.status_code").as_deref() == Some(status)
            })
            .unwrap_or_else(|| panic!("no attempt answered {status}: {attempts:?}"));
        let label = |key: &str| label(labels, key);
        assert_eq!(label("http.request.method").as_deref(), Some("GET"));
        assert_eq!(label("url.template").as_deref(), Some("/ping"));
        assert_eq!(label("server.address").as_deref(), Some("127.0.0.1"));
        assert_eq!(label("server.port"), Some(port.clone()));
        let failed = status == "503";
        assert_eq!(label("error.type").as_deref(), failed.then_some("503"));
        assert!(
            matches!(value, DebugValue::Histogram(h) if h.len() == 1),
            "{value:?}"
        );
    }
    // The policies' decisions, as the statistics count them.
    let down = |name: &str| of_down(&metrics, name);
    assert_eq!(down("remcall_fallbacks_total"), &DebugValue::Counter(2));
    assert_eq!(
        down("remcall_breaker_state"),
        &DebugValue::Gauge(2.0.into()),
        "open"
    );
    let (_, _, active) = find("http_client_active_requests");
    assert_eq!(
        active,
        &DebugValue::Gauge(0.0.into()),
        "none left in flight"
    );

    // `publish`: the statistics under the Prometheus text's names and labels.
    assert_eq!(find("remcall_method_calls_total").2, DebugValue::Counter(1));
    assert_eq!(
        down("remcall_method_fallbacks_total"),
        &DebugValue::Counter(2)
    );
    assert_eq!(
        down("remcall_method_breaker_state"),
        &DebugValue::Gauge(2.0.into())
    );
    let DebugValue::Gauge(next_trial) = down("remcall_method_breaker_next_trial_seconds") else {
        panic!("the next trial is no gauge");
    };
    assert!(next_trial.0 > 0.0, "{next_trial:?}");
    assert_eq!(
        find("remcall_method_quota_wait_milliseconds_total").2,
        DebugValue::Counter(0),
        "a counter of seconds is a counter, of milliseconds"
    );
    assert!(
        !metrics
            .iter()
            .any(|(name, _, _)| name.contains("_quota_wait_seconds")),
        "no gauge named as a counter"
    );
    assert!(
        !metrics.iter().any(|(name, _, _)| name.contains("stream")),
        "no stream series for methods that do not stream"
    );

    // The breaker closes: the next `publish` says so, and its next trial is no longer due.
    recovered.store(true, Ordering::SeqCst);
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    client.call(DOWN.request(), decode::unit).await.unwrap();
    remcall::metrics::publish(&[client.observe()]);
    let metrics = read(&snapshotter);
    let down = |name: &str| of_down(&metrics, name);
    assert_eq!(
        down("remcall_method_breaker_state"),
        &DebugValue::Gauge(0.0.into()),
        "closed"
    );
    assert_eq!(
        down("remcall_method_breaker_next_trial_seconds"),
        &DebugValue::Gauge(0.0.into()),
        "a gauge whose value is gone is not left at its last one"
    );
}

type Labels = Vec<(String, String)>;

/// The value of `down`'s series `name`.
fn of_down<'a>(metrics: &'a [(String, Labels, DebugValue)], name: &str) -> &'a DebugValue {
    metrics
        .iter()
        .find(|(n, labels, _)| n == name && labels.iter().any(|(_, v)| v == "down"))
        .map(|(_, _, value)| value)
        .unwrap_or_else(|| panic!("{name} of `down` missing: {metrics:?}"))
}

/// What the recorder holds now: name, labels, value.
fn read(snapshotter: &metrics_util::debugging::Snapshotter) -> Vec<(String, Labels, DebugValue)> {
    snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, _, _, value)| {
            let key = key.key();
            let labels = key
                .labels()
                .map(|l| (l.key().to_owned(), l.value().to_owned()))
                .collect();
            (key.name().to_owned(), labels, value)
        })
        .collect()
}

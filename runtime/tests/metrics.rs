//! With the `metrics` feature, calls and retries reach the installed recorder with their labels.
#![cfg(feature = "metrics")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use remcall::__codegen::{ClientBuilder, ClientSpec, MethodSpec, decode};

static PING: MethodSpec = MethodSpec {
    index: 0,
    name: "ping",
    http_method: "GET",
    path: "/ping",
    idempotent: true,
    not_found_none: false,
    streams: false,
    profile: "",
};
static SPEC: ClientSpec = ClientSpec {
    name: "Metered",
    base_urls: &[],
    base_path: "",
    profile: "retry: { backoff: { initial: 1ms, max: 1ms } }",
    methods: &[&PING],
};

#[tokio::test]
async fn calls_and_retries_are_counted_with_low_cardinality_labels() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    recorder.install().unwrap();

    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let server = testkit::Server::start(Router::new().route(
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
    ))
    .await;
    let client = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .build()
        .unwrap();
    client.call(PING.request(), decode::unit).await.unwrap();

    type Labels = Vec<(String, String)>;
    let metrics: Vec<(String, Labels, DebugValue)> = snapshotter
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
        .collect();
    let find = |name: &str| {
        metrics
            .iter()
            .find(|(n, ..)| n == name)
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
}

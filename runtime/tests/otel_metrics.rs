//! With the `otel` feature, through an OpenTelemetry SDK meter provider exporting to memory:
//! each attempt is measured as the HTTP conventions ask (`http.client.request.duration` with
//! its status or `error.type`, `http.client.active_requests` back to 0), and
//! `remcall::otel::observe` gives remcall's statistics as instruments (calls, retries, the
//! breaker's state and the time to its next trial). One test: the meter provider is global.
#![cfg(feature = "otel")]

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::{Key, KeyValue, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, Metric, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::serde_json::json;
use remcall::{Observe, Profile};
use testkit::Server;

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
    name: "Items",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_ITEM],
};

/// Item 1 fails its first request with 503; item 9 always does. `failed` counts the 503s.
async fn server(failed: Arc<Mutex<u64>>) -> Server {
    let asked = Arc::new(Mutex::new(0_u32));
    let router = Router::new().route(
        "/items/{id}",
        get(move |axum::extract::Path(id): axum::extract::Path<u32>| {
            let (asked, failed) = (asked.clone(), failed.clone());
            async move {
                let mut asked = asked.lock().unwrap();
                *asked += 1;
                if id == 9 || *asked == 1 {
                    *failed.lock().unwrap() += 1;
                    return StatusCode::SERVICE_UNAVAILABLE.into_response();
                }
                axum::Json(json!({ "id": id })).into_response()
            }
        }),
    );
    Server::start(router).await
}

fn metric<'a>(exported: &'a [ResourceMetrics], name: &str) -> &'a Metric {
    exported
        .iter()
        .rev()
        .flat_map(|r| r.scope_metrics())
        .flat_map(|s| s.metrics())
        .find(|m| m.name() == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

fn has(attributes: &[&KeyValue], key: &str, value: Value) -> bool {
    attributes
        .iter()
        .any(|kv| kv.key == Key::from(key.to_owned()) && kv.value == value)
}

/// An observable instrument's value for the method `get_item`.
fn of_method(exported: &[ResourceMetrics], name: &str) -> f64 {
    let points: Vec<(Vec<&KeyValue>, f64)> = match metric(exported, name).data() {
        AggregatedMetrics::F64(MetricData::Sum(sum)) => sum
            .data_points()
            .map(|p| (p.attributes().collect(), p.value()))
            .collect(),
        AggregatedMetrics::F64(MetricData::Gauge(gauge)) => gauge
            .data_points()
            .map(|p| (p.attributes().collect(), p.value()))
            .collect(),
        other => panic!("{name} is {other:?}"),
    };
    let (attributes, value) = points
        .into_iter()
        .find(|(a, _)| has(a, "remcall.method", "get_item".into()))
        .unwrap_or_else(|| panic!("{name} has no point for get_item"));
    assert!(has(&attributes, "remcall.client", "Items".into()));
    value
}

#[tokio::test(flavor = "current_thread")]
async fn attempts_and_statistics_reach_an_opentelemetry_meter() {
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(exporter.clone()).build())
        .build();
    // Installed before the client is built: its attempts' instruments come from this provider.
    opentelemetry::global::set_meter_provider(provider.clone());

    let failed = Arc::new(Mutex::new(0));
    let server = server(failed.clone()).await;
    let profile = "retry: { max_attempts: 2, backoff: { initial: 1ms, max: 1ms } }\n\
                   breaker: { min_calls: 2, failure_rate: 50, open_for: 30s }";
    let items: Client = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .profile(Profile::from_yaml_str(profile).unwrap())
        .build()
        .unwrap();
    remcall::otel::observe(&provider.meter("service"), &[items.observe()]);

    let get = |id: u32| {
        items.call(
            GET_ITEM.request().path("id", id),
            decode::json::<remcall::serde_json::Value>,
        )
    };
    get(1).await.unwrap();
    // Two calls of two failed attempts each: the breaker opens.
    get(9).await.unwrap_err();
    get(9).await.unwrap_err();
    provider.force_flush().unwrap();
    let exported = exporter.get_finished_metrics().unwrap();

    let duration = metric(&exported, "http.client.request.duration");
    assert_eq!(duration.unit(), "s");
    let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = duration.data() else {
        panic!("the duration is {:?}", duration.data());
    };
    let count_with = |status: i64| {
        histogram
            .data_points()
            .filter(|p| {
                let attributes: Vec<_> = p.attributes().collect();
                has(&attributes, "http.response.status_code", status.into())
                    && has(&attributes, "http.request.method", "GET".into())
                    && has(&attributes, "url.template", "/items/{id}".into())
                    && has(&attributes, "server.address", "127.0.0.1".into())
            })
            .map(|p| p.count())
            .sum::<u64>()
    };
    assert_eq!(count_with(200), 1);
    let failed = *failed.lock().unwrap();
    assert!(failed >= 2, "{failed}");
    assert_eq!(count_with(503), failed);
    let with_error_type = histogram
        .data_points()
        .filter(|p| {
            let attributes: Vec<_> = p.attributes().collect();
            has(&attributes, "error.type", "503".into())
        })
        .map(|p| p.count())
        .sum::<u64>();
    assert_eq!(with_error_type, failed);
    let first = histogram.data_points().next().unwrap();
    assert_eq!(
        first.bounds().next(),
        Some(0.005),
        "the conventions' buckets"
    );

    let active = metric(&exported, "http.client.active_requests");
    let AggregatedMetrics::I64(MetricData::Sum(active)) = active.data() else {
        panic!("active requests are {:?}", active.data());
    };
    assert!(active.data_points().all(|p| p.value() == 0));

    assert_eq!(of_method(&exported, "remcall.method.calls"), 3.0);
    let stats = items.stats();
    let (_, figures) = &stats.methods[0];
    assert_eq!(
        of_method(&exported, "remcall.method.retries"),
        figures.retries as f64
    );
    assert!(figures.retries >= 1);
    assert_eq!(of_method(&exported, "remcall.method.failures"), 2.0);
    assert_eq!(of_method(&exported, "remcall.method.breaker_state"), 2.0);
    let next_trial = of_method(&exported, "remcall.method.breaker_next_trial");
    assert!(next_trial > 25.0 && next_trial <= 30.0, "{next_trial}");
    assert_eq!(
        metric(&exported, "remcall.method.breaker_next_trial").unit(),
        "s"
    );
}

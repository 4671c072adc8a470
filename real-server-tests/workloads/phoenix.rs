//! Phoenix's workload: the `otel` feature's spans exported over OTLP to a real trace store and
//! read back through a client imported from its own description. A loopback stand-in of
//! Phoenix's `GET /v1/projects/{project}/spans` fails as each project's name says — `retry`
//! once with 503, `hedge` slowly once, `quota` with a spent quota of 1 a second, `broken`
//! always — and the calls of one client (retry, hedge, quota) and of another (broken: its
//! breaker opens, its fallback answers) run under a `workload` span with OTLP export to
//! `PHOENIX_URL`. Read back from Phoenix: a span per call and one per attempt (the call's
//! INTERNAL, each attempt's the CLIENT span of its request: one per request the stand-in
//! received), their parents, `http.request.resend_count`, the events of each decision, status `ERROR` where the
//! downstream failed; and each `traceparent` the stand-in received names an attempt's span.
//! Run by `tests/phoenix.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::api::phoenix::{GetSpansOptions, Phoenix, PhoenixFallback, Span, SpansResponseBody};
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use opentelemetry::trace::TracerProvider as _;
use remcall::Profile;
use remcall::serde_json::{Value, json};
use tracing::Instrument;
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;

/// The conventions' name of a call or attempt of `get_spans`.
const NAME: &str = "GET /v1/projects/{project_identifier}/spans";

/// The fallback: an empty page for any failure it is given.
#[derive(Clone, Default)]
struct EmptyPage;

impl PhoenixFallback for EmptyPage {
    async fn get_spans(
        &self,
        _project_identifier: &str,
        _options: &GetSpansOptions,
        _cause: remcall::Error,
    ) -> Result<SpansResponseBody, remcall::Error> {
        Ok(SpansResponseBody::new(Vec::new()))
    }
}

#[tokio::main]
pub async fn main() -> Result<(), remcall::Error> {
    let url = std::env::var("PHOENIX_URL").expect("PHOENIX_URL");
    let provider = exporting_to(&url);
    let (stand_in, parents) = stand_in().await;

    let steady = Phoenix::builder()
        .base_url(&stand_in)
        .profile(profile(
            "retry: { max_attempts: 2, backoff: { initial: 1ms, max: 1ms } }\nhedge: { delay: 100ms, budget_percent: 100 }",
        ))
        .build()?;
    let failing = Phoenix::builder()
        .base_url(&stand_in)
        .fallback(EmptyPage)
        .profile(profile(
            "retry: { max_attempts: 1 }\nbreaker: { min_calls: 2, failure_rate: 50, open_for: 30s }",
        ))
        .build()?;
    async {
        for project in ["retry", "hedge", "quota", "quota"] {
            steady.get_spans(project).send().await?;
        }
        for _ in 0..3 {
            // Answered by the fallback each time: the first two fail at the stand-in and open
            // the breaker, the third is refused unsent.
            failing.get_spans("broken").send().await?;
        }
        Ok::<_, remcall::Error>(())
    }
    .instrument(tracing::info_span!("workload"))
    .await?;
    let _ = provider.force_flush();
    let _ = provider.shutdown();
    println!("exported");

    let phoenix = Phoenix::builder().base_url(&url).build()?;
    let spans = read_back(&phoenix).await?;
    check(&spans, &parents.lock().unwrap());
    Ok(())
}

fn profile(yaml: &str) -> Profile {
    Profile::from_yaml_str(yaml).expect("the workload's profile")
}

/// Spans exported in batches over OTLP/HTTP (protobuf) to `url`'s `/v1/traces`, through the
/// `tracing-opentelemetry` layer, as a service sets it up.
fn exporting_to(url: &str) -> opentelemetry_sdk::trace::SdkTracerProvider {
    use opentelemetry_otlp::WithExportConfig;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(format!("{url}/v1/traces"))
        .build()
        .expect("an OTLP exporter");
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(
            opentelemetry_sdk::Resource::builder()
                .with_service_name("remcall-workload")
                .build(),
        )
        .build();
    let subscriber = tracing_subscriber::registry().with(
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("remcall-workload"))
            .with_filter(LevelFilter::INFO),
    );
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
    provider
}

/// The stand-in's URL, and the `traceparent` of each request it received.
async fn stand_in() -> (String, Arc<Mutex<Vec<String>>>) {
    let parents = Arc::new(Mutex::new(Vec::new()));
    let seen: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let kept = parents.clone();
    let answer = move |Path(project): Path<String>, headers: HeaderMap| {
        let (kept, seen) = (kept.clone(), seen.clone());
        async move {
            if let Some(parent) = headers.get("traceparent").and_then(|v| v.to_str().ok()) {
                kept.lock().unwrap().push(parent.to_owned());
            }
            let asked = {
                let mut seen = seen.lock().unwrap();
                let n = seen.entry(project.clone()).or_default();
                *n += 1;
                *n
            };
            let page = axum::Json(json!({ "data": [], "next_cursor": null }));
            match (project.as_str(), asked) {
                ("retry", 1) | ("broken", _) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
                ("hedge", 1) => {
                    tokio::time::sleep(Duration::from_secs(2)).await;
                    page.into_response()
                }
                ("quota", _) => (
                    [
                        ("x-ratelimit-limit", "1"),
                        ("x-ratelimit-remaining", "0"),
                        ("x-ratelimit-reset", "1"),
                    ],
                    page,
                )
                    .into_response(),
                _ => page.into_response(),
            }
        }
    };
    let router =
        axum::Router::new().route("/v1/projects/{project}/spans", axum::routing::get(answer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, parents)
}

/// Every span of the `default` project once the workload's have arrived (Phoenix stores what
/// it is sent a moment later), paged by the imported method's `paginate:`.
async fn read_back(phoenix: &Phoenix) -> Result<Vec<Span>, remcall::Error> {
    for _ in 0..150 {
        let mut spans = Vec::new();
        let mut pages = phoenix.get_spans("default").limit(100).stream();
        while let Some(span) = pages.next().await {
            spans.push(span?);
        }
        let ours = spans.iter().filter(|s| s.name == NAME).count();
        // 7 calls, 9 attempts (a retry's second, a hedge) less the one refused unsent.
        if ours >= 7 + 8 {
            println!("read back {} spans", spans.len());
            return Ok(spans);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("Phoenix did not list the workload's spans within 30 s");
}

/// An attribute of `span`, flat (`http.request.resend_count`) or nested as Phoenix may keep it.
fn attribute<'a>(span: &'a Span, key: &str) -> Option<&'a Value> {
    let attributes = span.attributes.as_ref()?;
    if let Some(flat) = attributes.get(key) {
        return Some(flat);
    }
    key.split('.')
        .try_fold(attributes, |value, part| value.get(part))
}

fn events(span: &Span) -> Vec<&str> {
    span.events
        .iter()
        .flatten()
        .map(|event| event.name.as_str())
        .collect()
}

fn check(spans: &[Span], parents: &[String]) {
    let workload = spans
        .iter()
        .find(|s| s.name == "workload")
        .expect("the workload's span");
    let ours: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == NAME && s.context.trace_id == workload.context.trace_id)
        .collect();
    let (attempts, calls): (Vec<&Span>, Vec<&Span>) = ours
        .iter()
        .partition(|s| attribute(s, "http.request.resend_count").is_some());
    assert_eq!(calls.len(), 7, "one span per call: {calls:#?}");
    for call in &calls {
        assert_eq!(
            call.parent_id.as_option().map(String::as_str),
            Some(workload.context.span_id.as_str()),
            "a call's parent is the caller's span: {call:#?}"
        );
    }
    let call_ids: Vec<&str> = calls.iter().map(|c| c.context.span_id.as_str()).collect();
    for attempt in &attempts {
        let parent = attempt
            .parent_id
            .as_option()
            .map(String::as_str)
            .unwrap_or("");
        assert!(
            call_ids.contains(&parent),
            "an attempt's parent is its call: {attempt:#?}"
        );
        assert_eq!(
            attribute(attempt, "server.address"),
            Some(&json!("127.0.0.1")),
            "{attempt:#?}"
        );
    }
    // The retried call: two attempts, resend counts 0 and 1, and its event names the 503.
    let retried = calls
        .iter()
        .find(|c| events(c).contains(&"retrying"))
        .expect("a call with a retry event");
    let mut resends: Vec<i64> = attempts
        .iter()
        .filter(|a| a.parent_id.as_option() == Some(&retried.context.span_id))
        .filter_map(|a| attribute(a, "http.request.resend_count")?.as_i64())
        .collect();
    resends.sort_unstable();
    assert_eq!(resends, [0, 1], "{attempts:#?}");
    let retry = retried
        .events
        .iter()
        .flatten()
        .find(|e| e.name == "retrying")
        .unwrap();
    assert_eq!(
        retry.attributes.as_ref().and_then(|a| a.get("status")),
        Some(&json!(503)),
        "{retry:#?}"
    );
    println!("retry read back: resend counts 0 and 1, the 503 named");
    assert!(calls.iter().any(|c| events(c).contains(&"hedge sent")));
    assert!(calls.iter().any(|c| events(c).contains(&"hedge won")));
    println!("hedge read back");
    assert!(attempts.iter().any(|a| events(a).contains(&"quota wait")));
    println!("quota wait read back");
    let short = calls
        .iter()
        .find(|c| events(c).contains(&"breaker short-circuit"))
        .expect("a short-circuited call, a span all the same");
    assert_eq!(short.status_code, "ERROR", "{short:#?}");
    assert!(events(short).contains(&"fallback taken"));
    assert!(
        calls
            .iter()
            .any(|c| events(c).contains(&"circuit breaker state change"))
    );
    let failed = calls.iter().filter(|c| c.status_code == "ERROR").count();
    assert_eq!(
        failed, 3,
        "the three broken calls, though their fallback answered"
    );
    println!("breaker and fallback read back");
    // Each request the stand-in received named its own attempt's span.
    let attempt_ids: Vec<&str> = attempts
        .iter()
        .map(|a| a.context.span_id.as_str())
        .collect();
    // One CLIENT span per physical request: the attempts', and only theirs.
    assert_eq!(parents.len(), attempts.len(), "{parents:?}");
    for parent in parents {
        let fields: Vec<&str> = parent.split('-').collect();
        assert_eq!(fields.len(), 4, "{parent}");
        assert_eq!(fields[1], workload.context.trace_id, "{parent}");
        assert!(
            attempt_ids.contains(&fields[2]),
            "{parent} names no attempt"
        );
    }
    println!("traceparent of every attempt read back");
}

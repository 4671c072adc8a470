//! A trace of one call with a retry, as a service with the `otel` feature records it: a loopback
//! server answers the first request 503 and the second 200; the call's spans go through the
//! `tracing-opentelemetry` layer to an exporter, here one that keeps them in memory and prints
//! them as a tree. A service exports them instead (OTLP to a collector, Jaeger or Phoenix):
//! replace the in-memory exporter by `opentelemetry_otlp::SpanExporter` (docs/observability.md).
//!
//! `cargo run -p remcall --features otel --example trace_a_retry`

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::http::StatusCode;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use remcall::__codegen::{ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::Profile;
use tracing::Instrument;
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;

static GET_ORDER: MethodSpec = MethodSpec {
    index: 0,
    name: "get_order",
    http_method: "GET",
    path: "/orders/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static ORDERS: ClientSpec = ClientSpec {
    name: "Orders",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_ORDER],
};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The service's tracing, set up once.
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    // INFO and above: remcall's spans and decisions, not the connection pool's debug events.
    let subscriber = tracing_subscriber::registry().with(
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("orders-service"))
            .with_filter(LevelFilter::INFO),
    );
    tracing::subscriber::set_global_default(subscriber)?;

    // A downstream that fails once.
    let asked = Arc::new(AtomicUsize::new(0));
    let router = axum::Router::new().route(
        "/orders/{id}",
        axum::routing::get(move || {
            let first = asked.fetch_add(1, Ordering::SeqCst) == 0;
            async move {
                if first {
                    Err(StatusCode::SERVICE_UNAVAILABLE)
                } else {
                    Ok(axum::Json(
                        remcall::serde_json::json!({ "id": 7, "state": "shipped" }),
                    ))
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, router).await });

    let orders = ClientBuilder::new(&ORDERS)
        .base_url(&url)
        .profile(Profile::from_yaml_str(
            "retry: { max_attempts: 2, backoff: { initial: 10ms, max: 10ms } }",
        )?)
        .build()?;
    let order = orders
        .call(
            GET_ORDER.request().path("id", 7),
            decode::json::<remcall::serde_json::Value>,
        )
        .instrument(tracing::info_span!("handle request"))
        .await?;
    println!("order: {order}\n");

    provider.force_flush()?;
    let spans = exporter.get_finished_spans()?;
    let root = spans.iter().find(|s| s.name == "handle request");
    if let Some(root) = root {
        print_tree(&spans, root, 0);
    }
    Ok(())
}

/// `span` and its children, indented, with the attributes and events a reader looks at.
fn print_tree(spans: &[SpanData], span: &SpanData, depth: usize) {
    let indent = "  ".repeat(depth);
    let shown = [
        "http.request.resend_count",
        "http.response.status_code",
        "error.type",
        "url.full",
    ];
    let attributes: Vec<String> = span
        .attributes
        .iter()
        .filter(|kv| shown.contains(&kv.key.as_str()))
        .map(|kv| format!("{}={}", kv.key, kv.value))
        .collect();
    println!(
        "{indent}{} [{:?}, {:?}] {}",
        span.name,
        span.span_kind,
        span.status,
        attributes.join(" ")
    );
    for event in span.events.iter() {
        println!("{indent}  · {}", event.name);
    }
    let mut children: Vec<&SpanData> = spans
        .iter()
        .filter(|s| s.parent_span_id == span.span_context.span_id())
        .collect();
    children.sort_by_key(|s| s.start_time);
    for child in children {
        print_tree(spans, child, depth + 1);
    }
}

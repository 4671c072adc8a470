//! The caller's trace on the wire (feature `otel`): each attempt carries the context of its own
//! span, so the server's spans join the caller's trace. Written by the propagator the service
//! installed (`opentelemetry::global::set_text_map_propagator`: B3, Jaeger, W3C with baggage),
//! or as W3C `traceparent`/`tracestate` when it installed none; before the interceptors, which
//! see it and may change it. And an attempt's `url.full` as a trace may show it.

use opentelemetry::propagation::Injector;
use opentelemetry::trace::{SpanContext, TraceContextExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::wire::query::ProfileQuery;

/// A request's headers as a propagator writes them.
struct Headers<'a>(&'a mut HeaderMap);

impl Injector for Headers<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(key.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

/// Puts the current span's trace context on `headers`, when the span is part of a trace.
pub(crate) fn inject(headers: &mut HeaderMap) {
    let context = tracing::Span::current().context();
    let span = context.span();
    let span_context = span.span_context();
    if !span_context.is_valid() {
        return;
    }
    let installed = opentelemetry::global::get_text_map_propagator(|propagator| {
        // The default global propagator writes nothing and names no field.
        let any = propagator.fields().next().is_some();
        if any {
            propagator.inject_context(&context, &mut Headers(headers));
        }
        any
    });
    if !installed {
        w3c(span_context, headers);
    }
}

/// W3C Trace Context (`traceparent`, version 00, and `tracestate` when it has entries).
fn w3c(context: &SpanContext, headers: &mut HeaderMap) {
    let parent = format!(
        "00-{}-{}-{:02x}",
        context.trace_id(),
        context.span_id(),
        context.trace_flags().to_u8()
    );
    let mut headers = Headers(headers);
    headers.set("traceparent", parent);
    let state = context.trace_state().header();
    if !state.is_empty() {
        headers.set("tracestate", state);
    }
}

/// `url` as an attempt's span shows it: no user or password, and the values of the profile's
/// query parameters (API keys, often) and of signed URLs' keys written `REDACTED`.
pub(crate) fn url_full(url: &reqwest::Url, profile_query: &ProfileQuery) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    if url.query().is_some() {
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(name, value)| {
                let hidden = crate::wire::query::SIGNED_URL_KEYS.contains(&name.as_ref())
                    || profile_query.0.iter().any(|(key, _)| *key == name);
                let value = if hidden { "REDACTED".into() } else { value };
                (name.into_owned(), value.into_owned())
            })
            .collect();
        shown.query_pairs_mut().clear().extend_pairs(pairs);
    }
    shown.into()
}

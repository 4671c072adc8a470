//! The caller's trace on the wire (feature `otel`): each attempt carries the context of its own
//! span, so the server's spans join the caller's trace. Written by the propagator the service
//! installed (`opentelemetry::global::set_text_map_propagator`: B3, Jaeger, W3C with baggage),
//! or as W3C `traceparent` when it installed none; before the interceptors, which see it and may
//! change it. What the caller's trust domain keeps for itself (`tracestate`, `baggage`) goes
//! only to a client whose profile says `trace_context: trusted`; an empty field never goes.

use opentelemetry::propagation::Injector;
use opentelemetry::trace::{SpanContext, TraceContextExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::wire::query::ProfileQuery;

/// The fields of a trace that carry the caller's own state, for its trust domain.
const TRUST_DOMAIN_FIELDS: [&str; 2] = ["tracestate", "baggage"];

/// A request's headers as a propagator writes them; `trusted`: the trust domain's fields too.
struct Headers<'a> {
    headers: &'a mut HeaderMap,
    trusted: bool,
}

impl Injector for Headers<'_> {
    fn set(&mut self, key: &str, value: String) {
        if value.is_empty()
            || (!self.trusted
                && TRUST_DOMAIN_FIELDS
                    .iter()
                    .any(|f| f.eq_ignore_ascii_case(key)))
        {
            return;
        }
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(key.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            self.headers.insert(name, value);
        }
    }
}

/// Puts the current span's trace context on `headers`, when the span is part of a trace;
/// `trusted`: with the fields of the caller's trust domain.
pub(crate) fn inject(headers: &mut HeaderMap, trusted: bool) {
    let mut headers = Headers { headers, trusted };
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
            propagator.inject_context(&context, &mut headers);
        }
        any
    });
    if !installed {
        w3c(span_context, &mut headers);
    }
}

/// W3C Trace Context (`traceparent`, version 00, and `tracestate` when it has entries).
fn w3c(context: &SpanContext, headers: &mut Headers<'_>) {
    let parent = format!(
        "00-{}-{}-{:02x}",
        context.trace_id(),
        context.span_id(),
        context.trace_flags().to_u8()
    );
    headers.set("traceparent", parent);
    headers.set("tracestate", context.trace_state().header());
}

/// `url` as an attempt's span shows it: no user or password, and `REDACTED` for the values of
/// the profile's query parameters (API keys, often) and of every parameter whose name says it
/// holds a credential (signed URLs' keys, `access_token`, …), the method's own included.
pub(crate) fn url_full(url: &reqwest::Url, profile_query: &ProfileQuery) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    if url.query().is_some() {
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(name, value)| {
                let hidden = crate::wire::query::is_credential_key(&name)
                    || profile_query.0.iter().any(|(key, _)| *key == name);
                let value = if hidden { "REDACTED".into() } else { value };
                (name.into_owned(), value.into_owned())
            })
            .collect();
        shown.query_pairs_mut().clear().extend_pairs(pairs);
    }
    shown.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_propagator_writes_no_empty_field_and_the_trust_domains_only_where_trusted() {
        for trusted in [false, true] {
            let mut map = HeaderMap::new();
            let mut headers = Headers {
                headers: &mut map,
                trusted,
            };
            headers.set(
                "traceparent",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
            );
            headers.set("tracestate", String::new());
            headers.set("baggage", "user=42".into());
            headers.set("TraceState", "vendor=x".into());
            assert!(map.contains_key("traceparent"));
            assert_eq!(map.contains_key("baggage"), trusted);
            let state = map
                .get("tracestate")
                .map(|v| v.to_str().unwrap().to_owned());
            assert_eq!(state, trusted.then(|| "vendor=x".to_owned()));
        }
    }
}

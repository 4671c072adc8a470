//! Metrics through the `metrics` facade (feature `metrics`): install any recorder (Prometheus,
//! StatsD, OpenTelemetry) and these appear. Labels stay low-cardinality: client, method, outcome,
//! and status codes HTTP defines (any other is `_OTHER`).
//!
//! - `remcall_calls_total{client, method, outcome}`: logical calls; outcome is `success` or the
//!   error kind (`timeout`, `breaker_open`, …);
//! - `remcall_call_duration_seconds{client, method}`: their latency;
//! - `remcall_retries_total{client, method}`: attempts after the first;
//! - `remcall_without_redis_total{client, method}`: shared rate-limit and retry-budget decisions
//!   made without Redis (it was down or slow);
//! - `remcall_fallbacks_total`, `remcall_hedges_total`, `remcall_cache_hits_total`,
//!   `remcall_served_stale_total{client, method}`: the policies' decisions, as the statistics
//!   count them; `remcall_breaker_state{client, method}` (0 closed, 1 half-open, 2 open), set at
//!   each change;
//! - by OpenTelemetry's HTTP semantic conventions, per attempt (hedges included), under the
//!   names an OpenTelemetry Prometheus exporter gives them (the unit in the name):
//!   `http_client_request_duration_seconds` with `http.request.method`, `url.template`,
//!   `server.address`, `server.port`, `http.response.status_code` or `error.type`; and
//!   `http_client_active_requests` with the first four.

use std::time::Duration;

use super::Address;

/// Each attempt's duration.
const REQUEST_DURATION: &str = "http_client_request_duration_seconds";

/// The attempts in flight.
const ACTIVE_REQUESTS: &str = "http_client_active_requests";

pub(crate) fn record_call(
    client: &'static str,
    method: &'static str,
    outcome: &'static str,
    elapsed: Duration,
) {
    metrics::counter!("remcall_calls_total", "client" => client, "method" => method, "outcome" => outcome).increment(1);
    metrics::histogram!("remcall_call_duration_seconds", "client" => client, "method" => method)
        .record(elapsed.as_secs_f64());
}

/// One of the policies' decisions (`remcall_retries_total`, `remcall_fallbacks_total`, …).
pub(crate) fn record_decision(name: &'static str, client: &'static str, method: &'static str) {
    metrics::counter!(name, "client" => client, "method" => method).increment(1);
}

/// A breaker's new state (`scope`: its method, or `client` for a client-wide one).
pub(crate) fn record_breaker_state(client: &'static str, scope: &'static str, state: f64) {
    metrics::gauge!("remcall_breaker_state", "client" => client, "method" => scope).set(state);
}

/// An attempt in flight, counted in `http_client_active_requests` until it is dropped
/// (answered, failed or cancelled), and its duration recorded by [`Attempt::ended`].
pub(crate) struct Attempt {
    labels: [(&'static str, String); 4],
    started: std::time::Instant,
}

impl Attempt {
    pub(crate) fn start(
        http_method: &'static str,
        template: &str,
        address: Address<'_>,
    ) -> Attempt {
        use opentelemetry_semantic_conventions::attribute as sc;
        let labels = [
            (sc::HTTP_REQUEST_METHOD, http_method.to_owned()),
            (sc::URL_TEMPLATE, template.to_owned()),
            (sc::SERVER_ADDRESS, address.host.to_string()),
            (sc::SERVER_PORT, address.port.to_string()),
        ];
        metrics::gauge!(ACTIVE_REQUESTS, &labels).increment(1.0);
        Attempt {
            labels,
            started: std::time::Instant::now(),
        }
    }

    /// The attempt's duration, with its status code, or `error.type` when it failed.
    pub(crate) fn ended(&self, status: Option<u16>, error: Option<&crate::error::Error>) {
        use opentelemetry_semantic_conventions::attribute as sc;
        let mut labels: Vec<(&'static str, String)> = self.labels.to_vec();
        match status.map(super::known_status) {
            Some(Some(code)) => labels.push((sc::HTTP_RESPONSE_STATUS_CODE, code.to_string())),
            Some(None) => labels.push((sc::ERROR_TYPE, super::OTHER.to_owned())),
            None => {}
        }
        if let Some(error) = error
            && !labels.iter().any(|(key, _)| *key == sc::ERROR_TYPE)
        {
            labels.push((sc::ERROR_TYPE, super::error_type(error).into_owned()));
        }
        metrics::histogram!(REQUEST_DURATION, &labels).record(self.started.elapsed().as_secs_f64());
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        metrics::gauge!(ACTIVE_REQUESTS, &self.labels).decrement(1.0);
    }
}

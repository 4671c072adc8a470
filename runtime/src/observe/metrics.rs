//! Metrics through the `metrics` facade (feature `metrics`): install any recorder (Prometheus,
//! StatsD, OpenTelemetry) and these appear. Labels stay low-cardinality: client, method, outcome.
//!
//! - `remcall_calls_total{client, method, outcome}`: logical calls; outcome is `success` or the
//!   error kind (`timeout`, `breaker_open`, …);
//! - `remcall_call_duration_seconds{client, method}`: their latency;
//! - `remcall_retries_total{client, method}`: attempts after the first;
//! - `remcall_without_redis_total{client, method}`: shared rate-limit and retry-budget decisions
//!   made without Redis (it was down or slow).

use std::time::Duration;

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

pub(crate) fn record_retry(client: &'static str, method: &'static str) {
    metrics::counter!("remcall_retries_total", "client" => client, "method" => method).increment(1);
}

pub(crate) fn record_without_redis(client: &'static str, method: &'static str) {
    metrics::counter!("remcall_without_redis_total", "client" => client, "method" => method)
        .increment(1);
}

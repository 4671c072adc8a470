//! remcall's statistics as metric families: one table, read by the Prometheus text
//! ([`super::prometheus`]), the OpenTelemetry instruments (`remcall::otel`) and the `metrics`
//! facade (`remcall::metrics::publish`), so the three say the same thing under the same names.
//! A family's OpenTelemetry name is its Prometheus name as OpenTelemetry writes one
//! ([`otel_name`]): `remcall_method_calls_total` is `remcall.method.calls`, which an
//! OpenTelemetry Prometheus exporter turns back into `remcall_method_calls_total`.

use crate::observe::stats::{BreakerState, EndpointStats, MethodStats, QuotaStats};

/// A metric family of methods: name, help, kind, and its value for a method (`None`: no sample;
/// a method that does not stream has none of the stream families).
pub(crate) type MethodFamily = (
    &'static str,
    &'static str,
    &'static str,
    fn(&MethodStats) -> Option<f64>,
);

/// A metric family of endpoints.
pub(crate) type EndpointFamily = (&'static str, &'static str, fn(&EndpointStats) -> f64);

pub(crate) const METHODS: [MethodFamily; 29] = [
    (
        "remcall_method_calls_total",
        "Logical calls.",
        "counter",
        |m| Some(m.calls as f64),
    ),
    (
        "remcall_method_successes_total",
        "Calls that answered.",
        "counter",
        |m| Some(m.successes as f64),
    ),
    (
        "remcall_method_failures_total",
        "Calls that failed, refused ones included.",
        "counter",
        |m| Some(m.failures as f64),
    ),
    (
        "remcall_method_retries_total",
        "Attempts after the first.",
        "counter",
        |m| Some(m.retries as f64),
    ),
    (
        "remcall_method_short_circuited_total",
        "Calls refused by an open breaker.",
        "counter",
        |m| Some(m.short_circuited as f64),
    ),
    (
        "remcall_method_rejected_total",
        "Calls refused by a full bulkhead or the adaptive limit.",
        "counter",
        |m| Some(m.rejected as f64),
    ),
    (
        "remcall_method_rate_limited_total",
        "Calls refused by the rate limiter.",
        "counter",
        |m| Some(m.rate_limited as f64),
    ),
    (
        "remcall_method_fallbacks_total",
        "Failed calls a fallback answered.",
        "counter",
        |m| Some(m.fallbacks as f64),
    ),
    (
        "remcall_method_hedges_total",
        "Hedged requests sent.",
        "counter",
        |m| Some(m.hedges as f64),
    ),
    (
        "remcall_method_hedge_wins_total",
        "Calls a hedge answered first.",
        "counter",
        |m| Some(m.hedge_wins as f64),
    ),
    (
        "remcall_method_cache_hits_total",
        "Calls the cache answered without asking the server.",
        "counter",
        |m| Some(m.cache_hits as f64),
    ),
    (
        "remcall_method_revalidated_total",
        "Kept answers the server confirmed unchanged (304).",
        "counter",
        |m| Some(m.revalidated as f64),
    ),
    (
        "remcall_method_served_stale_total",
        "Failed calls a stale kept answer answered.",
        "counter",
        |m| Some(m.served_stale as f64),
    ),
    (
        "remcall_method_quota_wait_seconds_total",
        "Time attempts waited for their turn in the server's announced quota.",
        "counter",
        |m| Some(m.quota_wait.as_secs_f64()),
    ),
    (
        "remcall_method_without_redis_total",
        "Shared-limit decisions made without Redis.",
        "counter",
        |m| Some(m.without_redis as f64),
    ),
    (
        "remcall_method_stream_events_total",
        "Events or JSON lines its streams delivered.",
        "counter",
        |m| m.streams.then_some(m.events as f64),
    ),
    (
        "remcall_method_stream_bytes_total",
        "Bytes its streams read after they opened.",
        "counter",
        |m| m.streams.then_some(m.stream_bytes as f64),
    ),
    (
        "remcall_method_stream_resumes_total",
        "Broken streams reopened from their last event id.",
        "counter",
        |m| m.streams.then_some(m.resumes as f64),
    ),
    (
        "remcall_method_streams_broken_total",
        "Streams that broke off and were not resumed.",
        "counter",
        |m| m.streams.then_some(m.streams_broken as f64),
    ),
    (
        "remcall_method_streams_open",
        "Its streams open now.",
        "gauge",
        |m| m.streams.then_some(m.streams_open as f64),
    ),
    (
        "remcall_method_drift_total",
        "Fields of answers repaired under `decode: lax`.",
        "counter",
        |m| Some(m.drift as f64),
    ),
    (
        "remcall_method_undeclared_total",
        "Keys of answers no type declares, and objects with none of their type's fields.",
        "counter",
        |m| Some(m.undeclared as f64),
    ),
    (
        "remcall_method_latency_p50_seconds",
        "Median latency of the last one to two minutes.",
        "gauge",
        |m| Some(m.p50.as_secs_f64()),
    ),
    (
        "remcall_method_latency_p99_seconds",
        "99th-percentile latency of the last one to two minutes.",
        "gauge",
        |m| Some(m.p99.as_secs_f64()),
    ),
    (
        "remcall_method_breaker_state",
        "0 closed, 1 half-open, 2 open.",
        "gauge",
        |m| {
            Some(match m.breaker {
                BreakerState::Closed => 0.0,
                BreakerState::HalfOpen => 1.0,
                BreakerState::Open => 2.0,
            })
        },
    ),
    (
        "remcall_method_breaker_next_trial_seconds",
        "While the breaker is open, the time until it lets its next trial call through.",
        "gauge",
        |m| m.breaker_next_trial_ms.map(|ms| ms as f64 / 1000.0),
    ),
    (
        "remcall_method_concurrency_limit",
        "The adaptive concurrency limit.",
        "gauge",
        |m| m.concurrency_limit.map(f64::from),
    ),
    (
        "remcall_method_bulkhead_in_flight",
        "Calls in flight through the bulkhead.",
        "gauge",
        |m| m.bulkhead.map(|(used, _)| f64::from(used)),
    ),
    (
        "remcall_method_bulkhead_limit",
        "Calls the bulkhead allows at once now.",
        "gauge",
        |m| m.bulkhead.map(|(_, limit)| f64::from(limit)),
    ),
];

pub(crate) type QuotaFamily = (&'static str, &'static str, fn(&QuotaStats) -> Option<f64>);

pub(crate) const QUOTAS: [QuotaFamily; 3] = [
    (
        "remcall_quota_remaining",
        "Calls left in the window of a quota the server announces.",
        |q| q.remaining.map(|n| n as f64),
    ),
    (
        "remcall_quota_limit",
        "Calls a window of a quota the server announces allows.",
        |q| q.limit.map(|n| n as f64),
    ),
    (
        "remcall_quota_resets_in_seconds",
        "Time until a quota's window resets.",
        |q| q.resets_in.map(|d| d.as_secs_f64()),
    ),
];

pub(crate) const ENDPOINTS: [EndpointFamily; 2] = [
    (
        "remcall_endpoint_in_flight",
        "Attempts in flight to an endpoint.",
        |e| f64::from(e.in_flight),
    ),
    (
        "remcall_endpoint_ejected",
        "1 while an endpoint is out of rotation.",
        |e| f64::from(u8::from(e.ejected)),
    ),
];

/// A family's name as OpenTelemetry writes it, and its unit: the namespace (`remcall.method.`,
/// `remcall.quota.`, `remcall.endpoint.`) dotted, `_total` dropped (the instrument's kind says
/// it), `_seconds` the unit `s`.
#[cfg(feature = "otel")]
pub(crate) fn otel_name(prometheus: &str) -> (String, Option<&'static str>) {
    let name = prometheus.strip_suffix("_total").unwrap_or(prometheus);
    let (name, unit) = match name.strip_suffix("_seconds") {
        Some(name) => (name, Some("s")),
        None => (name, None),
    };
    // `remcall_method_calls` → `remcall.method.calls`: the first two separators are namespaces.
    let dotted = name.replacen('_', ".", 2);
    (dotted, unit)
}

#[cfg(all(test, feature = "otel"))]
mod tests {
    use super::otel_name;

    #[test]
    fn a_family_is_named_as_opentelemetry_names_instruments() {
        assert_eq!(
            otel_name("remcall_method_calls_total"),
            ("remcall.method.calls".into(), None)
        );
        assert_eq!(
            otel_name("remcall_method_breaker_next_trial_seconds"),
            ("remcall.method.breaker_next_trial".into(), Some("s"))
        );
        assert_eq!(
            otel_name("remcall_quota_resets_in_seconds"),
            ("remcall.quota.resets_in".into(), Some("s"))
        );
        assert_eq!(
            otel_name("remcall_endpoint_in_flight"),
            ("remcall.endpoint.in_flight".into(), None)
        );
    }
}

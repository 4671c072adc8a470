//! The clients' statistics in the Prometheus text format (version 0.0.4), for a service's own
//! `/metrics` (the dashboard's serves the same): one call, [`text`], whatever else the service
//! exports beside it. The names are the ones docs/grafana-dashboard.json charts.
//!
//! ```no_run
//! # fn metrics(users: &remcall::Observer, orders: &remcall::Observer) -> String {
//! // In the service's own `/metrics` handler, after its own series:
//! remcall::prometheus::text(&[users.clone(), orders.clone()])
//! # }
//! ```

use std::fmt::Write;

use crate::client::Observer;
use crate::observe::stats::MethodStats;
use crate::observe::stats::{BreakerState, ClientStats, EndpointStats, QuotaStats};

/// A metric family of methods: name, help, kind, and its value for a method (`None`: no sample).
type MethodFamily = (
    &'static str,
    &'static str,
    &'static str,
    fn(&MethodStats) -> Option<f64>,
);

/// A metric family of endpoints.
type EndpointFamily = (&'static str, &'static str, fn(&EndpointStats) -> f64);

const METHODS: [MethodFamily; 29] = [
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
        |m| Some(m.events as f64),
    ),
    (
        "remcall_method_stream_bytes_total",
        "Bytes its streams read after they opened.",
        "counter",
        |m| Some(m.stream_bytes as f64),
    ),
    (
        "remcall_method_stream_resumes_total",
        "Broken streams reopened from their last event id.",
        "counter",
        |m| Some(m.resumes as f64),
    ),
    (
        "remcall_method_streams_broken_total",
        "Streams that broke off and were not resumed.",
        "counter",
        |m| Some(m.streams_broken as f64),
    ),
    (
        "remcall_method_streams_open",
        "Its streams open now.",
        "gauge",
        |m| Some(m.streams_open as f64),
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

type QuotaFamily = (&'static str, &'static str, fn(&QuotaStats) -> Option<f64>);

const QUOTAS: [QuotaFamily; 3] = [
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

const ENDPOINTS: [EndpointFamily; 2] = [
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

/// Every family, for every living client of `clients` (a dropped one is left out): the text a
/// `/metrics` route answers with `Content-Type: text/plain; version=0.0.4`.
pub fn text(clients: &[Observer]) -> String {
    let stats: Vec<ClientStats> = clients.iter().filter_map(Observer::stats).collect();
    let mut out = String::new();
    for (name, help, kind, value) in METHODS {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for client in &stats {
            for (method, m) in &client.methods {
                if let Some(v) = value(m) {
                    let _ = writeln!(
                        out,
                        "{name}{{client=\"{}\",method=\"{method}\"}} {v}",
                        client.client
                    );
                }
            }
        }
    }
    for (name, help, value) in QUOTAS {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
        for client in &stats {
            for q in &client.quotas {
                if let Some(v) = value(q) {
                    // The quota's name is the server's: escaped as any label value.
                    let _ = writeln!(
                        out,
                        "{name}{{client=\"{}\",quota=\"{}\"}} {v}",
                        client.client,
                        escape(q.name.as_deref().unwrap_or(""))
                    );
                }
            }
        }
    }
    for (name, help, value) in ENDPOINTS {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
        for client in &stats {
            for e in &client.endpoints {
                let _ = writeln!(
                    out,
                    "{name}{{client=\"{}\",endpoint=\"{}\"}} {}",
                    client.client,
                    escape(&e.url),
                    value(e)
                );
            }
        }
    }
    out
}

/// A label value: backslash, quote and newline escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

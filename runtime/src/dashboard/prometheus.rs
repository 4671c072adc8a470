//! `/metrics`: the clients' statistics in the Prometheus text format (version 0.0.4). The names
//! are the ones docs/grafana-dashboard.json charts.

use std::fmt::Write;

use crate::client::Observer;
use crate::stats::BreakerState;

/// A metric family: its name, its help, and how to read it from a method's statistics.
type Family<T> = (&'static str, &'static str, fn(&crate::MethodStats) -> T);

/// Counters and gauges of every living client, one family at a time.
pub(super) fn text(clients: &[Observer]) -> String {
    let stats: Vec<_> = clients.iter().filter_map(Observer::stats).collect();
    let mut out = String::new();
    let counters: [Family<f64>; 11] = [
        ("remcall_method_calls_total", "Logical calls.", |m| {
            m.calls as f64
        }),
        (
            "remcall_method_successes_total",
            "Calls that answered.",
            |m| m.successes as f64,
        ),
        (
            "remcall_method_failures_total",
            "Calls that failed, refused ones included.",
            |m| m.failures as f64,
        ),
        (
            "remcall_method_retries_total",
            "Attempts after the first.",
            |m| m.retries as f64,
        ),
        (
            "remcall_method_short_circuited_total",
            "Calls refused by an open breaker.",
            |m| m.short_circuited as f64,
        ),
        (
            "remcall_method_rejected_total",
            "Calls refused by a full bulkhead or the adaptive limit.",
            |m| m.rejected as f64,
        ),
        (
            "remcall_method_rate_limited_total",
            "Calls refused by the rate limiter.",
            |m| m.rate_limited as f64,
        ),
        (
            "remcall_method_fallbacks_total",
            "Failed calls a fallback answered.",
            |m| m.fallbacks as f64,
        ),
        (
            "remcall_method_hedges_total",
            "Hedged requests sent.",
            |m| m.hedges as f64,
        ),
        (
            "remcall_method_hedge_wins_total",
            "Calls a hedge answered first.",
            |m| m.hedge_wins as f64,
        ),
        (
            "remcall_method_without_redis_total",
            "Shared-limit decisions made without Redis.",
            |m| m.without_redis as f64,
        ),
    ];
    for (name, help, value) in counters {
        family(&mut out, name, help, "counter");
        for client in &stats {
            for (method, m) in &client.methods {
                let _ = writeln!(
                    out,
                    "{name}{{client=\"{}\",method=\"{method}\"}} {}",
                    client.client,
                    value(m)
                );
            }
        }
    }
    let gauges: [Family<Option<f64>>; 6] = [
        (
            "remcall_method_latency_p50_seconds",
            "Median latency of the last one to two minutes.",
            |m| Some(m.p50.as_secs_f64()),
        ),
        (
            "remcall_method_latency_p99_seconds",
            "99th-percentile latency of the last one to two minutes.",
            |m| Some(m.p99.as_secs_f64()),
        ),
        (
            "remcall_method_breaker_state",
            "0 closed, 1 half-open, 2 open.",
            |m| {
                Some(match m.breaker {
                    BreakerState::Closed => 0.0,
                    BreakerState::HalfOpen => 1.0,
                    BreakerState::Open => 2.0,
                })
            },
        ),
        (
            "remcall_method_concurrency_limit",
            "The adaptive concurrency limit.",
            |m| m.concurrency_limit.map(f64::from),
        ),
        (
            "remcall_method_bulkhead_in_flight",
            "Calls in flight through the bulkhead.",
            |m| m.bulkhead.map(|(used, _)| f64::from(used)),
        ),
        (
            "remcall_method_bulkhead_limit",
            "Calls the bulkhead allows at once now.",
            |m| m.bulkhead.map(|(_, limit)| f64::from(limit)),
        ),
    ];
    for (name, help, value) in gauges {
        family(&mut out, name, help, "gauge");
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
    family(
        &mut out,
        "remcall_endpoint_in_flight",
        "Attempts in flight to an endpoint.",
        "gauge",
    );
    for client in &stats {
        for e in &client.endpoints {
            let _ = writeln!(
                out,
                "remcall_endpoint_in_flight{{client=\"{}\",endpoint=\"{}\"}} {}",
                client.client,
                escape(&e.url),
                e.in_flight
            );
        }
    }
    family(
        &mut out,
        "remcall_endpoint_ejected",
        "1 while an endpoint is out of rotation.",
        "gauge",
    );
    for client in &stats {
        for e in &client.endpoints {
            let _ = writeln!(
                out,
                "remcall_endpoint_ejected{{client=\"{}\",endpoint=\"{}\"}} {}",
                client.client,
                escape(&e.url),
                u8::from(e.ejected)
            );
        }
    }
    out
}

fn family(out: &mut String, name: &str, help: &str, kind: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// A label value: backslash, quote and newline escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

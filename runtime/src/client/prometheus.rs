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

use super::families::{ENDPOINTS, METHODS, QUOTAS};
use crate::client::Observer;
use crate::observe::stats::ClientStats;

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
pub(crate) fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

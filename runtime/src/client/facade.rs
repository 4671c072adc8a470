//! remcall's statistics through the `metrics` facade (feature `metrics`): [`publish`] sets every
//! family of `remcall::prometheus` on the installed recorder, under the same names and labels.
//! The facade has no callbacks, so a service calls it where its recorder reads: in its
//! `/metrics` handler before rendering, or from a periodic task before a push.
//!
//! ```no_run
//! # fn render(users: &remcall::Observer) {
//! remcall::metrics::publish(&[users.clone()]);
//! // …then the recorder's own rendering, e.g. metrics-exporter-prometheus's `handle.render()`.
//! # }
//! ```

use super::families::{ENDPOINTS, METHODS, QUOTAS};
use crate::client::Observer;
use crate::observe::stats::ClientStats;

/// Sets every family's value for every living client of `clients` (a dropped one is left out):
/// counters by their absolute value, gauges set.
pub fn publish(clients: &[Observer]) {
    let stats: Vec<ClientStats> = clients.iter().filter_map(Observer::stats).collect();
    for client in &stats {
        let name_of = client.client;
        for (method, figures) in &client.methods {
            for (name, _, kind, value) in METHODS {
                let Some(v) = value(figures) else { continue };
                let labels = [
                    ("client", name_of.to_owned()),
                    ("method", (*method).to_owned()),
                ];
                set(name, kind == "counter", &labels, v);
            }
        }
        for quota in &client.quotas {
            for (name, _, value) in QUOTAS {
                let Some(v) = value(quota) else { continue };
                let quota = quota.name.clone().unwrap_or_default();
                set(
                    name,
                    false,
                    &[("client", name_of.to_owned()), ("quota", quota)],
                    v,
                );
            }
        }
        for endpoint in &client.endpoints {
            for (name, _, value) in ENDPOINTS {
                let labels = [
                    ("client", name_of.to_owned()),
                    ("endpoint", endpoint.url.clone()),
                ];
                set(name, false, &labels, value(endpoint));
            }
        }
    }
}

/// One sample. The facade's counters hold whole numbers: a counter of seconds (the time waited
/// for quotas) is set as a gauge, whose value keeps its fraction and still only grows.
fn set(name: &'static str, counter: bool, labels: &[(&'static str, String)], value: f64) {
    if counter && !name.ends_with("_seconds_total") {
        metrics::counter!(name, labels).absolute(value as u64);
    } else {
        metrics::gauge!(name, labels).set(value);
    }
}

//! remcall's statistics through the `metrics` facade (feature `metrics`): [`publish`] sets every
//! family of `remcall::prometheus` on the installed recorder, under the same names and labels
//! (but for a counter of seconds, which the facade's whole-number counters hold in milliseconds).
//! The facade has no callbacks, so a service calls it where its recorder reads: in its
//! `/metrics` handler before rendering, or from a periodic task before a push.
//!
//! ```no_run
//! # fn render(users: &remcall::Observer) {
//! remcall::metrics::publish(&[users.clone()]);
//! // …then the recorder's own rendering, e.g. metrics-exporter-prometheus's `handle.render()`.
//! # }
//! ```

use std::collections::HashSet;
use std::sync::{LazyLock, Mutex};

use super::families::{ENDPOINTS, METHODS, QUOTAS};
use crate::client::Observer;
use crate::observe::stats::ClientStats;

/// The gauges set so far, by name and labels: one whose value is gone (a breaker closed has no
/// next trial) is set to 0 rather than left at its last value, which the recorder would go on
/// showing as if it were now.
static GAUGES_SET: LazyLock<Mutex<HashSet<Series>>> = LazyLock::new(Default::default);

/// A series: its family's name and its labels' values.
type Series = (&'static str, Vec<String>);

/// Sets every family's value for every living client of `clients` (a dropped one is left out):
/// counters by their absolute value, every gauge to its value now (0 for one set before whose
/// value is gone). Run it each time the recorder is read: the facade has no callback, and a
/// gauge shows what the last `publish` set.
pub fn publish(clients: &[Observer]) {
    let stats: Vec<ClientStats> = clients.iter().filter_map(Observer::stats).collect();
    let mut set_before = GAUGES_SET
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut sample = |name: &'static str,
                      counter: bool,
                      labels: &[(&'static str, String)],
                      value: Option<f64>| {
        if counter {
            if let Some(v) = value {
                set_counter(name, labels, v);
            }
            return;
        }
        let key = (
            name,
            labels.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(),
        );
        match value {
            Some(v) => {
                metrics::gauge!(name, labels).set(v);
                set_before.insert(key);
            }
            None if set_before.contains(&key) => metrics::gauge!(name, labels).set(0.0),
            None => {}
        }
    };
    for client in &stats {
        let name_of = client.client;
        for (method, figures) in &client.methods {
            let labels = [
                ("client", name_of.to_owned()),
                ("method", (*method).to_owned()),
            ];
            for (name, _, kind, value) in METHODS {
                sample(name, kind == "counter", &labels, value(figures));
            }
        }
        for quota in &client.quotas {
            let labels = [
                ("client", name_of.to_owned()),
                ("quota", quota.name.clone().unwrap_or_default()),
            ];
            for (name, _, value) in QUOTAS {
                sample(name, false, &labels, value(quota));
            }
        }
        for endpoint in &client.endpoints {
            let labels = [
                ("client", name_of.to_owned()),
                ("endpoint", endpoint.url.clone()),
            ];
            for (name, _, value) in ENDPOINTS {
                sample(name, false, &labels, Some(value(endpoint)));
            }
        }
    }
}

/// A counter's sample. The facade's counters hold whole numbers: a counter of seconds (the time
/// waited for quotas) goes as a counter of whole milliseconds, named so
/// (`remcall_method_quota_wait_milliseconds_total`), a counter still and its unit in its name.
fn set_counter(name: &'static str, labels: &[(&'static str, String)], value: f64) {
    match seconds_as_millis(name) {
        Some(millis) => metrics::counter!(millis, labels).absolute((value * 1000.0) as u64),
        None => metrics::counter!(name, labels).absolute(value as u64),
    }
}

/// The facade's name of a counter of seconds: the same in milliseconds (every such family has
/// one; a test holds the table to it).
fn seconds_as_millis(name: &'static str) -> Option<&'static str> {
    match name {
        "remcall_method_quota_wait_seconds_total" => {
            Some("remcall_method_quota_wait_milliseconds_total")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_counter_of_seconds_has_a_name_in_milliseconds() {
        for (name, _, kind, _) in METHODS {
            if kind == "counter" && name.ends_with("_seconds_total") {
                assert!(seconds_as_millis(name).is_some(), "{name}");
            }
        }
    }
}

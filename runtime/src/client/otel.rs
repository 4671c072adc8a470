//! remcall's statistics through the OpenTelemetry metrics API (feature `otel`): one call at the
//! service's start, [`observe`], gives its meter an instrument per family of
//! `remcall::prometheus` (same figures, OpenTelemetry names), read from the clients' statistics
//! each time the meter's reader collects, so a call pays nothing for them. Each attempt's
//! `http.client.request.duration` and `http.client.active_requests` are recorded as it goes, on
//! the meter of the provider installed (`opentelemetry::global::set_meter_provider`) when the
//! client was built.
//!
//! ```no_run
//! # fn start(users: &remcall::Observer, orders: &remcall::Observer) {
//! let meter = opentelemetry::global::meter("my-service");
//! remcall::otel::observe(&meter, &[users.clone(), orders.clone()]);
//! # }
//! ```

use std::sync::Arc;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{AsyncInstrument, Meter};

use super::families::{ENDPOINTS, METHODS, QUOTAS, otel_name};
use crate::client::Observer;

/// Registers on `meter` the instruments of every family, each observing every living client
/// of `clients` (a dropped one is left out): counters as observable counters, gauges as
/// observable gauges, attributes `remcall.client` with `remcall.method`, `remcall.quota` or
/// `remcall.endpoint`. Call it once per meter: a second call registers the instruments again.
pub fn observe(meter: &Meter, clients: &[Observer]) {
    let clients: Arc<[Observer]> = clients.into();
    for (name, help, kind, value) in METHODS {
        let clients = clients.clone();
        let read = move |instrument: &dyn AsyncInstrument<f64>| {
            for stats in clients.iter().filter_map(Observer::stats) {
                for (method, figures) in &stats.methods {
                    if let Some(v) = value(figures) {
                        let attributes = [
                            KeyValue::new("remcall.client", stats.client),
                            KeyValue::new("remcall.method", *method),
                        ];
                        instrument.observe(v, &attributes);
                    }
                }
            }
        };
        register(meter, name, help, kind == "counter", read);
    }
    for (name, help, value) in QUOTAS {
        let clients = clients.clone();
        let read = move |instrument: &dyn AsyncInstrument<f64>| {
            for stats in clients.iter().filter_map(Observer::stats) {
                for quota in &stats.quotas {
                    if let Some(v) = value(quota) {
                        let attributes = [
                            KeyValue::new("remcall.client", stats.client),
                            KeyValue::new("remcall.quota", quota.name.clone().unwrap_or_default()),
                        ];
                        instrument.observe(v, &attributes);
                    }
                }
            }
        };
        register(meter, name, help, false, read);
    }
    for (name, help, value) in ENDPOINTS {
        let clients = clients.clone();
        let read = move |instrument: &dyn AsyncInstrument<f64>| {
            for stats in clients.iter().filter_map(Observer::stats) {
                for endpoint in &stats.endpoints {
                    let attributes = [
                        KeyValue::new("remcall.client", stats.client),
                        KeyValue::new("remcall.endpoint", endpoint.url.clone()),
                    ];
                    instrument.observe(value(endpoint), &attributes);
                }
            }
        };
        register(meter, name, help, false, read);
    }
}

/// One family's observable instrument, named and with its unit as OpenTelemetry writes them.
fn register(
    meter: &Meter,
    prometheus: &'static str,
    help: &'static str,
    counter: bool,
    read: impl Fn(&dyn AsyncInstrument<f64>) + Send + Sync + 'static,
) {
    let (name, unit) = otel_name(prometheus);
    if counter {
        let builder = meter.f64_observable_counter(name).with_description(help);
        let builder = match unit {
            Some(unit) => builder.with_unit(unit),
            None => builder,
        };
        builder.with_callback(read).build();
    } else {
        let builder = meter.f64_observable_gauge(name).with_description(help);
        let builder = match unit {
            Some(unit) => builder.with_unit(unit),
            None => builder,
        };
        builder.with_callback(read).build();
    }
}

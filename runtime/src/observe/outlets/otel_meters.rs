//! Each attempt as OpenTelemetry's HTTP semantic conventions measure a client's requests
//! (feature `otel`): `http.client.request.duration` (seconds, the conventions' buckets) and
//! `http.client.active_requests`, on the meter of the provider installed when the client was
//! built. With none installed then (the global provider is OpenTelemetry's no-op one) no
//! instrument is made and an attempt pays nothing for them.

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, UpDownCounter};
use opentelemetry_semantic_conventions::{attribute as sc, metric};

/// The buckets the conventions advise for `http.client.request.duration`, in seconds.
const DURATION_BUCKETS: [f64; 14] = [
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];

/// A client's two HTTP instruments.
#[derive(Clone, Debug)]
pub(crate) struct HttpMeters {
    duration: Histogram<f64>,
    active: UpDownCounter<i64>,
}

impl HttpMeters {
    /// The instruments, from the global meter provider as it is now; `None` while it is
    /// OpenTelemetry's no-op provider, whose instruments would record nothing at the cost of
    /// each attempt's attributes.
    pub(crate) fn new() -> Option<HttpMeters> {
        let provider = opentelemetry::global::meter_provider();
        // The no-op provider is the only one of no size: a provider that records holds its
        // state (the SDK's, an `Arc`). `dyn MeterProvider` has no other way to tell it.
        if std::mem::size_of_val(&*provider) == 0 {
            return None;
        }
        let scope = opentelemetry::InstrumentationScope::builder("remcall")
            .with_version(env!("CARGO_PKG_VERSION"))
            .with_schema_url(opentelemetry_semantic_conventions::SCHEMA_URL)
            .build();
        let meter = provider.meter_with_scope(scope);
        Some(HttpMeters {
            duration: meter
                .f64_histogram(metric::HTTP_CLIENT_REQUEST_DURATION)
                .with_unit("s")
                .with_description("Duration of HTTP client requests.")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
            active: meter
                .i64_up_down_counter(metric::HTTP_CLIENT_ACTIVE_REQUESTS)
                .with_unit("{request}")
                .with_description("Number of active HTTP requests.")
                .build(),
        })
    }

    /// An attempt to `address` starting now, counted active until the returned value is
    /// dropped. One allocation an attempt (its attributes).
    pub(crate) fn start(
        &self,
        http_method: &'static str,
        template: &opentelemetry::StringValue,
        address: super::Address<'_>,
    ) -> Measured<'_> {
        // Room for the status code and `error.type` the end adds.
        let mut attributes = Vec::with_capacity(6);
        attributes.extend([
            KeyValue::new(sc::HTTP_REQUEST_METHOD, http_method),
            KeyValue::new(sc::URL_TEMPLATE, template.clone()),
            KeyValue::new(sc::SERVER_ADDRESS, address.host.clone()),
            KeyValue::new(sc::SERVER_PORT, i64::from(address.port)),
        ]);
        self.active.add(1, &attributes);
        Measured {
            meters: self,
            attributes,
            started: std::time::Instant::now(),
        }
    }
}

/// An attempt in flight.
pub(crate) struct Measured<'a> {
    meters: &'a HttpMeters,
    attributes: Vec<KeyValue>,
    started: std::time::Instant,
}

/// The attributes `http.client.active_requests` is counted with: those of the start.
const ACTIVE_ATTRIBUTES: usize = 4;

impl Measured<'_> {
    /// The attempt's duration, with its status code, or `error.type` when it failed.
    pub(crate) fn ended(&mut self, status: Option<u16>, error: Option<&crate::error::Error>) {
        // A status code HTTP does not define is `error.type` `_OTHER`: a server cannot make a
        // series per code it invents.
        let mut typed = false;
        match status.map(super::known_status) {
            Some(Some(code)) => self.attributes.push(KeyValue::new(
                sc::HTTP_RESPONSE_STATUS_CODE,
                i64::from(code),
            )),
            Some(None) => {
                typed = true;
                self.attributes
                    .push(KeyValue::new(sc::ERROR_TYPE, super::OTHER));
            }
            None => {}
        }
        if let Some(error) = error.filter(|_| !typed) {
            let kind = KeyValue::new(sc::ERROR_TYPE, super::error_type(error));
            self.attributes.push(kind);
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        self.meters.duration.record(elapsed, &self.attributes);
        self.attributes.truncate(ACTIVE_ATTRIBUTES);
    }
}

impl Drop for Measured<'_> {
    fn drop(&mut self) {
        self.meters.active.add(-1, &self.attributes);
    }
}

#[cfg(test)]
mod tests {
    use super::HttpMeters;

    #[test]
    fn with_no_meter_provider_installed_no_instrument_is_made() {
        // No test of this binary installs one: the global provider is the no-op one.
        assert!(HttpMeters::new().is_none());
        let noop = opentelemetry::global::meter_provider();
        assert_eq!(std::mem::size_of_val(&*noop), 0, "the no-op provider");
    }
}

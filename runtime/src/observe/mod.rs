//! What a client lets others see of itself: one probe per call and per attempt (`probe.rs`)
//! fanning out to the outlets compiled in (`outlets/`: spans, the trace on the wire, the
//! OpenTelemetry meter, the `metrics` facade, log lines, the HTTP log), statistics, latency
//! windows, the dashboard's history, the drift `decode: lax` repaired, and the recording of real
//! exchanges (`recording.rs`). (The dashboard that shows them is `crate::dashboard`.)

pub(crate) mod drift;
pub(crate) mod drift_warning;
#[cfg(feature = "dashboard")]
pub(crate) mod history;
pub(crate) mod latency;
pub(crate) mod outlets;
pub(crate) mod probe;
pub(crate) mod recording;
pub(crate) mod stats;

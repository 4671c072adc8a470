//! What a client lets others see of itself: statistics, latency windows, the dashboard's
//! history, metrics, the drift `decode: lax` repaired, and the recording of real exchanges
//! (`recording.rs`). (The dashboard that shows them is `crate::dashboard`; an attempt's log
//! lines are written by `call::log`, which sees the outgoing request.)

pub(crate) mod drift;
#[cfg(feature = "dashboard")]
pub(crate) mod history;
#[cfg(feature = "otel")]
pub(crate) mod http_meters;
pub(crate) mod latency;
#[cfg(feature = "metrics")]
pub(crate) mod metrics;
#[cfg(feature = "otel")]
pub(crate) mod otel;
pub(crate) mod recording;
pub(crate) mod spans;
pub(crate) mod stats;

/// A failure as the conventions' `error.type` names it: the answer's status code, or the
/// error's kind (`timeout`, `connect`, …) when there was no answer.
#[cfg(any(feature = "otel", feature = "metrics"))]
pub(crate) fn error_type(error: &crate::Error) -> String {
    match error.status() {
        Some(status) => status.as_str().to_owned(),
        None => error.kind().name().to_owned(),
    }
}

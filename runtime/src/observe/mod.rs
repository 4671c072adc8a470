//! What a client lets others see of itself: statistics, latency windows, the dashboard's
//! history, metrics and the drift `decode: lax` repaired. (The dashboard that shows them is `crate::dashboard`; an attempt's log
//! lines are written by `call::log`, which sees the outgoing request.)

pub(crate) mod drift;
#[cfg(feature = "dashboard")]
pub(crate) mod history;
pub(crate) mod latency;
#[cfg(feature = "metrics")]
pub(crate) mod metrics;
#[cfg(feature = "otel")]
pub(crate) mod otel;
pub(crate) mod spans;
pub(crate) mod stats;

//! What a client lets others see of itself: statistics, latency windows, the dashboard's
//! history, request logs and metrics. (The dashboard that shows them is `crate::dashboard`.)

#[cfg(feature = "dashboard")]
pub(crate) mod history;
pub(crate) mod latency;
pub(crate) mod log;
#[cfg(feature = "metrics")]
pub(crate) mod metrics;
pub(crate) mod stats;

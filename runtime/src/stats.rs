//! Per-method statistics: what `client.stats()` reports.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The state of a circuit breaker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BreakerState {
    /// Calls flow.
    Closed,
    /// Calls are short-circuited.
    Open,
    /// A few trial calls decide whether to close again.
    HalfOpen,
}

/// A snapshot of one method's figures since the client was built.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodStats {
    /// Logical calls, including those stopped before sending.
    pub calls: u64,
    /// Calls that returned `Ok` without a fallback.
    pub successes: u64,
    /// Calls that failed (whether or not a fallback then answered).
    pub failures: u64,
    /// Attempts after the first.
    pub retries: u64,
    /// Calls refused by an open breaker.
    pub short_circuited: u64,
    /// Calls refused by a full bulkhead or the rate limiter.
    pub rejected: u64,
    /// Calls a fallback answered.
    pub fallbacks: u64,
    /// The method's breaker state.
    pub breaker: BreakerState,
    /// Median latency of recent calls.
    pub p50: Duration,
    /// 99th-percentile latency of recent calls.
    pub p99: Duration,
}

/// A snapshot of every method's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientStats {
    /// The client's name.
    pub client: &'static str,
    /// Per method, in spec order.
    pub methods: Vec<(&'static str, MethodStats)>,
}

impl ClientStats {
    /// One method's figures, by its spec name.
    pub fn method(&self, name: &str) -> Option<&MethodStats> {
        self.methods
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| s)
    }
}

/// The live counters behind [`MethodStats`]; lock-free, updated once per logical call.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    calls: AtomicU64,
    successes: AtomicU64,
    failures: AtomicU64,
    fallbacks: AtomicU64,
}

impl Counters {
    pub(crate) fn record(&self, succeeded: bool) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let counter = if succeeded {
            &self.successes
        } else {
            &self.failures
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn record_fallback(&self) {
        self.fallbacks.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> MethodStats {
        MethodStats {
            calls: self.calls.load(Ordering::Relaxed),
            successes: self.successes.load(Ordering::Relaxed),
            failures: self.failures.load(Ordering::Relaxed),
            retries: 0,
            short_circuited: 0,
            rejected: 0,
            fallbacks: self.fallbacks.load(Ordering::Relaxed),
            breaker: BreakerState::Closed,
            p50: Duration::ZERO,
            p99: Duration::ZERO,
        }
    }
}

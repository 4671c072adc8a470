//! remcall's own log lines, apart from its spans: target `remcall::log`, so a service chooses
//! their level without touching the spans (`remcall::log=warn` keeps the lines of changes,
//! `remcall::log=debug` adds one line per decision). What a call decides (a retry, a refusal, a
//! fallback) is written at most once per method per [`EVERY`], with how many were held back:
//! an outage refuses every call, and must not write a line for each.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

/// The target of every line this outlet writes.
pub(crate) const TARGET: &str = "remcall::log";

/// How often one method's decisions may write a line.
pub(crate) const EVERY: Duration = Duration::from_secs(10);

/// One method's gate on its decision lines.
#[derive(Debug)]
pub(crate) struct LineGate {
    start: Instant,
    /// Milliseconds since `start` before which no line is written; 0: one may be now.
    closed_until: AtomicU64,
    /// Lines held back since the last one written.
    held: AtomicU64,
}

impl LineGate {
    pub(crate) fn new(now: Instant) -> LineGate {
        LineGate {
            start: now,
            closed_until: AtomicU64::new(0),
            held: AtomicU64::new(0),
        }
    }

    /// Whether a line may be written at `now`; when it may, how many were held back before it.
    /// One of several threads racing for the same moment wins it.
    pub(crate) fn pass(&self, now: Instant) -> Option<u64> {
        let at = u64::try_from(now.saturating_duration_since(self.start).as_millis())
            .unwrap_or(u64::MAX);
        let until = self.closed_until.load(Ordering::Acquire);
        let reopens = at.saturating_add(u64::try_from(EVERY.as_millis()).unwrap_or(u64::MAX));
        if at >= until
            && self
                .closed_until
                .compare_exchange(until, reopens.max(1), Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            return Some(self.held.swap(0, Ordering::AcqRel));
        }
        self.held.fetch_add(1, Ordering::Relaxed);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_method_writes_one_line_an_interval_and_counts_the_others() {
        let gate = LineGate::new(Instant::now());
        assert_eq!(gate.pass(Instant::now()), Some(0));
        for _ in 0..500 {
            assert_eq!(gate.pass(Instant::now()), None);
        }
        tokio::time::advance(EVERY - Duration::from_millis(1)).await;
        assert_eq!(gate.pass(Instant::now()), None);
        tokio::time::advance(Duration::from_millis(1)).await;
        assert_eq!(gate.pass(Instant::now()), Some(501));
        assert_eq!(gate.pass(Instant::now()), None);
    }
}

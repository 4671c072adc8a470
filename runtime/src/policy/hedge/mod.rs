//! Hedged requests ("The Tail at Scale"): when an attempt has not answered after the hedge
//! delay, the same request goes out again, to another endpoint when there is one, and the first
//! answer wins; the others are dropped, which closes their connections.
//!
//! What this file holds is the method's hedging state: when to hedge (a fixed delay, or a
//! percentile of the method's recent latency, refreshed at most every quarter second so the hot
//! path reads one atomic) and whether the budget allows another. The race itself is `race.rs`;
//! what it races, one attempt, is the call path's (`call/attempt.rs`).

pub(crate) mod race;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use remcall_profile::{HedgeDelay, HedgeSettings};
use tokio::time::Instant;

use crate::observe::stats::Counters;
use crate::policy::budget::RetryBudget;

/// How often a percentile delay is read again from the latency histogram.
const REFRESH: Duration = Duration::from_millis(250);

/// `u64::MAX` in the delay cell: not enough calls seen yet to know the percentile.
const UNKNOWN: u64 = u64::MAX;

/// One method's hedging: its settings, its budget, its current delay.
#[derive(Debug)]
pub(crate) struct Hedging {
    pub(crate) settings: HedgeSettings,
    /// Hedges as a share of the method's calls over ten seconds.
    budget: RetryBudget,
    base: Instant,
    /// The delay in µs (or `UNKNOWN`), and when it was read, in ms since `base` (+1, 0: never).
    delay_micros: AtomicU64,
    read_at: AtomicU64,
}

impl Hedging {
    pub(crate) fn new(settings: HedgeSettings, now: Instant) -> Hedging {
        Hedging {
            settings,
            budget: RetryBudget::new(settings.budget_percent / 100.0, 0, now),
            base: now,
            delay_micros: AtomicU64::new(UNKNOWN),
            read_at: AtomicU64::new(0),
        }
    }

    /// Counts a call: it earns its share of hedges.
    pub(crate) fn deposit(&self, now: Instant) {
        self.budget.deposit(now);
    }

    /// Takes one hedge from the method's budget; false when it is spent.
    pub(crate) fn withdraw(&self, now: Instant) -> bool {
        self.budget.withdraw(now)
    }

    /// After how long a hedge goes out, or `None` when a percentile is asked for and the
    /// method has not made enough calls for it to mean anything.
    pub(crate) fn delay(&self, counters: &Counters, now: Instant) -> Option<Duration> {
        let q = match self.settings.delay {
            HedgeDelay::After(delay) => return Some(delay),
            HedgeDelay::Percentile(q) => q,
        };
        let millis = u64::try_from(now.saturating_duration_since(self.base).as_millis())
            .unwrap_or(u64::MAX - 1)
            + 1;
        let read_at = self.read_at.load(Ordering::Relaxed);
        let micros = if read_at != 0 && millis.saturating_sub(read_at) < REFRESH.as_millis() as u64
        {
            self.delay_micros.load(Ordering::Relaxed)
        } else {
            let (latency, calls) = counters.recent_quantile(q, now);
            let micros = if calls < samples_needed(q) {
                UNKNOWN
            } else {
                let floor = self.settings.min_delay;
                u64::try_from(latency.max(floor).as_micros()).unwrap_or(UNKNOWN - 1)
            };
            self.delay_micros.store(micros, Ordering::Relaxed);
            self.read_at.store(millis, Ordering::Relaxed);
            micros
        };
        (micros != UNKNOWN).then(|| Duration::from_micros(micros))
    }
}

/// Calls a percentile needs before it is trusted: ten above it (p95: 200, p99: 1,000), and at
/// least 20.
pub(crate) fn samples_needed(q: f64) -> u64 {
    ((10.0 / (1.0 - q).max(1e-4)).ceil() as u64).max(20)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(delay: HedgeDelay) -> HedgeSettings {
        HedgeSettings {
            delay,
            min_delay: Duration::from_millis(2),
            max_extra: 1,
            budget_percent: 10.0,
        }
    }

    #[test]
    fn a_percentile_delay_waits_for_enough_calls_and_has_a_floor() {
        let t0 = Instant::now();
        let counters = Counters::new(t0);
        let hedging = Hedging::new(settings(HedgeDelay::Percentile(0.95)), t0);
        for _ in 0..199 {
            counters.record(
                crate::observe::stats::Ending::Success,
                Some(Duration::from_millis(10)),
                t0,
            );
        }
        assert_eq!(hedging.delay(&counters, t0), None, "199 calls < 200");
        counters.record(
            crate::observe::stats::Ending::Success,
            Some(Duration::from_millis(10)),
            t0,
        );
        assert_eq!(
            hedging.delay(&counters, t0),
            None,
            "read again only after a quarter second"
        );
        let later = t0 + REFRESH;
        let delay = hedging.delay(&counters, later).unwrap();
        assert!(
            (Duration::from_millis(10)..Duration::from_millis(12)).contains(&delay),
            "{delay:?}"
        );

        let fast = Counters::new(t0);
        for _ in 0..200 {
            fast.record(
                crate::observe::stats::Ending::Success,
                Some(Duration::from_micros(300)),
                t0,
            );
        }
        let floored = Hedging::new(settings(HedgeDelay::Percentile(0.95)), t0);
        assert_eq!(
            floored.delay(&fast, t0),
            Some(Duration::from_millis(2)),
            "min_delay"
        );
        let fixed = Hedging::new(settings(HedgeDelay::After(Duration::from_millis(7))), t0);
        assert_eq!(
            fixed.delay(&Counters::new(t0), t0),
            Some(Duration::from_millis(7))
        );
    }

    #[test]
    fn hedges_are_a_share_of_calls() {
        let t0 = Instant::now();
        let hedging = Hedging::new(settings(HedgeDelay::Percentile(0.95)), t0);
        for _ in 0..30 {
            hedging.deposit(t0);
        }
        let granted = (0..10).filter(|_| hedging.withdraw(t0)).count();
        assert_eq!(granted, 3, "10% of 30 calls");
        assert_eq!(samples_needed(0.5), 20);
        assert_eq!(samples_needed(0.99), 1_000);
    }
}

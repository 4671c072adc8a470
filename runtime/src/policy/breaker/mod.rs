//! The circuit breaker: CLOSED → OPEN when the window's failure (or slow) rate reaches the
//! threshold, OPEN → HALF_OPEN after `open_for`, HALF_OPEN → CLOSED or OPEN (with a doubled
//! `open_for`) by the half-open rule: the trials' rate once they have all finished, or a count of
//! successful and failed trials.
//!
//! The hot path takes no lock: a closed breaker admits a call with one atomic load and records
//! it with a few atomic adds into a lock-free window. A small per-breaker mutex is taken only on
//! transitions and for half-open trials. Time comes in as an argument, so tests drive it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use remcall_profile::{BreakerSettings, HalfOpenRule};
use tokio::time::Instant;

use crate::observe::stats::BreakerState;

mod window;

use window::{Counts, RollingWindow};

const CLOSED: u8 = 0;
const OPEN: u8 = 1;
const HALF_OPEN: u8 = 2;

/// How a finished call counts for the breaker. Not an [`crate::error::ErrorKind`]: which failures count is
/// the profile's `record:` choice, and a success can count against the breaker by being slow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It succeeded; `slow` when slower than `slow_call.over`.
    Success { slow: bool },
    /// A failure the breaker records (`record:`).
    Failure,
    /// Neither: a 4xx not listed in `record:`, a decode error, a request that was never sent.
    Ignored,
}

/// One breaker (per method, or one per client).
#[derive(Debug)]
pub struct Breaker {
    settings: BreakerSettings,
    client: &'static str,
    scope: &'static str,
    base: Instant,
    state: AtomicU8,
    /// Nanoseconds since `base` at which an open breaker turns half-open.
    open_until: AtomicU64,
    /// Bumped on every transition, so a call admitted in one period never counts in another.
    generation: AtomicU64,
    /// Nanoseconds since `base` of the last transition, +1 (0: never changed).
    changed_at: AtomicU64,
    window: RollingWindow,
    trials: Mutex<Trials>,
}

#[derive(Debug, Default)]
struct Trials {
    /// Trials let through: in all under the rate rule, in flight under the counting rule.
    admitted: u32,
    done: u32,
    successes: u32,
    failures: u32,
    slow: u32,
    /// Consecutive re-opens from half-open, for the doubling of `open_for`.
    reopened: u32,
}

/// The right to make one call; dropping it unfinished releases a half-open trial slot.
#[derive(Debug)]
pub struct Permit<'a> {
    breaker: &'a Breaker,
    generation: u64,
    trial: bool,
    finished: bool,
}

impl Breaker {
    pub fn new(
        settings: BreakerSettings,
        client: &'static str,
        scope: &'static str,
        now: Instant,
    ) -> Breaker {
        let window = RollingWindow::new(settings.window);
        Breaker {
            settings,
            client,
            scope,
            base: now,
            state: AtomicU8::new(CLOSED),
            open_until: AtomicU64::new(0),
            generation: AtomicU64::new(0),
            changed_at: AtomicU64::new(0),
            window,
            trials: Mutex::new(Trials::default()),
        }
    }

    /// The current state, for statistics.
    pub fn state(&self) -> BreakerState {
        match self.state.load(Ordering::Acquire) {
            CLOSED => BreakerState::Closed,
            OPEN => BreakerState::Open,
            _ => BreakerState::HalfOpen,
        }
    }

    /// How long ago the state last changed; `None` if it never has.
    pub(crate) fn changed_ago(&self, now: Instant) -> Option<Duration> {
        let at = self.changed_at.load(Ordering::Acquire).checked_sub(1)?;
        Some(Duration::from_nanos(self.nanos(now).saturating_sub(at)))
    }

    /// While open, the time until its next trial call is let through.
    pub(crate) fn next_trial_in(&self, now: Instant) -> Option<Duration> {
        if self.state.load(Ordering::Acquire) != OPEN {
            return None;
        }
        let until = self.open_until.load(Ordering::Acquire);
        Some(Duration::from_nanos(until.saturating_sub(self.nanos(now))))
    }

    /// The slow-call threshold, if slow calls count.
    pub(crate) fn slow_over(&self) -> Option<Duration> {
        self.settings.slow_call.map(|(over, _)| over)
    }

    /// Admits a call, or says how long until the breaker lets calls through again.
    #[inline]
    pub fn try_acquire(&self, now: Instant) -> Result<Permit<'_>, Duration> {
        // Inlined into the caller, so the permit stays in registers; the rest is out of line.
        if self.state.load(Ordering::Acquire) == CLOSED {
            return Ok(self.permit(false));
        }
        self.try_acquire_not_closed(now)
    }

    #[inline(never)]
    fn try_acquire_not_closed(&self, now: Instant) -> Result<Permit<'_>, Duration> {
        // An open breaker refuses without the lock; everything else is decided under it.
        if self.state.load(Ordering::Acquire) == OPEN {
            let until = self.open_until.load(Ordering::Acquire);
            let now_nanos = self.nanos(now);
            if now_nanos < until {
                return Err(Duration::from_nanos(until - now_nanos));
            }
        }
        let mut trials = self.lock();
        match self.state.load(Ordering::Acquire) {
            CLOSED => Ok(self.permit(false)),
            OPEN => {
                let until = self.open_until.load(Ordering::Acquire);
                let now_nanos = self.nanos(now);
                if now_nanos < until {
                    return Err(Duration::from_nanos(until - now_nanos));
                }
                self.transition(OPEN, HALF_OPEN);
                let reopened = trials.reopened;
                *trials = Trials {
                    admitted: 1,
                    reopened,
                    ..Trials::default()
                };
                Ok(self.permit(true))
            }
            _ => {
                if trials.admitted < self.settings.half_open_calls {
                    trials.admitted += 1;
                    Ok(self.permit(true))
                } else {
                    // The trials are in flight: the verdict is at most one attempt away.
                    Err(Duration::ZERO)
                }
            }
        }
    }

    /// Records how an admitted call ended.
    #[inline]
    pub fn record(&self, mut permit: Permit<'_>, outcome: Outcome, now: Instant) {
        permit.finished = true;
        if permit.generation != self.generation.load(Ordering::Acquire) {
            return; // admitted before the last transition: its period is over
        }
        if permit.trial {
            self.record_trial(outcome, now);
            return;
        }
        let (failure, slow) = match outcome {
            Outcome::Ignored => return,
            Outcome::Failure => (true, false),
            Outcome::Success { slow } => (false, slow),
        };
        // `None`: the outcome cannot have raised a rate (a success replacing a success in a full
        // window), so there is nothing to judge and nothing more to read.
        let Some(counts) = self
            .window
            .record(failure, slow, self.settings.min_calls, || self.nanos(now))
        else {
            return;
        };
        self.judge(counts, permit.generation, now);
    }

    /// Opens a closed breaker whose window is over a threshold.
    #[inline(never)]
    fn judge(&self, counts: Counts, generation: u64, now: Instant) {
        if (counts.failures > 0 || counts.slow > 0)
            && self.over_threshold(
                counts.calls,
                counts.failures,
                counts.slow,
                self.settings.min_calls,
            )
        {
            let mut trials = self.lock();
            if self.state.load(Ordering::Acquire) == CLOSED
                && generation == self.generation.load(Ordering::Acquire)
            {
                trials.reopened = 0;
                self.open(now, 0);
            }
        }
    }

    #[inline(never)]
    fn record_trial(&self, outcome: Outcome, now: Instant) {
        let mut trials = self.lock();
        if self.state.load(Ordering::Acquire) != HALF_OPEN {
            return;
        }
        let (failed, slow) = match outcome {
            Outcome::Ignored => {
                // Says nothing about the downstream: give the slot to another call.
                trials.admitted = trials.admitted.saturating_sub(1);
                return;
            }
            Outcome::Failure => (true, false),
            Outcome::Success { slow } => (false, slow),
        };
        trials.done += 1;
        trials.failures += u32::from(failed);
        trials.slow += u32::from(slow);
        let close = match self.settings.half_open {
            HalfOpenRule::Rate => {
                if trials.done < self.settings.half_open_calls {
                    return;
                }
                !self.over_threshold(trials.done, trials.failures, trials.slow, 0)
            }
            HalfOpenRule::Count {
                close_after,
                reopen_after,
            } => {
                // The slot goes to the next trial. A slow success (only ever reported when
                // `slow_call` is set) is a failed trial: slowness is what the breaker guards.
                trials.admitted = trials.admitted.saturating_sub(1);
                if failed || slow {
                    if trials.failures + trials.slow < reopen_after {
                        return;
                    }
                    false
                } else {
                    trials.successes += 1;
                    if trials.successes < close_after {
                        return;
                    }
                    true
                }
            }
        };
        if close {
            trials.reopened = 0;
            self.window.reset();
            self.transition(HALF_OPEN, CLOSED);
        } else {
            trials.reopened += 1;
            let reopened = trials.reopened;
            self.open(now, reopened);
        }
    }

    #[inline(never)]
    fn release_trial(&self, generation: u64) {
        let mut trials = self.lock();
        if self.state.load(Ordering::Acquire) == HALF_OPEN
            && self.generation.load(Ordering::Acquire) == generation
        {
            trials.admitted = trials.admitted.saturating_sub(1);
        }
    }

    fn over_threshold(&self, calls: u32, failures: u32, slow: u32, min_calls: u32) -> bool {
        if calls == 0 || calls < min_calls {
            return false;
        }
        let rate = |n: u32| f64::from(n) * 100.0 / f64::from(calls);
        rate(failures) >= self.settings.failure_rate
            || self
                .settings
                .slow_call
                .is_some_and(|(_, threshold)| rate(slow) >= threshold)
    }

    /// Opens for `open_for` doubled `reopened` times, at most `open_for_max`.
    fn open(&self, now: Instant, reopened: u32) {
        let factor = 2_u32.saturating_pow(reopened.min(31));
        let open_for = self
            .settings
            .open_for
            .saturating_mul(factor)
            .min(self.settings.open_for_max.max(self.settings.open_for));
        let until = self
            .nanos(now)
            .saturating_add(u64::try_from(open_for.as_nanos()).unwrap_or(u64::MAX));
        self.open_until.store(until, Ordering::Release);
        let from = self.state.load(Ordering::Acquire);
        self.window.reset();
        self.transition(from, OPEN);
    }

    fn transition(&self, from: u8, to: u8) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.state.store(to, Ordering::Release);
        self.changed_at.store(
            self.nanos(Instant::now()).saturating_add(1),
            Ordering::Release,
        );
        let name = |s: u8| match s {
            CLOSED => "closed",
            OPEN => "open",
            _ => "half_open",
        };
        let gauge = match to {
            CLOSED => 0.0,
            OPEN => 2.0,
            _ => 1.0,
        };
        crate::observe::probe::breaker_changed(
            self.client,
            self.scope,
            (name(from), name(to)),
            gauge,
        );
    }

    #[inline]
    fn permit(&self, trial: bool) -> Permit<'_> {
        Permit {
            breaker: self,
            generation: self.generation.load(Ordering::Acquire),
            trial,
            finished: false,
        }
    }

    #[inline]
    fn nanos(&self, now: Instant) -> u64 {
        u64::try_from(now.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Trials> {
        // A panic while holding this lock leaves plain counters behind: keep using them.
        self.trials
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Permit<'_> {
    /// A half-open trial: a probe of the downstream, sent once and never retried.
    #[inline]
    pub fn is_trial(&self) -> bool {
        self.trial
    }
}

impl Drop for Permit<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.trial && !self.finished {
            self.breaker.release_trial(self.generation);
        }
    }
}

#[cfg(test)]
mod tests;

//! The circuit breaker: CLOSED → OPEN when the window's failure (or slow) rate reaches the
//! threshold, OPEN → HALF_OPEN after `open_for`, HALF_OPEN → CLOSED or OPEN (with a doubled
//! `open_for`) once its trial calls finish.
//!
//! The hot path takes no lock: a closed breaker admits a call with one atomic load and records
//! it with a few atomic adds into a lock-free window. A small per-breaker mutex is taken only on
//! transitions and for half-open trials. Time comes in as an argument, so tests drive it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use remcall_profile::{BreakerSettings, Window};
use tokio::time::Instant;

use crate::stats::BreakerState;

const CLOSED: u8 = 0;
const OPEN: u8 = 1;
const HALF_OPEN: u8 = 2;

/// How a finished call counts for the breaker. Not an [`crate::ErrorKind`]: which failures count is
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
    window: RollingWindow,
    trials: Mutex<Trials>,
}

#[derive(Debug, Default)]
struct Trials {
    admitted: u32,
    done: u32,
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
        match outcome {
            Outcome::Ignored => {
                // Says nothing about the downstream: give the slot to another call.
                trials.admitted = trials.admitted.saturating_sub(1);
                return;
            }
            Outcome::Failure => trials.failures += 1,
            Outcome::Success { slow } => trials.slow += u32::from(slow),
        }
        trials.done += 1;
        if trials.done >= self.settings.half_open_calls {
            let (done, failures, slow) = (trials.done, trials.failures, trials.slow);
            if self.over_threshold(done, failures, slow, 0) {
                trials.reopened += 1;
                let reopened = trials.reopened;
                self.open(now, reopened);
            } else {
                trials.reopened = 0;
                self.window.reset();
                self.transition(HALF_OPEN, CLOSED);
            }
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
        let name = |s: u8| match s {
            CLOSED => "closed",
            OPEN => "open",
            _ => "half_open",
        };
        tracing::info!(
            client = self.client,
            method = self.scope,
            from = name(from),
            to = name(to),
            "circuit breaker state change"
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

impl Drop for Permit<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.trial && !self.finished {
            self.breaker.release_trial(self.generation);
        }
    }
}

/// Counts over the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counts {
    calls: u32,
    failures: u32,
    slow: u32,
}

/// The closed-state window, lock-free: a ring of the last N outcomes, or per-tick buckets.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "the count window's padding is the point: one breaker per method, never moved"
)]
enum RollingWindow {
    Count(CountWindow),
    Time(TimeWindow),
}

impl RollingWindow {
    fn new(window: Window) -> RollingWindow {
        match window {
            Window::Calls(n) => RollingWindow::Count(CountWindow::new(n.max(1) as usize)),
            Window::Time(period) => RollingWindow::Time(TimeWindow::new(period)),
        }
    }

    /// Records an outcome; the window's counts when they need judging, `None` when the outcome
    /// cannot have pushed a rate up: a plain success, once the window holds `min_calls` calls and
    /// has not moved on since the last judgement.
    #[inline]
    fn record(
        &self,
        failure: bool,
        slow: bool,
        min_calls: u32,
        now_nanos: impl FnOnce() -> u64,
    ) -> Option<Counts> {
        match self {
            RollingWindow::Count(w) => w.record(failure, slow, min_calls),
            RollingWindow::Time(w) => w.record(failure, slow, min_calls, now_nanos()),
        }
    }

    fn reset(&self) {
        match self {
            RollingWindow::Count(w) => w.reset(),
            RollingWindow::Time(w) => w.reset(),
        }
    }
}

const RECORDED: u8 = 1;
const FAILED: u8 = 2;
const SLOW: u8 = 4;

/// The last N outcomes in a ring, and their failure and slow counts packed in one word
/// (failures in the low half, slow calls in the high half).
///
/// Recording a success where a success leaves — the steady state of a healthy downstream — is
/// one read-modify-write (the sequence number) and one load (the slot): the slot is only written
/// when its outcome changes, which is the same as a swap that changed nothing. The counters sit
/// on cache lines of their own, so two threads recording into one breaker contend on the
/// sequence number alone, not on the lines the admission check reads.
#[derive(Debug)]
struct CountWindow {
    slots: Box<[AtomicU8]>,
    /// `slots.len()` and its reciprocal for [`fast_mod`]: a hardware divide would be a third of
    /// the closed path's cost.
    len: u32,
    reciprocal: u64,
    next: Padded<AtomicU64>,
    counts: Padded<AtomicU64>,
}

const SLOW_UNIT: u64 = 1 << 32;

impl CountWindow {
    fn new(size: usize) -> CountWindow {
        let len = u32::try_from(size.max(1)).unwrap_or(u32::MAX);
        CountWindow {
            slots: (0..len).map(|_| AtomicU8::new(0)).collect(),
            len,
            reciprocal: (u64::MAX / u64::from(len)).wrapping_add(1),
            next: Padded(AtomicU64::new(0)),
            counts: Padded(AtomicU64::new(0)),
        }
    }

    #[inline]
    fn record(&self, failure: bool, slow: bool, min_calls: u32) -> Option<Counts> {
        let code = RECORDED | if failure { FAILED } else { 0 } | if slow { SLOW } else { 0 };
        let seq = self.next.0.fetch_add(1, Ordering::AcqRel);
        let len = u64::from(self.len);
        // The ring position of the sequence number's low 32 bits: where those wrap (once in four
        // billion calls) one outcome leaves early, and the counts stay exact all the same.
        let slot = &self.slots[fast_mod(seq as u32, self.reciprocal, self.len) as usize];
        let mut old = slot.load(Ordering::Acquire);
        if old != code {
            old = slot.swap(code, Ordering::AcqRel);
        }
        // The change to both counts as one two's-complement delta: a field never goes below zero
        // because an outcome leaving the window was counted when it entered.
        let delta = (u64::from(failure).wrapping_sub(u64::from(old & FAILED != 0))).wrapping_add(
            (u64::from(slow).wrapping_sub(u64::from(old & SLOW != 0))).wrapping_mul(SLOW_UNIT),
        );
        let calls = (seq + 1).min(len);
        // A success only lowers the rates, except while the window fills past `min_calls`
        // (the rates become judgeable).
        let judge = failure || slow || (seq < len && calls >= u64::from(min_calls));
        let counts = if delta == 0 {
            if !judge {
                return None;
            }
            self.counts.0.load(Ordering::Acquire)
        } else {
            self.counts
                .0
                .fetch_add(delta, Ordering::AcqRel)
                .wrapping_add(delta)
        };
        judge.then(|| Counts {
            calls: u32::try_from(calls).unwrap_or(u32::MAX),
            failures: (counts & (SLOW_UNIT - 1)) as u32,
            slow: (counts >> 32) as u32,
        })
    }

    fn reset(&self) {
        self.next.0.store(0, Ordering::Release);
        for slot in self.slots.iter() {
            slot.store(0, Ordering::Release);
        }
        self.counts.0.store(0, Ordering::Release);
    }
}

/// `a % d`, with `reciprocal` = `u64::MAX / d + 1` (Lemire, Kaser and Kurz, "Faster remainder by
/// direct computation", 2019): two multiplications instead of a divide.
#[inline]
fn fast_mod(a: u32, reciprocal: u64, d: u32) -> u32 {
    let low = reciprocal.wrapping_mul(u64::from(a));
    ((u128::from(low) * u128::from(d)) >> 64) as u32
}

/// A value on a cache line of its own (128 bytes: x86 prefetches lines in pairs), so that writes
/// to one hot counter do not slow down reads of its neighbours.
#[derive(Debug)]
#[repr(align(128))]
struct Padded<T>(T);

/// Ten buckets, each a tenth of the window: a call stops counting once its bucket is a whole
/// window old.
const BUCKETS: u64 = 10;

#[derive(Debug)]
struct TimeWindow {
    tick_nanos: u64,
    /// The last tick seen: most calls fall in it, and checking that takes a multiply where
    /// finding the tick takes a divide.
    last_tick: AtomicU64,
    buckets: Box<[Bucket]>,
}

#[derive(Debug)]
struct Bucket {
    tick: AtomicU64,
    calls: AtomicI64,
    failures: AtomicI64,
    slow: AtomicI64,
}

impl TimeWindow {
    fn new(period: Duration) -> TimeWindow {
        let tick_nanos =
            (u64::try_from(period.as_nanos()).unwrap_or(u64::MAX) / BUCKETS).max(1_000_000);
        let buckets = (0..BUCKETS)
            .map(|_| Bucket {
                tick: AtomicU64::new(u64::MAX),
                calls: AtomicI64::new(0),
                failures: AtomicI64::new(0),
                slow: AtomicI64::new(0),
            })
            .collect();
        TimeWindow {
            tick_nanos,
            last_tick: AtomicU64::new(0),
            buckets,
        }
    }

    #[inline]
    fn record(&self, failure: bool, slow: bool, min_calls: u32, now_nanos: u64) -> Option<Counts> {
        let last = self.last_tick.load(Ordering::Relaxed);
        let tick = match now_nanos.checked_sub(last.saturating_mul(self.tick_nanos)) {
            Some(into) if into < self.tick_nanos => last,
            _ => {
                let tick = now_nanos / self.tick_nanos;
                self.last_tick.store(tick, Ordering::Relaxed);
                tick
            }
        };
        let bucket = &self.buckets[(tick % BUCKETS) as usize];
        let seen = bucket.tick.load(Ordering::Acquire);
        if seen != tick
            && bucket
                .tick
                .compare_exchange(seen, tick, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            // This bucket last held a tick a whole window ago: start it afresh.
            bucket.calls.store(0, Ordering::Release);
            bucket.failures.store(0, Ordering::Release);
            bucket.slow.store(0, Ordering::Release);
        }
        let in_bucket = bucket.calls.fetch_add(1, Ordering::AcqRel) + 1;
        if failure {
            bucket.failures.fetch_add(1, Ordering::AcqRel);
        }
        if slow {
            bucket.slow.fetch_add(1, Ordering::AcqRel);
        }
        // A success lowers the rates unless the window moved on (calls left it: this is the
        // tick's first record) or the window may just have reached `min_calls` (it cannot have
        // if this bucket alone holds more).
        let judge = failure || slow || seen != tick || in_bucket <= i64::from(min_calls);
        if !judge {
            return None;
        }

        let mut sum = (0_i64, 0_i64, 0_i64);
        for b in self.buckets.iter() {
            let t = b.tick.load(Ordering::Acquire);
            if t != u64::MAX && t <= tick && tick - t < BUCKETS {
                sum.0 += b.calls.load(Ordering::Acquire);
                sum.1 += b.failures.load(Ordering::Acquire);
                sum.2 += b.slow.load(Ordering::Acquire);
            }
        }
        let clamp = |n: i64| u32::try_from(n.max(0)).unwrap_or(u32::MAX);
        Some(Counts {
            calls: clamp(sum.0),
            failures: clamp(sum.1),
            slow: clamp(sum.2),
        })
    }

    fn reset(&self) {
        for b in self.buckets.iter() {
            b.tick.store(u64::MAX, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(window: Window, min_calls: u32, half_open_calls: u32) -> BreakerSettings {
        BreakerSettings {
            scope: remcall_profile::Scope::Method,
            window,
            min_calls,
            failure_rate: 50.0,
            slow_call: None,
            open_for: Duration::from_secs(5),
            open_for_max: Duration::from_secs(60),
            half_open_calls,
            record: Vec::new(),
        }
    }

    const F: Outcome = Outcome::Failure;
    const S: Outcome = Outcome::Success { slow: false };

    fn call(breaker: &Breaker, outcome: Outcome, now: Instant) -> Result<(), Duration> {
        let permit = breaker.try_acquire(now)?;
        breaker.record(permit, outcome, now);
        Ok(())
    }

    /// Opens the breaker at `t0` with five failures.
    fn tripped(s: BreakerSettings, t0: Instant) -> Breaker {
        let breaker = Breaker::new(BreakerSettings { min_calls: 5, ..s }, "C", "m", t0);
        for _ in 0..5 {
            call(&breaker, F, t0).unwrap();
        }
        assert_eq!(breaker.state(), BreakerState::Open);
        breaker
    }

    #[test]
    fn a_count_window_opens_on_the_fifth_call_and_short_circuits_the_sixth() {
        let t0 = Instant::now();
        let breaker = Breaker::new(settings(Window::Calls(10), 5, 4), "C", "m", t0);
        for (i, outcome) in [F, F, F, S].into_iter().enumerate() {
            call(&breaker, outcome, t0).unwrap();
            assert_eq!(
                breaker.state(),
                BreakerState::Closed,
                "after call {}",
                i + 1
            );
        }
        call(&breaker, S, t0).unwrap();
        assert_eq!(
            breaker.state(),
            BreakerState::Open,
            "3 of 5 failed: 60% ≥ 50%"
        );
        let wait = call(&breaker, S, t0 + Duration::from_secs(1)).unwrap_err();
        assert_eq!(
            wait,
            Duration::from_secs(4),
            "says how long until half-open"
        );
    }

    #[test]
    fn a_count_window_forgets_calls_that_slid_out() {
        let t0 = Instant::now();
        let breaker = Breaker::new(settings(Window::Calls(4), 4, 4), "C", "m", t0);
        for outcome in [F, S, S, S, S, S, F] {
            call(&breaker, outcome, t0).unwrap();
        }
        // The window holds S S S F: 25%.
        assert_eq!(breaker.state(), BreakerState::Closed);
        call(&breaker, F, t0).unwrap();
        assert_eq!(breaker.state(), BreakerState::Open, "S S F F: 50%");
    }

    #[test]
    fn fast_mod_is_the_remainder() {
        for d in [1_u32, 2, 3, 7, 10, 100, 1000, 65_537, u32::MAX] {
            let reciprocal = (u64::MAX / u64::from(d)).wrapping_add(1);
            let samples = (0..10_000_u32).chain([u32::MAX, u32::MAX - 1, d, d.wrapping_mul(7)]);
            for a in samples.chain((0..10_000_u32).map(|i| i.wrapping_mul(2_654_435_761))) {
                assert_eq!(fast_mod(a, reciprocal, d), a % d, "{a} % {d}");
            }
        }
    }

    #[test]
    fn packed_counts_follow_outcomes_in_and_out_of_the_window() {
        let w = CountWindow::new(2);
        let counts = |c: Option<Counts>| c.map(|c| (c.calls, c.failures, c.slow));
        assert_eq!(counts(w.record(true, false, 0)), Some((1, 1, 0)));
        assert_eq!(counts(w.record(false, true, 0)), Some((2, 1, 1)));
        // A slow success pushes the failure out: one field down, the other up, in one add.
        assert_eq!(counts(w.record(false, true, 0)), Some((2, 0, 2)));
        assert_eq!(counts(w.record(true, false, 0)), Some((2, 1, 1)));
        // Plain successes in a full window only lower the rates: nothing to judge...
        assert_eq!(counts(w.record(false, false, 0)), None);
        assert_eq!(counts(w.record(false, false, 0)), None);
        // ...but they were counted: the window now holds one success and this failure.
        assert_eq!(counts(w.record(true, false, 0)), Some((2, 1, 0)));
    }

    #[test]
    fn a_success_that_brings_the_window_to_min_calls_is_judged() {
        let t0 = Instant::now();
        for window in [Window::Calls(10), Window::Time(Duration::from_secs(10))] {
            let breaker = Breaker::new(settings(window, 4, 1), "C", "m", t0);
            for outcome in [F, F, S] {
                call(&breaker, outcome, t0).unwrap();
            }
            assert_eq!(breaker.state(), BreakerState::Closed, "{window:?}: 3 calls");
            call(&breaker, S, t0).unwrap();
            assert_eq!(breaker.state(), BreakerState::Open, "{window:?}: 2 of 4");
        }
    }

    #[test]
    fn a_success_after_the_time_window_moved_on_is_judged() {
        let t0 = Instant::now();
        let breaker = Breaker::new(
            settings(Window::Time(Duration::from_secs(10)), 4, 1),
            "C",
            "m",
            t0,
        );
        for _ in 0..4 {
            call(&breaker, S, t0).unwrap();
        }
        let t5 = t0 + Duration::from_secs(5);
        for _ in 0..3 {
            call(&breaker, F, t5).unwrap();
        }
        assert_eq!(breaker.state(), BreakerState::Closed, "3 of 7");
        // The four successes leave the window; the next call, a success, sees 3 of 4 failed.
        call(&breaker, S, t0 + Duration::from_millis(10_500)).unwrap();
        assert_eq!(breaker.state(), BreakerState::Open);
    }

    #[test]
    fn calls_older_than_the_time_window_stop_counting() {
        let t0 = Instant::now();
        let breaker = Breaker::new(
            settings(Window::Time(Duration::from_secs(10)), 4, 4),
            "C",
            "m",
            t0,
        );
        for _ in 0..3 {
            call(&breaker, F, t0).unwrap();
        }
        // Ten seconds later those failures have left the window.
        let later = t0 + Duration::from_secs(10);
        for _ in 0..3 {
            call(&breaker, S, later).unwrap();
        }
        call(&breaker, F, later).unwrap();
        assert_eq!(
            breaker.state(),
            BreakerState::Closed,
            "1 of 4 in the window"
        );
        // Within the window they still count.
        let breaker = Breaker::new(
            settings(Window::Time(Duration::from_secs(10)), 4, 4),
            "C",
            "m",
            t0,
        );
        for _ in 0..3 {
            call(&breaker, F, t0).unwrap();
        }
        call(&breaker, S, t0 + Duration::from_secs(9)).unwrap();
        assert_eq!(breaker.state(), BreakerState::Open, "3 of 4 within 10s");
    }

    #[test]
    fn half_open_admits_exactly_the_trial_calls() {
        let t0 = Instant::now();
        let breaker = tripped(settings(Window::Calls(10), 5, 4), t0);
        let t1 = t0 + Duration::from_secs(5);
        let permits: Vec<_> = (0..4).map(|_| breaker.try_acquire(t1).unwrap()).collect();
        assert_eq!(breaker.state(), BreakerState::HalfOpen);
        assert!(
            breaker.try_acquire(t1).is_err(),
            "a fifth call is short-circuited"
        );
        for permit in permits {
            breaker.record(permit, S, t1);
        }
        assert_eq!(breaker.state(), BreakerState::Closed);
    }

    #[test]
    fn trials_f_f_s_f_reopen_and_f_s_s_s_close() {
        let t0 = Instant::now();
        let breaker = tripped(settings(Window::Calls(10), 5, 4), t0);
        let t1 = t0 + Duration::from_secs(5);
        for outcome in [F, F, S, F] {
            call(&breaker, outcome, t1).unwrap();
        }
        assert_eq!(breaker.state(), BreakerState::Open);

        let breaker = tripped(settings(Window::Calls(10), 5, 4), t0);
        for outcome in [F, S, S, S] {
            call(&breaker, outcome, t1).unwrap();
        }
        assert_eq!(breaker.state(), BreakerState::Closed, "25% < 50%");
    }

    #[test]
    fn slow_successes_alone_can_open_it() {
        let t0 = Instant::now();
        let mut s = settings(Window::Calls(10), 4, 4);
        s.slow_call = Some((Duration::from_secs(2), 75.0));
        let breaker = Breaker::new(s, "C", "m", t0);
        let slow = Outcome::Success { slow: true };
        for outcome in [slow, slow, S] {
            call(&breaker, outcome, t0).unwrap();
        }
        call(&breaker, slow, t0).unwrap();
        assert_eq!(breaker.state(), BreakerState::Open, "3 of 4 slow: 75%");
    }

    #[test]
    fn open_for_doubles_on_each_reopen_and_caps() {
        let t0 = Instant::now();
        let mut s = settings(Window::Calls(10), 5, 1);
        s.open_for_max = Duration::from_secs(30);
        let breaker = tripped(s, t0);
        let mut now = t0;
        for expected in [5, 10, 20, 30, 30] {
            assert_eq!(
                breaker.try_acquire(now).unwrap_err(),
                Duration::from_secs(expected)
            );
            now += Duration::from_secs(expected);
            call(&breaker, F, now).unwrap(); // the one trial fails: re-open
        }
        // A successful trial closes it and resets the doubling.
        now += Duration::from_secs(30);
        call(&breaker, S, now).unwrap();
        assert_eq!(breaker.state(), BreakerState::Closed);
        for _ in 0..5 {
            call(&breaker, F, now).unwrap();
        }
        assert_eq!(
            breaker.try_acquire(now).unwrap_err(),
            Duration::from_secs(5)
        );
    }

    #[test]
    fn an_ignored_outcome_releases_its_half_open_slot() {
        let t0 = Instant::now();
        let breaker = tripped(settings(Window::Calls(10), 5, 1), t0);
        let t1 = t0 + Duration::from_secs(5);
        let trial = breaker.try_acquire(t1).unwrap();
        assert!(breaker.try_acquire(t1).is_err());
        breaker.record(trial, Outcome::Ignored, t1);
        assert_eq!(
            breaker.state(),
            BreakerState::HalfOpen,
            "a 4xx decides nothing"
        );
        let trial = breaker.try_acquire(t1).expect("the slot was released");
        breaker.record(trial, S, t1);
        assert_eq!(breaker.state(), BreakerState::Closed);
    }

    #[test]
    fn a_trial_dropped_mid_flight_releases_its_slot() {
        let t0 = Instant::now();
        let breaker = tripped(settings(Window::Calls(10), 5, 1), t0);
        let t1 = t0 + Duration::from_secs(5);
        let trial = breaker.try_acquire(t1).unwrap();
        drop(trial);
        let trial = breaker
            .try_acquire(t1)
            .expect("the dropped trial's slot is free");
        breaker.record(trial, S, t1);
        assert_eq!(breaker.state(), BreakerState::Closed);
    }

    #[test]
    fn a_call_admitted_before_a_transition_does_not_count_after_it() {
        let t0 = Instant::now();
        let breaker = Breaker::new(settings(Window::Calls(10), 5, 1), "C", "m", t0);
        let early = breaker.try_acquire(t0).unwrap();
        for _ in 0..5 {
            call(&breaker, F, t0).unwrap();
        }
        let t1 = t0 + Duration::from_secs(5);
        let trial = breaker.try_acquire(t1).unwrap();
        breaker.record(early, F, t1); // from the closed period: ignored
        breaker.record(trial, S, t1);
        assert_eq!(breaker.state(), BreakerState::Closed);
    }
}

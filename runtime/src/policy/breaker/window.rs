//! The closed state's window: the outcomes of the last N calls, or of the last period, kept
//! without a lock so that admitting and recording a call stays a few atomic operations.

use std::sync::atomic::{AtomicI64, AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use remcall_profile::Window;

/// Counts over the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) calls: u32,
    pub(super) failures: u32,
    pub(super) slow: u32,
}

/// The closed-state window, lock-free: a ring of the last N outcomes, or per-tick buckets.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "the count window's padding is the point: one breaker per method, never moved"
)]
pub(super) enum RollingWindow {
    Count(CountWindow),
    Time(TimeWindow),
}

impl RollingWindow {
    pub(super) fn new(window: Window) -> RollingWindow {
        match window {
            Window::Calls(n) => RollingWindow::Count(CountWindow::new(n.max(1) as usize)),
            Window::Time(period) => RollingWindow::Time(TimeWindow::new(period)),
        }
    }

    /// Records an outcome; the window's counts when they need judging, `None` when the outcome
    /// cannot have pushed a rate up: a plain success, once the window holds `min_calls` calls and
    /// has not moved on since the last judgement.
    #[inline]
    pub(super) fn record(
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

    pub(super) fn reset(&self) {
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
pub(super) struct CountWindow {
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
    pub(super) fn new(size: usize) -> CountWindow {
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
pub(super) fn fast_mod(a: u32, reciprocal: u64, d: u32) -> u32 {
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
pub(super) struct TimeWindow {
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
}

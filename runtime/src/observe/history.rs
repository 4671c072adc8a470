//! The last two minutes of a method, second by second, for the dashboard's sparklines (feature
//! `dashboard`): calls, errors, fallback answers, retries, hedges and short-circuits, streamed
//! events and broken and resumed streams, and a coarse latency histogram for each second's p99.
//!
//! A ring of 120 one-second slots, fixed in size (20.6 KiB a method, made with the method's state
//! on its first call), written with relaxed atomic adds on the call path and no lock: a slot is
//! claimed for its second by a compare-exchange on its second number, which also clears it. A
//! reader may see a slot being cleared as a second of zeros; the page draws it and moves on.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

/// Seconds kept.
pub const SECONDS: usize = 120;

/// Latency buckets of a second: 50 µs × √2^i, the last one open (above 1.6 s).
const BUCKETS: usize = 32;

#[derive(Debug)]
struct Slot {
    /// The second this slot holds, +1 (0: never used).
    second: AtomicU64,
    calls: AtomicU32,
    errors: AtomicU32,
    fallbacks: AtomicU32,
    retries: AtomicU32,
    hedges: AtomicU32,
    short_circuited: AtomicU32,
    events: AtomicU32,
    streams_broken: AtomicU32,
    resumes: AtomicU32,
    latency: [AtomicU32; BUCKETS],
}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            second: AtomicU64::new(0),
            calls: AtomicU32::new(0),
            errors: AtomicU32::new(0),
            fallbacks: AtomicU32::new(0),
            retries: AtomicU32::new(0),
            hedges: AtomicU32::new(0),
            short_circuited: AtomicU32::new(0),
            events: AtomicU32::new(0),
            streams_broken: AtomicU32::new(0),
            resumes: AtomicU32::new(0),
            latency: std::array::from_fn(|_| AtomicU32::new(0)),
        }
    }
}

/// One method's last two minutes.
#[derive(Debug)]
pub(crate) struct History {
    base: Instant,
    slots: Box<[Slot]>,
}

/// What happened to a call, for the history.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    /// A call ended; `failed` when it did not answer, `latency` when it was sent.
    Call {
        failed: bool,
        short_circuited: bool,
        latency: Option<Duration>,
    },
    Retry,
    Hedge,
    /// A failed call a fallback answered.
    Fallback,
    /// Items a stream delivered.
    StreamItems(u32),
    /// A stream that broke off and was not resumed.
    StreamBroken,
    /// A stream reopened from its last event id.
    StreamResumed,
}

/// One second of a method, as `/stats.json` shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Second {
    /// Calls that ended in this second.
    pub calls: u32,
    /// Of them, failures (short-circuited, rejected and rate-limited included).
    pub errors: u32,
    /// Of the failures, those a fallback answered.
    pub fallbacks: u32,
    /// Retries sent.
    pub retries: u32,
    /// Hedges sent.
    pub hedges: u32,
    /// Calls refused by an open breaker.
    pub short_circuited: u32,
    /// Streamed events or lines delivered.
    pub events: u32,
    /// Streams that broke off and were not resumed.
    pub streams_broken: u32,
    /// Streams reopened from their last event id.
    pub resumes: u32,
    /// The second's 99th-percentile latency, in ms (within a factor of √2); 0 without calls.
    pub p99_ms: f64,
}

impl History {
    pub(crate) fn new(now: Instant) -> History {
        History {
            base: now,
            slots: (0..SECONDS).map(|_| Slot::default()).collect(),
        }
    }

    fn second(&self, now: Instant) -> u64 {
        now.saturating_duration_since(self.base).as_secs()
    }

    fn slot(&self, now: Instant) -> &Slot {
        let second = self.second(now);
        let slot = &self.slots[(second % SECONDS as u64) as usize];
        if crate::period::claim(&slot.second, second + 1) {
            for count in [
                &slot.calls,
                &slot.errors,
                &slot.fallbacks,
                &slot.retries,
                &slot.hedges,
                &slot.short_circuited,
                &slot.events,
                &slot.streams_broken,
                &slot.resumes,
            ]
            .into_iter()
            .chain(slot.latency.iter())
            {
                count.store(0, Ordering::Relaxed);
            }
        }
        slot
    }

    pub(crate) fn record(&self, event: Event, now: Instant) {
        let slot = self.slot(now);
        let bump = |c: &AtomicU32| {
            c.fetch_add(1, Ordering::Relaxed);
        };
        match event {
            Event::Call {
                failed,
                short_circuited,
                latency,
            } => {
                bump(&slot.calls);
                if failed {
                    bump(&slot.errors);
                }
                if short_circuited {
                    bump(&slot.short_circuited);
                }
                if let Some(latency) = latency {
                    bump(&slot.latency[bucket(latency)]);
                }
            }
            Event::Retry => bump(&slot.retries),
            Event::Hedge => bump(&slot.hedges),
            Event::Fallback => bump(&slot.fallbacks),
            Event::StreamItems(n) => {
                slot.events.fetch_add(n, Ordering::Relaxed);
            }
            Event::StreamBroken => bump(&slot.streams_broken),
            Event::StreamResumed => bump(&slot.resumes),
        }
    }

    /// The last `SECONDS` complete seconds, oldest first (the current one is still filling).
    pub(crate) fn series(&self, now: Instant) -> Vec<Second> {
        let current = self.second(now);
        (1..=SECONDS as u64)
            .rev()
            .map(|back| {
                let Some(second) = current.checked_sub(back) else {
                    return Second::default();
                };
                let slot = &self.slots[(second % SECONDS as u64) as usize];
                if slot.second.load(Ordering::Acquire) != second + 1 {
                    return Second::default();
                }
                let load = |c: &AtomicU32| c.load(Ordering::Relaxed);
                let counts: Vec<u32> = slot.latency.iter().map(load).collect();
                Second {
                    calls: load(&slot.calls),
                    errors: load(&slot.errors),
                    fallbacks: load(&slot.fallbacks),
                    retries: load(&slot.retries),
                    hedges: load(&slot.hedges),
                    short_circuited: load(&slot.short_circuited),
                    events: load(&slot.events),
                    streams_broken: load(&slot.streams_broken),
                    resumes: load(&slot.resumes),
                    p99_ms: p99_ms(&counts),
                }
            })
            .collect()
    }
}

/// The first bucket whose upper bound, 50 µs × √2^i, holds `latency`: the least i with
/// 2,500 × 2^i ≥ µs², in integers (a logarithm on every call costs a libm call and its table).
fn bucket(latency: Duration) -> usize {
    // Above 2^31 µs (36 min) it is the open bucket anyway; the square then fits a u64.
    let micros = latency.as_micros().min(1 << 31) as u64;
    let needed = (micros * micros).div_ceil(2_500).max(1);
    (needed.next_power_of_two().trailing_zeros() as usize).min(BUCKETS - 1)
}

/// The upper bound of a bucket, in ms.
fn upper_ms(index: usize) -> f64 {
    0.05 * 2f64.powf(index as f64 / 2.0)
}

fn p99_ms(counts: &[u32]) -> f64 {
    let total: u64 = counts.iter().map(|c| u64::from(*c)).sum();
    if total == 0 {
        return 0.0;
    }
    let rank = ((total as f64) * 0.99).ceil() as u64;
    let mut seen = 0;
    for (index, count) in counts.iter().enumerate() {
        seen += u64::from(*count);
        if seen >= rank {
            return (upper_ms(index) * 1000.0).round() / 1000.0;
        }
    }
    upper_ms(BUCKETS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(latency_ms: u64, failed: bool) -> Event {
        Event::Call {
            failed,
            short_circuited: false,
            latency: Some(Duration::from_millis(latency_ms)),
        }
    }

    #[test]
    fn seconds_are_counted_apart_and_forgotten_after_two_minutes() {
        let t0 = Instant::now();
        let history = History::new(t0);
        for _ in 0..99 {
            history.record(call(10, false), t0);
        }
        history.record(call(400, true), t0);
        history.record(Event::Fallback, t0);
        history.record(Event::Retry, t0);
        let one = t0 + Duration::from_secs(1);
        history.record(Event::Hedge, one);
        history.record(call(5, false), one);

        let series = history.series(t0 + Duration::from_secs(2));
        assert_eq!(series.len(), SECONDS);
        let (first, second) = (&series[SECONDS - 2], &series[SECONDS - 1]);
        assert_eq!(
            (first.calls, first.errors, first.fallbacks, first.retries),
            (100, 1, 1, 1)
        );
        assert_eq!(second.fallbacks, 0);
        assert!(
            (10.0..=14.2).contains(&first.p99_ms),
            "p99 of 99 × 10 ms and one 400 ms: {}",
            first.p99_ms
        );
        assert_eq!((second.calls, second.hedges), (1, 1));
        history.record(Event::StreamItems(7), one);
        history.record(Event::StreamBroken, one);
        history.record(Event::StreamResumed, one);
        let second = &history.series(t0 + Duration::from_secs(2))[SECONDS - 1];
        assert_eq!(
            (second.events, second.streams_broken, second.resumes),
            (7, 1, 1)
        );
        assert!(series[..SECONDS - 2].iter().all(|s| s.calls == 0));

        // Two minutes on, the slots are reused and the old seconds are gone.
        let later = t0 + Duration::from_secs(SECONDS as u64 + 1);
        history.record(call(1, false), later);
        let series = history.series(later + Duration::from_secs(1));
        assert_eq!(series.iter().map(|s| s.calls).sum::<u32>(), 1);
    }

    #[test]
    fn a_latency_lands_in_the_first_bucket_that_holds_it() {
        for micros in (0..200_000)
            .step_by(7)
            .chain([50, 51, 70, 71, 100, 101, 2_317_000, 2_318_000])
        {
            let index = bucket(Duration::from_micros(micros));
            let millis = micros as f64 / 1000.0;
            // The last bucket is open above.
            if index < BUCKETS - 1 {
                assert!(
                    millis <= upper_ms(index) * (1.0 + 1e-9),
                    "{micros} µs over {index}"
                );
            }
            if index > 0 {
                assert!(
                    millis > upper_ms(index - 1) * (1.0 - 1e-9),
                    "{micros} µs under {index}"
                );
            }
        }
        assert_eq!(bucket(Duration::from_secs(3600)), BUCKETS - 1);
        assert_eq!(bucket(Duration::MAX), BUCKETS - 1);
    }

    #[test]
    fn the_ring_is_of_fixed_size() {
        // The figure docs/endpoints.md states.
        assert_eq!(std::mem::size_of::<Slot>() * SECONDS, 21_120);
    }
}

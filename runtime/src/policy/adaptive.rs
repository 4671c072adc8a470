//! The adaptive concurrency limit: how many calls may be in flight follows the latency the
//! downstream shows, between `min` and `max`. A healthy downstream gets room to grow; one that
//! queues (its latency rises) or drops calls gets fewer at once, so the calls admitted keep their
//! latency and the rest are rejected at once instead of piling up.
//!
//! The algorithms are Netflix concurrency-limits' (Gradient2, AIMD, Vegas), rewritten as pure
//! functions of one sample so that tests drive them with synthetic latencies.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use remcall_profile::LimitAlgorithm;
use tokio::sync::Notify;

/// One finished call as the limit sees it.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// From admission to answer.
    pub rtt: Duration,
    /// Calls in flight when this one was admitted, itself included.
    pub in_flight: u32,
    /// The downstream dropped or refused it (a timeout, a refused connection, 429, 503).
    pub dropped: bool,
    /// When it finished, since the limit was made.
    pub at: Duration,
}

/// The limit and the calls under it.
#[derive(Debug)]
pub struct AdaptiveLimit {
    limit: AtomicU32,
    in_flight: AtomicU32,
    estimator: Mutex<Estimator>,
    room: Notify,
    created: tokio::time::Instant,
    max_wait: Duration,
}

/// An admitted call's place under the limit: give it back with [`Admitted::finish`] and a
/// sample, or drop it (a cancelled call teaches the limit nothing).
#[derive(Debug)]
pub struct Admitted<'a> {
    limit: &'a AdaptiveLimit,
    in_flight: u32,
}

impl AdaptiveLimit {
    pub fn new(
        algorithm: LimitAlgorithm,
        initial: u32,
        min: u32,
        max: u32,
        max_wait: Duration,
    ) -> AdaptiveLimit {
        AdaptiveLimit {
            limit: AtomicU32::new(initial),
            in_flight: AtomicU32::new(0),
            estimator: Mutex::new(Estimator::new(algorithm, initial, min, max)),
            room: Notify::new(),
            created: tokio::time::Instant::now(),
            max_wait,
        }
    }

    /// The current limit.
    pub fn limit(&self) -> u32 {
        self.limit.load(Ordering::Relaxed)
    }

    /// How long a call waits for room.
    pub fn max_wait(&self) -> Duration {
        self.max_wait
    }

    /// Calls in flight now.
    pub fn in_flight(&self) -> u32 {
        self.in_flight.load(Ordering::Relaxed)
    }

    fn try_admit(&self) -> Option<Admitted<'_>> {
        let limit = self.limit();
        self.in_flight
            .fetch_update(Ordering::Acquire, Ordering::Relaxed, |n| {
                (n < limit).then_some(n + 1)
            })
            .ok()
            .map(|before| Admitted {
                limit: self,
                in_flight: before + 1,
            })
    }

    /// A place under the limit, waiting up to `max_wait` for one; `None` when there is none.
    pub async fn admit(&self) -> Option<Admitted<'_>> {
        if let Some(admitted) = self.try_admit() {
            return Some(admitted);
        }
        if self.max_wait.is_zero() {
            return None;
        }
        let deadline = tokio::time::Instant::now() + self.max_wait;
        loop {
            let room = self.room.notified();
            if let Some(admitted) = self.try_admit() {
                return Some(admitted);
            }
            if tokio::time::timeout_at(deadline, room).await.is_err() {
                return self.try_admit();
            }
        }
    }
}

impl Admitted<'_> {
    /// Gives the place back, teaching the limit what the call saw.
    pub fn finish(self, rtt: Duration, dropped: bool) {
        let sample = Sample {
            rtt,
            in_flight: self.in_flight,
            dropped,
            at: self.limit.created.elapsed(),
        };
        let limit = self
            .limit
            .estimator
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .update(sample);
        self.limit.limit.store(limit, Ordering::Relaxed);
        // Dropping self releases the place.
    }
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        self.limit.in_flight.fetch_sub(1, Ordering::Release);
        self.limit.room.notify_one();
    }
}

/// Gradient2 updates once per window: at least this long and 10 samples. Netflix's is a second;
/// a tenth of one lets the limit follow a halved capacity within a second or two, while the
/// baseline's 600 windows still span a minute.
const WINDOW: Duration = Duration::from_millis(100);

/// How much above its baseline Gradient2 lets latency go before the limit comes down. Netflix's
/// default is 1.5; 1.2 keeps the calls admitted under overload within about twice the unloaded
/// latency (the overload bench), for a few percent of goodput.
const TOLERANCE: f64 = 1.2;

/// Gradient2's queue allowance: calls above the latency-derived limit, so that it can grow
/// (Netflix's default).
const QUEUE: f64 = 4.0;

/// Gradient2's window of samples.
#[derive(Debug, Default)]
struct Window {
    opened: Duration,
    rtt_sum: f64,
    rtt_min: f64,
    samples: u32,
    dropped: bool,
    in_flight: u32,
}

/// The state of one algorithm; `update` returns the new limit.
#[derive(Debug)]
pub struct Estimator {
    algorithm: LimitAlgorithm,
    /// The limit as a real number: the steps are fractions of a call.
    limit: f64,
    min: f64,
    max: f64,
    /// Gradient2: the long-term latency (an exponential average of 600 windows up, 10 down), in µs.
    long_rtt: f64,
    /// Gradient2: the window being filled, and how many have been.
    window: Window,
    windows: u64,
    /// The tests' clock.
    #[cfg(test)]
    clock: Duration,
    /// Vegas: the least latency seen, the downstream's time without a queue, in µs.
    no_load_rtt: f64,
}

impl Estimator {
    pub fn new(algorithm: LimitAlgorithm, initial: u32, min: u32, max: u32) -> Estimator {
        Estimator {
            algorithm,
            limit: f64::from(initial),
            min: f64::from(min),
            max: f64::from(max),
            long_rtt: 0.0,
            window: Window::default(),
            windows: 0,
            no_load_rtt: f64::INFINITY,
            #[cfg(test)]
            clock: Duration::ZERO,
        }
    }

    /// Takes one sample; the limit it leads to.
    pub fn update(&mut self, sample: Sample) -> u32 {
        let rtt = sample.rtt.as_secs_f64() * 1e6;
        let next = match self.algorithm {
            LimitAlgorithm::Gradient2 => self.gradient2(rtt, sample),
            LimitAlgorithm::Aimd => self.aimd(sample),
            LimitAlgorithm::Vegas => self.vegas(rtt, sample),
        };
        self.limit = next.clamp(self.min, self.max);
        self.limit as u32
    }

    /// Gradient2, once per window of samples (100 ms and at least 10 samples): the ratio of the long-term latency (an exponential average over 600
    /// windows, quicker going down) to the window's average, times a tolerance of 1.2, scales the limit (between
    /// ×0.5 and ×1), plus a queue allowance of 4 calls so that it can grow; smoothed by 0.2. A
    /// window with a drop takes a tenth off instead; a limit far from used does not grow.
    fn gradient2(&mut self, rtt: f64, sample: Sample) -> f64 {
        let window = &mut self.window;
        window.rtt_sum += rtt;
        window.rtt_min = if window.samples == 0 {
            rtt
        } else {
            window.rtt_min.min(rtt)
        };
        if window.samples == 0 {
            window.opened = sample.at;
        }
        window.samples += 1;
        window.dropped |= sample.dropped;
        window.in_flight = window.in_flight.max(sample.in_flight);
        if window.samples < 10 || sample.at.saturating_sub(window.opened) < WINDOW {
            return self.limit;
        }
        let Window {
            rtt_sum,
            rtt_min,
            samples,
            dropped,
            in_flight,
            ..
        } = std::mem::take(window);
        if dropped {
            return self.limit * 0.9;
        }
        let short = rtt_sum / f64::from(samples);
        self.windows += 1;
        // The baseline: an exponential average over 600 windows going up, over 10 going down.
        // Netflix's is symmetric, and a client that starts under overload (or stays in it)
        // takes the queued latency for normal and lets the limit grow; biased low, the baseline
        // stays near the downstream's latency without a queue, as Vegas's minimum does.
        // It starts from the first window's quickest call: a client that starts under load
        // sees its first calls answered before the queue builds.
        if self.windows == 1 {
            self.long_rtt = rtt_min;
        }
        let weight = if short < self.long_rtt {
            2.0 / 11.0
        } else {
            2.0 / 601.0
        };
        self.long_rtt += (short - self.long_rtt) * weight;
        if f64::from(in_flight) < self.limit / 2.0 {
            return self.limit;
        }
        let gradient = (TOLERANCE * self.long_rtt / short).clamp(0.5, 1.0);
        let target = self.limit * gradient + QUEUE;
        self.limit * 0.8 + target * 0.2
    }

    /// AIMD: one more while calls succeed with the limit in use, ×0.9 when one is dropped.
    fn aimd(&mut self, sample: Sample) -> f64 {
        if sample.dropped {
            self.limit * 0.9
        } else if f64::from(sample.in_flight) * 2.0 >= self.limit {
            self.limit + 1.0
        } else {
            self.limit
        }
    }

    /// Vegas: the queue is limit × (1 − no-load latency / latency); below α = 3·log10(limit)
    /// calls queued the limit grows by log10(limit), above β = 6·log10(limit) it shrinks by as
    /// much; a drop takes a tenth off.
    fn vegas(&mut self, rtt: f64, sample: Sample) -> f64 {
        if rtt > 0.0 {
            self.no_load_rtt = self.no_load_rtt.min(rtt);
        }
        let log = self.limit.max(1.0).log10().max(1.0);
        if sample.dropped {
            // Netflix's Vegas takes log10(limit) off here; a tenth, as the others do, lets a
            // limit of hundreds come down within a second of drops.
            return self.limit * 0.9;
        }
        if f64::from(sample.in_flight) * 2.0 < self.limit {
            return self.limit;
        }
        let queue = (self.limit * (1.0 - self.no_load_rtt / rtt)).ceil();
        if queue <= 3.0 * log {
            self.limit + log
        } else if queue >= 6.0 * log {
            self.limit - log
        } else {
            self.limit
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// `count` samples of `rtt`, one a millisecond, with the limit fully used.
    fn feed(estimator: &mut Estimator, count: usize, rtt: Duration, dropped: bool) -> u32 {
        let mut limit = 0;
        for _ in 0..count {
            let in_flight = estimator.limit as u32;
            estimator.clock += ms(1);
            limit = estimator.update(Sample {
                rtt,
                in_flight,
                dropped,
                at: estimator.clock,
            });
        }
        limit
    }

    #[test]
    fn every_algorithm_grows_on_steady_latency_and_shrinks_when_it_rises() {
        for algorithm in [
            LimitAlgorithm::Gradient2,
            LimitAlgorithm::Aimd,
            LimitAlgorithm::Vegas,
        ] {
            let mut estimator = Estimator::new(algorithm, 20, 2, 500);
            let grown = feed(&mut estimator, 400, ms(10), false);
            assert!(grown > 20, "{algorithm:?} grows on steady 10 ms: {grown}");
            let after_drops = feed(&mut estimator, 1_000, ms(10), true);
            assert!(
                after_drops < grown / 2,
                "{algorithm:?} shrinks on drops: {grown} → {after_drops}"
            );
        }
    }

    #[test]
    fn gradient2_and_vegas_shrink_when_the_downstream_queues() {
        for algorithm in [LimitAlgorithm::Gradient2, LimitAlgorithm::Vegas] {
            let mut estimator = Estimator::new(algorithm, 100, 2, 500);
            let steady = feed(&mut estimator, 3_000, ms(10), false);
            // The downstream starts queueing: every call takes five times as long.
            let queued = feed(&mut estimator, 2_000, ms(50), false);
            assert!(
                queued < steady / 2,
                "{algorithm:?}: {steady} at 10 ms, {queued} at 50 ms"
            );
            assert!(queued >= 2, "never below min");
        }
    }

    #[test]
    fn the_limit_stays_within_min_and_max_and_does_not_grow_unused() {
        let mut estimator = Estimator::new(LimitAlgorithm::Gradient2, 20, 5, 40);
        assert_eq!(feed(&mut estimator, 5_000, ms(10), false), 40);
        assert_eq!(feed(&mut estimator, 2_000, ms(10), true), 5);
        let mut idle = Estimator::new(LimitAlgorithm::Aimd, 20, 2, 500);
        for _ in 0..100 {
            idle.update(Sample {
                rtt: ms(10),
                in_flight: 1,
                dropped: false,
                at: Duration::ZERO,
            });
        }
        assert_eq!(idle.limit as u32, 20, "one call at a time earns no room");
    }

    #[tokio::test(start_paused = true)]
    async fn calls_past_the_limit_wait_up_to_max_wait_then_are_refused() {
        // min = max: the limit stays 2 whatever the samples say.
        let limit = AdaptiveLimit::new(LimitAlgorithm::Aimd, 2, 2, 2, ms(100));
        let first = limit.admit().await.unwrap();
        let _second = limit.admit().await.unwrap();
        assert!(limit.try_admit().is_none());
        // A place given back within max_wait lets a waiter in.
        let (admitted, ()) = tokio::join!(limit.admit(), async {
            tokio::time::sleep(ms(50)).await;
            first.finish(ms(10), false);
        });
        assert!(admitted.is_some());
        assert_eq!(limit.in_flight(), 2);
        // None given back: refused after max_wait.
        let started = tokio::time::Instant::now();
        assert!(limit.admit().await.is_none());
        assert_eq!(started.elapsed(), ms(100));
    }
}

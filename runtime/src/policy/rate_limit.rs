//! The rate limiter: a generic cell rate algorithm on one atomic, `per_second` calls on average
//! with `burst` at once; a call waits at most `max_wait` for its turn.
//!
//! Why not governor: a call here reserves its turn, so one whose turn is past `max_wait` is
//! refused at once and one cancelled while it waits gives its turn back (governor checks, and a
//! waiter may lose its turn to a newcomer); and on the call path, where the clock has been read
//! already, an admission costs 7.9 ns against governor's 10.2 ns (`bench/benches/policies.rs`,
//! docs/BENCHMARKS.md).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use remcall_profile::RateLimitSettings;
use tokio::time::Instant;

/// GCRA: `tat` is the theoretical arrival time of the next call, in nanoseconds since `base`.
#[derive(Debug)]
pub struct RateLimiter {
    interval: u64,
    tolerance: u64,
    max_wait: Duration,
    base: Instant,
    tat: AtomicU64,
}

/// A reserved turn. Dropping it before its wait is over gives the turn back.
#[derive(Debug)]
pub struct Reservation<'a> {
    limiter: &'a RateLimiter,
    wait: Duration,
}

impl RateLimiter {
    pub fn new(settings: &RateLimitSettings, now: Instant) -> RateLimiter {
        let per_second = if settings.per_second > 0.0 {
            settings.per_second
        } else {
            f64::MIN_POSITIVE
        };
        let interval = (1e9 / per_second).clamp(1.0, u64::MAX as f64) as u64;
        RateLimiter {
            interval,
            tolerance: interval.saturating_mul(u64::from(settings.burst.max(1))),
            max_wait: settings.max_wait,
            base: now,
            tat: AtomicU64::new(0),
        }
    }

    /// Reserves a turn, or refuses when it is further away than `max_wait`.
    pub fn reserve(&self, now: Instant) -> Option<Reservation<'_>> {
        let now =
            u64::try_from(now.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX);
        let mut tat = self.tat.load(Ordering::Acquire);
        loop {
            let next = tat.max(now).saturating_add(self.interval);
            let wait =
                Duration::from_nanos(next.saturating_sub(now.saturating_add(self.tolerance)));
            if wait > self.max_wait {
                return None;
            }
            match self
                .tat
                .compare_exchange_weak(tat, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    return Some(Reservation {
                        limiter: self,
                        wait,
                    });
                }
                Err(current) => tat = current,
            }
        }
    }
}

impl RateLimiter {
    /// Leaves `share` (0 to 1) of the burst: from `now` on, calls pass at the average rate after
    /// that many. A shared limit's local share starts so when Redis goes away, with the part of
    /// the fleet's burst Redis last said was left, grown by the time since: the fleet's second
    /// of the switch gets no more than the shared burst would have given, and a burst of calls
    /// is not refused whole because the switch came.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn leave_burst(&self, now: Instant, share: f64) {
        let now =
            u64::try_from(now.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX);
        let spent = (self.tolerance as f64 * (1.0 - share.clamp(0.0, 1.0))) as u64;
        self.tat
            .fetch_max(now.saturating_add(spent), Ordering::AcqRel);
    }
}

impl Reservation<'_> {
    /// True when the turn is later than now: the call waits for it.
    pub(crate) fn waits(&self) -> bool {
        !self.wait.is_zero()
    }

    /// Waits for the reserved turn.
    pub(crate) async fn ready(mut self) {
        if !self.wait.is_zero() {
            tokio::time::sleep(self.wait).await;
        }
        self.wait = Duration::ZERO;
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.wait.is_zero() {
            // Cancelled while waiting: the turn was never used.
            self.limiter
                .tat
                .fetch_sub(self.limiter.interval, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(per_second: f64, burst: u32, max_wait_ms: u64, now: Instant) -> RateLimiter {
        RateLimiter::new(
            &RateLimitSettings {
                per_second,
                burst,
                max_wait: Duration::from_millis(max_wait_ms),
                shared: None,
            },
            now,
        )
    }

    #[test]
    fn a_burst_passes_then_the_rate_holds() {
        let t0 = Instant::now();
        let limiter = limiter(10.0, 3, 0, t0);
        let admitted = (0..10).filter(|_| limiter.reserve(t0).is_some()).count();
        assert_eq!(admitted, 3);
        assert!(limiter.reserve(t0 + Duration::from_millis(99)).is_none());
        assert!(
            limiter.reserve(t0 + Duration::from_millis(100)).is_some(),
            "one more every 100 ms"
        );
        assert!(limiter.reserve(t0 + Duration::from_millis(100)).is_none());
        let later = t0 + Duration::from_secs(10);
        assert_eq!(
            (0..10).filter(|_| limiter.reserve(later).is_some()).count(),
            3,
            "idle time refills only the burst"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_waits_up_to_max_wait_for_its_turn() {
        let t0 = Instant::now();
        let limiter = limiter(10.0, 1, 250, t0);
        limiter.reserve(t0).unwrap().ready().await;
        let turn = limiter.reserve(t0).unwrap();
        assert_eq!(turn.wait, Duration::from_millis(100));
        turn.ready().await;
        assert_eq!(t0.elapsed(), Duration::from_millis(100));
        let now = Instant::now();
        let first = limiter.reserve(now).unwrap();
        let second = limiter.reserve(now).unwrap();
        assert_eq!(
            (first.wait, second.wait),
            (Duration::from_millis(100), Duration::from_millis(200))
        );
        assert!(
            limiter.reserve(now).is_none(),
            "a 300 ms wait is past max_wait"
        );
    }

    /// docs/resilience.md's example: 60 calls at once against `{ per_second: 20 }`.
    #[test]
    fn sixty_calls_at_once_against_twenty_a_second_as_documented() {
        let t0 = Instant::now();
        let settings = |yaml: &str| {
            remcall_profile::Settings::from_profile(
                &remcall_profile::Profile::from_yaml_str(yaml).unwrap(),
            )
            .rate_limit
            .unwrap()
        };
        let defaults = settings("rate_limit: { per_second: 20 }");
        assert_eq!((defaults.burst, defaults.max_wait), (20, Duration::ZERO));
        let limiter = RateLimiter::new(&defaults, t0);
        let passed = (0..60).filter(|_| limiter.reserve(t0).is_some()).count();
        assert_eq!(
            passed, 20,
            "max_wait 0s: the burst passes, the other 40 fail at once"
        );

        let queued = RateLimiter::new(
            &settings("rate_limit: { per_second: 20, max_wait: 2s }"),
            t0,
        );
        // Held, not dropped: a reservation dropped while it waits gives its turn back.
        let turns: Vec<Reservation<'_>> = (0..60).map(|_| queued.reserve(t0).unwrap()).collect();
        assert_eq!(turns[19].wait, Duration::ZERO);
        assert_eq!(turns[20].wait, Duration::from_millis(50));
        assert_eq!(
            turns[59].wait,
            Duration::from_secs(2),
            "the last waits 40 turns of 50 ms"
        );
        assert!(
            queued.reserve(t0).is_none(),
            "a 61st would wait past max_wait"
        );
    }

    #[test]
    fn a_cancelled_reservation_gives_its_turn_back() {
        let t0 = Instant::now();
        let limiter = limiter(10.0, 1, 1000, t0);
        drop(limiter.reserve(t0).unwrap()); // no wait: the turn was used
        let waiting = limiter.reserve(t0).unwrap();
        assert_eq!(waiting.wait, Duration::from_millis(100));
        drop(waiting);
        assert_eq!(
            limiter.reserve(t0).unwrap().wait,
            Duration::from_millis(100),
            "the same turn again"
        );
    }
}

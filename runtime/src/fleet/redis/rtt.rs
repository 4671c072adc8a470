//! How long a Redis command is waited on: the profile's `timeout` at least, and as much as the
//! round trips measured here need — RFC 6298's retransmission timeout (smoothed round trip plus
//! four deviations), doubled after each expiry, at most ten times `timeout`. On a loaded host a
//! command's answer waits for the runtime to be polled, so the round trips a replica sees grow
//! with its CPU's load; a fixed 50 ms then called a live Redis down and sent the fleet to its
//! `on_error` over and over. A Redis that is really down still costs one call at most the
//! ceiling: after it, the link is down and calls decide at once.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The timeout of one link.
#[derive(Debug)]
pub(crate) struct Timeout {
    floor: Duration,
    ceiling: Duration,
    /// The smoothed round trip, in µs; 0 before the first answer.
    smoothed_us: AtomicU64,
    /// Its mean deviation, in µs.
    deviation_us: AtomicU64,
}

/// How far past the profile's `timeout` the measured round trips may take it.
const CEILING_FACTOR: u32 = 10;

impl Timeout {
    pub(crate) fn new(floor: Duration) -> Timeout {
        Timeout {
            floor,
            ceiling: floor.saturating_mul(CEILING_FACTOR),
            smoothed_us: AtomicU64::new(0),
            deviation_us: AtomicU64::new(0),
        }
    }

    /// How long the next command is waited on.
    pub(crate) fn now(&self) -> Duration {
        let smoothed = self.smoothed_us.load(Ordering::Relaxed);
        let deviation = self.deviation_us.load(Ordering::Relaxed);
        let needed = Duration::from_micros(smoothed.saturating_add(deviation.saturating_mul(4)));
        needed.clamp(self.floor, self.ceiling.max(self.floor))
    }

    /// A command answered after `rtt` (RFC 6298 §2: gains 1/8 and 1/4). Updates from calls
    /// running at once may interleave; each leaves a value between theirs, which is all an
    /// estimate needs.
    pub(crate) fn answered_in(&self, rtt: Duration) {
        let rtt = u64::try_from(rtt.as_micros()).unwrap_or(u64::MAX / 8);
        let smoothed = self.smoothed_us.load(Ordering::Relaxed);
        if smoothed == 0 {
            self.smoothed_us.store(rtt.max(1), Ordering::Relaxed);
            self.deviation_us.store(rtt / 2, Ordering::Relaxed);
            return;
        }
        let deviation = self.deviation_us.load(Ordering::Relaxed);
        let error = smoothed.abs_diff(rtt);
        self.deviation_us
            .store((deviation * 3 + error) / 4, Ordering::Relaxed);
        self.smoothed_us
            .store(((smoothed * 7 + rtt) / 8).max(1), Ordering::Relaxed);
    }

    /// A command went unanswered for [`Timeout::now`]: the next waits twice as long (RFC 6298
    /// §5.5), within the ceiling, until answers bring the estimate down again.
    pub(crate) fn expired(&self) {
        let doubled = u64::try_from(self.now().saturating_mul(2).as_micros()).unwrap_or(u64::MAX);
        let smoothed = self.smoothed_us.load(Ordering::Relaxed);
        self.deviation_us
            .store(doubled.saturating_sub(smoothed) / 4, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_fast_redis_is_waited_on_for_the_profiles_timeout() {
        let timeout = Timeout::new(50 * MS);
        assert_eq!(timeout.now(), 50 * MS);
        for _ in 0..20 {
            timeout.answered_in(MS / 4);
        }
        assert_eq!(timeout.now(), 50 * MS);
    }

    #[test]
    fn round_trips_of_a_loaded_host_lengthen_it_within_ten_times() {
        let timeout = Timeout::new(50 * MS);
        // A host whose runtime answers in 30–90 ms: waited on longer than the 50 ms asked.
        for rtt in [30, 90, 40, 80, 35, 85, 30, 90] {
            timeout.answered_in(rtt * MS);
        }
        let now = timeout.now();
        assert!(now > 90 * MS && now <= 500 * MS, "{now:?}");
        // Ever slower: capped at ten times the profile's.
        for _ in 0..50 {
            timeout.answered_in(2_000 * MS);
        }
        assert_eq!(timeout.now(), 500 * MS);
        // Quiet again: back to the profile's.
        for _ in 0..200 {
            timeout.answered_in(MS);
        }
        assert_eq!(timeout.now(), 50 * MS);
    }

    #[test]
    fn each_expiry_doubles_the_next_wait() {
        let timeout = Timeout::new(50 * MS);
        timeout.expired();
        assert_eq!(timeout.now(), 100 * MS);
        timeout.expired();
        assert_eq!(timeout.now(), 200 * MS);
        for _ in 0..5 {
            timeout.expired();
        }
        assert_eq!(timeout.now(), 500 * MS);
    }
}

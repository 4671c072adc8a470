//! Faults a stub injects, for an operation or for all: failures (a count of them, or a rate),
//! latency, a reset connection, a slow body, `Retry-After`, a stall. Random ones draw from the
//! stub's seeded generator, so a test of a breaker or a hedge is the same on every run.
// Without the `stub` feature there is no server to decide with these.
#![cfg_attr(not(feature = "stub"), allow(dead_code))]

use std::time::Duration;

/// One fault. How many requests it takes is its rule's (`times`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Fault {
    /// Answer `status`.
    Status(u16),
    /// Answer `status` to a share `rate` of requests.
    Rate { status: u16, rate: f64 },
    /// Wait before answering: half the requests under `p50`, 99 % under `p99`.
    Latency { p50: Duration, p99: Duration },
    /// Close the connection with a reset instead of answering.
    Reset,
    /// Send the body `chunk` bytes at a time, `every` apart.
    SlowBody { chunk: usize, every: Duration },
    /// Answer `status` with `Retry-After: <seconds>`.
    RetryAfter { status: u16, after: Duration },
    /// Never answer (until the client gives up).
    Stall,
    /// A streamed answer's events `every` apart.
    SlowEvents(Duration),
    /// A streamed answer broken off (the connection fails) after this many events.
    CutAfter(usize),
    /// A streamed answer silent, its connection open, after this many events.
    StallAfter(usize),
}

/// What the faults do between a streamed answer's events.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Between {
    pub(crate) every: Option<Duration>,
    pub(crate) cut_after: Option<usize>,
    pub(crate) stall_after: Option<usize>,
}

/// What the faults make of one request, decided before the answer is written.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Decided {
    pub(crate) delay: Duration,
    pub(crate) status: Option<u16>,
    pub(crate) retry_after: Option<Duration>,
    pub(crate) reset: bool,
    pub(crate) stall: bool,
    pub(crate) slow_body: Option<(usize, Duration)>,
    pub(crate) between: Between,
}

impl Decided {
    /// Adds `fault`, drawing from `rng` where it is random. The first status decided stays.
    pub(crate) fn add(&mut self, fault: &Fault, rng: &mut fastrand::Rng) {
        match fault {
            Fault::Status(status) => {
                self.status.get_or_insert(*status);
            }
            Fault::Rate { status, rate } => {
                if rng.f64() < *rate {
                    self.status.get_or_insert(*status);
                }
            }
            Fault::Latency { p50, p99 } => self.delay += latency(*p50, *p99, rng.f64()),
            Fault::Reset => self.reset = true,
            Fault::SlowBody { chunk, every } => self.slow_body = Some(((*chunk).max(1), *every)),
            Fault::RetryAfter { status, after } => {
                self.status.get_or_insert(*status);
                self.retry_after = Some(*after);
            }
            Fault::Stall => self.stall = true,
            Fault::SlowEvents(every) => self.between.every = Some(*every),
            Fault::CutAfter(n) => self.between.cut_after = Some(*n),
            Fault::StallAfter(n) => self.between.stall_after = Some(*n),
        }
    }
}

/// A latency at quantile `u` of a distribution with median `p50` and 99th percentile `p99`:
/// linear from 0 to `p50` over the first half, from `p50` to `p99` up to 0.99, and a tail
/// beyond `p99` up to twice it.
fn latency(p50: Duration, p99: Duration, u: f64) -> Duration {
    let (p50, p99) = (p50.as_secs_f64(), p99.as_secs_f64().max(p50.as_secs_f64()));
    let seconds = if u < 0.5 {
        p50 * u / 0.5
    } else if u < 0.99 {
        p50 + (p99 - p50) * (u - 0.5) / 0.49
    } else {
        p99 * (1.0 + (u - 0.99) / 0.01)
    };
    Duration::from_secs_f64(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_of_failures_follows_the_seed() {
        let run = |seed| {
            let mut rng = fastrand::Rng::with_seed(seed);
            (0..1000)
                .filter(|_| {
                    let mut decided = Decided::default();
                    decided.add(
                        &Fault::Rate {
                            status: 500,
                            rate: 0.2,
                        },
                        &mut rng,
                    );
                    decided.status.is_some()
                })
                .count()
        };
        assert_eq!(run(42), run(42), "the same seed, the same failures");
        assert!((150..250).contains(&run(42)), "{}", run(42));
    }

    #[test]
    fn latency_has_the_asked_median_and_99th_percentile() {
        let (p50, p99) = (Duration::from_millis(10), Duration::from_millis(100));
        let mut rng = fastrand::Rng::with_seed(1);
        let mut samples: Vec<Duration> =
            (0..10_000).map(|_| latency(p50, p99, rng.f64())).collect();
        samples.sort();
        let at = |q: f64| samples[(q * samples.len() as f64) as usize];
        assert!(
            at(0.5).abs_diff(p50) < Duration::from_millis(1),
            "{:?}",
            at(0.5)
        );
        assert!(
            at(0.99).abs_diff(p99) < Duration::from_millis(5),
            "{:?}",
            at(0.99)
        );
    }
}

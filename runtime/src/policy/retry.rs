//! The retry decision: which failures are retried, how long to sleep before the next attempt,
//! and what the server's `Retry-After` asks for. Pure functions; the loop lives in `call.rs`.

use std::time::{Duration, SystemTime};

use remcall_profile::{Condition, Jitter, RetrySettings};
use reqwest::header::{HeaderMap, RETRY_AFTER};

use crate::error::Error;

/// An attempt that brought no answer: the error the caller sees if it is the last, its retry
/// class, and how long the server asked to wait (`Retry-After`), if it did.
#[derive(Debug)]
pub(crate) struct FailedAttempt {
    pub(crate) error: Error,
    pub(crate) failure: AttemptFailure,
    pub(crate) retry_after: Option<Duration>,
}

impl FailedAttempt {
    /// A failure no retry can help (encoding, configuration, an interceptor's refusal).
    pub(crate) fn other(error: Error) -> FailedAttempt {
        FailedAttempt {
            error,
            failure: AttemptFailure::Other,
            retry_after: None,
        }
    }
}

/// Why an attempt failed, as far as retrying is concerned: unlike [`crate::ErrorKind`], it tells
/// a failure before anything was sent (`Connect`) from one after (`Broken`, `Timeout`), which
/// decides whether a non-idempotent request may go again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptFailure {
    /// No connection was made: nothing was sent, so even a POST may be retried.
    Connect,
    /// The attempt timed out: the request may have been processed.
    Timeout,
    /// The connection broke after the request may have been sent (reset, truncated body).
    Broken,
    /// The server answered with this status.
    Status(u16),
    /// Anything else (an encoding, decoding, size or configuration error): never retried.
    Other,
}

/// True when `failure` may be retried under `settings` for a method that is (or is not)
/// idempotent. A non-idempotent method is retried only when nothing was sent.
pub fn is_retryable(settings: &RetrySettings, failure: AttemptFailure, idempotent: bool) -> bool {
    let listed = |wanted: Condition| settings.on.contains(&wanted);
    match failure {
        AttemptFailure::Connect => listed(Condition::Connect),
        AttemptFailure::Timeout => idempotent && listed(Condition::Timeout),
        AttemptFailure::Broken => idempotent && listed(Condition::Connect),
        AttemptFailure::Status(status) => {
            idempotent && settings.on.iter().any(|c| c.matches_status(status))
        }
        AttemptFailure::Other => false,
    }
}

/// The sleep before retry number `retry` (1 for the first retry): `initial × multiplier^(retry-1)`
/// capped at `max`, then jittered with `unit`, a random number in `[0, 1)`.
pub fn backoff(settings: &RetrySettings, retry: u32, unit: f64) -> Duration {
    let exponent = i32::try_from(retry.saturating_sub(1)).unwrap_or(i32::MAX);
    let factor = settings.multiplier.max(1.0).powi(exponent);
    let base = settings.initial.as_secs_f64() * factor;
    let base = if base.is_finite() {
        base.min(settings.max.as_secs_f64())
    } else {
        settings.max.as_secs_f64()
    };
    let unit = unit.clamp(0.0, 1.0);
    let seconds = match settings.jitter {
        Jitter::None => base,
        Jitter::Full => base * unit,
        Jitter::Equal => base / 2.0 + base / 2.0 * unit,
    };
    Duration::from_secs_f64(seconds.max(0.0))
}

/// How long the server asks to wait: `Retry-After` in seconds or as an HTTP date, capped at
/// `max`. `None` when absent, malformed, or when `max` is zero (ignore the header).
pub(crate) fn retry_after(headers: &HeaderMap, max: Duration, now: SystemTime) -> Option<Duration> {
    if max.is_zero() {
        return None;
    }
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let wait = if value.bytes().all(|b| b.is_ascii_digit()) && !value.is_empty() {
        // More digits than a u64 holds is absurd: cap it rather than fail.
        Duration::from_secs(value.parse::<u64>().unwrap_or(u64::MAX))
    } else {
        let at = httpdate::parse_http_date(value).ok()?;
        at.duration_since(now).unwrap_or(Duration::ZERO)
    };
    Some(wait.min(max))
}

#[cfg(test)]
mod tests {
    use remcall_profile::{Profile, Settings};

    use super::*;

    fn settings(yaml: &str) -> RetrySettings {
        Settings::from_profile(&Profile::from_yaml_str(yaml).unwrap()).retry
    }

    #[test]
    fn no_jitter_doubles_up_to_the_cap() {
        let s = settings(
            "retry: { backoff: { initial: 100ms, max: 1s, multiplier: 2.0, jitter: none } }",
        );
        let sleeps: Vec<u128> = (1..=6).map(|n| backoff(&s, n, 0.5).as_millis()).collect();
        assert_eq!(sleeps, [100, 200, 400, 800, 1000, 1000]);
    }

    #[test]
    fn full_and_equal_jitter_stay_in_their_bounds() {
        let full = settings("retry: { backoff: { initial: 100ms, max: 1s, jitter: full } }");
        let equal = settings("retry: { backoff: { initial: 100ms, max: 1s, jitter: equal } }");
        for n in 1..=6 {
            let cap = Duration::from_millis((100 << (n - 1)).min(1000));
            for unit in [0.0, 0.25, 0.5, 0.999] {
                let f = backoff(&full, n, unit);
                assert!(f <= cap, "full {n} {unit}: {f:?}");
                let e = backoff(&equal, n, unit);
                assert!(e >= cap / 2 && e <= cap, "equal {n} {unit}: {e:?}");
            }
            assert_eq!(backoff(&full, n, 0.0), Duration::ZERO);
            assert_eq!(backoff(&equal, n, 0.0), cap / 2);
        }
    }

    #[test]
    fn retry_after_reads_seconds_and_dates_and_caps_them() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let header = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(RETRY_AFTER, v.parse().unwrap());
            h
        };
        let max = Duration::from_secs(10);
        assert_eq!(
            retry_after(&header("3"), max, now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(retry_after(&header("3600"), max, now), Some(max), "capped");
        assert_eq!(
            retry_after(&header("99999999999999999999999"), max, now),
            Some(max),
            "absurd: capped"
        );
        let in_five = httpdate::fmt_http_date(now + Duration::from_secs(5));
        assert_eq!(
            retry_after(&header(&in_five), max, now),
            Some(Duration::from_secs(5))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(50));
        assert_eq!(retry_after(&header(&past), max, now), Some(Duration::ZERO));
        assert_eq!(
            retry_after(&header("soon"), max, now),
            None,
            "malformed: ignored"
        );
        assert_eq!(retry_after(&header("-5"), max, now), None);
        assert_eq!(
            retry_after(&header("3"), Duration::ZERO, now),
            None,
            "0s disables"
        );
        assert_eq!(retry_after(&HeaderMap::new(), max, now), None);
    }

    #[test]
    fn post_is_retried_only_when_nothing_was_sent() {
        let s = settings("");
        assert!(!is_retryable(&s, AttemptFailure::Status(503), false));
        assert!(!is_retryable(&s, AttemptFailure::Timeout, false));
        assert!(is_retryable(&s, AttemptFailure::Connect, false));
        assert!(is_retryable(&s, AttemptFailure::Status(503), true));
        assert!(
            !is_retryable(&s, AttemptFailure::Status(500), true),
            "500 is not in the default list"
        );
        assert!(!is_retryable(&s, AttemptFailure::Other, true));
        let classes = settings("retry: { on: [5xx] }");
        assert!(is_retryable(&classes, AttemptFailure::Status(500), true));
        assert!(!is_retryable(&classes, AttemptFailure::Connect, true));
    }
}

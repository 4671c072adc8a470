//! The retry timing: how long to sleep before the next attempt, and what the server's
//! `Retry-After` asks for. Pure functions; which failures are retried is in `outcome.rs`, the
//! loop in `call/attempts.rs`.

use std::time::{Duration, SystemTime};

use remcall_profile::{Jitter, RetrySettings};
use reqwest::header::{HeaderMap, RETRY_AFTER};

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
}

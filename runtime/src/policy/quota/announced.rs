//! What an answer says of its quota, in the three dialects servers speak:
//!
//! - the IETF fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "burst";q=100;w=60`
//!   and `RateLimit: "burst";r=3;t=12`, structured fields read by `sfv`; the draft's older
//!   `RateLimit-Limit`/`-Remaining`/`-Reset` too;
//! - `X-RateLimit-Limit`/`-Remaining`/`-Reset`, the reset as epoch seconds (GitHub) or seconds
//!   from now, whichever the number is, and `X-RateLimit-Resource` naming the quota;
//! - `Retry-After` on a 429, a 503 or a 403 (GitHub's secondary limits), and a 403 whose
//!   remaining is 0 (its primary limit spent): the whole quota pauses, not only the call.
//!
//! Every number is the server's and is bounded here before any arithmetic: a reset past a day
//! is a day, a pause is at most the profile's `retry.retry_after.max` (the user's cap on the
//! server's wait), and a number no type holds (`inf`, `1e19`, twenty digits) is its bound.

use std::time::{Duration, SystemTime};

use reqwest::header::{DATE, HeaderMap};

use crate::policy::retry::retry_after;

/// Past this, a server's reset or pause is taken as this: a misconfigured or hostile server
/// cannot stop a client for longer.
const LONGEST: Duration = Duration::from_secs(24 * 60 * 60);

/// A reset above this many seconds is a point in time (epoch seconds), not a delay.
const EPOCH_FROM: u64 = 1_000_000_000;

/// One answer's word on its quota.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Announcement {
    /// The quota's name (`X-RateLimit-Resource`, the IETF policy's name), when it has one.
    pub(crate) key: Option<String>,
    pub(crate) limit: Option<u64>,
    pub(crate) remaining: Option<u64>,
    /// The time until the quota's window resets.
    pub(crate) reset_in: Option<Duration>,
    /// The whole quota waits this long (a refusal's `Retry-After`, or its reset when spent).
    pub(crate) pause_for: Option<Duration>,
}

impl Announcement {
    fn says_anything(&self) -> bool {
        self.limit.is_some()
            || self.remaining.is_some()
            || self.reset_in.is_some()
            || self.pause_for.is_some()
    }
}

/// What `headers` (of an answer with `status`) announce of the quota, if anything. `now` is the
/// client's clock, used when the answer has no `Date` to read an epoch reset against; a
/// refusal's pause is at most `longest_pause`.
pub(crate) fn announced(
    status: u16,
    headers: &HeaderMap,
    now: SystemTime,
    longest_pause: Duration,
) -> Option<Announcement> {
    let refused = matches!(status, 403 | 429 | 503);
    // Most answers of most servers say nothing of quotas: one pass over the few names they
    // have, instead of a lookup of each name a dialect might use.
    if !refused && !headers.keys().any(|name| is_quota_field(name.as_str())) {
        return None;
    }
    // The server's clock, when it says it: an epoch reset is a time on its clock. Read only
    // when something needs it.
    let server_now = || {
        headers
            .get(DATE)
            .and_then(|d| d.to_str().ok())
            .and_then(|d| httpdate::parse_http_date(d).ok())
            .unwrap_or(now)
    };
    let mut found = ietf(headers)
        .or_else(|| prefixed(headers, &X_RATELIMIT, server_now))
        .or_else(|| prefixed(headers, &DRAFT_RATELIMIT, server_now))
        .unwrap_or_default();
    if refused {
        // `Retry-After` in seconds or as a date, bounded like every wait here.
        let longest = longest_pause.min(LONGEST);
        let retry_after = retry_after(headers, longest, server_now());
        // A 403 is a quota's only when the answer says so: a wait, or none left.
        let spent = status == 403 && found.remaining == Some(0);
        if status != 403 || retry_after.is_some() || spent {
            let until_reset = if spent { found.reset_in } else { None };
            found.pause_for = retry_after
                .or(until_reset.map(|reset| reset.min(longest)))
                .filter(|pause| !pause.is_zero());
        }
    }
    found.says_anything().then_some(found)
}

/// Whether a 403 refuses for a quota (GitHub's: none left, or a `Retry-After` for its
/// secondary limits), not for a permission: such a refusal is retried as a 429 is.
pub(crate) fn is_quota_refusal(status: u16, headers: &HeaderMap) -> bool {
    status == 403
        && announced(status, headers, SystemTime::UNIX_EPOCH, LONGEST)
            .is_some_and(|said| said.pause_for.is_some() || said.remaining == Some(0))
}

/// A field of one of the dialects (names come lowercase).
fn is_quota_field(name: &str) -> bool {
    name.starts_with("ratelimit") || name.starts_with("x-ratelimit-")
}

/// The IETF fields: the binding policy of `RateLimit` (the one with the fewest calls left),
/// its quota from `RateLimit-Policy` when that names the same policy.
fn ietf(headers: &HeaderMap) -> Option<Announcement> {
    let state = headers.get("ratelimit")?.as_bytes();
    let state = sfv::Parser::new(state).parse::<sfv::List>().ok()?;
    let mut binding: Option<Announcement> = None;
    for entry in &state {
        let sfv::ListEntry::Item(item) = entry else {
            continue;
        };
        let mut policy = Announcement {
            key: name(&item.bare_item),
            ..Announcement::default()
        };
        for (key, value) in &item.params {
            match key.as_str() {
                "r" => policy.remaining = non_negative(value),
                "t" => policy.reset_in = non_negative(value).map(seconds),
                _ => {}
            }
        }
        if policy.remaining.is_some()
            && binding
                .as_ref()
                .is_none_or(|b| policy.remaining < b.remaining)
        {
            binding = Some(policy);
        }
    }
    let mut binding = binding?;
    if let Some(policies) = headers.get("ratelimit-policy")
        && let Ok(policies) = sfv::Parser::new(policies.as_bytes()).parse::<sfv::List>()
    {
        for entry in &policies {
            if let sfv::ListEntry::Item(item) = entry
                && name(&item.bare_item) == binding.key
            {
                binding.limit = item
                    .params
                    .iter()
                    .find(|(key, _)| key.as_str() == "q")
                    .and_then(|(_, value)| non_negative(value));
            }
        }
    }
    Some(binding)
}

/// A family of fields: its limit, remaining, reset (a time or a delay, told apart by size),
/// reset as a delay in decimal seconds, and the names its quota may go by, in that order.
struct Family {
    limit: &'static str,
    remaining: &'static str,
    reset: &'static str,
    reset_after: Option<&'static str>,
    names: &'static [&'static str],
}

/// GitHub's and most APIs' fields; Discord's `-Reset-After` and `-Bucket` besides.
const X_RATELIMIT: Family = Family {
    limit: "x-ratelimit-limit",
    remaining: "x-ratelimit-remaining",
    reset: "x-ratelimit-reset",
    reset_after: Some("x-ratelimit-reset-after"),
    names: &["x-ratelimit-resource", "x-ratelimit-bucket"],
};

/// The IETF draft's fields before it took structured fields.
const DRAFT_RATELIMIT: Family = Family {
    limit: "ratelimit-limit",
    remaining: "ratelimit-remaining",
    reset: "ratelimit-reset",
    reset_after: None,
    names: &["ratelimit-resource"],
};

/// A family's limit, remaining, reset and resource.
fn prefixed(
    headers: &HeaderMap,
    family: &Family,
    server_now: impl Fn() -> SystemTime,
) -> Option<Announcement> {
    let decimal = |name: &str| -> Option<f64> {
        let value = headers.get(name)?.to_str().ok()?;
        // `100`, or `100, 100;w=60` (a list some servers send): the first number.
        let first = value.split([',', ';']).next()?.trim();
        first.parse::<f64>().ok().filter(|n| *n >= 0.0)
    };
    // `as` saturates: `inf` and `1e19` are u64::MAX, bounded where they are used.
    let number = |name: &str| decimal(name).map(|n| n as u64);
    let reset_after = family
        .reset_after
        .and_then(decimal)
        .map(|secs| Duration::from_secs_f64(secs.min(LONGEST.as_secs_f64())));
    let found = Announcement {
        key: family
            .names
            .iter()
            .find_map(|name| headers.get(*name))
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().chars().take(64).collect()),
        limit: number(family.limit),
        remaining: number(family.remaining),
        reset_in: reset_after
            .or_else(|| number(family.reset).map(|reset| reset_delay(reset, &server_now))),
        pause_for: None,
    };
    found.says_anything().then_some(found)
}

/// A reset as a delay: epoch seconds against the server's clock, or seconds from now.
fn reset_delay(reset: u64, server_now: impl Fn() -> SystemTime) -> Duration {
    if reset >= EPOCH_FROM {
        // Past what a clock holds is past a day from now.
        let Some(at) = SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(reset)) else {
            return LONGEST;
        };
        at.duration_since(server_now())
            .unwrap_or(Duration::ZERO)
            .min(LONGEST)
    } else {
        seconds(reset)
    }
}

fn seconds(n: u64) -> Duration {
    Duration::from_secs(n).min(LONGEST)
}

fn non_negative(value: &sfv::BareItem) -> Option<u64> {
    value
        .as_integer()
        .and_then(|n| u64::try_from(i64::from(n)).ok())
}

/// A policy's name: the item's string or token, at most 64 characters.
fn name(item: &sfv::BareItem) -> Option<String> {
    let text = match item {
        sfv::BareItem::String(s) => s.as_str(),
        sfv::BareItem::Token(t) => t.as_str(),
        _ => return None,
    };
    Some(text.chars().take(64).collect())
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;
    use crate::wire::header_map as headers;

    fn at(epoch: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(epoch)
    }

    #[test]
    fn the_ietf_fields_give_the_binding_policy_and_its_quota() {
        let h = headers(&[
            (
                "RateLimit-Policy",
                "\"burst\";q=100;w=60, \"daily\";q=1000;w=86400",
            ),
            ("RateLimit", "\"burst\";r=3;t=12, \"daily\";r=400;t=5000"),
        ]);
        let a = announced(200, &h, at(0), LONGEST).unwrap();
        assert_eq!(a.key.as_deref(), Some("burst"));
        assert_eq!(a.limit, Some(100));
        assert_eq!(a.remaining, Some(3));
        assert_eq!(a.reset_in, Some(Duration::from_secs(12)));
        assert_eq!(a.pause_for, None);
    }

    #[test]
    fn a_malformed_ietf_field_is_no_announcement_and_no_panic() {
        for value in [
            "\"burst\";r=",
            "(((",
            "\"x\";r=-4;t=2",
            "burst;r=9999999999999999999",
        ] {
            let h = headers(&[("RateLimit", value)]);
            let a = announced(200, &h, at(0), LONGEST);
            assert!(
                a.as_ref().is_none_or(|a| a.remaining.is_none()),
                "{value}: {a:?}"
            );
        }
    }

    #[test]
    fn x_ratelimit_reset_reads_epoch_seconds_against_the_servers_date_or_a_delay() {
        // GitHub: the reset as epoch seconds, the quota named by its resource.
        let h = headers(&[
            ("x-ratelimit-limit", "5000"),
            ("x-ratelimit-remaining", "4990"),
            ("x-ratelimit-reset", "1800000060"),
            ("x-ratelimit-resource", "core"),
            ("date", "Fri, 15 Jan 2027 08:00:00 GMT"),
        ]);
        // The server's clock says 1800000000 (its Date); the client's is an hour off.
        let server = httpdate::fmt_http_date(at(1_800_000_000));
        let mut h2 = h.clone();
        h2.insert(DATE, HeaderValue::from_str(&server).unwrap());
        let a = announced(200, &h2, at(1_800_003_600), LONGEST).unwrap();
        assert_eq!(a.key.as_deref(), Some("core"));
        assert_eq!((a.limit, a.remaining), (Some(5000), Some(4990)));
        assert_eq!(a.reset_in, Some(Duration::from_secs(60)));
        // Seconds from now.
        let h = headers(&[("X-RateLimit-Remaining", "7"), ("X-RateLimit-Reset", "2")]);
        let a = announced(200, &h, at(5), LONGEST).unwrap();
        assert_eq!(
            (a.remaining, a.reset_in),
            (Some(7), Some(Duration::from_secs(2)))
        );
        // The draft's older fields.
        let h = headers(&[("RateLimit-Remaining", "1"), ("RateLimit-Reset", "30")]);
        assert_eq!(
            announced(200, &h, at(5), LONGEST).unwrap().remaining,
            Some(1)
        );
    }

    #[test]
    fn a_number_no_type_holds_is_its_bound_and_never_a_panic() {
        let now = at(1_800_000_000);
        for value in [
            "inf",
            "-inf",
            "NaN",
            "1e19",
            "1e308",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999999",
            "-1",
            "0x10",
            "",
        ] {
            for name in [
                "x-ratelimit-reset",
                "ratelimit-reset",
                "x-ratelimit-reset-after",
                "x-ratelimit-remaining",
                "x-ratelimit-limit",
                "retry-after",
            ] {
                let h = headers(&[(name, value), ("x-ratelimit-remaining", "0")]);
                for status in [200, 403, 429, 503] {
                    if let Some(a) = announced(status, &h, now, Duration::from_secs(2)) {
                        assert!(a.reset_in.is_none_or(|r| r <= LONGEST), "{name}: {value}");
                        assert!(
                            a.pause_for.is_none_or(|p| p <= Duration::from_secs(2)),
                            "{name}: {value}: {a:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_refusals_pause_is_at_most_the_users_cap_and_a_zero_cap_pauses_nothing() {
        let h = headers(&[("Retry-After", "30")]);
        let cap = Duration::from_secs(2);
        assert_eq!(announced(429, &h, at(0), cap).unwrap().pause_for, Some(cap));
        let spent = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "86400"),
        ]);
        assert_eq!(
            announced(403, &spent, at(0), cap).unwrap().pause_for,
            Some(cap)
        );
        assert_eq!(
            announced(429, &h, at(0), Duration::ZERO).and_then(|a| a.pause_for),
            None
        );
    }

    #[test]
    fn discords_fields_name_the_bucket_and_give_the_reset_in_decimal_seconds() {
        let h = headers(&[
            ("x-ratelimit-limit", "5"),
            ("x-ratelimit-remaining", "4"),
            ("x-ratelimit-reset", "1800000060.250"),
            ("x-ratelimit-reset-after", "1.250"),
            ("x-ratelimit-bucket", "abcd1234"),
        ]);
        let a = announced(200, &h, at(1_800_000_059), LONGEST).unwrap();
        assert_eq!(a.key.as_deref(), Some("abcd1234"));
        assert_eq!(a.reset_in, Some(Duration::from_millis(1250)));
    }

    #[test]
    fn a_403_is_a_quotas_refusal_only_when_it_says_so() {
        let spent = headers(&[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "30")]);
        assert!(is_quota_refusal(403, &spent));
        assert!(is_quota_refusal(403, &headers(&[("retry-after", "60")])));
        assert!(!is_quota_refusal(403, &headers(&[])));
        let left = headers(&[("x-ratelimit-remaining", "10"), ("x-ratelimit-reset", "30")]);
        assert!(!is_quota_refusal(403, &left));
        assert!(!is_quota_refusal(401, &spent));
    }

    #[test]
    fn refusals_pause_the_quota_and_a_plain_403_does_not() {
        let h = headers(&[("Retry-After", "7")]);
        assert_eq!(
            announced(429, &h, at(0), LONGEST).unwrap().pause_for,
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            announced(403, &h, at(0), LONGEST).unwrap().pause_for,
            Some(Duration::from_secs(7)),
            "GitHub's secondary limit"
        );
        // A 403 with none left: paused until the reset.
        let spent = headers(&[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "30")]);
        assert_eq!(
            announced(403, &spent, at(0), LONGEST).unwrap().pause_for,
            Some(Duration::from_secs(30))
        );
        // A 403 that is a permission refusal says nothing of quotas.
        assert_eq!(announced(403, &headers(&[]), at(0), LONGEST), None);
        let left = headers(&[("x-ratelimit-remaining", "10"), ("x-ratelimit-reset", "30")]);
        assert_eq!(
            announced(403, &left, at(0), LONGEST).unwrap().pause_for,
            None
        );
        // A server's absurd wait is a day at most.
        let h = headers(&[("Retry-After", "99999999999")]);
        assert_eq!(
            announced(503, &h, at(0), LONGEST).unwrap().pause_for,
            Some(LONGEST)
        );
    }
}

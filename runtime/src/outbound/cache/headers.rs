//! An answer's headers as the cache keeps them. The server's headers are untrusted: before RFC
//! 9111's rules read them, `Cache-Control` is reduced to the directives RFC 9111 and RFC 5861
//! define, once each, their seconds clamped to 2^31 (RFC 9111 §1.2.2); `Age` likewise; `Vary`
//! to a few names; `Set-Cookie` dropped — so no header makes the cache's arithmetic overflow,
//! weighs more than it is counted for, or plays a cookie back.

use std::time::Duration;

use reqwest::header::{AGE, CACHE_CONTROL, HeaderMap, HeaderName, HeaderValue, SET_COOKIE, VARY};

use super::key::Unkeyed;

/// The longest anything is kept: RFC 9111's greatest delta-seconds.
pub(super) const NEVER_PAST: Duration = Duration::from_secs(1 << 31);

/// The directives of `Cache-Control` that RFC 9111 and RFC 5861 define for answers: the others
/// are dropped before the policy parses them.
const DIRECTIVES: [&str; 13] = [
    "max-age",
    "s-maxage",
    "no-cache",
    "no-store",
    "no-transform",
    "must-revalidate",
    "proxy-revalidate",
    "must-understand",
    "private",
    "public",
    "immutable",
    "stale-while-revalidate",
    "stale-if-error",
];

/// The most names of `Vary` kept: past them, the answer varies on everything (`*`).
const MOST_VARY: usize = 16;

/// An answer's headers as the cache keeps them: `Cache-Control` reduced to the directives
/// defined for answers, once each, their seconds clamped; `Age` clamped; `Vary` bounded;
/// `Set-Cookie` off (a kept answer never sets a cookie again).
pub(super) fn kept_headers(headers: &HeaderMap) -> HeaderMap {
    let mut kept = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        if name != CACHE_CONTROL && name != AGE && name != SET_COOKIE && name != VARY {
            kept.append(name.clone(), value.clone());
        }
    }
    let directives = cache_control(headers);
    if !directives.is_empty()
        && let Ok(value) = HeaderValue::from_str(&directives.join(", "))
    {
        kept.insert(CACHE_CONTROL, value);
    }
    if let Some(age) = headers.get(AGE).and_then(|v| seconds(v.as_bytes())) {
        kept.insert(AGE, HeaderValue::from(age));
    }
    let vary: Vec<&str> = headers
        .get_all(VARY)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("*").split(','))
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .collect();
    if !vary.is_empty() {
        let value = if vary.len() > MOST_VARY || vary.contains(&"*") {
            HeaderValue::from_static("*")
        } else {
            HeaderValue::from_str(&vary.join(", ")).unwrap_or(HeaderValue::from_static("*"))
        };
        kept.insert(VARY, value);
    }
    kept
}

/// A known directive of a `Cache-Control`, as it is kept.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Directive {
    /// Not there.
    Absent,
    /// There, without a number (`no-store`, or a field list taken whole).
    Bare,
    /// There with this many seconds, clamped.
    Seconds(u64),
}

/// The known directives of `headers`' `Cache-Control`, once each (the smallest number where
/// one repeats), numbers clamped; a directive with a field list (`no-cache="Set-Cookie"`)
/// taken whole, as its stricter form.
fn cache_control(headers: &HeaderMap) -> Vec<String> {
    let mut found = [Directive::Absent; DIRECTIVES.len()];
    let all = headers.get_all(CACHE_CONTROL);
    for directive in all.iter().flat_map(|v| v.as_bytes().split(|b| *b == b',')) {
        let directive = directive.trim_ascii();
        let (name, value) = match directive.iter().position(|b| *b == b'=') {
            Some(at) => (&directive[..at], Some(&directive[at + 1..])),
            None => (directive, None),
        };
        let name = name.trim_ascii();
        let Some(index) = DIRECTIVES
            .iter()
            .position(|known| known.as_bytes().eq_ignore_ascii_case(name))
        else {
            continue;
        };
        let number = value.and_then(seconds);
        let numbered = matches!(
            DIRECTIVES[index],
            "max-age" | "s-maxage" | "stale-while-revalidate" | "stale-if-error"
        );
        found[index] = match (found[index], number) {
            // `max-age=abc`: RFC 9111 takes an invalid freshness as stale.
            _ if numbered && number.is_none() => Directive::Seconds(0),
            (Directive::Seconds(known), Some(n)) => Directive::Seconds(known.min(n)),
            (_, Some(n)) if numbered => Directive::Seconds(n),
            _ => Directive::Bare,
        };
    }
    DIRECTIVES
        .iter()
        .zip(found)
        .filter_map(|(name, found)| match found {
            Directive::Absent => None,
            Directive::Bare => Some((*name).to_owned()),
            Directive::Seconds(n) => Some(format!("{name}={n}")),
        })
        .collect()
}

/// Delta-seconds (`60`, `"60"`), clamped to 2^31 as RFC 9111 §1.2.2 says; not a number: none.
fn seconds(text: &[u8]) -> Option<u64> {
    let text = text.trim_ascii();
    let text = text
        .strip_prefix(b"\"")
        .and_then(|t| t.strip_suffix(b"\""))
        .unwrap_or(text);
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let most = NEVER_PAST.as_secs();
    Some(
        text.iter()
            .try_fold(0u64, |n, digit| {
                n.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
            })
            .map_or(most, |n| n.min(most)),
    )
}

/// Whether the answer varies on a request header the key leaves out.
pub(super) fn varies_on_unkeyed(headers: &HeaderMap, unkeyed: Unkeyed<'_>) -> bool {
    headers
        .get_all(VARY)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("*").split(','))
        .map(str::trim)
        .any(|name| {
            name == "*"
                || HeaderName::from_bytes(name.to_ascii_lowercase().as_bytes())
                    .is_ok_and(|name| unkeyed.skips(&name))
        })
}

/// The server's own `stale-if-error=N` (RFC 5861), bounded to a day.
pub(super) fn stale_if_error(headers: &HeaderMap) -> Duration {
    headers
        .get_all(CACHE_CONTROL)
        .iter()
        .flat_map(|v| v.as_bytes().split(|b| *b == b','))
        .filter_map(|directive| directive.trim_ascii().strip_prefix(b"stale-if-error="))
        .filter_map(seconds)
        .max()
        .map_or(Duration::ZERO, |n| Duration::from_secs(n.min(24 * 60 * 60)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::header_map as headers;

    #[test]
    fn cache_control_keeps_the_known_directives_once_with_their_seconds_clamped() {
        let h = headers(&[
            (
                "cache-control",
                "max-age=18446744073709551615, Private, x-a=1, x-b",
            ),
            (
                "cache-control",
                "max-age=60, stale-if-error=\"99\", no-cache=\"set-cookie\"",
            ),
            ("age", "99999999999999999999999"),
            ("set-cookie", "session=1"),
            ("vary", "x-user-token"),
        ]);
        let kept = kept_headers(&h);
        assert_eq!(
            kept.get("cache-control").unwrap(),
            "max-age=60, no-cache, private, stale-if-error=99"
        );
        assert_eq!(kept.get("age").unwrap(), "2147483648");
        assert!(kept.get("set-cookie").is_none());
        assert_eq!(kept.get("vary").unwrap(), "x-user-token");
        let garbage = headers(&[("cache-control", "max-age=abc")]);
        assert_eq!(
            kept_headers(&garbage).get("cache-control").unwrap(),
            "max-age=0"
        );
    }

    #[test]
    fn a_thousand_directives_are_kept_as_the_few_known_ones() {
        let many: Vec<String> = (0..20_000).map(|n| format!("x{n}=1")).collect();
        let h = headers(&[("cache-control", &format!("max-age=5, {}", many.join(",")))]);
        assert_eq!(kept_headers(&h).get("cache-control").unwrap(), "max-age=5");
        let names: Vec<String> = (0..100).map(|n| format!("x-{n}")).collect();
        let h = headers(&[("vary", &names.join(","))]);
        assert_eq!(kept_headers(&h).get("vary").unwrap(), "*");
    }

    #[test]
    fn delta_seconds_are_clamped_and_anything_else_is_not_a_number() {
        assert_eq!(seconds(b"60"), Some(60));
        assert_eq!(seconds(b"\"7\""), Some(7));
        assert_eq!(seconds(b"18446744073709551616"), Some(1 << 31));
        for text in [&b""[..], b"-1", b"1e9", b"inf", b"0x10", b"1.5"] {
            assert_eq!(seconds(text), None, "{text:?}");
        }
    }
}

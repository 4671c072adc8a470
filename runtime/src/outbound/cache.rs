//! The cache of GET and HEAD answers (`cache: { memory: 16MiB, stale_if_error: 10m }`).
//!
//! What may be kept, for how long, whether a kept answer still answers a request (`Vary`,
//! `no-cache`, `max-age`, `Age`) and how to revalidate it (`If-None-Match`,
//! `If-Modified-Since`) is RFC 9111, decided by `http-cache-semantics` as a private cache: the
//! rules are not written again here. What is here: the store (bounded in bytes, least used out
//! first, by `quick_cache`), the key, and what an answer is reduced to before those rules read
//! it.
//!
//! The key is the method, the URL's path and query (any endpoint of the client answers alike)
//! and every request header but the few that change on each call without saying who asks (the
//! deadline's, trace context, and those the profile lists in `cache.unkeyed`): a method's header
//! parameters, the credentials, an interceptor's headers, the profile's, hashed with keys random
//! to the client. One caller's answer is never another's, whichever header tells them apart.
//!
//! The server's answer is untrusted: before it is kept, its `Cache-Control` is reduced to the
//! directives RFC 9111 and RFC 5861 define, each number clamped to 2^31 seconds (RFC 9111
//! §1.2.2), its `Age` likewise, `Vary` to a few names, and `Set-Cookie` dropped — so no header
//! makes the cache's arithmetic overflow, weighs more in memory than it is counted for, or
//! plays a cookie back. A kept answer answers a failed call only where it would answer the
//! request itself (`Vary` included).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http_cache_semantics::{AfterResponse, BeforeRequest, CacheOptions, CachePolicy, RequestLike};
use remcall_profile::{CacheSettings, Settings};
use reqwest::StatusCode;
use reqwest::header::{
    AGE, AUTHORIZATION, CACHE_CONTROL, COOKIE, HeaderMap, HeaderName, HeaderValue,
    PROXY_AUTHORIZATION, SET_COOKIE, VARY,
};

use crate::decode::response::Response;
use crate::wire::outgoing::Outgoing;

/// Where a fleet keeps its answers too (`cache.shared`; Redis, in `fleet/redis/cache.rs`).
pub(crate) trait SharedAnswers: Send + Sync + std::fmt::Debug {
    /// The key of a request (its method, path and query, keyed headers), the same on every
    /// replica, and a digest keyed with the fleet's secret.
    fn key_of(
        &self,
        method: &str,
        url: &str,
        headers: &mut dyn Iterator<Item = (&HeaderName, &HeaderValue)>,
    ) -> Box<str>;

    /// The answer kept under `key`, if any, it is the fleet's own (its signature holds) and
    /// the store answers in time.
    fn get<'a>(
        &'a self,
        key: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Option<Shared>> + Send + 'a>>;

    /// Keeps `answer` under `key` (in the background).
    fn put(&self, key: &str, answer: Shared, now: SystemTime);
}

/// A kept answer as the fleet shares it: the answer (its headers reduced as kept) and when it
/// came, and nothing of the request: no URL, no header. A replica rebuilds RFC 9111's view of
/// it with its own request, which has the same key.
pub(crate) struct Shared {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    pub(crate) response_time: SystemTime,
    /// Until when it may answer a failed call.
    pub(crate) stale_until: SystemTime,
}

/// Where a kept answer is found.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    method: usize,
    url: Box<str>,
    headers: u64,
    /// Its key in the fleet's Redis (`cache.shared`), the same on every replica.
    fleet: Option<Box<str>>,
}

/// A kept answer and what RFC 9111 says of it (the request it answered, its credentials taken
/// off).
pub(crate) struct Entry {
    policy: CachePolicy,
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
    response_time: SystemTime,
    /// Until when it may answer a failed call: its freshness, then the `stale-if-error` window.
    stale_until: SystemTime,
    /// What it takes in memory, the parsed policy and the request it holds included.
    weight: u64,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("status", &self.status)
            .field("body_bytes", &self.body.len())
            .finish_non_exhaustive()
    }
}

/// What the cache has for a request.
#[derive(Debug)]
pub(crate) enum Kept {
    /// A fresh answer: no need to ask the server.
    Fresh(Response),
    /// A stale one: ask the server with these headers added, and a 304 is it again.
    Stale {
        entry: Arc<Entry>,
        conditions: HeaderMap,
    },
    /// Nothing (or nothing that answers this request).
    Nothing,
}

/// The store, one per client, made when the client is built (its size is the client's
/// `cache.memory`); what a method keeps and for how long past its freshness are the method's
/// own settings, told on each call.
pub(crate) struct Cache {
    store: quick_cache::sync::Cache<Key, Arc<Entry>, ByBytes>,
    hasher: RandomState,
    fleet: Option<Arc<dyn SharedAnswers>>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("answers", &self.store.len())
            .field("bytes", &self.store.weight())
            .finish()
    }
}

/// An entry weighs what it holds.
#[derive(Debug, Clone, Copy)]
struct ByBytes;

impl quick_cache::Weighter<Key, Arc<Entry>> for ByBytes {
    fn weight(&self, key: &Key, entry: &Arc<Entry>) -> u64 {
        key.url.len() as u64 + entry.weight
    }
}

/// The request headers that change on every call without saying who asks: left out of the
/// key, or no answer would ever be found again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unkeyed<'a> {
    /// The deadline's header (`deadline.propagate`), the time left, new on each attempt.
    deadline: Option<&'a str>,
    /// The profile's `cache.unkeyed`, lowercase.
    listed: &'a [String],
}

/// Trace context (W3C), new on each call.
const PER_CALL: [&str; 3] = ["traceparent", "tracestate", "baggage"];

impl<'a> Unkeyed<'a> {
    /// The headers a method's settings leave out of the key.
    pub(crate) fn of(settings: &'a Settings) -> Unkeyed<'a> {
        Unkeyed {
            deadline: settings.deadline_header.as_deref(),
            listed: settings
                .cache
                .as_ref()
                .map_or(&[][..], |cache| cache.unkeyed.as_slice()),
        }
    }

    fn skips(&self, name: &HeaderName) -> bool {
        let name = name.as_str();
        PER_CALL.contains(&name)
            || self
                .deadline
                .is_some_and(|deadline| deadline.eq_ignore_ascii_case(name))
            || self.listed.iter().any(|listed| listed == name)
    }
}

/// The request as RFC 9111's rules read it.
struct Asked<'a>(&'a Outgoing);

impl RequestLike for Asked<'_> {
    fn uri(&self) -> http::Uri {
        self.0.url.as_str().parse().unwrap_or_default()
    }
    fn is_same_uri(&self, other: &http::Uri) -> bool {
        *other == self.0.url.as_str()
    }
    fn method(&self) -> &http::Method {
        &self.0.http_method
    }
    fn headers(&self) -> &HeaderMap {
        &self.0.headers
    }
}

/// A private cache: the answers are this client's, kept per caller.
fn options() -> CacheOptions {
    CacheOptions {
        shared: false,
        ..CacheOptions::default()
    }
}

impl Cache {
    /// The client's store of `memory` bytes, when the client's profile or any method's keeps
    /// answers (`cache:`); `memory` is the client's (`cache.memory` is client-wide).
    pub(crate) fn for_client<'a>(
        client: &Settings,
        methods: impl IntoIterator<Item = &'a Settings>,
        fleet: Option<Arc<dyn SharedAnswers>>,
    ) -> Option<Cache> {
        let keeps = |settings: &Settings| settings.cache.is_some();
        if !keeps(client) && !methods.into_iter().any(keeps) {
            return None;
        }
        let memory = client
            .cache
            .as_ref()
            .map_or(remcall_profile::DEFAULT_CACHE_BYTES, |cache| cache.memory);
        // Answers of a few KiB on average: the estimate only sizes the first allocation.
        let estimated = usize::try_from(memory / 4096)
            .unwrap_or(usize::MAX)
            .clamp(16, 1 << 16);
        Some(Cache {
            store: quick_cache::sync::Cache::with_weighter(estimated, memory.max(1), ByBytes),
            hasher: RandomState::new(),
            fleet,
        })
    }

    /// The key of `request` (of the method at `index`): every header but the `unkeyed` ones
    /// fingerprinted.
    pub(crate) fn key(&self, index: usize, request: &Outgoing, unkeyed: Unkeyed<'_>) -> Key {
        let mut hasher = self.hasher.build_hasher();
        let keyed = || {
            request
                .headers
                .iter()
                .filter(|(name, _)| !unkeyed.skips(name))
        };
        for (name, value) in keyed() {
            name.as_str().hash(&mut hasher);
            value.as_bytes().hash(&mut hasher);
        }
        // The path and query, not the host: any endpoint of the client's answers alike.
        let url = &request.url;
        let url = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        };
        let fleet = self
            .fleet
            .as_ref()
            .map(|fleet| fleet.key_of(request.http_method.as_str(), &url, &mut keyed()));
        Key {
            method: index,
            url: url.into(),
            headers: hasher.finish(),
            fleet,
        }
    }

    /// When memory has nothing for `key` and the fleet's Redis has it, it is in memory after:
    /// RFC 9111's view of it rebuilt with `asked` (the request, its credentials off), which has
    /// the same key as the one it answered. An answer that varies on a header the key leaves
    /// out is not taken: nothing kept says what that header was.
    pub(crate) async fn fetch_from_fleet(&self, key: &Key, asked: &Outgoing, unkeyed: Unkeyed<'_>) {
        let (Some(fleet), Some(at)) = (&self.fleet, &key.fleet) else {
            return;
        };
        if self.store.contains_key(key) {
            return;
        }
        let Some(shared) = fleet.get(at).await else {
            return;
        };
        if varies_on_unkeyed(&shared.headers, unkeyed) {
            return;
        }
        let headers = kept_headers(&shared.headers);
        let policy = CachePolicy::new_options(
            &Asked(asked),
            &response_parts(shared.status, &headers),
            shared.response_time,
            options(),
        );
        let entry = entry(
            policy,
            asked,
            shared.status,
            headers,
            shared.body,
            (shared.response_time, shared.stale_until),
        );
        self.store.insert(key.clone(), Arc::new(entry));
    }

    /// What is kept for `asked` (the request, its credentials off).
    pub(crate) fn kept(&self, key: &Key, asked: &Outgoing, now: SystemTime) -> Kept {
        let Some(entry) = self.store.get(key) else {
            return Kept::Nothing;
        };
        match entry.policy.before_request(&Asked(asked), now) {
            BeforeRequest::Fresh(parts) => Kept::Fresh(Response {
                status: entry.status,
                headers: parts.headers,
                body: entry.body.clone(),
            }),
            BeforeRequest::Stale {
                request: revalidation,
                matches: true,
            } => Kept::Stale {
                entry,
                conditions: conditions(&revalidation.headers),
            },
            BeforeRequest::Stale { matches: false, .. } => Kept::Nothing,
        }
    }

    /// The server's `answer` to `asked` (accepted by the interceptors): kept when RFC 9111
    /// allows it, to answer a failed call for `settings.stale_if_error` past its freshness; a
    /// 304 to a revalidation is the kept answer again (its headers updated), and says so
    /// (`true`).
    pub(crate) fn answered(
        &self,
        (key, asked, settings): (&Key, &Outgoing, &CacheSettings),
        stale: Option<Arc<Entry>>,
        answer: Response,
        now: SystemTime,
    ) -> (Response, bool) {
        let headers = kept_headers(&answer.headers);
        let parts = response_parts(answer.status, &headers);
        if let Some(entry) = stale
            && answer.status == StatusCode::NOT_MODIFIED
        {
            let AfterResponse::NotModified(policy, parts) =
                entry.policy.after_response(&Asked(asked), &parts, now)
            else {
                return (answer, false);
            };
            let again = Response {
                status: entry.status,
                headers: parts.headers,
                body: entry.body.clone(),
            };
            self.keep((key, asked, settings), policy, &again, now);
            return (again, true);
        }
        if answer.status.is_success() {
            let policy = CachePolicy::new_options(&Asked(asked), &parts, now, options());
            if policy.is_storable() {
                let kept = Response {
                    status: answer.status,
                    headers,
                    body: answer.body.clone(),
                };
                self.keep((key, asked, settings), policy, &kept, now);
            }
        }
        (answer, false)
    }

    /// A kept answer that may still answer a call that failed, if one is: within its
    /// `stale-if-error` window, and one that would answer `asked` itself (`Vary` included).
    pub(crate) fn stale_for_failure(
        &self,
        key: &Key,
        asked: &Outgoing,
        now: SystemTime,
    ) -> Option<Response> {
        let entry = self.store.get(key)?;
        if now > entry.stale_until {
            return None;
        }
        let answers = match entry.policy.before_request(&Asked(asked), now) {
            BeforeRequest::Fresh(_) => true,
            BeforeRequest::Stale { matches, .. } => matches,
        };
        answers.then(|| Response {
            status: entry.status,
            headers: entry.headers.clone(),
            body: entry.body.clone(),
        })
    }

    fn keep(
        &self,
        (key, asked, settings): (&Key, &Outgoing, &CacheSettings),
        policy: CachePolicy,
        answer: &Response,
        now: SystemTime,
    ) {
        let window = settings.stale_if_error.max(stale_if_error(&answer.headers));
        // Every time in it is clamped; past what the clock holds is kept as long as it holds.
        let stale_until = now
            .checked_add(policy.time_to_live(now))
            .and_then(|fresh_until| fresh_until.checked_add(window))
            .unwrap_or(now + NEVER_PAST);
        let entry = entry(
            policy,
            asked,
            answer.status,
            answer.headers.clone(),
            answer.body.clone(),
            (now, stale_until),
        );
        if let (Some(fleet), Some(at)) = (&self.fleet, &key.fleet) {
            fleet.put(
                at,
                Shared {
                    status: entry.status,
                    headers: entry.headers.clone(),
                    body: entry.body.clone(),
                    response_time: entry.response_time,
                    stale_until: entry.stale_until,
                },
                now,
            );
        }
        self.store.insert(key.clone(), Arc::new(entry));
    }
}

/// The longest anything is kept: RFC 9111's greatest delta-seconds.
const NEVER_PAST: Duration = Duration::from_secs(1 << 31);

/// An entry, weighed: its body, its headers twice (as kept, and in the policy), the request
/// the policy holds, and the policy's parsed directives (bounded by `kept_headers`).
fn entry(
    policy: CachePolicy,
    asked: &Outgoing,
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
    (response_time, stale_until): (SystemTime, SystemTime),
) -> Entry {
    let size = |headers: &HeaderMap| -> u64 {
        headers
            .iter()
            .map(|(name, value)| (name.as_str().len() + value.len() + 32) as u64)
            .sum()
    };
    let weight = body.len() as u64 + 2 * size(&headers) + size(&asked.headers) + 1024;
    Entry {
        policy,
        status,
        headers,
        body,
        response_time,
        stale_until,
        weight,
    }
}

/// A header that says who asks with a secret: it keys the answer (hashed), and is never kept.
pub(crate) fn is_credential(name: &HeaderName, value: &HeaderValue) -> bool {
    name == AUTHORIZATION || name == COOKIE || name == PROXY_AUTHORIZATION || value.is_sensitive()
}

/// `request` as the cache reads it and keeps it: its credentials and body off.
pub(crate) fn asked(request: &Outgoing) -> Outgoing {
    Outgoing {
        call: request.call,
        http_method: request.http_method.clone(),
        url: request.url.clone(),
        headers: request
            .headers
            .iter()
            .filter(|(name, value)| !is_credential(name, value))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect(),
        body: None,
    }
}

/// The headers a revalidation adds: its conditions.
fn conditions(asked: &HeaderMap) -> HeaderMap {
    let mut out = HeaderMap::new();
    for name in [
        reqwest::header::IF_NONE_MATCH,
        reqwest::header::IF_MODIFIED_SINCE,
    ] {
        if let Some(value) = asked.get(&name) {
            out.insert(name, value.clone());
        }
    }
    out
}

fn response_parts(status: StatusCode, headers: &HeaderMap) -> http::response::Parts {
    let (mut parts, ()) = http::Response::new(()).into_parts();
    parts.status = status;
    parts.headers = headers.clone();
    parts
}

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
pub(crate) fn kept_headers(headers: &HeaderMap) -> HeaderMap {
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

/// The known directives of `headers`' `Cache-Control`, once each (the smallest number where
/// one repeats), numbers clamped; a directive with a field list (`no-cache="Set-Cookie"`)
/// taken whole, as its stricter form.
fn cache_control(headers: &HeaderMap) -> Vec<String> {
    let mut found: [Option<Option<u64>>; DIRECTIVES.len()] = [None; DIRECTIVES.len()];
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
        if numbered && number.is_none() {
            // `max-age=abc`: RFC 9111 takes an invalid freshness as stale.
            found[index] = Some(Some(0));
            continue;
        }
        found[index] = Some(match (found[index], number) {
            (Some(Some(known)), Some(n)) => Some(known.min(n)),
            (_, n) => n.filter(|_| numbered),
        });
    }
    DIRECTIVES
        .iter()
        .zip(found)
        .filter_map(|(name, found)| {
            found.map(|number| match number {
                Some(n) => format!("{name}={n}"),
                None => (*name).to_owned(),
            })
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
fn varies_on_unkeyed(headers: &HeaderMap, unkeyed: Unkeyed<'_>) -> bool {
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
fn stale_if_error(headers: &HeaderMap) -> Duration {
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

//! The cache of GET and HEAD answers (`cache: { memory: 16MiB, stale_if_error: 10m }`), and of
//! queries sent with a body (QUERY, a POST marked `safe: true`), kept only to answer a failed
//! call. A write is never kept, even one marked `idempotent: true` for its retries.
//!
//! What may be kept, for how long, whether a kept answer still answers a request (`Vary`,
//! `no-cache`, `max-age`, `Age`) and how to revalidate it (`If-None-Match`,
//! `If-Modified-Since`) is RFC 9111, decided by `http-cache-semantics` as a private cache: the
//! rules are not written again here. What is here: the store (bounded in bytes, least used out
//! first, by `quick_cache`); the key (`key.rs`: the method, the URL's path and query, and every
//! request header but the few that change on each call without saying who asks, hashed with
//! keys random to the client: one caller's answer is never another's, whichever header tells
//! them apart); and what an untrusted answer's headers are reduced to before those rules read
//! them (`headers.rs`). A kept answer answers a failed call only where it would answer the
//! request itself (`Vary` included).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use http_cache_semantics::{AfterResponse, BeforeRequest, CacheOptions, CachePolicy, RequestLike};
use remcall_profile::{CacheSettings, Settings};
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

mod headers;
mod key;

use headers::{NEVER_PAST, kept_headers, stale_if_error, varies_on_unkeyed};
pub(crate) use key::{Key, Unkeyed, asked};

use crate::decode::response::Response;
use crate::wire::outgoing::Outgoing;

/// Where a fleet keeps its answers too (`cache.shared`; Redis, in `fleet/redis/cache.rs`).
pub(crate) trait SharedAnswers: Send + Sync + std::fmt::Debug {
    /// The key of a request (its method, path and query, keyed headers, and the body of a
    /// query sent with one), the same on every replica, and a digest keyed with the fleet's
    /// secret.
    fn key_of(
        &self,
        method: &str,
        url: &str,
        headers: &mut dyn Iterator<Item = (&HeaderName, &HeaderValue)>,
        body: Option<&[u8]>,
    ) -> Box<str>;

    /// The answer kept under `key`, if any, it is the fleet's own (its signature holds) and
    /// the store answers in time: within its own timeout and by `until`.
    fn get<'a>(
        &'a self,
        key: &'a str,
        until: tokio::time::Instant,
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
    /// fingerprinted, and its body, which tells one query sent as POST (or QUERY) from another.
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
        let body = request.body.as_deref();
        body.hash(&mut hasher);
        // The path and query, not the host: any endpoint of the client's answers alike.
        let url = &request.url;
        let url = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        };
        let fleet = self
            .fleet
            .as_ref()
            .map(|fleet| fleet.key_of(request.http_method.as_str(), &url, &mut keyed(), body));
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
    /// out is not taken: nothing kept says what that header was. Redis is waited on until
    /// `until` at the most (a part of the attempt's time: the rest is the server's).
    pub(crate) async fn fetch_from_fleet(
        &self,
        key: &Key,
        asked: &Outgoing,
        unkeyed: Unkeyed<'_>,
        until: tokio::time::Instant,
    ) {
        let (Some(fleet), Some(at)) = (&self.fleet, &key.fleet) else {
            return;
        };
        if self.store.contains_key(key) {
            return;
        }
        let Some(shared) = fleet.get(at, until).await else {
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
            BeforeRequest::Fresh(parts) => Kept::Fresh(Response::new(
                entry.status,
                parts.headers,
                entry.body.clone(),
            )),
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
            let again = Response::new(entry.status, parts.headers, entry.body.clone());
            self.keep((key, asked, settings), policy, &again, now);
            return (again, true);
        }
        if answer.status.is_success() {
            let policy = CachePolicy::new_options(&Asked(asked), &parts, now, options());
            if policy.is_storable() {
                let kept = Response::new(answer.status, headers, answer.body.clone());
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
        answers.then(|| Response::new(entry.status, entry.headers.clone(), entry.body.clone()))
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

//! The cache of GET and HEAD answers (`cache: { memory: 16MiB, stale_if_error: 10m }`).
//!
//! What may be kept, for how long, whether a kept answer still answers a request (`Vary`,
//! `no-cache`, `max-age`, `Age`) and how to revalidate it (`If-None-Match`,
//! `If-Modified-Since`) is RFC 9111, decided by `http-cache-semantics` as a private cache: the
//! rules are not written again here. What is here: the store (bounded in bytes, least used out
//! first, by `quick_cache`), and the key. An answer is kept under the method, the URL's path
//! and query (any endpoint of the client answers alike) and a fingerprint of the request's credentials — its `Authorization`,
//! `Cookie`, `Proxy-Authorization` and every header marked sensitive (the profile's secrets, an
//! interceptor's signature) — hashed with keys random to the client: an answer to one
//! credential is never another's, and no secret is kept.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http_cache_semantics::{AfterResponse, BeforeRequest, CacheOptions, CachePolicy, RequestLike};
use remcall_profile::CacheSettings;
use reqwest::StatusCode;
use reqwest::header::{
    AUTHORIZATION, CACHE_CONTROL, COOKIE, HeaderMap, HeaderName, HeaderValue, PROXY_AUTHORIZATION,
};

use crate::decode::response::Response;
use crate::wire::outgoing::Outgoing;

/// Where a fleet keeps its answers too (`cache.shared`; Redis, in `fleet/redis/cache.rs`).
pub(crate) trait SharedAnswers: Send + Sync + std::fmt::Debug {
    /// The key of a request (its method, path and query, credential headers), the same on
    /// every replica.
    fn key_of(
        &self,
        method: &str,
        url: &str,
        credentials: &mut dyn Iterator<Item = (&HeaderName, &HeaderValue)>,
    ) -> Box<str>;

    /// The answer kept under `key`, if any and the store answers in time.
    fn get<'a>(
        &'a self,
        key: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Option<Entry>> + Send + 'a>>;

    /// Keeps `entry` under `key` (in the background).
    fn put(&self, key: &str, entry: &Entry, now: SystemTime);
}

/// Where a kept answer is found.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    method: usize,
    url: Box<str>,
    credentials: u64,
    /// Its key in the fleet's Redis (`cache.shared`), the same on every replica.
    fleet: Option<Box<str>>,
}

/// A kept answer and what RFC 9111 says of it (the request it answered, its credentials taken
/// off).
pub(crate) struct Entry {
    pub(crate) policy: CachePolicy,
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    /// Until when it may answer a failed call: its freshness, then the `stale-if-error` window.
    pub(crate) stale_until: SystemTime,
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

/// The store, one per client.
pub(crate) struct Cache {
    store: quick_cache::sync::Cache<Key, Arc<Entry>, ByBytes>,
    hasher: RandomState,
    stale_if_error: Duration,
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

/// An entry weighs its body and headers.
#[derive(Debug, Clone, Copy)]
struct ByBytes;

impl quick_cache::Weighter<Key, Arc<Entry>> for ByBytes {
    fn weight(&self, key: &Key, entry: &Arc<Entry>) -> u64 {
        let headers: usize = entry
            .headers
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 32)
            .sum();
        // The policy keeps the request's and the answer's headers besides.
        (key.url.len() + entry.body.len() + 2 * headers + 512) as u64
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

/// A private cache: the answers are this client's, kept per credential.
fn options() -> CacheOptions {
    CacheOptions {
        shared: false,
        ..CacheOptions::default()
    }
}

impl Cache {
    pub(crate) fn new(settings: &CacheSettings, fleet: Option<Arc<dyn SharedAnswers>>) -> Cache {
        // Answers of a few KiB on average: the estimate only sizes the first allocation.
        let estimated = usize::try_from(settings.memory / 4096)
            .unwrap_or(usize::MAX)
            .clamp(16, 1 << 16);
        Cache {
            store: quick_cache::sync::Cache::with_weighter(
                estimated,
                settings.memory.max(1),
                ByBytes,
            ),
            hasher: RandomState::new(),
            stale_if_error: settings.stale_if_error,
            fleet,
        }
    }

    /// The key of `request` (of the method at `index`), credentials fingerprinted.
    pub(crate) fn key(&self, index: usize, request: &Outgoing) -> Key {
        let mut hasher = self.hasher.build_hasher();
        for (name, value) in &request.headers {
            if is_credential(name, value) {
                name.as_str().hash(&mut hasher);
                value.as_bytes().hash(&mut hasher);
            }
        }
        // The path and query, not the host: any endpoint of the client's answers alike.
        let url = &request.url;
        let url = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        };
        let fleet = self.fleet.as_ref().map(|fleet| {
            let mut credentials = request.headers.iter().filter(|(n, v)| is_credential(n, v));
            fleet.key_of(request.http_method.as_str(), &url, &mut credentials)
        });
        Key {
            method: index,
            url: url.into(),
            credentials: hasher.finish(),
            fleet,
        }
    }

    /// When memory has nothing for `key` and the fleet's Redis has it, it is in memory after.
    pub(crate) async fn fetch_from_fleet(&self, key: &Key) {
        let (Some(fleet), Some(at)) = (&self.fleet, &key.fleet) else {
            return;
        };
        if self.store.contains_key(key) {
            return;
        }
        if let Some(entry) = fleet.get(at).await {
            self.store.insert(key.clone(), Arc::new(entry));
        }
    }

    /// What is kept for `request`.
    pub(crate) fn kept(&self, key: &Key, request: &Outgoing, now: SystemTime) -> Kept {
        let Some(entry) = self.store.get(key) else {
            return Kept::Nothing;
        };
        match entry.policy.before_request(&Asked(request), now) {
            BeforeRequest::Fresh(parts) => Kept::Fresh(Response {
                status: entry.status,
                headers: parts.headers,
                body: entry.body.clone(),
            }),
            BeforeRequest::Stale {
                request: asked,
                matches: true,
            } => Kept::Stale {
                entry,
                conditions: conditions(&asked.headers),
            },
            BeforeRequest::Stale { matches: false, .. } => Kept::Nothing,
        }
    }

    /// The server's `answer` to `request`: kept when RFC 9111 allows it; a 304 to a
    /// revalidation is the kept answer again (its headers updated), and says so (`true`).
    pub(crate) fn answered(
        &self,
        key: &Key,
        request: &Outgoing,
        stale: Option<Arc<Entry>>,
        answer: Response,
        now: SystemTime,
    ) -> (Response, bool) {
        let parts = response_parts(&answer);
        if let Some(entry) = stale
            && answer.status == StatusCode::NOT_MODIFIED
        {
            let AfterResponse::NotModified(policy, parts) =
                entry.policy.after_response(&Asked(request), &parts, now)
            else {
                return (answer, false);
            };
            let again = Response {
                status: entry.status,
                headers: parts.headers.clone(),
                body: entry.body.clone(),
            };
            self.keep(key, policy, &again, now);
            return (again, true);
        }
        if answer.status.is_success() {
            let policy = CachePolicy::new_options(&Asked(request), &parts, now, options());
            if policy.is_storable() {
                self.keep(key, policy, &answer, now);
            }
        }
        (answer, false)
    }

    /// A kept answer that may still answer a call that failed, if one is.
    pub(crate) fn stale_for_failure(&self, key: &Key, now: SystemTime) -> Option<Response> {
        let entry = self.store.get(key)?;
        (now <= entry.stale_until).then(|| Response {
            status: entry.status,
            headers: entry.headers.clone(),
            body: entry.body.clone(),
        })
    }

    fn keep(&self, key: &Key, policy: CachePolicy, answer: &Response, now: SystemTime) {
        let window = self.stale_if_error.max(stale_if_error(&answer.headers));
        let stale_until = now + policy.time_to_live(now) + window;
        let entry = Entry {
            policy,
            status: answer.status,
            headers: answer.headers.clone(),
            body: answer.body.clone(),
            stale_until,
        };
        if let (Some(fleet), Some(at)) = (&self.fleet, &key.fleet) {
            fleet.put(at, &entry, now);
        }
        self.store.insert(key.clone(), Arc::new(entry));
    }
}

/// A header that says who asks: it keys the answer (hashed), and is never kept.
pub(crate) fn is_credential(name: &HeaderName, value: &HeaderValue) -> bool {
    name == AUTHORIZATION || name == COOKIE || name == PROXY_AUTHORIZATION || value.is_sensitive()
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

fn response_parts(answer: &Response) -> http::response::Parts {
    let (mut parts, ()) = http::Response::new(()).into_parts();
    parts.status = answer.status;
    parts.headers = answer.headers.clone();
    parts
}

/// The server's own `stale-if-error=N` (RFC 5861), bounded to a day.
fn stale_if_error(headers: &HeaderMap) -> Duration {
    headers
        .get_all(CACHE_CONTROL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|directive| directive.trim().strip_prefix("stale-if-error="))
        .filter_map(|n| n.trim_matches('"').parse::<u64>().ok())
        .max()
        .map_or(Duration::ZERO, |n| Duration::from_secs(n.min(24 * 60 * 60)))
}

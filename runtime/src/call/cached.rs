//! An attempt and the cache (`cache:`, `outbound/cache/`): a GET or HEAD is looked up once
//! its request is whole (credentials and interceptors' headers in it, so the key fingerprints
//! them); a fresh answer is the attempt's answer, unsent; a stale one is revalidated, and the
//! server's 304 answers with it; an answer the interceptors accepted, and storable, is kept
//! (`attempt.rs` tells the cache only after `after_receive`). A failed attempt carries the kept
//! answer still within `stale_if_error` that would answer its request (`Vary` included), for
//! the call to answer with before the fallback.

use std::sync::Arc;
use std::time::SystemTime;

use tokio::time::Instant;

use super::outgoing::outgoing;
use crate::client::{Client, MethodState};
use crate::decode::response::Response;
use crate::error::Error;
use crate::outbound::auth::Credentials;
use crate::outbound::cache::{self, Cache, Entry, Kept, Key, Unkeyed};
use crate::outbound::interceptor::CallInfo;
use crate::outcome::FailedAttempt;
use crate::wire::outgoing::Outgoing;
use crate::wire::request::Request;

/// An attempt's business with the cache while its request is out.
pub(super) struct Cached {
    key: Key,
    /// The request as sent, its body and credentials aside: RFC 9111's rules read it again with
    /// the answer, and the policy kept with the answer holds it.
    asked: Outgoing,
    stale: Option<Arc<Entry>>,
}

/// What the cache says before an attempt is sent.
pub(super) enum Consulted {
    /// The answer, fresh from the cache.
    Fresh(Response),
    /// Send it (conditions added when a kept answer is stale).
    Send,
}

impl Client {
    /// The cache's word on `outgoing`, which gains `If-None-Match`/`If-Modified-Since` when a
    /// stale answer is to be revalidated; `cached` is what the answer is to be told with.
    /// `key` is the request's, when the fleet's lookup made it already.
    pub(super) fn consult_cache(
        &self,
        state: &MethodState,
        request: &Request,
        outgoing: &mut Outgoing,
        key: Option<Key>,
        cached: &mut Option<Box<Cached>>,
    ) -> Consulted {
        if state.settings.cache.is_none() {
            return Consulted::Send;
        }
        let Some(cache) = self.cache_of(state, request, outgoing) else {
            return Consulted::Send;
        };
        let key = key.unwrap_or_else(|| {
            cache.key(request.method.index, outgoing, Unkeyed::of(&state.settings))
        });
        let asked = cache::asked(outgoing);
        let stale = match cache.kept(&key, &asked, SystemTime::now()) {
            Kept::Fresh(answer) => {
                state.counters.record_cache_hit();
                return Consulted::Fresh(answer);
            }
            Kept::Stale { entry, conditions } => {
                outgoing.headers.extend(conditions);
                Some(entry)
            }
            Kept::Nothing => None,
        };
        *cached = Some(Box::new(Cached { key, asked, stale }));
        Consulted::Send
    }

    /// Before the cache is consulted: what the fleet's Redis keeps for `outgoing`, brought into
    /// memory when memory has nothing for it (`cache.shared`). Returns the request's key, for
    /// the consultation.
    pub(super) async fn cache_from_fleet(
        &self,
        state: &MethodState,
        request: &Request,
        outgoing: &Outgoing,
    ) -> Option<Key> {
        let cache = self.cache_of(state, request, outgoing)?;
        let unkeyed = Unkeyed::of(&state.settings);
        let key = cache.key(request.method.index, outgoing, unkeyed);
        cache
            .fetch_from_fleet(&key, &cache::asked(outgoing), unkeyed)
            .await;
        Some(key)
    }

    /// The server's answer, accepted by the interceptors, told to the cache: kept when it may
    /// be, and a 304 to a revalidation the kept answer again.
    pub(super) fn cache_answer(
        &self,
        state: &MethodState,
        cached: &Cached,
        answer: Response,
    ) -> Response {
        let (Some(cache), Some(settings)) = (&self.shared.cache, &state.settings.cache) else {
            return answer;
        };
        let (answer, revalidated) = cache.answered(
            (&cached.key, &cached.asked, settings),
            cached.stale.clone(),
            answer,
            SystemTime::now(),
        );
        if revalidated {
            state.counters.record_revalidated();
        }
        answer
    }

    /// A failed attempt, with the kept answer that may still stand in for it.
    pub(super) fn stale_for(
        &self,
        cached: Option<&Cached>,
        mut failed: FailedAttempt,
    ) -> FailedAttempt {
        if let Some(cached) = cached
            && failed.error.allows_fallback()
            && let Some(cache) = &self.shared.cache
            && let Some(stale) =
                cache.stale_for_failure(&cached.key, &cached.asked, SystemTime::now())
        {
            failed.error = failed.error.with_stale(Arc::new(stale));
        }
        failed
    }

    /// A kept answer for a call refused before any attempt (breaker open, bulkhead full, no
    /// rate-limit turn) that a fallback could answer.
    pub(super) fn stale_for_refusal(
        &self,
        state: &MethodState,
        request: &Request,
        refused: &Error,
    ) -> Option<Response> {
        if !refused.allows_fallback() {
            return None;
        }
        let (cache, outgoing) = self.as_an_attempt_would_ask(state, request)?;
        let key = cache.key(
            request.method.index,
            &outgoing,
            Unkeyed::of(&state.settings),
        );
        cache.stale_for_failure(&key, &cache::asked(&outgoing), SystemTime::now())
    }

    /// A fresh kept answer, looked up before the attempt takes its turn in the server's quota:
    /// a call the cache answers asks nothing of the server, so it does not wait for the quota
    /// (only when a quota is known: otherwise the attempt's own lookup answers at no cost).
    pub(super) fn fresh_before_turn(
        &self,
        state: &MethodState,
        request: &Request,
    ) -> Option<Response> {
        self.quota_of(state)?;
        let (cache, outgoing) = self.as_an_attempt_would_ask(state, request)?;
        let key = cache.key(
            request.method.index,
            &outgoing,
            Unkeyed::of(&state.settings),
        );
        match cache.kept(&key, &cache::asked(&outgoing), SystemTime::now()) {
            Kept::Fresh(answer) => {
                state.counters.record_cache_hit();
                Some(answer)
            }
            Kept::Stale { .. } | Kept::Nothing => None,
        }
    }

    /// The cache and the request as an attempt would send it, before any attempt: not when
    /// interceptors would add to it (their headers would be missing from the key), nor for an
    /// OAuth2 token not at hand (fetching one here would be a call of its own).
    fn as_an_attempt_would_ask(
        &self,
        state: &MethodState,
        request: &Request,
    ) -> Option<(&Cache, Outgoing)> {
        state.settings.cache.as_ref()?;
        let cache = self.shared.cache.as_ref()?;
        let kept_method = matches!(
            state.http_method,
            reqwest::Method::GET | reqwest::Method::HEAD
        );
        if !kept_method || request.download.is_some() || !self.shared.interceptors.is_empty() {
            return None;
        }
        let now = Instant::now();
        let credential = match &state.credentials {
            None => None,
            Some(Credentials::Fixed(value)) => Some(value.clone()),
            Some(Credentials::OAuth2(source)) => Some(source.fresh_header(now)?),
        };
        let lease = self.shared.endpoints.pick(&[]).ok()?;
        let call = CallInfo {
            client: self.shared.spec.name,
            method: request.method.name,
            attempt: 0,
        };
        let asked = outgoing(state, request, lease.endpoint(), call, credential, now).ok()?;
        Some((cache, asked))
    }

    /// The client's cache, when the method keeps answers and this request is one it keeps.
    fn cache_of(
        &self,
        state: &MethodState,
        request: &Request,
        outgoing: &Outgoing,
    ) -> Option<&Cache> {
        state.settings.cache.as_ref()?;
        let kept_method = matches!(
            outgoing.http_method,
            reqwest::Method::GET | reqwest::Method::HEAD
        );
        (kept_method && request.download.is_none())
            .then_some(self.shared.cache.as_ref())
            .flatten()
    }
}

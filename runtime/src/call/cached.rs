//! An attempt and the cache (`cache:`, `outbound/cache/`), one step: [`CacheStep`] looks a
//! GET or HEAD up, revalidates a stale answer, keeps a query sent with a body (every QUERY, a
//! POST marked `safe: true`) for failures only, stores the answer the interceptors accepted
//! (`attempt.rs` tells it only after `after_receive`), and gives a failed attempt the kept
//! answer that may stand in for it, typed, in the attempt's outcome. A call refused before any
//! attempt asks [`Client::stale_for_refusal`].

use std::sync::Arc;
use std::time::SystemTime;

use tokio::time::Instant;

use super::outgoing::outgoing;
use super::parts::Call;
use super::quota::QuotaStep;
use crate::client::{Client, MethodState};
use crate::decode::response::Response;
use crate::error::Error;
use crate::observe::probe::Decision;
use crate::outbound::auth::Credentials;
use crate::outbound::cache::{self, Cache, Entry, Kept, Key, Unkeyed};
use crate::outbound::interceptor::CallInfo;
use crate::outcome::FailedAttempt;
use crate::wire::outgoing::Outgoing;
use crate::wire::request::Request;

/// The cache's step in one attempt: looked up before the quota's turn (a fresh answer asks
/// nothing of the server) and again with the request whole, which a stale answer's conditions
/// join; the answer stored (or a 304 turned into the kept answer); a failure given the kept
/// answer that may stand in for it. One value an attempt of a method that keeps answers holds
/// (boxed: for every other method it is one word of the attempt's future).
pub(super) struct CacheStep<'a> {
    call: Call<'a>,
    cache: &'a Cache,
    keeping: Keeping,
    /// What the lookup with the whole request found, for the answer and a failure.
    sent: Option<Sent>,
}

/// How a method's answers are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keeping {
    /// A GET or HEAD's, by RFC 9111: a fresh one answers, a stale one is revalidated, and within
    /// `stale_if_error` it answers a failed call.
    Answers,
    /// A query sent with a body (a QUERY, or a POST the spec marks `safe: true`): kept under
    /// its body's digest too, and only to answer a failed call within `stale_if_error`; never
    /// instead of asking.
    ForFailures,
}

impl Keeping {
    /// How `state`'s method keeps `request`'s answers, if it keeps them: only a method that
    /// reads ([`MethodSpec::reads`](crate::spec::MethodSpec::reads)), never a download's. A
    /// write marked `idempotent: true` may be retried, but its answer says what that one call
    /// did: another call's failure is never answered with it.
    fn of(state: &MethodState, request: &Request) -> Option<Keeping> {
        if request.download {
            return None;
        }
        match state.http_method.as_str() {
            "GET" | "HEAD" => Some(Keeping::Answers),
            "QUERY" => Some(Keeping::ForFailures),
            "POST" if request.method.reads => Some(Keeping::ForFailures),
            _ => None,
        }
    }
}

/// The request as the lookup saw it.
struct Sent {
    key: Key,
    /// The request as sent, its body and credentials aside: RFC 9111's rules read it again with
    /// the answer, and the policy kept with the answer holds it.
    asked: Outgoing,
    /// The kept answer being revalidated.
    stale: Option<Arc<Entry>>,
}

impl<'a> CacheStep<'a> {
    /// The step of an attempt of `request`, when its method keeps answers and this request is
    /// one a cache keeps (see [`Keeping`]).
    pub(super) fn of(call: Call<'a>) -> Option<Box<CacheStep<'a>>> {
        let Call {
            client,
            state,
            request,
        } = call;
        state.settings.cache.as_ref()?;
        let cache = client.shared.cache.as_ref()?;
        let keeping = Keeping::of(state, request)?;
        Some(Box::new(CacheStep {
            call,
            cache,
            keeping,
            sent: None,
        }))
    }

    /// A fresh kept answer, looked up before the attempt takes its turn in the server's quota:
    /// a call the cache answers asks nothing of the server, so it does not wait for the quota
    /// (only when a quota is known: otherwise the lookup with the whole request answers at no
    /// cost).
    pub(super) fn fresh_before_turn(&self, quota: &QuotaStep<'_>) -> Option<Response> {
        if self.keeping == Keeping::ForFailures {
            return None;
        }
        quota.quota()?;
        let (cache, outgoing) = self
            .call
            .client
            .as_an_attempt_would_ask(self.call.state, self.call.request)?;
        let key = cache.key(
            self.call.request.method.index,
            &outgoing,
            Unkeyed::of(&self.call.state.settings),
        );
        match cache.kept(&key, &cache::asked(&outgoing), SystemTime::now()) {
            Kept::Fresh(answer) => {
                self.hit();
                Some(answer)
            }
            Kept::Stale { .. } | Kept::Nothing => None,
        }
    }

    /// A kept answer answers: counted, and an event of the call.
    fn hit(&self) {
        self.call.state.decided(Decision::CacheHit);
    }

    /// The lookup with the request whole (credentials and interceptors' headers in it, so the
    /// key fingerprints them), after what the fleet's Redis keeps for it is brought into memory
    /// (`cache.shared`): a fresh answer, or `None` to send it, with `If-None-Match` /
    /// `If-Modified-Since` added when a kept answer is stale. Redis is waited on for half the
    /// time left before `deadline` at the most: a slow Redis leaves the server the other half,
    /// and never takes a call past its deadline.
    pub(super) async fn lookup(
        &mut self,
        outgoing: &mut Outgoing,
        deadline: Instant,
    ) -> Option<Response> {
        let unkeyed = Unkeyed::of(&self.call.state.settings);
        let key = self
            .cache
            .key(self.call.request.method.index, outgoing, unkeyed);
        let asked = cache::asked(outgoing);
        if self.call.client.shared.fleet_cache.is_some() {
            let now = Instant::now();
            let until = now + deadline.saturating_duration_since(now) / 2;
            // Boxed: the fleet's round trip is no part of a call without it.
            Box::pin(self.cache.fetch_from_fleet(&key, &asked, unkeyed, until)).await;
        }
        if self.keeping == Keeping::ForFailures {
            // Asked every time: what is kept only stands in when the server fails.
            self.sent = Some(Sent {
                key,
                asked,
                stale: None,
            });
            return None;
        }
        let stale = match self.cache.kept(&key, &asked, SystemTime::now()) {
            Kept::Fresh(answer) => {
                self.hit();
                return Some(answer);
            }
            Kept::Stale { entry, conditions } => {
                outgoing.headers.extend(conditions);
                Some(entry)
            }
            Kept::Nothing => None,
        };
        self.sent = Some(Sent { key, asked, stale });
        None
    }

    /// The server's answer, accepted by the interceptors, told to the cache: stored when it
    /// may be, and a 304 to a revalidation the kept answer again.
    pub(super) fn store(&self, answer: Response) -> Response {
        let (Some(sent), Some(settings)) = (&self.sent, &self.call.state.settings.cache) else {
            return answer;
        };
        let (answer, revalidated) = self.cache.answered(
            (&sent.key, &sent.asked, settings),
            sent.stale.clone(),
            answer,
            SystemTime::now(),
        );
        if revalidated {
            self.call.state.decided(Decision::Revalidated);
        }
        answer
    }

    /// A failed attempt, with the kept answer still within `stale_if_error` that would answer
    /// its request (`Vary` included), for the call to answer with before the fallback.
    pub(super) fn stale(&self, mut failed: FailedAttempt) -> FailedAttempt {
        if let Some(sent) = &self.sent
            && failed.error.allows_fallback()
            && let Some(stale) =
                self.cache
                    .stale_for_failure(&sent.key, &sent.asked, SystemTime::now())
        {
            failed.stale = Some(Box::new(stale));
        }
        failed
    }
}

impl Client {
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
        Keeping::of(state, request)?;
        if !self.shared.interceptors.is_empty() {
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
}

//! One logical call, in the order docs/resilience.md describes:
//!
//! 1. rate limiter → `RateLimited` when no turn within `max_wait` (the fleet's in Redis under
//!    `rate_limit.shared`);
//! 2. breaker permit → `BreakerOpen` (with the time until half-open) when open;
//! 3. bulkhead slot → `Rejected` when full past `max_wait`;
//! 4. within the `total` deadline, the attempts: pick an endpoint, take a turn in the quota the
//!    server announces, add headers and credentials, look the whole request up in the cache (a
//!    fresh kept answer answers unsent), send with the `attempt` timeout (a slow one hedged), read
//!    within `max_response_bytes`, classify; a retryable failure sleeps its backoff (or
//!    `Retry-After`), never past the deadline, and only with budget left; a half-open trial
//!    makes one attempt;
//! 5. a failure a kept answer may stand in for (`stale_if_error`) is answered by it;
//! 6. the outcome of the whole call is recorded once, in the breaker and the statistics;
//! 7. a failure a fallback may answer goes to the generated method's fallback, if it has one.
//!
//! Each step is a type with its file, composed in the order above by [`Client::run`] (the
//! call's) and `Attempt::run` (an attempt's): steps 1–3 `Admission` (`admission.rs`), step 4
//! `Retries` (`attempts.rs`, the loop), each attempt an `Attempt` (`attempt.rs`) or a `Hedge`
//! of them (`hedge.rs`), within it `QuotaStep` (`quota.rs`, the quota's turn) and `CacheStep`
//! (`cached.rs`, the cache's step, and step 5's kept answer); `outgoing.rs` builds the request
//! as sent. Every step is made from one `Call` (`parts.rs`). What each result means is decided
//! in `crate::outcome`. ARCHITECTURE.md's table of the steps is checked against this folder.
//! A download streams its body after the call (`download.rs`); a paged method makes one call
//! per page (`paginate.rs`); a stream stays open (`stream.rs`). What a call tells its telemetry
//! goes through its probe (`crate::observe::probe`).
//!
//! The breaker sits outside the retry loop, as in Hystrix and Feign: one outcome per logical call,
//! so retries cannot make a struggling downstream look worse (or better) than it is.

mod admission;
mod attempt;
mod attempts;
mod cached;
pub(crate) mod download;
mod hedge;
mod outgoing;
pub(crate) mod paginate;
mod parts;
mod quota;
mod stream;
mod when;

use futures_util::future::Either;
use tokio::time::Instant;
use tracing::Instrument;

use crate::client::Client;
use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};
use crate::observe::probe::Decision;
use crate::origin::Origin;
use crate::outcome::Unanswered;
use crate::spec::MethodSpec;
use crate::wire::request::Request;

impl Client {
    /// Runs one logical call and decodes its answer.
    pub async fn call<T>(
        &self,
        request: Request,
        decode: impl FnOnce(Response) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.call_in_span(request, decode, false).await
    }

    /// [`Client::call`]; when a fallback follows, a failure it will answer is an event of the
    /// call's span, which stays a failure (the fallback answers the caller, not the downstream).
    async fn call_in_span<T>(
        &self,
        request: Request,
        decode: impl FnOnce(Response) -> Result<T, Error>,
        fallback_follows: bool,
    ) -> Result<T, Error> {
        let probe = self.shared.method(request.method).probe.call();
        // Without a subscriber that wants the span, entering and leaving it at every poll (and
        // moving the call's future into the wrapper that does) buys nothing.
        let result = match probe.span() {
            None => self.run(request, decode).await,
            Some(span) => self.run(request, decode).instrument(span.clone()).await,
        };
        probe.ended(result.as_ref().err(), fallback_follows);
        result
    }

    /// [`Client::call`], then step 6: a failure a fallback may answer (see
    /// [`Error::allows_fallback`]) goes to `fallback` ([`Client::fall_back`]).
    pub async fn call_or_fallback<T, Answer>(
        &self,
        request: Request,
        decode: impl FnOnce(Response) -> Result<T, Error>,
        fallback: impl FnOnce(Error) -> Answer,
    ) -> Result<T, Error>
    where
        Answer: Future<Output = Result<T, Error>>,
    {
        // The call's future is awaited here, not handed to `or_fallback`: a future passed to an
        // `async fn` and awaited there is held twice in its state.
        let method = request.method;
        match self.call_in_span(request, decode, true).await {
            Err(cause) if cause.allows_fallback() => self.fall_back(method, cause, fallback).await,
            result => result,
        }
    }

    /// Step 6 of what `answered` runs (a stream's opening): a failure a fallback may answer goes
    /// to `fallback` ([`Client::fall_back`]), whose stream (`Events::from_items`, or another
    /// source's) is returned instead.
    pub async fn or_fallback<S, Answer>(
        &self,
        method: &'static MethodSpec,
        answered: impl Future<Output = Result<S, Error>>,
        fallback: impl FnOnce(Error) -> Answer,
    ) -> Result<S, Error>
    where
        Answer: Future<Output = Result<S, Error>>,
    {
        match answered.await {
            Err(cause) if cause.allows_fallback() => self.fall_back(method, cause, fallback).await,
            result => result,
        }
    }

    /// The fallback's answer to `cause`: an answer (`Ok`) counts as a fallback in the
    /// statistics; a fallback that passes the failure on, as the generated defaults and
    /// `NoFallback` do, leaves the call a failure.
    async fn fall_back<S, Answer>(
        &self,
        method: &'static MethodSpec,
        cause: Error,
        fallback: impl FnOnce(Error) -> Answer,
    ) -> Result<S, Error>
    where
        Answer: Future<Output = Result<S, Error>>,
    {
        let answer = fallback(cause).await;
        if answer.is_ok() {
            crate::origin::note(Origin::Fallback);
            self.shared.method(method).decided(Decision::FellBack);
        }
        answer
    }

    /// The first five steps, inside the call's span.
    async fn run<T>(
        &self,
        request: Request,
        decode: impl FnOnce(Response) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let method = request.method;
        let call = parts::Call::of(self, &request);
        let state = call.state;
        let named = |e: Error| e.in_call(self.shared.spec.name, method.name);
        // 1–3. Rate limit, breaker, bulkhead; a refusal a kept answer may stand in for.
        let admitted = match admission::Admission::of(call).admit().await {
            Ok(admitted) => admitted,
            Err(refused) => {
                return match self.stale_for_refusal(state, &request, &refused) {
                    Some(stale) => {
                        state.decided(Decision::ServedStale { error: &refused });
                        crate::origin::note(Origin::Stale);
                        decode(stale).map_err(named)
                    }
                    None => Err(named(refused)),
                };
            }
        };
        // 4. The attempts, on the isolation pool when the profile has one.
        let (result, stale) = match Self::isolated(call, &admitted).await {
            Ok(answer) => (Ok(answer), None),
            Err(Unanswered { error, stale }) => (Err(error), stale),
        };
        let dropped = crate::outcome::dropped(&result);
        if let Some(stale) = stale {
            // The breaker and the statistics see the failure; the caller, the kept answer.
            admitted.record(state, &result, dropped, Instant::now());
            if let Err(error) = &result {
                state.decided(Decision::ServedStale { error });
            }
            crate::origin::note(Origin::Stale);
            return decode(*stale).map_err(named);
        }
        if result.is_ok() {
            crate::origin::note(Origin::Server);
        }
        let lax = state.settings.decode == remcall_profile::DecodeMode::Lax;
        let (result, seen) = crate::decode::answer(lax, || result.and_then(decode));
        if !seen.is_empty() {
            let mut noticed = seen.undeclared;
            // What a decode that failed skipped is not what the caller lost: the error says.
            if result.is_err() {
                noticed.clear();
            }
            noticed.extend(seen.repairs);
            if let Some(first) = noticed.first() {
                let (count, path) = (noticed.len(), &first.path);
                state.decided(Decision::Drift { count, path });
            }
            crate::observe::drift_warning::warn_new(
                &state.counters,
                self.shared.spec.name,
                method,
                noticed,
            );
        }
        // 5. The logical call, recorded once.
        admitted.record(state, &result, dropped, Instant::now());
        result.map_err(named)
    }

    /// Step 4 of an admitted call: the attempts, on the isolation pool when the profile has one.
    /// Not an `async fn`: a layer of its own would add its arguments to every call's future;
    /// the pool's path, taken by few clients, is boxed instead. Inlined, so the future it
    /// returns is made where it is awaited, not made and then copied there.
    #[inline(always)]
    fn isolated<'a>(
        call: parts::Call<'a>,
        admitted: &admission::Admitted<'_>,
    ) -> impl Future<Output = Result<Response, Unanswered>> + Send + 'a {
        let (trial, first) = (admitted.trial(), admitted.first());
        let Some(pool) = call.state.bulkhead.pool() else {
            return Either::Left(attempts::Retries::of(call).run(trial, first));
        };
        // The pool's thread outlives this call's borrows: it runs on copies.
        let client = call.client.clone();
        let request = call.request.clone();
        let span = tracing::Span::current();
        let attempts = async move {
            attempts::Retries::of(parts::Call::of(&client, &request))
                .run(trial, first)
                .await
        };
        let pooled = pool.run(Box::pin(attempts).instrument(span));
        Either::Right(Box::pin(async move {
            pooled.await.unwrap_or_else(|| {
                Err(Error::new(ErrorKind::Rejected, "the isolation pool is shut down").into())
            })
        }))
    }
}

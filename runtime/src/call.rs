//! One logical call, in the order docs/resilience.md describes:
//!
//! 1. rate limiter → `RateLimited` when no turn within `max_wait`;
//! 2. breaker permit → `BreakerOpen` (with the time until half-open) when open;
//! 3. bulkhead slot → `Rejected` when full past `max_wait`;
//! 4. within the `total` deadline, the attempts: pick an endpoint, add headers, send with the
//!    `attempt` timeout, read within `max_response_bytes`, classify; a retryable failure sleeps
//!    its backoff (or `Retry-After`), never past the deadline, and only with budget left; a
//!    half-open trial makes one attempt;
//! 5. the outcome of the whole call is recorded once, in the breaker and the statistics;
//! 6. a failure a fallback may answer goes to the generated method's fallback, if it has one.
//!
//! The breaker sits outside the retry loop, as in Hystrix and Feign: one outcome per logical call,
//! so retries cannot make a struggling downstream look worse (or better) than it is.

use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, SystemTime};

use remcall_profile::Condition;
use tokio::time::Instant;
use tracing::Instrument;

use crate::client::{Client, MethodState};
use crate::error::{Error, ErrorKind, from_transport};
use crate::observe::log;
use crate::observe::stats::Ending;
use crate::outbound::auth::Credentials;
use crate::outbound::endpoints::{Endpoint, Lease};
use crate::outbound::interceptor::{self, CallInfo};
use crate::policy::breaker::Outcome;
use crate::policy::hedge::Hedging;
use crate::policy::retry::{AttemptFailure, FailedAttempt, backoff, is_retryable, retry_after};
use crate::wire::request::Request;
use crate::wire::response::Response;

impl Client {
    /// Runs one logical call and decodes its answer.
    pub async fn call<T>(
        &self,
        request: Request,
        decode: impl FnOnce(Response) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let method = request.method;
        // One span per logical call; the URL template, never the filled URL (it may carry ids).
        let span = tracing::info_span!(
            "remcall.call",
            client = self.shared.spec.name,
            method = method.name,
            http.method = method.http_method,
            url.template = method.path,
            attempts = tracing::field::Empty,
            hedges = tracing::field::Empty,
            status = tracing::field::Empty,
            outcome = tracing::field::Empty,
        );
        #[cfg(feature = "metrics")]
        let started = Instant::now();
        let result = self.run(request, decode).instrument(span.clone()).await;
        let outcome = match &result {
            Ok(_) => "success",
            Err(error) => error.kind().name(),
        };
        span.record("outcome", outcome);
        #[cfg(feature = "metrics")]
        crate::observe::metrics::record_call(
            self.shared.spec.name,
            method.name,
            outcome,
            started.elapsed(),
        );
        result
    }

    /// [`Client::call`], then step 6: a failure a fallback may answer (see
    /// [`Error::allows_fallback`]) goes to `fallback`. An answer (`Ok`) counts as a fallback in
    /// the statistics; a fallback that passes the failure on, as the generated defaults and
    /// `NoFallback` do, leaves the call a failure.
    pub async fn call_or_fallback<T, Answer>(
        &self,
        request: Request,
        decode: impl FnOnce(Response) -> Result<T, Error>,
        fallback: impl FnOnce(Error) -> Answer,
    ) -> Result<T, Error>
    where
        Answer: Future<Output = Result<T, Error>>,
    {
        let method = request.method;
        match self.call(request, decode).await {
            Err(cause) if cause.allows_fallback() => {
                let answer = fallback(cause).await;
                if answer.is_ok() {
                    self.shared.method(method).counters.record_fallback();
                }
                answer
            }
            result => result,
        }
    }

    /// The first five steps, inside the call's span.
    async fn run<T>(
        &self,
        request: Request,
        decode: impl FnOnce(Response) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let method = request.method;
        let state = self.shared.method(method);
        let named = |e: Error| e.in_call(self.shared.spec.name, method.name);

        // 1. Rate limiter. Dropping the call while it waits gives the turn back. One clock
        // reading serves the limiter and the breaker, unless the call waited for its turn.
        let mut now = Instant::now();
        // A rate limit shared with the fleet (in Redis) stands in for the local one.
        if let Some(shared) = &state.fleet_limit {
            let decision = crate::fleet::admit(shared, now).await;
            if decision.without_redis {
                state.counters.record_without_redis();
                #[cfg(feature = "metrics")]
                crate::observe::metrics::record_without_redis(self.shared.spec.name, method.name);
            }
            if !decision.admitted {
                state
                    .counters
                    .record(Ending::RateLimited, None, Instant::now());
                return Err(named(Error::fixed(
                    ErrorKind::RateLimited,
                    "shared rate limit reached: no turn within max_wait",
                )));
            }
            if decision.waited {
                now = Instant::now();
            }
        }
        // A caller's deadline (a `remcall::deadline` scope) that leaves no time: nothing is
        // sent, and the downstream is not blamed.
        let caller_deadline = crate::policy::deadline::current();
        if let Some(by) = caller_deadline
            && by.saturating_duration_since(now) < MIN_TIME_LEFT
        {
            state.counters.record(Ending::Failure, None, now);
            return Err(named(Error::fixed(
                ErrorKind::Timeout,
                "no time left: the caller's deadline has passed",
            )));
        }
        if let Some(limiter) = &state.rate_limit {
            match limiter.reserve(now) {
                Some(turn) => {
                    if turn.waits() {
                        turn.ready().await;
                        now = Instant::now();
                    }
                }
                None => {
                    state.counters.record(Ending::RateLimited, None, now);
                    return Err(named(Error::fixed(
                        ErrorKind::RateLimited,
                        "rate limit reached: no turn within max_wait",
                    )));
                }
            }
        }

        // 2. Breaker. Dropping the call releases a half-open trial slot. The call's clock starts
        // here: its total deadline covers a wait for a bulkhead slot too.
        let started = now;
        let permit = match state.breaker.try_acquire(started) {
            Ok(permit) => permit,
            Err(wait) => {
                state.counters.record(Ending::ShortCircuited, None, started);
                // The time until trials is written by Display, from `retry_in`.
                let message = if wait.is_zero() {
                    "the circuit breaker is half-open and its trial calls are in flight"
                } else {
                    "the circuit breaker is open"
                };
                return Err(named(
                    Error::fixed(ErrorKind::BreakerOpen, message).with_retry_in(wait),
                ));
            }
        };

        // 3. Bulkhead. The slot is released when dropped, cancellation included.
        let Ok(slot) = state.bulkhead.acquire().await else {
            state
                .counters
                .record(Ending::Rejected, None, Instant::now());
            return Err(named(Error::fixed(
                ErrorKind::Rejected,
                "the bulkhead is full",
            )));
        };

        // 4. The attempts, within the total deadline. The first is sent now: when the bulkhead
        // made the call wait, the clock says when that is.
        let total = started + state.settings.total_timeout;
        let deadline = caller_deadline.map_or(total, |by| by.min(total));
        let sent = if state.bulkhead.may_wait() {
            Instant::now()
        } else {
            started
        };
        self.shared.budget.deposit(started);
        if let Some(fleet) = &self.shared.fleet_budget {
            crate::fleet::deposit(fleet, started);
        }
        if let Some(hedging) = &state.hedging {
            hedging.deposit(started);
        }
        let trial = permit.is_trial();
        let result = match state.bulkhead.pool() {
            Some(pool) => {
                let client = self.clone();
                let span = tracing::Span::current();
                let attempts =
                    async move { client.attempts(&request, trial, sent, deadline).await };
                pool.run(Box::pin(attempts).instrument(span))
                    .await
                    .unwrap_or_else(|| {
                        Err(Error::new(
                            ErrorKind::Rejected,
                            "the isolation pool is shut down",
                        ))
                    })
            }
            None => self.attempts(&request, trial, sent, deadline).await,
        };
        // An adaptive limit learns whether the downstream dropped the call.
        let dropped = result.as_ref().is_err_and(|error| {
            matches!(error.kind(), ErrorKind::Timeout | ErrorKind::Connect)
                || error
                    .status()
                    .is_some_and(|s| matches!(s.as_u16(), 429 | 503))
        });
        let result = result.and_then(decode);

        // 5. Record the logical call once.
        let finished = Instant::now();
        slot.finish(finished.saturating_duration_since(sent), dropped);
        let elapsed = finished - started;
        let outcome = breaker_outcome(&result, elapsed, state);
        state.breaker.record(permit, outcome, finished);
        let ending = if result.is_ok() {
            Ending::Success
        } else {
            Ending::Failure
        };
        state.counters.record(ending, Some(elapsed), finished);
        result.map_err(named)
    }

    /// The retry loop: attempts until one answers, the failure is not retryable, `max_attempts`
    /// or the budget run out, or the next sleep would end past the deadline.
    ///
    /// The total deadline is kept without a timer of its own: each attempt's timer fires at the
    /// attempt deadline or the total one, whichever comes first; a sleep that would end past it
    /// is not taken; and the steps that can wait on something else (discovery's first lookup,
    /// interceptors) are bounded by it. Each timer is a registration in the runtime's timer
    /// wheel and a removal, on every call.
    async fn attempts(
        &self,
        request: &Request,
        trial: bool,
        sent: Instant,
        deadline: Instant,
    ) -> Result<Response, Error> {
        let mut tally = Tally::default();
        let result = self
            .retry_loop(request, trial, sent, deadline, &mut tally)
            .await;
        // The call span's fields are recorded once, when the attempts are over: a formatter
        // shows every recording of a field, so recording per attempt would repeat them.
        let span = tracing::Span::current();
        if tally.attempts > 0 {
            span.record("attempts", tally.attempts);
        }
        if let Some(status) = tally.status {
            span.record("status", status);
        }
        if tally.hedges > 0 {
            span.record("hedges", tally.hedges);
        }
        result
    }

    /// [`Client::attempts`] without the span: counts attempts and the last status in `tally`.
    async fn retry_loop(
        &self,
        request: &Request,
        trial: bool,
        sent: Instant,
        deadline: Instant,
        tally: &mut Tally,
    ) -> Result<Response, Error> {
        if let Some(error) = &request.error {
            return Err(error.clone());
        }
        let method = request.method;
        let state = self.shared.method(method);
        let retry = &state.settings.retry;
        // A half-open trial is a probe: one attempt, whatever the retry policy says, so a
        // recovering downstream sees one request per trial.
        let max_attempts = if trial { 1 } else { retry.max_attempts };
        if self.shared.endpoints.discovers() {
            Box::pin(within(deadline, state, self.shared.endpoints.ready())).await??;
        }
        let mut attempt = 1;
        let mut token_refreshed = false;
        let mut avoid = None;
        // When the next attempt goes out: first `sent`, then the end of each sleep. Taken from
        // readings the pipeline makes anyway, not from a clock read of its own.
        let mut sent = sent;
        loop {
            let lease = self.shared.endpoints.pick(Option::as_slice(&avoid))?;
            // A half-open trial is a probe of one request: it is not hedged either.
            let hedge_after = match state.hedging.as_deref() {
                Some(hedging) if !trial => hedging
                    .delay(&state.counters, sent)
                    .map(|delay| (hedging, delay)),
                _ => None,
            };
            let Landed {
                lease,
                outcome,
                token_generation,
                ..
            } = match hedge_after {
                None => {
                    let when = When {
                        attempt,
                        sent,
                        deadline,
                    };
                    self.send(state, request, when, false, lease).await
                }
                Some((hedging, delay)) => {
                    let when = When {
                        attempt,
                        sent,
                        deadline,
                    };
                    let (landed, hedges) =
                        Box::pin(self.race(state, request, when, lease, hedging, delay)).await;
                    tally.hedges += hedges;
                    landed
                }
            };
            tally.attempts = attempt;
            let status = match &outcome {
                Ok(response) => Some(response.status.as_u16()),
                Err(failed) => failed.error.status().map(|s| s.as_u16()),
            };
            if status.is_some() {
                tally.status = status;
            }
            let FailedAttempt {
                error,
                failure,
                retry_after,
            } = match outcome {
                Ok(response) => return Ok(response),
                Err(failed) => failed,
            };
            // The next attempt goes elsewhere when there is anywhere else to go.
            avoid = Some(lease.endpoint().clone());
            // A refused OAuth2 token: fetch a new one and try once more, outside the retry
            // policy (the downstream did nothing wrong).
            if let (AttemptFailure::Status(401), Some(Credentials::OAuth2(tokens))) =
                (failure, &state.credentials)
            {
                if token_refreshed {
                    return Err(error.reclassify(
                        ErrorKind::Auth,
                        "the server refused the OAuth2 token (401), also after a refresh",
                    ));
                }
                token_refreshed = true;
                tokens.invalidate(token_generation);
                sent = Instant::now();
                continue;
            }
            if attempt >= max_attempts || !is_retryable(retry, failure, method.idempotent) {
                return Err(error);
            }
            let wait = retry_after.unwrap_or_else(|| backoff(retry, attempt, fastrand::f64()));
            let now = Instant::now();
            if now + wait >= deadline || !self.retry_allowed(state, method, now).await {
                return Err(error);
            }
            state.counters.record_retry();
            #[cfg(feature = "metrics")]
            crate::observe::metrics::record_retry(self.shared.spec.name, method.name);
            tracing::info!(client = self.shared.spec.name, method = method.name, attempt, ?wait, error = %error, "retrying");
            Box::pin(tokio::time::sleep(wait)).await;
            sent = now + wait;
            attempt += 1;
        }
    }

    /// Whether the budget allows a retry: the fleet's when the profile shares one and Redis
    /// answers, else the client's own.
    #[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
    async fn retry_allowed(
        &self,
        state: &MethodState,
        method: &'static crate::client::spec::MethodSpec,
        now: Instant,
    ) -> bool {
        if let Some(fleet) = &self.shared.fleet_budget {
            match crate::fleet::withdraw(fleet).await {
                Some(granted) => return granted,
                None => {
                    state.counters.record_without_redis();
                    #[cfg(feature = "metrics")]
                    crate::observe::metrics::record_without_redis(
                        self.shared.spec.name,
                        method.name,
                    );
                }
            }
        }
        self.shared.budget.withdraw(now)
    }

    /// One attempt to `lease`'s endpoint, in its span, its endpoint's health recorded.
    async fn send<'a>(
        &'a self,
        state: &'a MethodState,
        request: &'a Request,
        when: When,
        hedge: bool,
        lease: Lease<'a>,
    ) -> Landed<'a> {
        let mut token_generation = 0;
        let target = Target {
            attempt: when.attempt,
            endpoint: lease.endpoint(),
            sent: when.sent,
            deadline: when.deadline,
        };
        let span = tracing::debug_span!(
            "remcall.attempt",
            attempt = target.attempt,
            endpoint = %lease.endpoint().base,
            hedge = tracing::field::Empty,
        );
        if hedge {
            span.record("hedge", true);
        }
        let outcome = self
            .attempt(state, request, target, &mut token_generation)
            .instrument(span)
            .await;
        let unhealthy = match &outcome {
            Ok(response) => response.status.is_server_error(),
            Err(failed) => match failed.failure {
                AttemptFailure::Connect | AttemptFailure::Timeout | AttemptFailure::Broken => true,
                AttemptFailure::Status(status) => status >= 500,
                AttemptFailure::Other => false,
            },
        };
        self.shared.endpoints.record(lease.endpoint(), unhealthy);
        Landed {
            lease,
            outcome,
            token_generation,
            hedge,
        }
    }

    /// One attempt and its hedges: after `delay` without an answer, the same request again, to
    /// an endpoint none of the others is at when there is one, while `max_extra` and the
    /// budgets allow. The first answer wins, and so does a failure no retry would follow (a
    /// 4xx: the server has spoken); a retryable failure waits for the others and is the
    /// result only when it is the last. Returning drops the attempts still running, which
    /// closes their connections. The second value is the hedges sent.
    async fn race<'a>(
        &'a self,
        state: &'a MethodState,
        request: &'a Request,
        first_when: When,
        first: Lease<'a>,
        hedging: &Hedging,
        delay: Duration,
    ) -> (Landed<'a>, u32) {
        type Flight<'f> = std::pin::Pin<Box<dyn Future<Output = Landed<'f>> + Send + 'f>>;
        enum Event<'e> {
            Landed(Landed<'e>),
            Hedge,
        }
        let When {
            attempt,
            sent,
            deadline,
        } = first_when;
        let retry = &state.settings.retry;
        let mut at = vec![first.endpoint().clone()];
        let when = |sent| When {
            attempt,
            sent,
            deadline,
        };
        let mut flights: Vec<Flight<'a>> = Vec::with_capacity(2);
        flights.push(Box::pin(self.send(
            state,
            request,
            when(sent),
            false,
            first,
        )));
        let mut hedges = 0;
        let mut timer = Some(Box::pin(tokio::time::sleep_until(sent + delay)));
        loop {
            let event = std::future::poll_fn(|cx| {
                for i in 0..flights.len() {
                    if let Poll::Ready(landed) = flights[i].as_mut().poll(cx) {
                        drop(flights.swap_remove(i));
                        return Poll::Ready(Event::Landed(landed));
                    }
                }
                if let Some(sleep) = timer.as_mut()
                    && sleep.as_mut().poll(cx).is_ready()
                {
                    timer = None;
                    return Poll::Ready(Event::Hedge);
                }
                Poll::Pending
            })
            .await;
            match event {
                Event::Landed(landed) => {
                    let settled = match &landed.outcome {
                        Ok(_) => true,
                        Err(failed) => !is_retryable(retry, failed.failure, true),
                    };
                    if settled || flights.is_empty() {
                        if landed.hedge && landed.outcome.is_ok() {
                            state.counters.record_hedge_win();
                        }
                        return (landed, hedges);
                    }
                    // Held back: another attempt may still answer.
                    at.retain(|e| !Arc::ptr_eq(e, landed.lease.endpoint()));
                }
                Event::Hedge => {
                    let now = Instant::now();
                    if now >= deadline
                        || !hedging.withdraw(now)
                        || !self.shared.budget.withdraw(now)
                    {
                        continue;
                    }
                    let Ok(lease) = self.shared.endpoints.pick(&at) else {
                        continue;
                    };
                    hedges += 1;
                    state.counters.record_hedge();
                    at.push(lease.endpoint().clone());
                    flights.push(Box::pin(self.send(state, request, when(now), true, lease)));
                    if hedges < hedging.settings.max_extra {
                        timer = Some(Box::pin(tokio::time::sleep_until(now + delay)));
                    }
                }
            }
        }
    }

    /// One attempt: build, add credentials, run interceptors, send, read, verify and classify,
    /// within the attempt deadline. `token_generation` says which OAuth2 token was sent.
    async fn attempt(
        &self,
        state: &MethodState,
        request: &Request,
        target: Target<'_>,
        token_generation: &mut u64,
    ) -> Result<Response, FailedAttempt> {
        let Target {
            attempt,
            endpoint,
            sent,
            deadline,
        } = target;
        let method = request.method;
        let credential = match &state.credentials {
            Some(credentials) => {
                let (value, generation) = Box::pin(credentials.header(deadline))
                    .await
                    .map_err(FailedAttempt::other)?;
                *token_generation = generation;
                Some(value)
            }
            None => None,
        };
        let call = CallInfo {
            client: self.shared.spec.name,
            method: method.name,
            attempt,
        };
        let interceptors = &self.shared.interceptors;
        let limit = state.settings.max_response_bytes;
        let attempt_timeout = state.settings.attempt_timeout;
        let attempt_deadline = (sent + attempt_timeout).min(deadline);
        // The request is built inside the timeout's argument, so that what building it needs
        // (the URL, the headers, the interceptors' view) is gone while the attempt waits for its
        // answer: it would otherwise stay in this future's state, copied with it at every level.
        let response = tokio::time::timeout_at(attempt_deadline, {
            let mut outgoing = request
                .outgoing(
                    call,
                    &state.http_method,
                    endpoint,
                    &state.headers,
                    &state.query,
                    credential,
                )
                .map_err(FailedAttempt::other)?;
            if let Some(header) = &state.settings.deadline_header {
                // What this attempt will wait, in whole milliseconds: the downstream can stop
                // when nobody waits any more.
                let left = attempt_deadline.saturating_duration_since(Instant::now());
                let value = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
                if let Ok(name) = reqwest::header::HeaderName::from_bytes(header.as_bytes()) {
                    outgoing.headers.insert(name, value.into());
                }
            }
            if !interceptors.is_empty() {
                Box::pin(within(
                    deadline,
                    state,
                    interceptor::before_send(interceptors, &mut outgoing),
                ))
                .await
                .and_then(|refusal| refusal)
                .map_err(FailedAttempt::other)?;
            }
            log::request(state.settings.log, method.path, &endpoint.base, &outgoing);
            exchange(
                self.shared.http.execute(outgoing.into_request()),
                limit,
                request.download.clone(),
            )
        })
        .await
        .map_err(|_| {
            let error = if attempt_deadline == deadline {
                past_total_deadline(state)
            } else {
                Error::new(
                    ErrorKind::Timeout,
                    format!("the attempt ran past its deadline of {attempt_timeout:?}"),
                )
            };
            FailedAttempt {
                error,
                failure: AttemptFailure::Timeout,
                retry_after: None,
            }
        })??;
        log::response(state.settings.log, &call, &endpoint.base, &response, sent);
        if !interceptors.is_empty() {
            Box::pin(within(
                deadline,
                state,
                interceptor::after_receive(interceptors, &call, &response),
            ))
            .await
            .and_then(|refusal| refusal)
            .map_err(FailedAttempt::other)?;
        }

        let answered = response.status.is_success()
            || (method.not_found_none && response.status == reqwest::StatusCode::NOT_FOUND);
        if answered {
            return Ok(response);
        }
        // The declared error type reads the whole body: the error keeps only its first bytes.
        let detail = request
            .error_detail
            .and_then(|decode| decode(response.status.as_u16(), &response.body));
        Err(FailedAttempt {
            error: Error::status_error(response.status, &response.body).with_detail(detail),
            failure: AttemptFailure::Status(response.status.as_u16()),
            retry_after: retry_after(
                &response.headers,
                state.settings.retry.retry_after_max,
                SystemTime::now(),
            ),
        })
    }
}

/// Awaits a sent request's answer and reads it whole within `limit` bytes; for a download, a
/// success is left unread in `download` (its body is the stream's). It takes reqwest's future,
/// not the request: a parameter stays in the future's state to the end.
async fn exchange(
    sent: impl Future<Output = reqwest::Result<reqwest::Response>>,
    limit: u64,
    download: Option<crate::wire::download::Slot>,
) -> Result<Response, FailedAttempt> {
    let response = sent.await.map_err(from_transport)?;
    if let Some(slot) = download
        && response.status().is_success()
    {
        let answered = Response {
            status: response.status(),
            headers: response.headers().clone(),
            body: bytes::Bytes::new(),
        };
        *slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(response);
        return Ok(answered);
    }
    Response::read(response, limit).await
}

/// Runs `work` unless the call's total deadline passes first.
async fn within<T>(
    deadline: Instant,
    state: &MethodState,
    work: impl Future<Output = T>,
) -> Result<T, Error> {
    tokio::time::timeout_at(deadline, work)
        .await
        .map_err(|_| past_total_deadline(state))
}

fn past_total_deadline(state: &MethodState) -> Error {
    let total = state.settings.total_timeout;
    let message = match crate::policy::deadline::current() {
        Some(_) => format!(
            "the call ran past its deadline: the caller's, or its total of {total:?}, whichever came first"
        ),
        None => format!("the call ran past its total deadline of {total:?}"),
    };
    Error::new(ErrorKind::Timeout, message)
}

/// Less time than this left in a caller's deadline and a call is not started: no attempt could
/// get an answer back in it.
const MIN_TIME_LEFT: Duration = Duration::from_millis(1);

/// A finished attempt: where it went, what came back, which OAuth2 token it carried, and
/// whether it was a hedge.
struct Landed<'a> {
    lease: Lease<'a>,
    outcome: Result<Response, FailedAttempt>,
    token_generation: u64,
    hedge: bool,
}

/// When one attempt goes: which it is, when it is sent, the call's deadline.
#[derive(Clone, Copy)]
struct When {
    attempt: u32,
    sent: Instant,
    deadline: Instant,
}

/// Where and when one attempt goes.
#[derive(Clone, Copy)]
struct Target<'a> {
    /// 1 for the first.
    attempt: u32,
    endpoint: &'a Endpoint,
    /// When it is sent, as near as the loop knows: its attempt deadline counts from here.
    sent: Instant,
    /// The call's total deadline.
    deadline: Instant,
}

/// What the call span reports of the attempts: how many, the hedges among them, and the last
/// HTTP status.
#[derive(Default)]
struct Tally {
    attempts: u32,
    hedges: u32,
    status: Option<u16>,
}

/// How a finished call counts for the breaker: `record:` decides which failures count; slow
/// successes count when `slow_call` is set.
fn breaker_outcome<T>(
    result: &Result<T, Error>,
    elapsed: Duration,
    state: &MethodState,
) -> Outcome {
    let record = &state.settings.breaker.record;
    match result {
        Ok(_) => Outcome::Success {
            slow: state.breaker.slow_over().is_some_and(|over| elapsed > over),
        },
        Err(error) => {
            let counts = match error.kind() {
                ErrorKind::Connect => record.contains(&Condition::Connect),
                ErrorKind::Timeout => record.contains(&Condition::Timeout),
                ErrorKind::Status => error
                    .status()
                    .is_some_and(|s| record.iter().any(|c| c.matches_status(s.as_u16()))),
                _ => false,
            };
            if counts {
                Outcome::Failure
            } else {
                Outcome::Ignored
            }
        }
    }
}

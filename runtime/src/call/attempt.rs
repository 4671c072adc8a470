//! One attempt of a call, [`Attempt`]: the cache's and the quota's steps, credentials,
//! interceptors, the send within the attempt deadline, the body read within
//! `max_response_bytes`, and the answer classified. Hedged, it is one flight of `hedge.rs`.

use std::time::{Duration, SystemTime};

use tracing::Instrument;

use super::cached::CacheStep;
use super::outgoing::outgoing;
use super::parts::Call;
use super::quota::QuotaStep;
use super::when::When;
use crate::client::MethodState;
use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};
use crate::observe::outlets::http_log as log;
use crate::observe::probe;
use crate::observe::recording::{Noted, Recorder};
use crate::outbound::endpoints::{Endpoint, Lease};
use crate::outbound::interceptor::{self, CallInfo};
use crate::outcome::{self, AttemptFailure, FailedAttempt};
use crate::policy::quota::TurnFrom;
use crate::policy::quota::announced::is_quota_refusal;
use crate::policy::retry::retry_after;
use crate::wire::request::Request;

/// A finished attempt: where it went, what came back, which OAuth2 token it carried, and
/// whether it was a hedge.
pub(super) struct Landed<'a> {
    pub(super) lease: Lease<'a>,
    pub(super) outcome: Result<Response, FailedAttempt>,
    pub(super) token_generation: u64,
    pub(super) hedge: bool,
}

/// One attempt of a call, to the endpoint it is given: composed in [`Attempt::run`] in the
/// order it takes its steps.
#[derive(Clone, Copy)]
pub(super) struct Attempt<'a> {
    call: Call<'a>,
    when: When,
}

impl<'a> Attempt<'a> {
    /// The attempt of `call` going out `when`.
    pub(super) fn of(call: Call<'a>, when: When) -> Attempt<'a> {
        Attempt { call, when }
    }

    /// One attempt to `lease`'s endpoint, in its span, its endpoint's health recorded.
    pub(super) async fn send(self, lease: Lease<'a>, hedge: bool) -> Landed<'a> {
        let (client, when) = (self.call.client, self.when);
        let mut token_generation = 0;
        let endpoint = lease.endpoint();
        let mut probe = self
            .call
            .state
            .probe
            .attempt(when.attempt, endpoint.address(), hedge);
        // Boxed: the attempt's state (the request being built, reqwest's future, the body being
        // read) is most of a call's; in place, every level above it would carry and copy it.
        // Entered at every poll only when a subscriber wants the span.
        let generation = &mut token_generation;
        let outcome = match probe.span() {
            None => boxed_in_place(move || self.run(endpoint, generation)).await,
            Some(span) => {
                let span = span.clone();
                Box::pin(self.run(endpoint, generation).instrument(span)).await
            }
        };
        let status = match &outcome {
            Ok(response) => Some(response.status.as_u16()),
            Err(failed) => failed.error.status().map(|s| s.as_u16()),
        };
        probe.ended(status, outcome.as_ref().err().map(|f| &f.error));
        drop(probe);
        client
            .shared
            .endpoints
            .record(lease.endpoint(), outcome::endpoint_unhealthy(&outcome));
        Landed {
            lease,
            outcome,
            token_generation,
            hedge,
        }
    }

    /// Which call this attempt (the `attempt`-th) belongs to, as interceptors see it.
    fn call_info(&self, attempt: u32) -> CallInfo {
        CallInfo {
            client: self.call.client.shared.spec.name,
            method: self.call.request.method.name,
            attempt,
        }
    }

    /// One attempt: build, add credentials, run interceptors, send, read, verify and classify,
    /// within the attempt deadline. `token_generation` says which OAuth2 token was sent.
    async fn run(
        self,
        endpoint: &Endpoint,
        token_generation: &mut u64,
    ) -> Result<Response, FailedAttempt> {
        let (client, state, request) = (self.call.client, self.call.state, self.call.request);
        let when = self.when;
        let method = request.method;
        let mut cache = CacheStep::of(self.call);
        let quota = self.quota();
        if let Some(kept) = cache.as_deref().and_then(|c| c.fresh_before_turn(&quota)) {
            return answered(client.shared.spec.name, state, request, kept);
        }
        // A method with no quota of its own yet, on a server that announces quotas: one call
        // learns it while the others wait (the guard lives as long as this attempt).
        let _learning = if quota.may_learn() {
            Box::pin(quota.learn(when.deadline)).await
        } else {
            None
        };
        let (when, turn) = match quota.quota() {
            Some(announced) => quota.turn(announced, when).await?,
            None => (when, TurnFrom::Nobody),
        };
        // Inline rather than a function of its own: a call's future nests deep enough already
        // (rustc's query depth), and an OAuth2 token fetch is the deepest branch.
        let credential = match &state.credentials {
            Some(credentials) => {
                let (value, generation) = Box::pin(credentials.header(when.deadline))
                    .await
                    .map_err(FailedAttempt::other)?;
                *token_generation = generation;
                Some(value)
            }
            None => None,
        };
        let call = self.call_info(when.attempt);
        let attempt_deadline = (when.sent + state.settings.attempt_timeout).min(when.deadline);
        // A recorded method's request, noted before sending takes it (boxed: one word of the
        // attempt's future when nothing is recorded).
        let recorder = client.shared.recorder_of(request);
        let noted;
        // The request is built inside the timeout's argument, so that what building it needs
        // (the URL, the headers, the interceptors' view) is gone while the attempt waits for its
        // answer: it would otherwise stay in this future's state, copied with it at every level.
        let response = tokio::time::timeout_at(attempt_deadline, {
            let mut outgoing =
                outgoing(state, request, endpoint, call, credential, attempt_deadline)?;
            if !client.shared.interceptors.is_empty() {
                let before = interceptor::before_send(&client.shared.interceptors, &mut outgoing);
                Box::pin(intercepted(when, state, before)).await?;
            }
            if let Some(step) = cache.as_deref_mut()
                && let Some(kept) = step.lookup(&mut outgoing, attempt_deadline).await
            {
                return answered(client.shared.spec.name, state, request, kept);
            }
            noted = sending(state, endpoint, &outgoing, recorder);
            exchange(
                client.shared.http.execute(super::outgoing::sent(outgoing)),
                state.settings.max_response_bytes,
                request.download,
            )
        })
        .await
        .map_err(|_| attempt_timed_out(state, when, attempt_deadline == when.deadline))
        .and_then(|answer| answer);
        let response = response.map_err(|failed| stale(cache.as_deref(), failed))?;
        let recorded = recorder.zip(noted);
        received(
            state,
            (&call, method),
            endpoint,
            &response,
            when.sent,
            recorded,
        );
        // The interceptors judge the answer before anything keeps it or hears its quota: an
        // answer a verifier refuses is neither served again from the cache nor believed.
        if !client.shared.interceptors.is_empty() {
            let after = interceptor::after_receive(&client.shared.interceptors, &call, &response);
            Box::pin(intercepted(when, state, after)).await?;
        }
        // Heard by the quota and told to the cache only now: a 304 to a revalidation becomes
        // the kept answer.
        if state.settings.quota_from_headers {
            quota.heard(&response, when.sent, turn);
        }
        let response = match cache.as_deref() {
            Some(step) => step.store(response),
            None => response,
        };
        answered(client.shared.spec.name, state, request, response)
            .map_err(|failed| stale(cache.as_deref(), failed))
    }

    /// The attempt's quota step, the one place it is made: the cache's lookup before the turn
    /// and a hedge about to be sent ask it, rather than make their own.
    fn quota(&self) -> QuotaStep<'a> {
        QuotaStep::of(self.call)
    }

    /// Whether this attempt would go `now` without waiting for a turn in the server's quota:
    /// a hedge that would wait takes a turn the next call needs, and helps no one.
    pub(super) fn goes_unqueued(&self, now: tokio::time::Instant) -> bool {
        self.quota().quota().is_none_or(|quota| quota.has_turn(now))
    }
}

/// A request about to go: logged as the profile's `log:` says, and noted when its method is
/// recorded (`record:`).
fn sending(
    state: &MethodState,
    endpoint: &Endpoint,
    outgoing: &crate::wire::outgoing::Outgoing,
    recorder: Option<&Recorder>,
) -> Option<Box<Noted>> {
    log::request(
        state.settings.log,
        state.probe.template(),
        &endpoint.shown,
        outgoing,
    );
    recorder.map(|r| Box::new(r.note(outgoing)))
}

/// An answer that came back: logged as the profile's `log:` says, and recorded when its
/// method is (`record:`).
fn received(
    state: &MethodState,
    (call, method): (&CallInfo, &crate::spec::MethodSpec),
    endpoint: &Endpoint,
    response: &Response,
    sent: tokio::time::Instant,
    recorded: Option<(&Recorder, Box<Noted>)>,
) {
    log::response(state.settings.log, call, &endpoint.shown, response, sent);
    if let Some((recorder, noted)) = recorded {
        recorder.write(call.client, method, *noted, response);
    }
}

/// `failed`, with the kept answer the cache's step has for it.
fn stale(cache: Option<&CacheStep<'_>>, failed: FailedAttempt) -> FailedAttempt {
    match cache {
        Some(step) => step.stale(failed),
        None => failed,
    }
}

/// A response that came back: the answer, or a failure carrying the status, the declared error
/// type's reading of the body and the server's `Retry-After`.
fn answered(
    client: &'static str,
    state: &MethodState,
    request: &Request,
    response: Response,
) -> Result<Response, FailedAttempt> {
    let method = request.method;
    let answered = response.status.is_success()
        || (method.not_found_none && response.status == reqwest::StatusCode::NOT_FOUND);
    if answered {
        return Ok(response);
    }
    Err(failed(client, state, request, response))
}

/// A response that is not the answer, as a failed attempt.
#[cold]
fn failed(
    client: &'static str,
    state: &MethodState,
    request: &Request,
    response: Response,
) -> FailedAttempt {
    // The declared error type reads the whole body: the error keeps only its first bytes. What
    // it skips is drift as an answer's is. A 422 in a shape of the server's own (no key of the
    // declared error's) is no declared error under `decode: strict` (`detail()` is `None`), and
    // an empty one noted as drift under `lax`; its text stays in the error's message and
    // `body()` either way.
    let lax = state.settings.decode == remcall_profile::DecodeMode::Lax;
    let (detail, seen) = crate::decode::answer(lax, || {
        request
            .error_detail
            .and_then(|decode| decode(response.status.as_u16(), &response.body))
    });
    if !seen.is_empty() && detail.is_some() {
        crate::observe::drift_warning::warn_new(
            &state.counters,
            client,
            request.method,
            seen.undeclared,
        );
    }
    let status = response.status.as_u16();
    // GitHub refuses a spent quota with a 403: retried as the 429 it stands for, after the
    // reset or the wait (the quota holds the next attempt) when the deadline reaches that far.
    let retried_as = if is_quota_refusal(status, &response.headers) {
        429
    } else {
        status
    };
    FailedAttempt {
        error: Error::status_error(response.status, &response.body)
            .showing_body(state.settings.body_in_message)
            .with_detail(detail),
        failure: AttemptFailure::Status(retried_as),
        retry_after: retry_after(
            &response.headers,
            state.settings.retry.retry_after_max,
            SystemTime::now(),
        ),
        stale: None,
    }
}

/// The failure of an attempt that ran out of time: its own, or the call's (`whole`).
#[cold]
fn attempt_timed_out(state: &MethodState, when: When, whole: bool) -> FailedAttempt {
    let error = if whole {
        past_deadline(state, when)
    } else {
        Error::new(
            ErrorKind::Timeout,
            format!(
                "the attempt ran past its deadline of {:?}",
                state.settings.attempt_timeout
            ),
        )
    };
    FailedAttempt {
        error,
        failure: AttemptFailure::Timeout,
        retry_after: None,
        stale: None,
    }
}

/// Awaits a sent request's answer and reads it whole within `limit` bytes; for a `download`, a
/// success is the answer with its body unread ([`Response::live`]), the stream's to read. It takes reqwest's future,
/// not the request: a parameter stays in the future's state to the end.
async fn exchange(
    sent: impl Future<Output = reqwest::Result<reqwest::Response>>,
    limit: u64,
    download: bool,
) -> Result<Response, FailedAttempt> {
    let response = sent.await.map_err(outcome::from_transport)?;
    probe::answered_in(response.version());
    if download && response.status().is_success() {
        return Ok(Response::live(response));
    }
    Ok(Response::read(response, limit).await?)
}

/// Runs the interceptors' `work` within the call's deadline; their refusal fails the attempt.
async fn intercepted(
    when: When,
    state: &MethodState,
    work: impl Future<Output = Result<(), Error>>,
) -> Result<(), FailedAttempt> {
    within(when, state, work)
        .await
        .and_then(|refusal| refusal)
        .map_err(FailedAttempt::other)
}

/// Runs `work` unless the call's deadline passes first.
pub(super) async fn within<T>(
    when: When,
    state: &MethodState,
    work: impl Future<Output = T>,
) -> Result<T, Error> {
    tokio::time::timeout_at(when.deadline, work)
        .await
        .map_err(|_| past_deadline(state, when))
}

/// The call ran out of time: of the caller's deadline, marked so (the downstream is not to
/// blame), or of its own total.
#[cold]
fn past_deadline(state: &MethodState, when: When) -> Error {
    if when.callers {
        return Error::fixed(
            ErrorKind::Timeout,
            "the call ran past the caller's deadline, before its own total",
        )
        .of_callers_deadline();
    }
    let total: Duration = state.settings.total_timeout;
    Error::new(
        ErrorKind::Timeout,
        format!("the call ran past its total deadline of {total:?}"),
    )
}

/// A future made in its box. `Box::pin(future)` copies the future's whole size (its largest
/// state: 1.2 KiB for an attempt) into fresh heap memory, though a future not yet polled holds
/// only its arguments; made after the allocation, only those are written.
fn boxed_in_place<F: Future>(make: impl FnOnce() -> F) -> std::pin::Pin<Box<F>> {
    Box::into_pin(Box::write(Box::new_uninit(), make()))
}

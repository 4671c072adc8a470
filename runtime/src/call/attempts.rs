//! Step 4 of a call, [`Retries`]: the attempts, within the total deadline. Each goes to an
//! endpoint (another after a failure, when there is one), hedged when the method's profile asks
//! for it (`hedge.rs`); a refused OAuth2 token is refreshed once; a retryable failure sleeps its
//! backoff or `Retry-After`, never past the deadline and only with budget left.

use tokio::time::Instant;

use super::attempt::{Attempt, Landed, within};
use super::hedge::{Hedge, hedge_delay};
use super::parts::Call;
use super::when::When;
use crate::client::{Client, MethodState};
use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};
use crate::observe::probe::Decision;
use crate::outbound::auth::Credentials;
use crate::outcome::{AttemptFailure, FailedAttempt, Unanswered, is_retryable};
use crate::policy::retry::backoff;

/// What the call span reports of the attempts: how many, the hedges among them, and the last
/// HTTP status.
#[derive(Default)]
struct Tally {
    attempts: u32,
    hedges: u32,
    status: Option<u16>,
}

/// The call span's fields are recorded once, when the attempts are over (returned, failed or
/// dropped): a formatter shows every recording of a field, so recording per attempt would
/// repeat them. With the call's span disabled the current span is the caller's, whose `status`
/// is not ours to write; with no subscriber ever set, there is no span to look up.
impl Drop for Tally {
    fn drop(&mut self) {
        if tracing::dispatcher::has_been_set() {
            crate::observe::probe::tally(self.attempts, self.status, self.hedges);
        }
    }
}

/// The attempts of one call: the retry loop.
pub(super) struct Retries<'a> {
    call: Call<'a>,
}

impl<'a> Retries<'a> {
    /// The attempts of `call`.
    pub(super) fn of(call: Call<'a>) -> Retries<'a> {
        Retries { call }
    }

    /// The retry loop: attempts until one answers, the failure is not retryable,
    /// `max_attempts` or the budget run out, or the next sleep would end past the deadline. Its
    /// figures are recorded in the call's span when it ends.
    ///
    /// The total deadline is kept without a timer of its own: each attempt's timer fires at the
    /// attempt deadline or the total one, whichever comes first; a sleep that would end past it
    /// is not taken; and the steps that can wait on something else (discovery's first lookup,
    /// interceptors) are bounded by it. Each timer is a registration in the runtime's timer
    /// wheel and a removal, on every call.
    pub(super) async fn run(self, trial: bool, first: When) -> Result<Response, Unanswered> {
        let mut tally = Tally::default();
        let Call {
            client,
            state,
            request,
        } = self.call;
        if let Some(error) = &request.error {
            return Err(error.clone().into());
        }
        let retry = &state.settings.retry;
        // A half-open trial is a probe: one attempt, whatever the retry policy says, so a
        // recovering downstream sees one request per trial.
        let max_attempts = if trial { 1 } else { retry.max_attempts };
        if client.shared.endpoints.discovers() {
            Box::pin(within(first, state, client.shared.endpoints.ready())).await??;
        }
        let mut when = first;
        let mut token_refreshed = false;
        let mut avoid = None;
        loop {
            let lease = client.shared.endpoints.pick(Option::as_slice(&avoid))?;
            let (landed, hedges) = match hedge_delay(state, when, trial) {
                None => {
                    let attempt = Attempt::of(self.call, when);
                    (attempt.send(lease, false).await, 0)
                }
                // Boxed: the race's state would otherwise grow every unhedged call's future.
                Some((hedging, delay)) => {
                    let hedged = Hedge::of(self.call, when);
                    Box::pin(hedged.race(lease, hedging, delay)).await
                }
            };
            tally.hedges += hedges;
            tally.attempts = when.attempt;
            let Landed {
                lease,
                outcome,
                token_generation,
                ..
            } = landed;
            let status = match &outcome {
                Ok(response) => Some(response.status.as_u16()),
                Err(failed) => failed.error.status().map(|s| s.as_u16()),
            };
            tally.status = status.or(tally.status);
            let failed = match outcome {
                Ok(response) => return Ok(response),
                Err(failed) => failed,
            };
            // The next attempt goes elsewhere when there is anywhere else to go.
            avoid = Some(lease.endpoint().clone());
            if failed.failure == AttemptFailure::Status(401)
                && let Some(Credentials::OAuth2(tokens)) = &state.credentials
            {
                refused_token(failed.error, &mut token_refreshed)?;
                tokens.invalidate(token_generation);
                when.sent = Instant::now();
                continue;
            }
            // Boxed: the backoff's sleep is needed by retries only, not carried by every call.
            when = Box::pin(self.before_retry(when, failed, max_attempts)).await?;
        }
    }

    /// The sleep before the next attempt, or the error when there is none: the failure is not
    /// retryable, `max_attempts` are spent, the sleep would end past the deadline, or the budget
    /// has no retry left. Returns when the next attempt goes out.
    async fn before_retry(
        &self,
        when: When,
        failed: FailedAttempt,
        max_attempts: u32,
    ) -> Result<When, Unanswered> {
        let (client, state, method) = (self.call.client, self.call.state, self.call.request.method);
        let retry = &state.settings.retry;
        let FailedAttempt {
            error,
            failure,
            retry_after,
            stale,
        } = failed;
        let unanswered = |error| Unanswered { error, stale };
        if when.attempt >= max_attempts {
            return Err(unanswered(error));
        }
        if !is_retryable(retry, failure, method.idempotent) {
            // Attempts were left and the failure retryable: only idempotency stopped it.
            if is_retryable(retry, failure, true) {
                return Err(unanswered(error.not_retried_as_not_idempotent()));
            }
            return Err(unanswered(error));
        }
        let wait = retry_after.unwrap_or_else(|| backoff(retry, when.attempt, fastrand::f64()));
        let mut now = Instant::now();
        if now + wait >= when.deadline {
            return Err(unanswered(error));
        }
        // The fleet's budget is asked no longer than the retry's sleep could still end in time.
        let until = when.deadline - wait;
        if !client.retry_allowed(state, now, Some(until)).await {
            return Err(unanswered(error));
        }
        if client.shared.fleet_budget.is_some() {
            now = Instant::now();
            if now + wait >= when.deadline {
                return Err(unanswered(error));
            }
        }
        // An event of the call's span: what a reader of a slow trace looks for.
        state.decided(Decision::Retrying {
            attempt: when.attempt,
            wait,
            error: &error,
        });
        Box::pin(tokio::time::sleep(wait)).await;
        Ok(When {
            attempt: when.attempt + 1,
            sent: now + wait,
            ..when
        })
    }
}

impl Client {
    /// Whether the budget allows a retry: the fleet's when the profile shares one and Redis
    /// answers by `until` (a call's: the last moment its retry could still start), else the
    /// client's own.
    pub(super) async fn retry_allowed(
        &self,
        state: &MethodState,
        now: Instant,
        until: Option<Instant>,
    ) -> bool {
        if let Some(fleet) = &self.shared.fleet_budget {
            // Boxed, as the fleet's admission is (`admission.rs`).
            match Box::pin(crate::fleet::withdraw(fleet, until)).await {
                Some(granted) => return granted,
                None => state.decided(Decision::WithoutRedis),
            }
        }
        self.shared.budget.withdraw(now)
    }
}

/// A refused OAuth2 token (401): the first time, the token is fetched again and the attempt
/// made once more, outside the retry policy (the downstream did nothing wrong); the second
/// time, the call fails as an `Auth` error.
fn refused_token(error: Error, refreshed: &mut bool) -> Result<(), Error> {
    if *refreshed {
        return Err(error.reclassify(
            ErrorKind::Auth,
            "the server refused the OAuth2 token (401), also after a refresh",
        ));
    }
    *refreshed = true;
    Ok(())
}

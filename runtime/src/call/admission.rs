//! Steps 1–3 of a call, [`Admission`]: a turn from the rate limiter (the fleet's or the
//! client's), time left in the caller's deadline, the breaker's permit and a bulkhead slot, in
//! that order; and, when the call is over, step 5: its outcome recorded once with what admitted
//! it ([`Admitted::record`]).

use std::time::Duration;

use tokio::time::Instant;

use super::parts::Call;
use super::when::When;
use crate::client::MethodState;
use crate::error::{Error, ErrorKind};
use crate::observe::probe::Decision;
use crate::observe::stats::Ending;
use crate::policy::breaker::Permit;
use crate::policy::bulkhead::Slot;

/// Less time than this left in a caller's deadline and a call is not started: no attempt could
/// get an answer back in it.
const MIN_TIME_LEFT: Duration = Duration::from_millis(1);

/// An admitted call: its breaker permit and bulkhead slot (released when dropped, cancellation
/// included), when its clock started, when its first attempt goes out and its deadline.
pub(super) struct Admitted<'a> {
    permit: Permit<'a>,
    slot: Slot<'a>,
    started: Instant,
    sent: Instant,
    deadline: Instant,
    /// The deadline is the caller's, earlier than the method's total.
    callers: bool,
}

/// The step that admits a call of one method, or refuses it.
pub(super) struct Admission<'a> {
    call: Call<'a>,
}

impl<'a> Admission<'a> {
    /// The admission of `call`.
    pub(super) fn of(call: Call<'a>) -> Admission<'a> {
        Admission { call }
    }

    /// Admits the call, or says which step refused it (counted in the statistics, never as a
    /// breaker failure). The budgets earn their share of the call once it is admitted.
    pub(super) async fn admit(self) -> Result<Admitted<'a>, Error> {
        let state = self.call.state;
        // One clock reading serves the limiter and the breaker, unless the call waited.
        // Each step that may wait is entered only when the profile has it, and the bulkhead's
        // only when no slot is free: a step's future not entered is memory the call never
        // touches.
        let mut now = Instant::now();
        if state.fleet_limit.is_some() && self.fleet_turn(now).await? {
            now = Instant::now();
        }
        // A caller's deadline (a `remcall::deadline` scope) that leaves no time: nothing is
        // sent, and the downstream is not blamed.
        let caller_deadline = crate::policy::deadline::current();
        if let Some(by) = caller_deadline
            && by.saturating_duration_since(now) < MIN_TIME_LEFT
        {
            state.counters.record(Ending::Failure, None, now);
            return Err(Error::fixed(
                ErrorKind::Timeout,
                "no time left: the caller's deadline has passed",
            ));
        }
        if state.rate_limit.is_some() && local_turn(state, now).await? {
            let waited = Instant::now();
            state.decided(Decision::Waited {
                what: "rate limit wait",
                waited: waited - now,
            });
            now = waited;
        }
        // The call's clock starts here: its total deadline covers a wait for a bulkhead slot.
        let started = now;
        let permit = breaker_permit(state, started)?;
        let slot = match state.bulkhead.try_acquire() {
            Some(at_once) => at_once,
            None => {
                let slot = state.bulkhead.acquire().await;
                state.decided(Decision::Waited {
                    what: "bulkhead wait",
                    waited: started.elapsed(),
                });
                slot
            }
        };
        let Ok(slot) = slot else {
            state
                .counters
                .record(Ending::Rejected, None, Instant::now());
            return Err(Error::fixed(ErrorKind::Rejected, "the bulkhead is full"));
        };
        // The first attempt is sent now: when the bulkhead made the call wait, the clock says
        // when that is.
        let sent = if state.bulkhead.may_wait() {
            Instant::now()
        } else {
            started
        };
        let total = started + state.settings.total_timeout;
        let shared = &self.call.client.shared;
        shared.budget.deposit(started);
        if let Some(fleet) = &shared.fleet_budget {
            crate::fleet::deposit(fleet, started);
        }
        if let Some(hedging) = &state.hedging {
            hedging.deposit(started);
        }
        let callers = caller_deadline.filter(|by| *by < total);
        Ok(Admitted {
            permit,
            slot,
            started,
            sent,
            deadline: callers.unwrap_or(total),
            callers: callers.is_some(),
        })
    }

    /// A turn from the rate limit shared with the fleet (in Redis), which stands in for the
    /// local one when the profile has it. True when the call waited for it.
    async fn fleet_turn(&self, now: Instant) -> Result<bool, Error> {
        let state = self.call.state;
        let Some(shared) = &state.fleet_limit else {
            return Ok(false);
        };
        // Boxed: Redis's future is large, and inline it would grow every call's future, which
        // is copied at each level it is moved through, for the calls without a fleet limit too.
        let decision = Box::pin(crate::fleet::admit(shared, now)).await;
        if decision.without_redis {
            state.decided(Decision::WithoutRedis);
        }
        if !decision.admitted {
            state
                .counters
                .record(Ending::RateLimited, None, Instant::now());
            return Err(Error::fixed(
                ErrorKind::RateLimited,
                "shared rate limit reached: no turn within max_wait",
            ));
        }
        Ok(decision.waited)
    }
}

/// A turn from the client's (or method's) own rate limiter; dropping the call while it waits
/// gives the turn back. True when the call waited for it.
async fn local_turn(state: &MethodState, now: Instant) -> Result<bool, Error> {
    let Some(limiter) = &state.rate_limit else {
        return Ok(false);
    };
    match limiter.reserve(now) {
        Some(turn) if turn.waits() => {
            turn.ready().await;
            Ok(true)
        }
        Some(_) => Ok(false),
        None => {
            state.counters.record(Ending::RateLimited, None, now);
            Err(Error::fixed(
                ErrorKind::RateLimited,
                "rate limit reached: no turn within max_wait",
            ))
        }
    }
}

/// The breaker's permit; dropping the call releases a half-open trial slot.
pub(super) fn breaker_permit(state: &MethodState, now: Instant) -> Result<Permit<'_>, Error> {
    state.breaker.try_acquire(now).map_err(|wait| {
        state.counters.record(Ending::ShortCircuited, None, now);
        state.decided(Decision::ShortCircuited { next_trial: wait });
        // The time until trials is written by Display, from `retry_in`.
        let message = if wait.is_zero() {
            "the circuit breaker is half-open and its trial calls are in flight"
        } else {
            "the circuit breaker is open"
        };
        Error::fixed(ErrorKind::BreakerOpen, message).with_retry_in(wait)
    })
}

impl<'a> Admitted<'a> {
    /// The first attempt: when it goes out, and the call's deadline.
    pub(super) fn first(&self) -> When {
        When {
            attempt: 1,
            sent: self.sent,
            deadline: self.deadline,
            callers: self.callers,
        }
    }

    /// A half-open trial: a probe of one attempt, neither retried nor hedged.
    pub(super) fn trial(&self) -> bool {
        self.permit.is_trial()
    }

    /// Step 5: the finished call, recorded once in the bulkhead (an adaptive limit learns from
    /// its time and whether the downstream `dropped` it), the breaker and the statistics.
    pub(super) fn record<T>(
        self,
        state: &MethodState,
        result: &Result<T, Error>,
        dropped: bool,
        finished: Instant,
    ) {
        let (slot, rtt) = self.settle(state, result, finished);
        slot.finish(rtt, dropped);
    }

    /// Step 5 but the bulkhead: the call recorded in the breaker and the statistics; its slot
    /// is handed back, with the time from the first attempt to the answer, for an event stream
    /// to hold while it is open.
    pub(super) fn settle<T>(
        self,
        state: &MethodState,
        result: &Result<T, Error>,
        finished: Instant,
    ) -> (Slot<'a>, Duration) {
        let elapsed = finished - self.started;
        let outcome = crate::outcome::for_breaker(
            result,
            elapsed,
            &state.settings.breaker,
            state.breaker.slow_over(),
        );
        state.breaker.record(self.permit, outcome, finished);
        let ending = if result.is_ok() {
            Ending::Success
        } else {
            Ending::Failure
        };
        state.counters.record(ending, Some(elapsed), finished);
        (self.slot, finished.saturating_duration_since(self.sent))
    }
}

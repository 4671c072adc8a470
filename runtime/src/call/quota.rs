//! An attempt and the server's quota (`policy/quota`), [`QuotaStep`]: before it is sent it waits
//! for its turn, and its answer's quota fields update the quota. With `quota.shared`, the turn is the fleet's
//! (`fleet/redis/quota.rs`) and the answer updates the fleet's count too; when Redis does not
//! know the quota or cannot answer, the replica's own count decides.

use std::sync::Arc;
use std::time::SystemTime;

use tokio::time::Instant;

use super::parts::Call;
use super::when::When;
use crate::client::{Client, MethodState};
use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};
use crate::fleet;
use crate::observe::probe::Decision;
use crate::outcome::FailedAttempt;
use crate::policy::quota::announced::announced;
use crate::policy::quota::{LONGEST_LEARNING, Learn, Quota, Turn, TurnFrom};

/// An attempt's step in the server's quota: its turn before it is sent, what its answer says
/// of the quota after.
pub(super) struct QuotaStep<'a> {
    call: Call<'a>,
}

impl<'a> QuotaStep<'a> {
    /// The quota step of an attempt of `call`.
    pub(super) fn of(call: Call<'a>) -> QuotaStep<'a> {
        QuotaStep { call }
    }

    /// The quota the method follows, when the profile reads quotas and an answer announced one.
    /// Asked before the turn is awaited: without a quota, the attempt does not enter (or even
    /// write) the turn's future.
    pub(super) fn quota(&self) -> Option<Arc<Quota>> {
        if !self.call.state.settings.quota_from_headers {
            return None;
        }
        self.call.client.shared.quotas.of(&self.call.state.quota)
    }

    /// True when an attempt may have to learn the method's quota first ([`QuotaStep::learn`]):
    /// the profile reads quotas, and the server is known to announce them.
    pub(super) fn may_learn(&self) -> bool {
        self.call.state.settings.quota_from_headers
            && self
                .call
                .client
                .shared
                .quotas
                .may_learn(&self.call.state.quota)
    }

    /// Before an attempt of a method whose answers have bound no quota, while the server is
    /// known to announce quotas: one call at a time goes to learn the method's own (the
    /// others wait for its answer, at most [`LONGEST_LEARNING`] and not past the deadline),
    /// so a route's small quota is not sent a burst before its first answer names it. The
    /// learning call holds the returned guard until its attempt ends.
    pub(super) async fn learn(&self, deadline: Instant) -> Option<Learning<'a>> {
        let (client, state) = (self.call.client, self.call.state);
        let quotas = &client.shared.quotas;
        let until = deadline.min(Instant::now() + LONGEST_LEARNING);
        loop {
            let learned = state.quota.learned();
            tokio::pin!(learned);
            learned.as_mut().enable();
            match quotas.learn(&state.quota) {
                Learn::Go => return None,
                Learn::Ask => {
                    return Some(Learning { client, state });
                }
                Learn::Wait => {
                    if tokio::time::timeout_at(until, learned).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    /// Waits for the attempt's turn in `quota`; the attempt's clock starts when it is sent. A
    /// turn past the call's deadline is `RateLimited`, nothing sent.
    pub(super) async fn turn(
        &self,
        quota: Arc<Quota>,
        when: When,
    ) -> Result<(When, TurnFrom), FailedAttempt> {
        let state = self.call.state;
        loop {
            let (turn, from) = self.turn_of(&quota, when).await;
            let now = Instant::now();
            match turn {
                Turn::Now if now == when.sent => return Ok((when, from)),
                Turn::Now => return Ok((When { sent: now, ..when }, from)),
                Turn::At(at) => {
                    state.decided(Decision::QuotaWait {
                        quota: quota.key().unwrap_or(""),
                        wait: at.saturating_duration_since(now),
                    });
                    Box::pin(tokio::time::sleep_until(at)).await;
                    state
                        .counters
                        .record_quota_wait(at.saturating_duration_since(now));
                    return Ok((
                        When {
                            sent: at.max(now),
                            ..when
                        },
                        from,
                    ));
                }
                // Spent or paused: asked again at the reset, where its turn is another's too.
                Turn::Held(until) => {
                    state.decided(Decision::QuotaWait {
                        quota: quota.key().unwrap_or(""),
                        wait: until.saturating_duration_since(now),
                    });
                    Box::pin(tokio::time::sleep_until(until)).await;
                    state
                        .counters
                        .record_quota_wait(until.saturating_duration_since(now));
                }
                Turn::Refused(wait) => {
                    return Err(FailedAttempt::other(Error::new(
                        ErrorKind::RateLimited,
                        format!(
                            "{} the server announced has no turn for {wait:?}, past the call's deadline: not sent",
                            quota.name()
                        ),
                    )
                    .with_retry_in(wait)));
                }
            }
        }
    }

    /// The turn the fleet gives, else the replica's own.
    async fn turn_of(&self, quota: &Quota, when: When) -> (Turn, TurnFrom) {
        let state = self.call.state;
        if let Some(fleet) = &self.call.client.shared.fleet_quotas {
            let may_wait = when.deadline.saturating_duration_since(Instant::now());
            let longest_hold = state.settings.retry.retry_after_max;
            match Box::pin(fleet::quota_turn(
                fleet,
                quota.key(),
                may_wait,
                longest_hold,
            ))
            .await
            {
                fleet::FleetTurn::Given(turn) => return (turn, TurnFrom::Fleet),
                fleet::FleetTurn::Unknown => {}
                fleet::FleetTurn::Silent => state.decided(Decision::WithoutRedis),
            }
        }
        let longest_hold = state.settings.retry.retry_after_max;
        (
            quota.turn(Instant::now(), when.deadline, longest_hold),
            TurnFrom::Replica,
        )
    }

    /// What an answer (to a request `sent` then, in a turn of `from`'s count) says of its
    /// quota, heard by the replica's count and the fleet's. A refusal's pause is bounded by the
    /// profile's `retry.retry_after.max`, as the retry's wait is; an answer that is not a
    /// refusal ends a pause heard before its request went.
    pub(super) fn heard(&self, response: &Response, sent: Instant, from: TurnFrom) {
        let (shared, state) = (&self.call.client.shared, self.call.state);
        let said = announced(
            response.status.as_u16(),
            &response.headers,
            SystemTime::now(),
            state.settings.retry.retry_after_max,
        );
        let quota = match said {
            Some(said) => {
                let in_turn = from == TurnFrom::Replica;
                let now = Instant::now();
                let quota = shared
                    .quotas
                    .observe(&state.quota, &said, sent, in_turn, now);
                if let Some(fleet) = &shared.fleet_quotas {
                    fleet::quota_heard(fleet, quota.key(), &said, sent, from == TurnFrom::Fleet);
                }
                Some(quota)
            }
            None => shared.quotas.of(&state.quota),
        };
        // After the quota it names is bound: the calls waiting for this answer follow it.
        shared.quotas.heard(&state.quota);
        if let Some(quota) = quota
            && response.status.is_success()
        {
            quota.answered_ok(sent);
        }
    }
}

/// The call out to learn its method's quota: if it ends without an answer heard, the next
/// call learns instead.
pub(super) struct Learning<'a> {
    client: &'a Client,
    state: &'a MethodState,
}

impl Drop for Learning<'_> {
    fn drop(&mut self) {
        self.client.shared.quotas.gave_up(&self.state.quota);
    }
}

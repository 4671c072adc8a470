//! An attempt and the server's quota (`policy/quota`): before it is sent it waits for its turn,
//! and its answer's quota fields update the quota.

use std::time::SystemTime;

use tokio::time::Instant;

use super::attempt::When;
use crate::client::{Client, MethodState};
use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};
use crate::outcome::FailedAttempt;
use crate::policy::quota::Turn;
use crate::policy::quota::announced::announced;

impl Client {
    /// Waits for the attempt's turn in the quota its method follows; the attempt's clock starts
    /// when it is sent, and `true` says it took a turn. A turn past the call's deadline is
    /// `RateLimited`, nothing sent.
    pub(super) async fn quota_turn(
        &self,
        state: &MethodState,
        when: When,
    ) -> Result<(When, bool), FailedAttempt> {
        if !state.settings.quota_from_headers {
            return Ok((when, false));
        }
        let Some(quota) = self.shared.quotas.of(&state.quota) else {
            return Ok((when, false));
        };
        loop {
            let now = Instant::now();
            match quota.turn(now, when.deadline) {
                Turn::Now if now == when.sent => return Ok((when, true)),
                Turn::Now => return Ok((When { sent: now, ..when }, true)),
                Turn::At(at) => {
                    Box::pin(tokio::time::sleep_until(at)).await;
                    state.counters.record_quota_wait(at - now);
                    return Ok((When { sent: at, ..when }, true));
                }
                // Spent or paused: asked again at the reset, where its turn is another's too.
                Turn::Held(until) => {
                    Box::pin(tokio::time::sleep_until(until)).await;
                    state.counters.record_quota_wait(until - now);
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

    /// What an answer (to a request `sent` then, in a turn of the quota when `in_turn`) says
    /// of its quota, heard.
    pub(super) fn quota_heard(
        &self,
        state: &MethodState,
        response: &Response,
        sent: Instant,
        in_turn: bool,
    ) {
        if let Some(said) = announced(
            response.status.as_u16(),
            &response.headers,
            SystemTime::now(),
        ) {
            self.shared
                .quotas
                .observe(&state.quota, &said, sent, in_turn, Instant::now());
        }
    }
}

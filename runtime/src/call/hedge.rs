//! An attempt raced by its hedges, [`Hedge`], when the method's profile hedges: after the
//! hedging delay without an answer, the same attempt goes to another endpoint (within the
//! budget, never past the quota's turn), and the first answer that settles the race is the
//! attempt's. The race itself is `policy/hedge/race.rs`; what settles it, `crate::outcome`.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::attempt::{Attempt, Landed};
use super::parts::Call;
use super::when::When;
use crate::client::MethodState;
use crate::observe::probe::Decision;
use crate::outbound::endpoints::{Endpoint, Lease};
use crate::outcome;
use crate::policy::hedge::Hedging;
use crate::policy::hedge::race::{Flight, Racer, race};

/// The hedging of an attempt, and after how long, when the method hedges (a half-open `trial`
/// never does) and its delay is known.
pub(super) fn hedge_delay(
    state: &MethodState,
    when: When,
    trial: bool,
) -> Option<(&Hedging, Duration)> {
    let hedging = state.hedging.as_deref().filter(|_| !trial)?;
    Some((hedging, hedging.delay(&state.counters, when.sent)?))
}

/// One attempt and the hedges the race asks for.
pub(super) struct Hedge<'a> {
    call: Call<'a>,
    when: When,
    /// The endpoints an attempt is in flight at: a hedge goes elsewhere when it can.
    at: Vec<Arc<Endpoint>>,
}

impl<'a> Hedge<'a> {
    /// The hedged attempt of `request` going out `when`.
    pub(super) fn of(call: Call<'a>, when: When) -> Hedge<'a> {
        Hedge {
            call,
            when,
            at: Vec::new(),
        }
    }

    /// The attempt to `lease`'s endpoint and its hedges, sent after `delay` without an answer:
    /// the one that landed first and settled the race, and the hedges sent.
    pub(super) async fn race(
        mut self,
        lease: Lease<'a>,
        hedging: &'a Hedging,
        delay: Duration,
    ) -> (Landed<'a>, u32) {
        let (state, when) = (self.call.state, self.when);
        self.at.push(lease.endpoint().clone());
        let attempt = Attempt::of(self.call, when);
        let first: Flight<'a, Landed<'a>> = Box::pin(attempt.send(lease, false));
        let (landed, hedges) = Box::pin(race(
            &mut self,
            hedging,
            first,
            delay,
            when.sent,
            when.deadline,
        ))
        .await;
        if landed.hedge && landed.outcome.is_ok() {
            state.decided(Decision::HedgeWon { hedges });
        }
        (landed, hedges)
    }
}

impl<'a> Racer<'a, Landed<'a>> for Hedge<'a> {
    fn settles(&self, landed: &Landed<'a>) -> bool {
        outcome::settles_race(&self.call.state.settings.retry, &landed.outcome)
    }

    fn held_back(&mut self, landed: &Landed<'a>) {
        self.at.retain(|e| !Arc::ptr_eq(e, landed.lease.endpoint()));
    }

    fn hedge(&mut self, now: Instant) -> Option<Flight<'a, Landed<'a>>> {
        let shared = &self.call.client.shared;
        let when = When {
            sent: now,
            ..self.when
        };
        let attempt = Attempt::of(self.call, when);
        // A hedge would wait for the same quota as the attempt it is to help (which may not
        // even be sent yet), and take a turn the next call needs.
        if !attempt.goes_unqueued(now) {
            return None;
        }
        if !shared.budget.withdraw(now) {
            return None;
        }
        let lease = shared.endpoints.pick(&self.at).ok()?;
        let endpoint = &lease.endpoint().shown;
        self.call.state.decided(Decision::HedgeSent { endpoint });
        self.at.push(lease.endpoint().clone());
        Some(Box::pin(attempt.send(lease, true)))
    }
}

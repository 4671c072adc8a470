//! The hedge race: after `delay` without an answer, the same request again, while `max_extra`
//! and the budgets allow. The first answer wins, and so does a failure no retry would follow; a
//! retryable failure waits for the others and is the result only when it is the last. Returning
//! drops the attempts still running, which closes their connections.
//!
//! The race knows nothing of requests: a [`Racer`] sends the hedges and says which result
//! settles it, so the call path keeps its attempts and this file keeps the timing.

use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use tokio::time::Instant;

use super::Hedging;

/// One attempt in flight.
pub(crate) type Flight<'a, L> = Pin<Box<dyn Future<Output = L> + Send + 'a>>;

/// What a race needs from the attempts it runs, whose results are `L`s. (A trait object: the
/// compiler cannot prove a generic racer's future `Send` for every lifetime.)
pub(crate) trait Racer<'a, L> {
    /// True when `landed` ends the race: an answer, or a failure no retry would follow.
    fn settles(&self, landed: &L) -> bool;
    /// `landed` is held back while others run: its place is free for a hedge.
    fn held_back(&mut self, landed: &L);
    /// A hedge sent `now`, or `None` when there is no budget or nowhere to send it.
    fn hedge(&mut self, now: Instant) -> Option<Flight<'a, L>>;
}

/// Races `first` (sent at `sent`) and its hedges until one settles or the last lands. The second
/// value is the hedges sent.
pub(crate) async fn race<'a, L>(
    racer: &mut (dyn Racer<'a, L> + Send + 'a),
    hedging: &Hedging,
    first: Flight<'a, L>,
    delay: Duration,
    sent: Instant,
    deadline: Instant,
) -> (L, u32) {
    enum Event<L> {
        Landed(L),
        Hedge,
    }
    let mut flights = Vec::with_capacity(2);
    flights.push(first);
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
                if flights.is_empty() || racer.settles(&landed) {
                    return (landed, hedges);
                }
                racer.held_back(&landed);
            }
            Event::Hedge => {
                let now = Instant::now();
                if now >= deadline || !hedging.withdraw(now) {
                    continue;
                }
                let Some(flight) = racer.hedge(now) else {
                    continue;
                };
                hedges += 1;
                flights.push(flight);
                if hedges < hedging.settings.max_extra {
                    timer = Some(Box::pin(tokio::time::sleep_until(now + delay)));
                }
            }
        }
    }
}

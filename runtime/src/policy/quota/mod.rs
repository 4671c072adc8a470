//! Quotas the server announces (`quota: { from_headers: auto }`): each answer's quota fields
//! (`announced.rs`) update the quota they name, and each attempt asks that quota for its turn
//! before it is sent.
//!
//! A quota spreads the calls it has left over the time to its reset, a small burst at once, so
//! it does not run dry while the window still has long to go; spent, or paused by a refusal
//! (`Retry-After` on a 429 or 503, GitHub's 403), it holds every call until the reset or the
//! pause's end — if the call's deadline reaches that far; a call whose deadline does not fails
//! at once, unsent, as `RateLimited` with the wait in `retry_in()`.
//!
//! A method follows the quota its own answers name (`X-RateLimit-Resource`, the IETF policy);
//! until one of its answers names one, it follows none: another method's quota is not borrowed.
//! Every hold a quota puts on calls (spent until the reset, paused by a refusal) lasts at most
//! the profile's `retry.retry_after.max` at a time; then one call goes through as a probe, and
//! its answer holds the quota again or frees it: a server's word cannot stop a client for
//! longer than its user allows, and no client stops asking for good. The client keeps at most
//! [`MAX_QUOTAS`] quotas; a server naming more has its least recently heard forgotten. The calls left are the lowest count the
//! server gave in the window (its count only falls, so the lowest is the latest), less the turns
//! handed out and not yet answered: the server may not have seen those, and what it counted
//! after that lowest answer is among them — so the estimate is never above the server's.

pub(crate) mod announced;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

pub(crate) use announced::Announcement;

use crate::observe::stats::QuotaStats;

/// A new window is one whose reset is later than the known one by more than this (servers
/// round their resets to the second, and two answers of one window may differ by one).
const SAME_WINDOW: Duration = Duration::from_millis(1500);

/// How long a call waits, then asks again, for a window's first answer to say when the window
/// resets, when the window's calls are all out before it did.
const AWAITING_AN_ANSWER: Duration = Duration::from_millis(20);

/// The most quotas a client keeps: servers have a few (a code host's core, search and graphql;
/// a bucket per route); a server naming a new one on every answer must not grow the client.
pub(crate) const MAX_QUOTAS: usize = 32;

/// The client's quotas, by name (a few at most: a code host's core, search and graphql).
#[derive(Debug, Default)]
pub(crate) struct Quotas {
    /// Any answer announced a quota: until one does, an attempt asks nothing of a lock.
    any: AtomicBool,
    known: Mutex<HashMap<Option<String>, Arc<Quota>>>,
}

/// One quota: what the server last said of it, and the turns handed out since.
#[derive(Debug)]
pub(crate) struct Quota {
    key: Option<String>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    limit: Option<u64>,
    /// The lowest count of calls left the server gave in this window.
    heard: Option<u64>,
    reset: Option<Instant>,
    paused_until: Option<Instant>,
    /// When the answer that paused it was heard: a later request's answer proves it over.
    paused_heard: Option<Instant>,
    /// The pace's next turn (the generic cell rate algorithm's theoretical arrival time).
    next_turn: Option<Instant>,
    /// The window's calls are spread until then: half way from when the window was learned to
    /// its reset.
    spread_until: Option<Instant>,
    /// When the window now counted opened (its reset passed, or the first answer of it was
    /// asked): an answer to an earlier request speaks of an older window.
    opened: Option<Instant>,
    /// Turns taken in this window, and answers heard of it: the difference is out (sent, or
    /// waiting for its paced time), and not yet in any count the server gives.
    taken: u64,
    answered: u64,
    /// Of the turns out, those taken before a window the server turned early opened: their
    /// answers speak of the old window, but still bring them in.
    carried: u64,
    /// While the quota holds calls: when the hold ends whatever the server said, and one call
    /// goes through as a probe.
    hold_ends: Option<Instant>,
    /// When an answer last spoke of it: the least recently heard is forgotten first.
    heard_at: Option<Instant>,
}

/// Whose count gave an attempt its turn: its answer is counted as that turn's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TurnFrom {
    /// None: no quota was known when it was sent.
    Nobody,
    /// The replica's own count.
    Replica,
    /// The fleet's, in Redis (`quota.shared`).
    Fleet,
}

/// A quota's answer to an attempt that asks to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Turn {
    /// Go now.
    Now,
    /// Its paced turn, reserved: go at that time.
    At(Instant),
    /// Spent or paused until then: ask again at that time.
    Held(Instant),
    /// Not within the call's deadline: fail without sending, the wait as `retry_in`.
    Refused(Duration),
}

impl Quotas {
    /// The quota `method_quota` follows, if any answer has announced one.
    pub(crate) fn of(&self, method_quota: &MethodQuota) -> Option<Arc<Quota>> {
        if !self.any.load(Ordering::Acquire) {
            return None;
        }
        lock(&method_quota.bound).clone()
    }

    /// Whether a call of `method_quota`'s method may have its quota to learn (cheap: two
    /// atomic reads, no lock, on the path of every attempt).
    pub(crate) fn may_learn(&self, method_quota: &MethodQuota) -> bool {
        self.any.load(Ordering::Acquire)
            && method_quota.learning.load(Ordering::Acquire) != NO_QUOTA
    }

    /// Whether a call of a method whose answers have bound no quota may go, must learn the
    /// method's quota, or waits for the call that does: the server announces quotas (another
    /// method's answer said so), and one call at a time finds out whether this method has its
    /// own, so that a route with a small quota of its own is not sent a burst before its first
    /// answer names it.
    pub(crate) fn learn(&self, method_quota: &MethodQuota) -> Learn {
        if !self.any.load(Ordering::Acquire) || lock(&method_quota.bound).is_some() {
            return Learn::Go;
        }
        match method_quota.learning.compare_exchange(
            UNKNOWN,
            ASKING,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => Learn::Ask,
            Err(NO_QUOTA) => Learn::Go,
            Err(_) => Learn::Wait,
        }
    }

    /// The learning call ended without an answer (it failed, or was dropped): the next call
    /// learns, and the waiting ones are woken to be it.
    pub(crate) fn gave_up(&self, method_quota: &MethodQuota) {
        if method_quota
            .learning
            .compare_exchange(ASKING, UNKNOWN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            method_quota.learned.notify_waiters();
        }
    }

    /// An answer of the method was heard (after any quota it names was bound): whatever it
    /// said, the method's quota is known now, and the waiting calls go.
    pub(crate) fn heard(&self, method_quota: &MethodQuota) {
        if method_quota.learning.load(Ordering::Acquire) != NO_QUOTA
            && method_quota.learning.swap(NO_QUOTA, Ordering::AcqRel) != NO_QUOTA
        {
            method_quota.learned.notify_waiters();
        }
    }

    /// Each quota as its last answers left it.
    pub(crate) fn snapshot(&self, now: Instant) -> Vec<QuotaStats> {
        let known = lock(&self.known);
        let mut quotas: Vec<&Arc<Quota>> = known.values().collect();
        quotas.sort_by(|a, b| a.key.cmp(&b.key));
        quotas
            .into_iter()
            .map(|quota| {
                let state = lock(&quota.state);
                QuotaStats {
                    name: quota.key.clone(),
                    limit: state.limit,
                    remaining: state.remaining(),
                    resets_in: state
                        .reset
                        .map(|reset| reset.saturating_duration_since(now)),
                    paused_for: state
                        .paused_until
                        .filter(|until| *until > now)
                        .map(|until| until - now),
                }
            })
            .collect()
    }

    /// An answer's announcement: the quota it names updated (made, the first time), and the
    /// method bound to it.
    /// `sent` is when the request it answers went out: an answer to a request sent before the
    /// window it would speak of opened is an older window's, and ignored.
    pub(crate) fn observe(
        &self,
        method_quota: &MethodQuota,
        said: &Announcement,
        sent: Instant,
        in_turn: bool,
        now: Instant,
    ) -> Arc<Quota> {
        let quota = {
            let mut known = lock(&self.known);
            match known.get(&said.key) {
                Some(quota) => quota.clone(),
                None => {
                    if known.len() >= MAX_QUOTAS {
                        forget_least_recently_heard(&mut known);
                    }
                    let quota = Arc::new(Quota {
                        key: said.key.clone(),
                        state: Mutex::default(),
                    });
                    known.insert(said.key.clone(), quota.clone());
                    quota
                }
            }
        };
        quota.observe(said, sent, in_turn, now);
        *lock(&method_quota.bound) = Some(quota.clone());
        self.any.store(true, Ordering::Release);
        quota
    }
}

/// Makes room for a quota: the one heard of longest ago goes (a method that follows it keeps
/// it until its next answer).
fn forget_least_recently_heard(known: &mut HashMap<Option<String>, Arc<Quota>>) {
    let oldest = known
        .iter()
        .min_by_key(|(_, quota)| lock(&quota.state).heard_at)
        .map(|(key, _)| key.clone());
    if let Some(key) = oldest {
        known.remove(&key);
    }
}

/// The quota a method follows: the one its answers last named.
#[derive(Debug, Default)]
pub(crate) struct MethodQuota {
    bound: Mutex<Option<Arc<Quota>>>,
    /// Before any quota is bound, once the server is known to announce quotas: whether a call
    /// is out to learn the method's (`ASKING`), or its answers announce none (`NO_QUOTA`).
    learning: AtomicU8,
    /// Wakes the calls that wait for the learning call's answer.
    learned: tokio::sync::Notify,
}

/// Nothing learned yet: the next call learns.
const UNKNOWN: u8 = 0;
/// One call is out to learn; the others wait for its answer, briefly.
const ASKING: u8 = 1;
/// An answer of the method announced no quota: its calls go unpaced (until one names one).
const NO_QUOTA: u8 = 2;

/// How long a call waits at most for the learning call's answer before it goes unpaced.
pub(crate) const LONGEST_LEARNING: Duration = Duration::from_secs(1);

/// What a call of a method with no quota bound does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Learn {
    /// Go: the method's quota is known (bound, or none).
    Go,
    /// Go as the call that learns the method's quota; `Quotas::gave_up` if it gets no answer.
    Ask,
    /// Wait for the learning call's answer (`MethodQuota::learned`), then ask again.
    Wait,
}

impl MethodQuota {
    /// Wakes the calls waiting for the learning call: `learned` is a future that completes
    /// when it answers; register it before asking `Quotas::learn`.
    pub(crate) fn learned(&self) -> tokio::sync::futures::Notified<'_> {
        self.learned.notified()
    }
}

impl Quota {
    /// The quota's name, for messages (`the quota` when the server names none).
    pub(crate) fn name(&self) -> String {
        match &self.key {
            Some(key) => format!("the quota `{}`", key.escape_debug()),
            None => "the quota".to_owned(),
        }
    }

    /// The server's name for it, if it gave one.
    pub(crate) fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Whether an attempt asking now would go at once: turns left (or none counted yet) and no
    /// pause. Nothing is taken.
    pub(crate) fn has_turn(&self, now: Instant) -> bool {
        let mut state = lock(&self.state);
        state.roll_over(now);
        let paused = state.paused_until.is_some_and(|until| until > now);
        !paused && state.remaining() != Some(0)
    }

    /// An attempt's turn, for a call that must be sent by `deadline`; a hold lasts at most
    /// `longest_hold` at a time (the profile's `retry.retry_after.max`).
    pub(crate) fn turn(&self, now: Instant, deadline: Instant, longest_hold: Duration) -> Turn {
        let mut state = lock(&self.state);
        state.roll_over(now);
        let held = match (state.remaining(), state.reset) {
            (Some(0), Some(reset)) => Some(reset),
            // Spent before the new window's first answer says when it resets (the turns of
            // its first moment all taken): wait for that answer rather than send past it.
            (Some(0), None) => Some(now + AWAITING_AN_ANSWER),
            _ => None,
        };
        let held = held.max(state.paused_until.filter(|until| *until > now));
        match held {
            Some(until) => {
                let ends = *state.hold_ends.get_or_insert(now + longest_hold);
                let until = until.min(ends);
                if until > now {
                    return if until > deadline {
                        Turn::Refused(until - now)
                    } else {
                        Turn::Held(until)
                    };
                }
                // The hold's time is up: this call is the probe, and the others wait for its
                // answer as long again.
                state.hold_ends = Some(now + longest_hold);
                state.taken += 1;
                return Turn::Now;
            }
            None => state.hold_ends = None,
        }
        let at = state.paced(now);
        if at > deadline {
            return Turn::Refused(at - now);
        }
        state.take(at);
        if at > now { Turn::At(at) } else { Turn::Now }
    }

    fn observe(&self, said: &Announcement, sent: Instant, in_turn: bool, now: Instant) {
        let mut state = lock(&self.state);
        if state.opened.is_some_and(|opened| sent < opened) {
            if in_turn && state.carried > 0 {
                state.carried -= 1;
                state.answered = (state.answered + 1).min(state.taken);
            }
            return;
        }
        state.heard_at = Some(now);
        if said.limit.is_some() {
            state.limit = said.limit;
        }
        let reset = said.reset_in.map(|wait| now + wait);
        let new_window = match (reset, state.reset) {
            (Some(reset), Some(known)) => reset > known + SAME_WINDOW,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if let Some(reset) = reset {
            // Servers round a reset up to the second (a delay, or an epoch read against a `Date`
            // of whole seconds): within a window the earliest estimate is the nearest.
            state.reset = match state.reset {
                Some(known) if !new_window => Some(known.min(reset)),
                known => {
                    state.new_window(known.is_some(), sent, now, reset);
                    Some(reset)
                }
            };
        }
        if in_turn {
            state.answered = (state.answered + 1).min(state.taken);
        }
        if let Some(left) = said.remaining {
            state.heard = Some(match state.heard {
                Some(known) if !new_window => known.min(left),
                _ => left,
            });
        }
        if let Some(pause) = said.pause_for {
            let until = now + pause;
            state.paused_until = Some(state.paused_until.map_or(until, |known| known.max(until)));
            state.paused_heard = Some(now);
        }
    }

    /// A request sent at `sent` was answered, not refused: a pause heard before it was sent is
    /// over, whatever its length said (the probe after a long pause frees the quota).
    pub(crate) fn answered_ok(&self, sent: Instant) {
        let mut state = lock(&self.state);
        if state.paused_heard.is_some_and(|heard| sent >= heard) {
            state.paused_until = None;
            state.paused_heard = None;
            state.hold_ends = None;
        }
    }
}

impl State {
    /// The calls left: the server's lowest count less the turns out; before the window's first
    /// count, the limit less the turns taken.
    fn remaining(&self) -> Option<u64> {
        match (self.heard, self.limit) {
            (Some(heard), _) => Some(heard.saturating_sub(self.taken - self.answered)),
            (None, Some(limit)) => Some(limit.saturating_sub(self.taken)),
            (None, None) => None,
        }
    }

    /// A window learned from an answer (to a request `sent`): its calls spread to half way to
    /// `reset`. After a roll-over it opened at the reset, and the turns taken since are its
    /// own; the first window learned has no opening (no turn was taken before it, and a fleet's
    /// replicas place their sends on Redis's clock too roughly to order the first answers).
    /// One the server turned before the reset known (`early`) opens with this request; the
    /// turns out are carried into it, as the server may count them in either window.
    fn new_window(&mut self, early: bool, sent: Instant, now: Instant, reset: Instant) {
        self.next_turn = None;
        self.spread_until = Some(now + (reset - now) / 2);
        if early {
            self.opened = Some(sent);
            self.carried = self.taken - self.answered;
            self.taken = self.carried;
            self.answered = 0;
        }
    }

    /// Past the reset, the window is a new one: its calls are the limit's, until an answer
    /// says how many.
    fn roll_over(&mut self, now: Instant) {
        if let Some(reset) = self.reset.filter(|reset| now >= *reset) {
            self.reset = None;
            self.heard = None;
            self.next_turn = None;
            self.spread_until = None;
            self.opened = Some(reset);
            self.taken = 0;
            self.answered = 0;
            self.carried = 0;
        }
    }

    /// The time of the next paced turn: the calls left spread evenly up to `spread_until`
    /// (half way to the reset), a tenth of the limit (at least one call) ahead of the pace.
    /// Half: a window's calls are not held to its end, so a client with more calls than the
    /// quota allows is within a half-window of the best schedule.
    fn paced(&self, now: Instant) -> Instant {
        let (Some(left), Some(until)) = (self.remaining(), self.spread_until) else {
            return now;
        };
        let next = self.next_turn.unwrap_or(now).max(now);
        let interval = interval(until.saturating_duration_since(next), left);
        let burst = (self.limit.unwrap_or(left) / 10).clamp(1, 1_000);
        let tolerance = interval.saturating_mul(u32::try_from(burst).unwrap_or(u32::MAX));
        next.checked_sub(tolerance).map_or(now, |at| at.max(now))
    }

    /// Takes the turn at `at`: one call fewer, the next turn an interval on.
    fn take(&mut self, at: Instant) {
        if let (Some(left), Some(until)) = (self.remaining(), self.spread_until) {
            let next = self.next_turn.unwrap_or(at).max(at);
            self.next_turn = Some(next + interval(until.saturating_duration_since(next), left));
        }
        self.taken += 1;
    }
}

/// The pace: the time to spread over, over the calls left.
fn interval(spread: Duration, calls: u64) -> Duration {
    spread / u32::try_from(calls.max(1)).unwrap_or(u32::MAX)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests;

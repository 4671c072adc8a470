//! Each delivery handled once: senders redeliver (a timeout on their side, a retry after the
//! receiver's 5xx), and an attacker may send a captured delivery again within the signature's
//! tolerance. [`Replays`] keeps the ids of the deliveries seen for as long as the tolerance
//! lasts, so a second one with the same id is told apart; bounded, so a flood of ids cannot fill
//! the memory (the oldest are forgotten first, and then a replay of one past the bound gets
//! through: size it above the deliveries of one tolerance window).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::signature::DEFAULT_TOLERANCE;

/// How many ids are kept by default.
pub const DEFAULT_CAPACITY: usize = 100_000;

/// The ids of the deliveries seen within the tolerance window.
#[derive(Debug)]
pub struct Replays {
    keep_for: Duration,
    capacity: usize,
    seen: Mutex<Ids>,
}

#[derive(Debug, Default)]
struct Ids {
    /// Each id and when it was first seen.
    /// Each id kept and the number of its entry in `order`.
    at: HashMap<String, u64>,
    /// The ids in the order they came, when and their entry's number, to forget the oldest
    /// first; an entry whose id was forgotten and seen again since is a husk, skipped.
    order: VecDeque<(String, SystemTime, u64)>,
    next: u64,
}

impl Ids {
    fn forget_oldest(&mut self) {
        if let Some((oldest, _, entry)) = self.order.pop_front()
            && self.at.get(&oldest) == Some(&entry)
        {
            self.at.remove(&oldest);
        }
    }
}

/// What a delivery's id says about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Not seen within the window: handle it.
    First,
    /// Seen already: answer as for the first (2xx) without handling it again.
    Again,
}

impl Default for Replays {
    fn default() -> Replays {
        Replays::new(DEFAULT_TOLERANCE * 2, DEFAULT_CAPACITY)
    }
}

impl Replays {
    /// Ids kept for `keep_for` (twice the signature's tolerance covers a delivery signed at
    /// either end of it), at most `capacity` of them.
    pub fn new(keep_for: Duration, capacity: usize) -> Replays {
        Replays {
            keep_for,
            capacity: capacity.max(1),
            seen: Mutex::default(),
        }
    }

    /// Whether the delivery `id`, received `now`, is the first of its id within the window.
    /// Linear in the ids that expired since the last call, at most.
    pub fn check(&self, id: &str, now: SystemTime) -> Seen {
        let id = &*kept(id);
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while let Some((_, at, _)) = seen.order.front() {
            if !now.duration_since(*at).is_ok_and(|age| age > self.keep_for) {
                break;
            }
            seen.forget_oldest();
        }
        if seen.at.contains_key(id) {
            return Seen::Again;
        }
        if seen.order.len() >= self.capacity {
            seen.forget_oldest();
        }
        let entry = seen.next;
        seen.next += 1;
        seen.at.insert(id.to_owned(), entry);
        seen.order.push_back((id.to_owned(), now, entry));
        Seen::First
    }

    /// Forgets `id`, so its next delivery is handled: the receiver did not handle this one.
    /// Its entry in the order stays, a husk, until it expires or is pushed out.
    pub fn forget(&self, id: &str) {
        let id = &*kept(id);
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .at
            .remove(id);
    }
}

/// The longest id kept as it came; a longer one is kept as its SHA-256 (in hex), so the
/// memory a sender's ids take is bounded by their count, not by what they write.
const LONGEST_KEPT: usize = 128;

fn kept(id: &str) -> std::borrow::Cow<'_, str> {
    if id.len() <= LONGEST_KEPT {
        return id.into();
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(id.as_bytes());
    let mut hex = String::with_capacity(2 * digest.len() + 7);
    hex.push_str("sha256:");
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    fn at(seconds: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(seconds)
    }

    #[test]
    fn a_redelivery_within_the_window_is_seen_again_and_after_it_is_new() {
        let replays = Replays::new(Duration::from_secs(600), 10);
        assert_eq!(replays.check("msg_1", at(1000)), Seen::First);
        assert_eq!(replays.check("msg_2", at(1001)), Seen::First);
        assert_eq!(replays.check("msg_1", at(1300)), Seen::Again);
        assert_eq!(
            replays.check("msg_1", at(1601)),
            Seen::First,
            "the window passed"
        );
    }

    #[test]
    fn past_its_capacity_the_oldest_ids_are_forgotten_first() {
        let replays = Replays::new(Duration::from_secs(600), 3);
        for id in ["a", "b", "c", "d"] {
            assert_eq!(replays.check(id, at(1000)), Seen::First);
        }
        assert_eq!(replays.check("d", at(1000)), Seen::Again);
        assert_eq!(replays.check("a", at(1000)), Seen::First, "forgotten");
        let seen = replays.seen.lock().unwrap();
        assert!(seen.at.len() <= 3 && seen.order.len() <= 3);
    }

    #[test]
    fn a_long_id_is_kept_as_its_digest_and_still_tells_a_redelivery() {
        let replays = Replays::new(Duration::from_secs(600), 10);
        let long = "x".repeat(64 * 1024);
        assert_eq!(replays.check(&long, at(1000)), Seen::First);
        assert_eq!(replays.check(&long, at(1001)), Seen::Again);
        let seen = replays.seen.lock().unwrap();
        assert!(seen.at.keys().all(|id| id.len() <= LONGEST_KEPT), "bounded");
    }

    #[test]
    fn a_forgotten_id_is_handled_again_and_kept_for_its_own_window() {
        let replays = Replays::new(Duration::from_secs(600), 10);
        assert_eq!(replays.check("msg_1", at(1000)), Seen::First);
        replays.forget("msg_1");
        assert_eq!(
            replays.check("msg_1", at(1500)),
            Seen::First,
            "the receiver failed it"
        );
        // The first entry's expiry must not forget the second one.
        assert_eq!(replays.check("other", at(1700)), Seen::First);
        assert_eq!(replays.check("msg_1", at(1800)), Seen::Again);
    }
}

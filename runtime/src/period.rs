//! The one step the time rings share (the retry budget's seconds, the latency windows, the
//! dashboard's history): a slot moves on to a new period, and whoever moves it clears it.

use std::sync::atomic::{AtomicU64, Ordering};

/// Moves `cell` to `period`; true for the one caller that did, who must then clear the slot's
/// counts. Lock-free: a racing caller sees the period moved and counts into the cleared slot (or,
/// at worst, into it while it is being cleared, which loses that count).
pub(crate) fn claim(cell: &AtomicU64, period: u64) -> bool {
    let seen = cell.load(Ordering::Acquire);
    seen != period
        && cell
            .compare_exchange(seen, period, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
}

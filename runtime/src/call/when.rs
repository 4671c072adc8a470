//! When an attempt goes, which every step of a call that waits or times out reads: its own file,
//! below the steps, so that each can name it without naming another step.

use tokio::time::Instant;

/// When one attempt goes: which it is (1 for the first), when it is sent (its attempt deadline
/// counts from here), the call's deadline, and whether that is the caller's (earlier than the
/// method's total).
#[derive(Clone, Copy)]
pub(super) struct When {
    pub(super) attempt: u32,
    pub(super) sent: Instant,
    pub(super) deadline: Instant,
    pub(super) callers: bool,
}

//! What a receiver counts: deliveries received, refused (and why), handled, failed.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use serde::Serialize;

/// The counters of one receiver.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) received: AtomicU64,
    pub(crate) refused_signature: AtomicU64,
    pub(crate) refused_size: AtomicU64,
    pub(crate) refused_decode: AtomicU64,
    pub(crate) drifted: AtomicU64,
    pub(crate) replayed: AtomicU64,
    pub(crate) unknown: AtomicU64,
    pub(crate) handled: AtomicU64,
    pub(crate) ignored: AtomicU64,
    pub(crate) failed: AtomicU64,
    pub(crate) panicked: AtomicU64,
}

impl Counters {
    pub(crate) fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Relaxed);
    }

    pub(crate) fn snapshot(&self, client: &'static str) -> InboxStats {
        let read = |counter: &AtomicU64| counter.load(Relaxed);
        InboxStats {
            client,
            received: read(&self.received),
            refused_signature: read(&self.refused_signature),
            refused_size: read(&self.refused_size),
            refused_decode: read(&self.refused_decode),
            drifted: read(&self.drifted),
            replayed: read(&self.replayed),
            unknown: read(&self.unknown),
            handled: read(&self.handled),
            ignored: read(&self.ignored),
            failed: read(&self.failed),
            panicked: read(&self.panicked),
        }
    }
}

/// A receiver's counts since it started.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct InboxStats {
    /// The client whose webhooks these are (empty before a router was made).
    pub client: &'static str,
    /// Deliveries that reached the receiver.
    pub received: u64,
    /// Refused for their signature: missing, malformed, stale or matching no secret (401/400).
    pub refused_signature: u64,
    /// Refused for their size or content coding, unread (413/415).
    pub refused_size: u64,
    /// Verified, but their payload does not read as the event's type (400).
    pub refused_decode: u64,
    /// Read with keys their type does not declare, or repaired under `lax`: the description
    /// does not say what the sender sends.
    pub drifted: u64,
    /// Redeliveries of a delivery already handled or being handled: answered, not handled again.
    pub replayed: u64,
    /// Verified deliveries of no declared event: answered 202, not handled.
    pub unknown: u64,
    /// Handled by the receiver's method.
    pub handled: u64,
    /// Of an event the receiver does not implement: answered, not handled.
    pub ignored: u64,
    /// The receiver's method failed (500: the sender retries).
    pub failed: u64,
    /// The receiver's method panicked (500: the sender retries; the service lives).
    pub panicked: u64,
}

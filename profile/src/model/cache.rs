//! A cache of GET answers by RFC 9111: `cache: { memory: 16MiB, stale_if_error: 10m }`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Layer, SharedStore};
use crate::units::{ByteSize, duration};

/// The bytes kept when the profile's `cache:` leaves `memory` out.
pub const DEFAULT_CACHE_BYTES: u64 = 16 << 20;

partial! {
    /// Answers to GET and HEAD kept by the rules of RFC 9111 (freshness, `Vary`, `no-store`,
    /// revalidation with `ETag`/`Last-Modified`), each under the credentials it was sent with:
    /// one credential's answer is never another's; and the answers to queries sent with a body
    /// (a POST the spec marks `safe: true`, a QUERY), under their body's digest, to answer
    /// failed calls only. A write is never kept. Off unless the profile has `cache:`.
    pub struct CachingPolicy {
        /// The bytes the answers kept in memory may take; the least used go first (16MiB).
        memory: ByteSize,
        /// How long past its freshness a kept answer may still answer a call whose attempts
        /// failed as the server being unavailable (RFC 5861's `stale-if-error`): before the
        /// fallback, counted as `served_stale` (0s, none).
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        stale_if_error: Duration,
        /// Answers kept in Redis too (the runtime's `redis` feature), for every replica with
        /// the same key: an answer one fetched answers the others, each under its credentials.
        /// Needs `secret:`.
        shared: SharedStore,
        /// Request headers that do not say whose answer it is, left out of the key: a
        /// signature or a timestamp an interceptor sets anew on each call. Every other header
        /// the request carries (a method's header parameters, an interceptor's, the profile's)
        /// keys the answer, so one caller's answer is never another's.
        unkeyed: Vec<String>,
    }
}

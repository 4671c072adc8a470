//! Pacing by the quota a server announces on its answers: `quota: { from_headers: auto | off,
//! shared: { redis, key } }`.

use serde::{Deserialize, Serialize};

use super::{Layer, SharedStore};

partial! {
    /// The quota a server announces: its `RateLimit`/`RateLimit-Policy` fields (IETF),
    /// `X-RateLimit-*` (GitHub's `x-ratelimit-resource` among them) and `Retry-After` on a 403,
    /// 429 or 503. The client spreads the calls a quota has left over the time to its reset, and
    /// when it is spent waits for the reset if the call's deadline allows, else fails at once
    /// with `RateLimited` without sending.
    pub struct QuotaPolicy {
        /// `auto` (the default): read the answers' quota fields and pace by them; `off`: ignore
        /// them (a 429's `Retry-After` still times that call's retry).
        from_headers: QuotaHeaders,
        /// One count for every replica, kept in Redis (the runtime's `redis` feature): the
        /// replicas split the quota instead of each spending it, and one's refusal pauses all.
        /// While Redis cannot answer, each paces on its own answers.
        shared: SharedStore,
    }
}

/// Whether the answers' quota fields pace the calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum QuotaHeaders {
    /// Read them (the default).
    #[default]
    Auto,
    /// Ignore them.
    Off,
}

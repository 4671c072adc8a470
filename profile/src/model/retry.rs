//! Deadlines and retries: timeouts, backoff, `Retry-After`, the retry budget.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::breaker::Condition;
use super::{Layer, SharedStore};
use crate::units::duration;

partial! {
    /// Deadlines of one call.
    pub struct Timeouts {
        /// Establishing a connection (TCP and TLS).
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        connect: Duration,
        /// One attempt: sending the request and reading the whole response.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        attempt: Duration,
        /// The whole logical call, retries and their sleeps included. For an event or JSON
        /// Lines stream: until it is open (its response headers).
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        total: Duration,
        /// An open event or JSON Lines stream that sends nothing (not even a comment) for this
        /// long is broken off, and resumed where it can be.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        idle: Duration,
    }
}

partial! {
    /// The retry policy.
    pub struct RetryPolicy {
        /// Attempts in all, the first included; 1 disables retries.
        max_attempts: u32,
        /// Sleep between attempts.
        backoff: Backoff,
        /// Outcomes that may be retried.
        on: Vec<Condition>,
        /// Honouring the server's `Retry-After`.
        retry_after: RetryAfter,
        /// A cap on retries relative to calls, so a failing downstream never gets N× its load.
        budget: RetryBudgetPolicy,
    }
}

partial! {
    /// Exponential backoff between attempts.
    pub struct Backoff {
        /// The first sleep.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        initial: Duration,
        /// No sleep is longer than this.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        max: Duration,
        /// Each sleep is the previous one times this.
        multiplier: f64,
        /// Randomisation of each sleep.
        jitter: Jitter,
    }
}

partial! {
    /// `Retry-After` handling.
    pub struct RetryAfter {
        /// The longest wait honoured; `0s` ignores the header.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        max: Duration,
    }
}

partial! {
    /// The retry budget.
    pub struct RetryBudgetPolicy {
        /// Retries allowed per call made (0.2: one retry per five calls).
        ratio: f64,
        /// Retries allowed per second whatever the ratio says.
        min_per_second: u32,
        /// One budget for every replica, kept in Redis.
        shared: SharedStore,
    }
}

/// Randomisation of backoff sleeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
    /// Exactly the computed sleep.
    None,
    /// Uniform in `[0, sleep]`.
    Full,
    /// Uniform in `[sleep/2, sleep]`.
    Equal,
}

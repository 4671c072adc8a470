//! Tail latency and overload: hedged requests, the adaptive concurrency limit, deadline
//! propagation.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Layer;
use crate::units::{duration, format_duration, parse_duration};

partial! {
    /// Hedged requests: after `delay` without an answer, the same request again (to another
    /// endpoint when there is one); the first answer wins and the others are cancelled. Only
    /// idempotent methods are hedged.
    pub struct HedgePolicy {
        /// A duration (`20ms`) or a percentile of the method's recent latency (`p95`, `p99.9`).
        delay: HedgeDelay,
        /// The least a percentile delay may be.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        min_delay: Duration,
        /// Hedges in flight per call at most.
        max_extra: u32,
        /// Hedges at most this percentage of the method's calls over ten seconds.
        budget_percent: f64,
    }
}

/// When a hedge is sent: after a fixed time, or after a percentile of the method's latency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HedgeDelay {
    /// A fixed delay.
    After(Duration),
    /// The method's recent latency at this quantile (0.95 for `p95`).
    Percentile(f64),
}

impl HedgeDelay {
    /// Parses `20ms` or `p95`.
    pub fn parse(text: &str) -> Result<HedgeDelay, String> {
        let text = text.trim();
        match text.strip_prefix('p') {
            Some(number) => {
                let percent: f64 = number.parse().map_err(|_| {
                    format!("hedge delay `{text}`: expected a duration (20ms) or a percentile (p95, p99.9)")
                })?;
                Ok(HedgeDelay::Percentile(percent / 100.0))
            }
            None => parse_duration(text).map(HedgeDelay::After),
        }
    }
}

impl fmt::Display for HedgeDelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HedgeDelay::After(delay) => f.write_str(&format_duration(*delay)),
            // Written back as read: 0.999 → p99.9, not p99.90000000000001.
            HedgeDelay::Percentile(q) => {
                let percent = format!("{:.3}", q * 100.0);
                write!(
                    f,
                    "p{}",
                    percent.trim_end_matches('0').trim_end_matches('.')
                )
            }
        }
    }
}

impl Serialize for HedgeDelay {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for HedgeDelay {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        HedgeDelay::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for HedgeDelay {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HedgeDelay".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A duration (20ms) or a percentile of the method's recent latency (p95, p99.9).",
            "type": "string",
            "pattern": "^\\s*([0-9]+\\s*(ms|s|m)|p[0-9]+(\\.[0-9]+)?)\\s*$"
        })
    }
}

impl Layer for HedgeDelay {
    fn layer(self, over: Self) -> Self {
        over
    }
}

partial! {
    /// The adaptive concurrency limit: how many calls may be in flight moves with the latency
    /// the downstream shows, between `min` and `max`.
    pub struct AdaptivePolicy {
        /// `gradient2` (the default), `aimd` or `vegas`.
        algorithm: LimitAlgorithm,
        /// The limit to start from.
        initial: u32,
        /// The limit never goes below this.
        min: u32,
        /// The limit never goes above this.
        max: u32,
        /// How long a call waits for room under the limit before it is rejected.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        max_wait: Duration,
    }
}

/// How the adaptive limit follows latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LimitAlgorithm {
    /// Netflix's Gradient2: the ratio of a long-term to the short-term latency scales the limit.
    Gradient2,
    /// Additive increase while calls succeed in time, multiplicative decrease when one is slow or
    /// dropped.
    Aimd,
    /// TCP Vegas: the queue estimated from the latency above the minimum steers the limit.
    Vegas,
}

impl Layer for LimitAlgorithm {
    fn layer(self, over: Self) -> Self {
        over
    }
}

partial! {
    /// Deadline propagation: a `remcall::deadline` scope caps every call inside it; `propagate`
    /// sends the time left, in milliseconds, in this header on each attempt.
    pub struct DeadlinePolicy {
        /// The header that carries the remaining milliseconds (`X-Request-Timeout-Ms`).
        propagate: String,
    }
}

partial! {
    /// A rate limit shared by every replica, kept in Redis (the runtime's `redis` feature).
    pub struct SharedLimit {
        /// `redis://`, `rediss://` or (a Redis Cluster, by any node) `redis+cluster://` URL; a
        /// password in it makes it a secret: write `${VAR}`.
        redis: super::RedisUrl,
        /// Replicas with the same key share the limit.
        key: String,
        /// Slower than this counts as Redis being down; waited on longer (up to ten times) when
        /// Redis's measured round trips need it, as on a loaded host.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        timeout: Duration,
        /// What a call gets while Redis cannot answer: `open`, `closed` or `local_share`.
        on_error: OnRedisError,
        /// Replicas sharing the key: `local_share` allows `per_second / replicas` locally.
        replicas: u32,
    }
}

partial! {
    /// State every replica shares, kept in Redis: a retry budget (`retry.budget.shared`), the
    /// quotas the server announces (`quota.shared`), kept answers (`cache.shared`).
    pub struct SharedStore {
        /// `redis://`, `rediss://` or (a Redis Cluster, by any node) `redis+cluster://` URL; a
        /// password in it makes it a secret: write `${VAR}`.
        redis: super::RedisUrl,
        /// Replicas with the same key share the state.
        key: String,
        /// Slower than this counts as Redis being down (then each replica decides on its own);
        /// waited on longer (up to ten times) when Redis's measured round trips need it.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        timeout: Duration,
        /// The fleet's own key, `${VAR}` (required by `cache.shared`, 32 bytes at least): kept
        /// answers' Redis keys are digests keyed with it, and each entry is signed with it, so
        /// neither a reader of the Redis can guess a credential from a key nor a writer forge an
        /// answer.
        secret: super::Secret,
        /// `cache.shared` only: who shares the kept answers. By default the client's name and
        /// base URLs, so two services whose profiles share a fragment never answer each other;
        /// the same `scope` in two clients shares them on purpose.
        scope: String,
    }
}

/// What a shared rate limit does while Redis cannot answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OnRedisError {
    /// Let the call through.
    Open,
    /// Refuse it with `RateLimited`.
    Closed,
    /// Limit locally to `per_second / replicas`: the fleet stays near its limit.
    LocalShare,
}

impl Layer for OnRedisError {
    fn layer(self, over: Self) -> Self {
        over
    }
}

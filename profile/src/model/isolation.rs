//! Isolation and rate limiting: the semaphore or pool bulkhead, the rate limiter.

use std::fmt;
use std::time::Duration;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::{AdaptivePolicy, Layer, SharedLimit, one_of};
use crate::units::duration;

partial! {
    /// The semaphore bulkhead.
    pub struct SemaphorePolicy {
        /// Calls in flight at once.
        max_concurrent: u32,
        /// How long a call waits for a free slot before it is rejected.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        max_wait: Duration,
    }
}

partial! {
    /// The pool bulkhead: a dedicated runtime per client.
    pub struct PoolPolicy {
        /// Worker threads.
        workers: u32,
        /// Calls waiting for a worker.
        queue: u32,
        /// How long a call waits in the queue before it is rejected.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        queue_timeout: Duration,
    }
}

partial! {
    /// The rate limiter.
    pub struct RateLimitPolicy {
        /// Calls allowed per second on average.
        per_second: f64,
        /// Calls allowed at once above the average.
        burst: u32,
        /// How long a call waits for a token before it fails with `RateLimited`.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        max_wait: Duration,
        /// One limit for every replica, kept in Redis.
        shared: SharedLimit,
    }
}

/// How calls are kept from exhausting the caller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(try_from = "IsolationRepr", into = "IsolationRepr")]
pub enum Isolation {
    /// A semaphore: at most `max_concurrent` calls in flight.
    Semaphore(SemaphorePolicy),
    /// A dedicated runtime with its own workers and queue.
    Pool(PoolPolicy),
    /// A limit on calls in flight that moves with the latency the downstream shows.
    Adaptive(AdaptivePolicy),
    /// No isolation.
    None,
}

impl Layer for Isolation {
    fn layer(self, over: Self) -> Self {
        match (self, over) {
            (Isolation::Semaphore(a), Isolation::Semaphore(b)) => Isolation::Semaphore(a.layer(b)),
            (Isolation::Pool(a), Isolation::Pool(b)) => Isolation::Pool(a.layer(b)),
            (Isolation::Adaptive(a), Isolation::Adaptive(b)) => Isolation::Adaptive(a.layer(b)),
            (_, over) => over,
        }
    }
}

#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IsolationMap {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    semaphore: Option<SemaphorePolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pool: Option<PoolPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    adaptive: Option<AdaptivePolicy>,
}

/// `none`, `{ semaphore: {..} }`, `{ pool: {..} }` or `{ adaptive: {..} }`.
pub(crate) struct IsolationRepr(Isolation);

impl<'de> Deserialize<'de> for IsolationRepr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IsolationRepr;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("none, { semaphore: {..} }, { pool: {..} } or { adaptive: {..} }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<IsolationRepr, E> {
                match v {
                    "none" => Ok(IsolationRepr(Isolation::None)),
                    "semaphore" => Ok(IsolationRepr(Isolation::Semaphore(
                        SemaphorePolicy::default(),
                    ))),
                    "pool" => Ok(IsolationRepr(Isolation::Pool(PoolPolicy::default()))),
                    "adaptive" => Ok(IsolationRepr(
                        Isolation::Adaptive(AdaptivePolicy::default()),
                    )),
                    other => Err(E::custom(format!(
                        "unknown isolation `{other}`: expected none, semaphore, pool or adaptive"
                    ))),
                }
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<IsolationRepr, A::Error> {
                let m = IsolationMap::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let choice = one_of(
                    &[
                        ("semaphore", m.semaphore.map(Isolation::Semaphore)),
                        ("pool", m.pool.map(Isolation::Pool)),
                        ("adaptive", m.adaptive.map(Isolation::Adaptive)),
                    ],
                    "isolation",
                );
                choice.map(IsolationRepr).map_err(de::Error::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for IsolationRepr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Isolation::None => s.serialize_str("none"),
            Isolation::Semaphore(sem) => IsolationMap {
                semaphore: Some(sem.clone()),
                ..IsolationMap::default()
            }
            .serialize(s),
            Isolation::Pool(pool) => IsolationMap {
                pool: Some(pool.clone()),
                ..IsolationMap::default()
            }
            .serialize(s),
            Isolation::Adaptive(adaptive) => IsolationMap {
                adaptive: Some(adaptive.clone()),
                ..IsolationMap::default()
            }
            .serialize(s),
        }
    }
}

impl TryFrom<IsolationRepr> for Isolation {
    type Error = String;
    fn try_from(repr: IsolationRepr) -> Result<Self, String> {
        Ok(repr.0)
    }
}

impl From<Isolation> for IsolationRepr {
    fn from(value: Isolation) -> Self {
        IsolationRepr(value)
    }
}

//! The circuit breaker: its window, thresholds and the outcome classes it records.

use std::fmt;
use std::time::Duration;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::{Layer, one_of};
use crate::units::duration;

partial! {
    /// The circuit breaker.
    pub struct BreakerPolicy {
        /// One breaker per method, or one for the whole client.
        scope: Scope,
        /// The calls the failure rate is computed over.
        window: Window,
        /// No opening before the window holds this many calls.
        min_calls: u32,
        /// Opens at or above this failure percentage.
        failure_rate: f64,
        /// Slow successes that count against the breaker.
        slow_call: SlowCall,
        /// How long the breaker stays open before letting trials through.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        open_for: Duration,
        /// Consecutive re-opens double `open_for` up to this.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        open_for_max: Duration,
        /// Trial calls let through when half-open (at a time, under the counting rule).
        half_open_calls: u32,
        /// Successful trials that close a half-open breaker. Setting it (or `reopen_after`)
        /// replaces the rate rule with the counting rule; default `half_open_calls`.
        close_after: u32,
        /// Failed trials that re-open a half-open breaker (counting rule); default 1.
        reopen_after: u32,
        /// Outcomes that count as failures.
        record: Vec<Condition>,
    }
}

partial! {
    /// Slow-call detection.
    pub struct SlowCall {
        /// A call slower than this is slow.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        over: Duration,
        /// Opens at or above this slow-call percentage.
        rate: f64,
    }
}

/// Breaker granularity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// One breaker per method.
    Method,
    /// One breaker for all methods of a client.
    Client,
}

/// A sliding window of calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(try_from = "WindowRepr", into = "WindowRepr")]
pub enum Window {
    /// The calls of the last period.
    Time(Duration),
    /// The last N calls.
    Calls(u32),
}

/// An outcome class named in `retry.on` and `breaker.record`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Condition {
    /// The connection could not be made.
    Connect,
    /// An attempt or the call ran out of time.
    Timeout,
    /// One HTTP status, e.g. `503`.
    Status(u16),
    /// A class of statuses, e.g. `5xx` (holds the leading digit).
    StatusClass(u8),
}

impl Condition {
    /// True when the condition covers this HTTP status.
    pub fn matches_status(self, status: u16) -> bool {
        match self {
            Condition::Status(s) => s == status,
            Condition::StatusClass(c) => status / 100 == u16::from(c),
            Condition::Connect | Condition::Timeout => false,
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Connect => f.write_str("connect"),
            Condition::Timeout => f.write_str("timeout"),
            Condition::Status(s) => write!(f, "{s}"),
            Condition::StatusClass(c) => write!(f, "{c}xx"),
        }
    }
}

impl std::str::FromStr for Condition {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let help = || {
            format!(
                "unknown condition `{text}`: expected connect, timeout, a status such as 503, or a class such as 5xx"
            )
        };
        match text {
            "connect" => Ok(Condition::Connect),
            "timeout" => Ok(Condition::Timeout),
            _ => {
                if let Some(class) = text.strip_suffix("xx") {
                    match class.parse::<u8>() {
                        Ok(c @ 1..=5) if class.len() == 1 => Ok(Condition::StatusClass(c)),
                        _ => Err(help()),
                    }
                } else {
                    match text.parse::<u16>() {
                        Ok(s @ 100..=599) => Ok(Condition::Status(s)),
                        _ => Err(help()),
                    }
                }
            }
        }
    }
}

impl Serialize for Condition {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Condition::Status(code) => s.serialize_u16(*code),
            other => s.serialize_str(&other.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Condition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Condition;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("connect, timeout, a status such as 503, or a class such as 5xx")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Condition, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Condition, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Condition, E> {
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(Text)
    }
}

#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct WindowRepr {
    #[serde(default, skip_serializing_if = "Option::is_none", with = "duration")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::units::DurationText>")
    )]
    time: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    calls: Option<u32>,
}

impl TryFrom<WindowRepr> for Window {
    type Error = String;
    fn try_from(r: WindowRepr) -> Result<Self, String> {
        one_of(
            &[
                ("time", r.time.map(Window::Time)),
                ("calls", r.calls.map(Window::Calls)),
            ],
            "window",
        )
    }
}

impl From<Window> for WindowRepr {
    fn from(window: Window) -> Self {
        match window {
            Window::Time(t) => WindowRepr {
                time: Some(t),
                calls: None,
            },
            Window::Calls(c) => WindowRepr {
                time: None,
                calls: Some(c),
            },
        }
    }
}

//! What the policies decided, as a call's steps tell the probe: each decision's name, its
//! counter and metric, its attributes, and its span event.

use std::time::Duration;

use crate::error::Error;
use crate::observe::stats::Counters;

/// What the policies decided, as a call's steps tell the probe.
pub(crate) enum Decision<'e> {
    /// A failed attempt is retried after `wait`.
    Retrying {
        attempt: u32,
        wait: Duration,
        error: &'e Error,
    },
    /// A hedge went to another endpoint.
    HedgeSent { endpoint: &'e str },
    /// A hedge answered first, after `hedges` were sent.
    HedgeWon { hedges: u32 },
    /// A kept answer answered without asking the server.
    CacheHit,
    /// The server confirmed a kept answer unchanged (304).
    Revalidated,
    /// A failed call a kept answer past its freshness answered (`cache.stale_if_error`).
    ServedStale { error: &'e Error },
    /// A failure goes to the method's fallback.
    FallbackTaken { cause: &'e Error },
    /// The fallback answered.
    FellBack,
    /// The breaker refused the call; trials in `next_trial`.
    ShortCircuited { next_trial: Duration },
    /// The call waited `waited` to be admitted (`what`: the rate limit, the bulkhead).
    Waited {
        what: &'static str,
        waited: Duration,
    },
    /// An attempt waits `wait` for its turn in the server's quota `quota`.
    QuotaWait { quota: &'e str, wait: Duration },
    /// A shared limit or budget was decided without Redis.
    WithoutRedis,
    /// The time left went to the server in `header`.
    DeadlinePropagated { header: &'e str, left_ms: u64 },
    /// Decoding the answer noticed `count` places that do not fit, the first at `path`.
    Drift { count: usize, path: &'e str },
    /// A broken stream reopens after `wait`, having delivered `delivered` items.
    Resuming {
        wait: Duration,
        delivered: u64,
        error: &'e Error,
    },
}

impl Decision<'_> {
    /// Its name, as a span event and a log line's message.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Decision::Retrying { .. } => "retrying",
            Decision::HedgeSent { .. } => "hedge sent",
            Decision::HedgeWon { .. } => "hedge won",
            Decision::CacheHit => "cache hit",
            Decision::Revalidated => "cache revalidated",
            Decision::ServedStale { .. } => "stale answer served",
            Decision::FallbackTaken { .. } => "fallback taken",
            Decision::FellBack => "fallback answered",
            Decision::ShortCircuited { .. } => "breaker short-circuit",
            Decision::Waited { what, .. } => what,
            Decision::QuotaWait { .. } => "quota wait",
            Decision::WithoutRedis => "decided without redis",
            Decision::DeadlinePropagated { .. } => "deadline propagated",
            Decision::Drift { .. } => "answer drift",
            Decision::Resuming { .. } => "resuming the stream",
        }
    }

    /// Whether it is an event of a span and a line (the others are counted only).
    pub(super) fn is_told(&self) -> bool {
        !matches!(self, Decision::FellBack | Decision::WithoutRedis)
    }

    /// Its statistic, where it has one.
    pub(super) fn count(&self, counters: &Counters) {
        match self {
            Decision::Retrying { .. } => counters.record_retry(),
            Decision::HedgeSent { .. } => counters.record_hedge(),
            Decision::HedgeWon { .. } => counters.record_hedge_win(),
            Decision::CacheHit => counters.record_cache_hit(),
            Decision::Revalidated => counters.record_revalidated(),
            Decision::ServedStale { .. } => counters.record_served_stale(),
            Decision::FellBack => counters.record_fallback(),
            Decision::WithoutRedis => counters.record_without_redis(),
            _ => {}
        }
    }

    /// Its counter in the `metrics` facade, where it has one.
    #[cfg(feature = "metrics")]
    pub(super) fn metric(&self) -> Option<&'static str> {
        Some(match self {
            Decision::Retrying { .. } => "remcall_retries_total",
            Decision::HedgeSent { .. } => "remcall_hedges_total",
            Decision::CacheHit => "remcall_cache_hits_total",
            Decision::ServedStale { .. } => "remcall_served_stale_total",
            Decision::FellBack => "remcall_fallbacks_total",
            Decision::WithoutRedis => "remcall_without_redis_total",
            _ => return None,
        })
    }

    /// What it says, as attributes of its span event and words of its log line.
    pub(super) fn attributes(&self) -> Vec<(&'static str, Shown<'_>)> {
        let mut shown = Vec::new();
        let error_of = |error: &Error, shown: &mut Vec<(&'static str, Shown<'_>)>| {
            if let Some(status) = error.status() {
                shown.push(("status", Shown::Number(i64::from(status.as_u16()))));
            }
            shown.push(("kind", Shown::Text(error.kind().name().into())));
            shown.push(("error", Shown::Text(error.told().to_string().into())));
        };
        let number = |n: u64| Shown::Number(i64::try_from(n).unwrap_or(i64::MAX));
        match self {
            Decision::Retrying {
                attempt,
                wait,
                error,
            } => {
                shown.push(("attempt", Shown::Number(i64::from(*attempt))));
                shown.push(("delay_ms", Shown::Number(millis(*wait))));
                error_of(error, &mut shown);
            }
            Decision::Resuming {
                wait,
                delivered,
                error,
            } => {
                shown.push(("delay_ms", Shown::Number(millis(*wait))));
                shown.push(("delivered", number(*delivered)));
                error_of(error, &mut shown);
            }
            Decision::ServedStale { error } | Decision::FallbackTaken { cause: error } => {
                error_of(error, &mut shown);
            }
            Decision::HedgeSent { endpoint } => {
                shown.push(("endpoint", Shown::Text((*endpoint).into())));
            }
            Decision::HedgeWon { hedges } => {
                shown.push(("hedges", Shown::Number(i64::from(*hedges))));
            }
            Decision::ShortCircuited { next_trial } => {
                shown.push(("next_trial_ms", Shown::Number(millis(*next_trial))));
            }
            Decision::Waited { waited, .. } => {
                shown.push(("waited_ms", Shown::Number(millis(*waited))));
            }
            Decision::QuotaWait { quota, wait } => {
                shown.push(("quota", Shown::Text((*quota).into())));
                shown.push(("wait_ms", Shown::Number(millis(*wait))));
            }
            Decision::DeadlinePropagated { header, left_ms } => {
                shown.push(("header", Shown::Text((*header).into())));
                shown.push(("left_ms", number(*left_ms)));
            }
            Decision::Drift { count, path } => {
                shown.push(("count", number(*count as u64)));
                shown.push(("path", Shown::Text((*path).into())));
            }
            Decision::CacheHit
            | Decision::Revalidated
            | Decision::FellBack
            | Decision::WithoutRedis => {}
        }
        shown
    }

    /// It, as an event of the current span: straight to OpenTelemetry, so it is no log line.
    #[cfg(feature = "otel")]
    pub(super) fn span_event(&self) {
        use opentelemetry::KeyValue;
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        let span = tracing::Span::current();
        if span.is_disabled() {
            return;
        }
        let attributes = self
            .attributes()
            .into_iter()
            .map(|(key, value)| match value {
                Shown::Number(n) => KeyValue::new(key, n),
                Shown::Text(text) => KeyValue::new(key, text.into_owned()),
            })
            .collect();
        span.add_event(self.name(), attributes);
    }
}

/// An attribute's value.
pub(super) enum Shown<'a> {
    Number(i64),
    Text(std::borrow::Cow<'a, str>),
}

/// A duration in whole milliseconds, as events record numbers (`i64`).
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

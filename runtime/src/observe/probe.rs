//! One probe per call and one per attempt: the call's steps tell it what happened (started,
//! retrying, hedged, answered, failed, from the cache, stale, fallback) and it fans that out to
//! the outlets compiled in (`outlets/`): the spans and their events, the OpenTelemetry meter,
//! the `metrics` facade, the statistics, the log lines. With none compiled in, what is left is
//! the statistics and a span nobody listens to. This file is the only one the `otel` and
//! `metrics` features change on the call path: `call/` names no feature of telemetry.
//!
//! A decision is a span event and, gated to one line per method per interval, a log line of
//! `remcall::log`: a service that wants the spans without the lines filters that target.
//! Neither shows a byte of a server's body (`Error::told`).

use std::fmt::Write;
use std::time::Duration;

use reqwest::header::HeaderMap;
use tokio::time::Instant;
use tracing::Span;

pub(crate) use super::outlets::Address;
use super::outlets::Route;
use super::outlets::log::{LineGate, TARGET};
use super::outlets::spans;
use super::stats::Counters;
use crate::error::Error;
use crate::spec::MethodSpec;

/// What a client's probes share: the OpenTelemetry instruments, from the meter provider
/// installed when the client was built.
#[derive(Debug, Default)]
pub(crate) struct ClientProbe {
    #[cfg(feature = "otel")]
    meters: Option<super::outlets::otel_meters::HttpMeters>,
}

impl ClientProbe {
    pub(crate) fn new() -> ClientProbe {
        ClientProbe {
            #[cfg(feature = "otel")]
            meters: super::outlets::otel_meters::HttpMeters::new(),
        }
    }
}

/// One method's probe, made with its state: what its calls' telemetry names it by.
#[derive(Debug)]
pub(crate) struct MethodProbe {
    pub(crate) client: &'static str,
    pub(crate) method: &'static MethodSpec,
    /// The route as `url.template` names it: the base URL's path, then the method's.
    template: Box<str>,
    lines: LineGate,
    #[cfg(feature = "otel")]
    otel: Option<(
        super::outlets::otel_meters::HttpMeters,
        opentelemetry::StringValue,
    )>,
}

impl MethodProbe {
    /// `prefix`: the path of the client's base URL, base path included (`/api`).
    pub(crate) fn new(
        client_probe: &ClientProbe,
        client: &'static str,
        method: &'static MethodSpec,
        prefix: &str,
        now: Instant,
    ) -> MethodProbe {
        let template: Box<str> = format!("{}{}", prefix.trim_end_matches('/'), method.path).into();
        #[cfg(not(feature = "otel"))]
        let _ = client_probe;
        MethodProbe {
            client,
            method,
            #[cfg(feature = "otel")]
            otel: client_probe
                .meters
                .clone()
                .map(|meters| (meters, std::sync::Arc::<str>::from(&*template).into())),
            template,
            lines: LineGate::new(now),
        }
    }

    /// The route as `url.template` names it: the base URL's path, then the method's.
    pub(crate) fn template(&self) -> &str {
        &self.template
    }

    /// The method as every outlet names its calls.
    fn route(&self) -> Route<'_> {
        Route {
            client: self.client,
            method: self.method,
            template: &self.template,
        }
    }

    /// A logical call starting now.
    #[inline]
    pub(crate) fn call(&self) -> CallProbe<'_> {
        self.started(spans::call(self.route()))
    }

    /// A stream opening now: a call whose span lasts the stream's life.
    pub(crate) fn stream(&self) -> CallProbe<'_> {
        self.started(spans::stream(self.route()))
    }

    #[inline]
    fn started(&self, span: Span) -> CallProbe<'_> {
        CallProbe {
            probe: self,
            span,
            #[cfg(feature = "metrics")]
            started: std::time::Instant::now(),
        }
    }

    /// A stream's opening ended after `took`, with `error` if it failed to open: the call's
    /// metric (the stream's span lasts its life).
    pub(crate) fn stream_opened(&self, error: Option<&Error>, took: Duration) {
        #[cfg(feature = "metrics")]
        super::outlets::metrics_facade::record_call(
            self.client,
            self.method.name,
            error.map_or("success", |e| e.kind().name()),
            took,
        );
        #[cfg(not(feature = "metrics"))]
        let _ = (error, took);
    }

    /// The `attempt`-th attempt (from 1) of a call, to `address`, starting now.
    #[inline]
    pub(crate) fn attempt(
        &self,
        attempt: u32,
        address: Address<'_>,
        hedge: bool,
    ) -> AttemptProbe<'_> {
        let span = spans::attempt(self.route(), attempt, address);
        if hedge {
            span.record("hedge", true);
        }
        AttemptProbe {
            span,
            #[cfg(feature = "otel")]
            meters: self
                .otel
                .as_ref()
                .map(|(meters, template)| meters.start(self.method.http_method, template, address)),
            #[cfg(feature = "metrics")]
            facade: super::outlets::metrics_facade::Attempt::start(
                self.method.http_method,
                &self.template,
                address,
            ),
            #[cfg(not(feature = "otel"))]
            _probe: std::marker::PhantomData,
        }
    }

    /// A decision of the policies, in every outlet: the statistics (`counters`, the method's),
    /// the facade's counter, an event of the current span, and a gated log line.
    pub(crate) fn decided(&self, counters: &Counters, decision: Decision<'_>) {
        decision.count(counters);
        #[cfg(feature = "metrics")]
        if let Some(name) = decision.metric() {
            super::outlets::metrics_facade::record_decision(name, self.client, self.method.name);
        }
        if decision.is_told() {
            #[cfg(feature = "otel")]
            decision.span_event();
            self.line(&decision);
        }
    }

    /// The decision's log line, when `remcall::log` wants its level and the gate is open:
    /// its attributes as `key=value` words, the server's text among them escaped.
    fn line(&self, decision: &Decision<'_>) {
        if !tracing::enabled!(target: TARGET, tracing::Level::DEBUG) {
            return;
        }
        let Some(held) = self.lines.pass(Instant::now()) else {
            return;
        };
        let mut detail = String::new();
        for (key, value) in decision.attributes() {
            let _ = match value {
                Shown::Number(n) => write!(detail, " {key}={n}"),
                Shown::Text(text) => {
                    let _ = write!(detail, " {key}=\"");
                    let _ = crate::error::write_escaped(&mut detail, &text);
                    write!(detail, "\"")
                }
            };
        }
        let (client, method, name) = (self.client, self.method.name, decision.name());
        tracing::debug!(target: TARGET, client, method, held, "{name}:{detail}");
    }
}

/// A logical call's probe, from its start to its end.
pub(crate) struct CallProbe<'a> {
    probe: &'a MethodProbe,
    span: Span,
    #[cfg(feature = "metrics")]
    started: std::time::Instant,
}

impl CallProbe<'_> {
    /// The call's span, when a subscriber wants it: the call's future runs inside it.
    #[inline]
    pub(crate) fn span(&self) -> Option<&Span> {
        (!self.span.is_disabled()).then_some(&self.span)
    }

    /// The call ended with `result`: its span's outcome and status, the call's metric; a
    /// failure its fallback will answer (`fallback_follows`) is an event of the span, and stays
    /// a failure (the fallback answers the caller, not the downstream).
    pub(crate) fn ended(&self, error: Option<&Error>, fallback_follows: bool) {
        let outcome = error.map_or("success", |e| e.kind().name());
        if !self.span.is_disabled() {
            self.span.record("outcome", outcome);
            spans::ended(&self.span, None, error);
            if let Some(cause) = error.filter(|e| fallback_follows && e.allows_fallback()) {
                let taken = Decision::FallbackTaken { cause };
                self.span.in_scope(|| {
                    #[cfg(feature = "otel")]
                    taken.span_event();
                    self.probe.line(&taken);
                });
            }
        }
        #[cfg(feature = "metrics")]
        super::outlets::metrics_facade::record_call(
            self.probe.client,
            self.probe.method.name,
            outcome,
            self.started.elapsed(),
        );
    }
}

/// A breaker changed state (`scope`: its method, or `client` for a client-wide one): an event
/// of the current span, a line at INFO (one a change, so never a flood), and the facade's gauge
/// (`gauge`: 0 closed, 1 half-open, 2 open).
pub(crate) fn breaker_changed(
    client: &'static str,
    scope: &'static str,
    (from, to): (&'static str, &'static str),
    gauge: f64,
) {
    #[cfg(feature = "otel")]
    {
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        let span = Span::current();
        if !span.is_disabled() {
            span.add_event(
                "circuit breaker state change",
                vec![
                    opentelemetry::KeyValue::new("from", from),
                    opentelemetry::KeyValue::new("to", to),
                ],
            );
        }
    }
    tracing::info!(
        target: TARGET,
        client,
        method = scope,
        from,
        to,
        "circuit breaker state change"
    );
    #[cfg(feature = "metrics")]
    super::outlets::metrics_facade::record_breaker_state(client, scope, gauge);
    #[cfg(not(feature = "metrics"))]
    let _ = gauge;
}

/// One attempt's probe: its CLIENT span and its instruments, until it is dropped.
pub(crate) struct AttemptProbe<'a> {
    span: Span,
    #[cfg(feature = "otel")]
    meters: Option<super::outlets::otel_meters::Measured<'a>>,
    #[cfg(feature = "metrics")]
    facade: super::outlets::metrics_facade::Attempt,
    #[cfg(not(feature = "otel"))]
    _probe: std::marker::PhantomData<&'a MethodProbe>,
}

impl AttemptProbe<'_> {
    /// The attempt's span, when a subscriber wants it.
    #[inline]
    pub(crate) fn span(&self) -> Option<&Span> {
        (!self.span.is_disabled()).then_some(&self.span)
    }

    /// The attempt ended: an answer's `status`, or the `error` it failed with.
    pub(crate) fn ended(&mut self, status: Option<u16>, error: Option<&Error>) {
        if !self.span.is_disabled() {
            spans::ended(&self.span, status, error);
        }
        #[cfg(feature = "otel")]
        if let Some(meters) = &mut self.meters {
            meters.ended(status, error);
        }
        #[cfg(feature = "metrics")]
        self.facade.ended(status, error);
    }
}

/// The attempts' figures, in their call's span, once, when the attempts are over: a formatter
/// shows every recording of a field. With the call's span disabled the current span is the
/// caller's, whose fields are not ours to write.
pub(crate) fn tally(attempts: u32, status: Option<u16>, hedges: u32) {
    let span = Span::current();
    if span
        .metadata()
        .is_some_and(|m| m.name() == spans::CALL_SPAN)
    {
        spans::tally(&span, attempts, status, hedges);
    }
}

/// An attempt's request as it goes out: the caller's trace on its headers (`trace_context`),
/// and its URL as the attempt's span shows it, credentials redacted (`hidden_query`: the
/// profile's query parameters). Nothing without the `otel` feature.
pub(crate) fn on_the_wire(
    headers: &mut HeaderMap,
    url: &reqwest::Url,
    hidden_query: &crate::wire::query::ProfileQuery,
    trace_context: remcall_profile::TraceContext,
) {
    #[cfg(feature = "otel")]
    {
        use remcall_profile::TraceContext;
        if trace_context != TraceContext::Off {
            let trusted = trace_context == TraceContext::Trusted;
            super::outlets::trace_context::inject(headers, trusted);
        }
        let span = Span::current();
        if !span.is_disabled() {
            span.record(
                opentelemetry_semantic_conventions::attribute::URL_FULL,
                super::outlets::trace_context::url_full(url, hidden_query),
            );
        }
    }
    #[cfg(not(feature = "otel"))]
    let _ = (headers, url, hidden_query, trace_context);
}

/// A stream ended, having delivered `delivered` items, broken off by `error` if it was: its
/// span (the current one) says so.
pub(crate) fn stream_ended(delivered: u64, error: Option<&Error>) {
    spans::stream_ended(&Span::current(), delivered, error);
}

/// The HTTP version an attempt's answer came in.
pub(crate) fn answered_in(version: reqwest::Version) {
    spans::protocol(version);
}

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
    fn name(&self) -> &'static str {
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
    fn is_told(&self) -> bool {
        !matches!(self, Decision::FellBack | Decision::WithoutRedis)
    }

    /// Its statistic, where it has one.
    fn count(&self, counters: &Counters) {
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
    fn metric(&self) -> Option<&'static str> {
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
    fn attributes(&self) -> Vec<(&'static str, Shown<'_>)> {
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
    fn span_event(&self) {
        use opentelemetry::KeyValue;
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        let span = Span::current();
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
enum Shown<'a> {
    Number(i64),
    Text(std::borrow::Cow<'a, str>),
}

/// A duration in whole milliseconds, as events record numbers (`i64`).
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

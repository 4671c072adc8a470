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

mod decision;
pub(crate) use decision::Decision;
use decision::Shown;

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

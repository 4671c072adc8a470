//! The spans of a call, through `tracing` (target `remcall::span`): one for the logical call
//! (or a stream's life), one a child of it for each attempt (hedges and a stream's reopenings
//! included). With the `otel` feature they follow OpenTelemetry's HTTP semantic conventions for
//! the `tracing-opentelemetry` layer a service installs: each attempt is the request on the
//! wire, a CLIENT span named `{METHOD} {url.template}` with the conventions' attributes (names
//! from `opentelemetry-semantic-conventions`) and its resends counted in
//! `http.request.resend_count`; the call over them is no request of its own, so an INTERNAL
//! span, as the conventions' retry examples have it. Status `Error` marks what failed. Without
//! the feature they are remcall's own, as they always were.

use tracing::Span;
use tracing::field::Empty;

use super::{Address, Route};
use crate::error::Error;

/// The name of a logical call's span; the attempts record their figures into it, and only it.
pub(crate) const CALL_SPAN: &str = "remcall.call";

/// The name of an attempt's span.
pub(crate) const ATTEMPT_SPAN: &str = "remcall.attempt";

/// A logical call's span.
#[cfg(not(feature = "otel"))]
pub(crate) fn call(route: Route<'_>) -> Span {
    // The URL template, never the filled URL (it may carry ids).
    tracing::info_span!(
        target: "remcall::span",
        CALL_SPAN,
        client = route.client,
        method = route.method.name,
        http.method = route.method.http_method,
        url.template = route.template,
        attempts = Empty,
        hedges = Empty,
        status = Empty,
        outcome = Empty,
    )
}

/// A logical call's span: INTERNAL, over its attempts' CLIENT spans.
#[cfg(feature = "otel")]
pub(crate) fn call(route: Route<'_>) -> Span {
    use opentelemetry_semantic_conventions::attribute as sc;
    let span = tracing::info_span!(
        target: "remcall::span",
        CALL_SPAN,
        otel.name = Empty,
        otel.kind = "internal",
        otel.status_code = Empty,
        { sc::HTTP_REQUEST_METHOD } = route.method.http_method,
        { sc::URL_TEMPLATE } = route.template,
        { sc::HTTP_RESPONSE_STATUS_CODE } = Empty,
        { sc::ERROR_TYPE } = Empty,
        remcall.client = route.client,
        remcall.method = route.method.name,
        remcall.stream.events = Empty,
        attempts = Empty,
        hedges = Empty,
        outcome = Empty,
    );
    named(&span, route);
    span
}

/// A stream's span, for its whole life: its opening's attempts and every resumption's are its
/// children. Remcall's own without the `otel` feature.
#[cfg(not(feature = "otel"))]
pub(crate) fn stream(route: Route<'_>) -> Span {
    tracing::info_span!(
        target: "remcall::span",
        "remcall.stream",
        client = route.client,
        method = route.method.name,
        http.method = route.method.http_method,
        url.template = route.template,
    )
}

/// A stream's span: INTERNAL as a call's is, over the CLIENT spans of its opening and
/// reopenings, with the items it delivered in `remcall.stream.events` when it ends.
#[cfg(feature = "otel")]
pub(crate) fn stream(route: Route<'_>) -> Span {
    call(route)
}

/// How a stream ended, in its span: the items it delivered, and its error if it broke off.
pub(crate) fn stream_ended(span: &Span, delivered: u64, error: Option<&Error>) {
    #[cfg(feature = "otel")]
    {
        span.record(
            "remcall.stream.events",
            i64::try_from(delivered).unwrap_or(i64::MAX),
        );
        if error.is_some() {
            ended(span, None, error);
        }
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = (span, delivered, error);
    }
}

/// An attempt's span (a debug span of remcall's own without the `otel` feature).
#[cfg(not(feature = "otel"))]
pub(crate) fn attempt(_route: Route<'_>, attempt: u32, address: Address<'_>) -> Span {
    tracing::debug_span!(
        target: "remcall::span",
        ATTEMPT_SPAN,
        attempt,
        endpoint = %address,
        hedge = Empty,
    )
}

/// An attempt's span: the request on the wire, a CLIENT span, its `http.request.resend_count`
/// the attempts before it.
#[cfg(feature = "otel")]
pub(crate) fn attempt(route: Route<'_>, attempt: u32, address: Address<'_>) -> Span {
    use opentelemetry_semantic_conventions::attribute as sc;
    let span = tracing::info_span!(
        target: "remcall::span",
        ATTEMPT_SPAN,
        otel.name = Empty,
        otel.kind = "client",
        otel.status_code = Empty,
        { sc::HTTP_REQUEST_METHOD } = route.method.http_method,
        { sc::URL_TEMPLATE } = route.template,
        { sc::URL_FULL } = Empty,
        { sc::SERVER_ADDRESS } = &**address.host,
        { sc::SERVER_PORT } = i64::from(address.port),
        { sc::HTTP_REQUEST_RESEND_COUNT } = i64::from(attempt.saturating_sub(1)),
        { sc::HTTP_RESPONSE_STATUS_CODE } = Empty,
        { sc::NETWORK_PROTOCOL_VERSION } = Empty,
        { sc::ERROR_TYPE } = Empty,
        remcall.client = route.client,
        remcall.method = route.method.name,
        hedge = Empty,
    );
    named(&span, route);
    span
}

/// `{METHOD} {url.template}`, the name the conventions give an HTTP span, when it is recorded.
#[cfg(feature = "otel")]
fn named(span: &Span, route: Route<'_>) {
    if !span.is_disabled() {
        span.record(
            "otel.name",
            format!("{} {}", route.method.http_method, route.template),
        );
    }
}

// Numbers are recorded as `i64`: the OpenTelemetry bridge writes other integers as text.

/// How a call or an attempt ended, in its span: the status code of an answer, and for a
/// failure `error.type` (the status, or the error's kind) and, with `otel`, status `Error`.
pub(crate) fn ended(span: &Span, status: Option<u16>, error: Option<&Error>) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry_semantic_conventions::attribute as sc;
        if let Some(status) = status {
            span.record(sc::HTTP_RESPONSE_STATUS_CODE, i64::from(status));
        }
        if let Some(error) = error {
            span.record("otel.status_code", "ERROR");
            span.record(sc::ERROR_TYPE, super::error_type(error).as_ref());
        }
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = (span, status, error);
    }
}

/// The attempts' figures, in their call's span: how many, the last status, the hedges.
pub(crate) fn tally(span: &Span, attempts: u32, status: Option<u16>, hedges: u32) {
    if attempts > 0 {
        span.record("attempts", attempts);
    }
    if let Some(status) = status {
        #[cfg(not(feature = "otel"))]
        span.record("status", status);
        #[cfg(feature = "otel")]
        span.record(
            opentelemetry_semantic_conventions::attribute::HTTP_RESPONSE_STATUS_CODE,
            i64::from(status),
        );
    }
    if hedges > 0 {
        span.record("hedges", hedges);
    }
}

/// The HTTP version an attempt's answer came in, in the attempt's span (the current one).
pub(crate) fn protocol(version: reqwest::Version) {
    #[cfg(feature = "otel")]
    {
        let version = match version {
            reqwest::Version::HTTP_09 => "0.9",
            reqwest::Version::HTTP_10 => "1.0",
            reqwest::Version::HTTP_11 => "1.1",
            reqwest::Version::HTTP_2 => "2",
            reqwest::Version::HTTP_3 => "3",
            _ => return,
        };
        Span::current().record(
            opentelemetry_semantic_conventions::attribute::NETWORK_PROTOCOL_VERSION,
            version,
        );
    }
    #[cfg(not(feature = "otel"))]
    let _ = version;
}

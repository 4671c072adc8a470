//! The spans of a call, through `tracing`: one for the logical call, one a child of it for each
//! attempt (hedges included). With the `otel` feature they are client spans by OpenTelemetry's
//! HTTP semantic conventions, for the `tracing-opentelemetry` layer a service installs: kind
//! client, named `{METHOD} {url.template}`, the conventions' attributes (names from
//! `opentelemetry-semantic-conventions`), status `Error` for a call or attempt that failed.
//! Without it they are remcall's own, as they always were.

use tracing::Span;
use tracing::field::Empty;

use crate::error::Error;
use crate::spec::MethodSpec;

/// The name of a logical call's span; the attempts record their figures into it, and only it.
pub(crate) const CALL_SPAN: &str = "remcall.call";

/// The name of an attempt's span.
pub(crate) const ATTEMPT_SPAN: &str = "remcall.attempt";

/// A logical call's span.
#[cfg(not(feature = "otel"))]
pub(crate) fn call(client: &'static str, method: &'static MethodSpec) -> Span {
    // The URL template, never the filled URL (it may carry ids).
    tracing::info_span!(
        CALL_SPAN,
        client,
        method = method.name,
        http.method = method.http_method,
        url.template = method.path,
        attempts = Empty,
        hedges = Empty,
        status = Empty,
        outcome = Empty,
    )
}

/// A logical call's span: a client span by the conventions.
#[cfg(feature = "otel")]
pub(crate) fn call(client: &'static str, method: &'static MethodSpec) -> Span {
    use opentelemetry_semantic_conventions::attribute as sc;
    let span = tracing::info_span!(
        CALL_SPAN,
        otel.name = Empty,
        otel.kind = "client",
        otel.status_code = Empty,
        { sc::HTTP_REQUEST_METHOD } = method.http_method,
        { sc::URL_TEMPLATE } = method.path,
        { sc::HTTP_RESPONSE_STATUS_CODE } = Empty,
        { sc::ERROR_TYPE } = Empty,
        remcall.client = client,
        remcall.method = method.name,
        remcall.stream.events = Empty,
        attempts = Empty,
        hedges = Empty,
        outcome = Empty,
    );
    if !span.is_disabled() {
        span.record(
            "otel.name",
            format!("{} {}", method.http_method, method.path),
        );
    }
    span
}

/// A stream's span, for its whole life: its opening's attempts and every resumption's are its
/// children. Remcall's own without the `otel` feature.
#[cfg(not(feature = "otel"))]
pub(crate) fn stream(client: &'static str, method: &'static MethodSpec) -> Span {
    tracing::info_span!(
        "remcall.stream",
        client,
        method = method.name,
        http.method = method.http_method,
        url.template = method.path,
    )
}

/// A stream's span: one long HTTP request, so a client span as a call's is, with the items it
/// delivered in `remcall.stream.events` when it ends.
#[cfg(feature = "otel")]
pub(crate) fn stream(client: &'static str, method: &'static MethodSpec) -> Span {
    call(client, method)
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
pub(crate) fn attempt(attempt: u32, endpoint: &crate::outbound::endpoints::Endpoint) -> Span {
    tracing::debug_span!(
        ATTEMPT_SPAN,
        attempt,
        endpoint = %endpoint.base,
        hedge = Empty,
    )
}

/// An attempt's span: a client span of its own, as the conventions ask for each resend, its
/// `http.request.resend_count` the attempts before it.
#[cfg(feature = "otel")]
pub(crate) fn attempt(
    call: crate::outbound::interceptor::CallInfo,
    method: &'static MethodSpec,
    endpoint: &crate::outbound::endpoints::Endpoint,
) -> Span {
    use opentelemetry_semantic_conventions::attribute as sc;
    let (host, port) = endpoint.address();
    let span = tracing::info_span!(
        ATTEMPT_SPAN,
        otel.name = Empty,
        otel.kind = "client",
        otel.status_code = Empty,
        { sc::HTTP_REQUEST_METHOD } = method.http_method,
        { sc::URL_TEMPLATE } = method.path,
        { sc::URL_FULL } = Empty,
        { sc::SERVER_ADDRESS } = host,
        { sc::SERVER_PORT } = i64::from(port),
        { sc::HTTP_REQUEST_RESEND_COUNT } = i64::from(call.attempt.saturating_sub(1)),
        { sc::HTTP_RESPONSE_STATUS_CODE } = Empty,
        { sc::NETWORK_PROTOCOL_VERSION } = Empty,
        { sc::ERROR_TYPE } = Empty,
        remcall.client = call.client,
        remcall.method = call.method,
        hedge = Empty,
    );
    if !span.is_disabled() {
        span.record(
            "otel.name",
            format!("{} {}", method.http_method, method.path),
        );
    }
    span
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
            span.record(sc::ERROR_TYPE, super::error_type(error));
        }
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = (span, status, error);
    }
}

/// The HTTP version an attempt's answer came in, in the attempt's span (the current one).
#[cfg(feature = "otel")]
pub(crate) fn protocol(version: reqwest::Version) {
    let version = match version {
        reqwest::Version::HTTP_09 => "0.9",
        reqwest::Version::HTTP_10 => "1.0",
        reqwest::Version::HTTP_11 => "1.1",
        reqwest::Version::HTTP_2 => "2",
        reqwest::Version::HTTP_3 => "3",
        _ => return,
    };
    tracing::Span::current().record(
        opentelemetry_semantic_conventions::attribute::NETWORK_PROTOCOL_VERSION,
        version,
    );
}

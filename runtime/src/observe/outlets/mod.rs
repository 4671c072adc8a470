//! Where a probe (`super::probe`) sends what happened, each compiled in with its feature:
//! spans (`spans.rs`, through `tracing`; by OpenTelemetry's conventions with `otel`), the trace
//! context on the wire and `url.full` (`trace_context.rs`, `otel`), the OpenTelemetry meter
//! (`otel_meters.rs`, `otel`), the `metrics` facade (`metrics_facade.rs`, `metrics`),
//! remcall's own log lines (`log.rs`), and each attempt's HTTP log as the profile's `log:` asks
//! (`http_log.rs`). The statistics are `super::stats`.

pub(crate) mod http_log;
pub(crate) mod log;
#[cfg(feature = "metrics")]
pub(crate) mod metrics_facade;
#[cfg(feature = "otel")]
pub(crate) mod otel_meters;
pub(crate) mod spans;
#[cfg(feature = "otel")]
pub(crate) mod trace_context;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::error::Error;
use crate::spec::MethodSpec;

/// Where an attempt goes, as telemetry names the server: plain data, not the endpoint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Address<'a> {
    pub(crate) host: &'a Arc<str>,
    pub(crate) port: u16,
}

impl fmt::Display for Address<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// A method as every outlet names its calls: its client, itself, and its route as
/// `url.template` writes it (the base URL's path, then the method's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Route<'a> {
    pub(crate) client: &'static str,
    pub(crate) method: &'static MethodSpec,
    pub(crate) template: &'a str,
}

/// A failure as the conventions' `error.type` names it: the answer's status code, or the
/// error's kind (`timeout`, `connect`, …) when there was no answer.
#[cfg_attr(not(any(feature = "otel", feature = "metrics")), allow(dead_code))]
pub(crate) fn error_type(error: &Error) -> Cow<'static, str> {
    match error.status() {
        Some(status) => match known_status(status.as_u16()) {
            Some(code) => Cow::Owned(code.to_string()),
            None => Cow::Borrowed(OTHER),
        },
        None => Cow::Borrowed(error.kind().name()),
    }
}

/// What a value the server chose stands as when it is none HTTP defines, as the conventions
/// fold an unknown method: a metric keeps a bounded number of series whatever a server sends.
pub(crate) const OTHER: &str = "_OTHER";

/// `code` when HTTP defines it (it has a reason phrase of its own), for an attribute or label;
/// `None` for the others, which go as [`OTHER`].
pub(crate) fn known_status(code: u16) -> Option<u16> {
    reqwest::StatusCode::from_u16(code)
        .ok()
        .filter(|status| status.canonical_reason().is_some())
        .map(|_| code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_code_http_does_not_define_is_other() {
        assert_eq!(known_status(503), Some(503));
        assert_eq!(known_status(429), Some(429));
        assert_eq!(known_status(599), None);
        assert_eq!(known_status(477), None);
        let odd = Error::status_error(
            reqwest::StatusCode::from_u16(477).unwrap(),
            &Default::default(),
        );
        assert_eq!(error_type(&odd), OTHER);
        let known = Error::status_error(reqwest::StatusCode::BAD_GATEWAY, &Default::default());
        assert_eq!(error_type(&known), "502");
    }
}

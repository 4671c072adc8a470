//! A transport error as the caller reads it: what failed (a refused connection, a reset, a
//! timeout, a bad certificate), never the URL, which may carry credentials in its query.

use super::{Error, ErrorKind};

impl Error {
    /// A transport error as the caller reads it: the downstream failed to answer (`Connect`),
    /// timed out, or the request could not be built (`Encode`). The URL is stripped: it may
    /// carry credentials in its query. Whether it may be retried is `outcome::from_transport`.
    pub(crate) fn from_transport(error: reqwest::Error) -> Error {
        let redirects = "too many redirects, or a redirect loop";
        let (kind, message) = if is_malformed_answer(&error) {
            (
                ErrorKind::Connect,
                "the server's answer is not valid HTTP (a header past the limits, or malformed)",
            )
        } else if error.is_redirect() {
            (ErrorKind::Connect, redirects)
        } else if error.is_timeout() {
            (ErrorKind::Timeout, "timed out")
        } else if error.is_builder() {
            (ErrorKind::Encode, "request failed")
        } else {
            // A refused connection, a reset, a truncated body, a protocol error: to the caller
            // the downstream failed to answer. What happened is said first, and where.
            let cause = connection_cause(&error);
            let message = match (cause, authority(&error)) {
                (Some(cause), Some(at)) => format!("{cause} ({at})"),
                (Some(cause), None) => cause.to_owned(),
                (None, Some(at)) => format!("connection failed ({at})"),
                (None, None) => "connection failed".to_owned(),
            };
            let mut error =
                Error::new(ErrorKind::Connect, message).with_source(error.without_url());
            error.0.source_shown = cause.is_none();
            return error;
        };
        Error::fixed(kind, message).with_source(error.without_url())
    }
}

/// What a failed connection's innermost I/O error says happened, in the caller's words; `None`
/// when nothing in its sources says (a TLS error: its own text is then shown).
fn connection_cause(error: &reqwest::Error) -> Option<&'static str> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind as Io;
            let cause = match io.kind() {
                Io::ConnectionRefused => "connection refused",
                Io::ConnectionReset => "connection reset by the server",
                Io::ConnectionAborted => "connection aborted",
                Io::TimedOut => "connecting timed out",
                Io::UnexpectedEof => "the connection closed before the answer was whole",
                Io::HostUnreachable | Io::NetworkUnreachable => "host unreachable",
                Io::AddrNotAvailable => "address not available",
                _ => return None,
            };
            return Some(cause);
        }
        if let Some(hyper) = current.downcast_ref::<hyper::Error>()
            && hyper.is_incomplete_message()
        {
            return Some("the connection closed before the answer was whole");
        }
        if current.to_string().starts_with("dns error") {
            return Some("the host name does not resolve");
        }
        source = current.source();
    }
    None
}

/// `host:port` of the request a transport error is about: where it failed, without the path
/// and query (which may carry credentials).
fn authority(error: &reqwest::Error) -> Option<String> {
    let url = error.url()?;
    Some(format!(
        "{}:{}",
        url.host_str()?,
        url.port_or_known_default()?
    ))
}

/// True when hyper, under reqwest, could not parse the server's answer.
pub(crate) fn is_malformed_answer(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(hyper) = cause.downcast_ref::<hyper::Error>() {
            // Every parse error, a head past the size limits included.
            return hyper.is_parse();
        }
        source = cause.source();
    }
    false
}

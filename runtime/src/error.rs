//! The one error type of every generated call.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use reqwest::StatusCode;

mod transport;
pub(crate) use transport::is_malformed_answer;

/// What went wrong, in the classes a caller acts on. The pipeline has finer views of its own
/// (whether an attempt may be retried, how a call counts for the breaker and the statistics);
/// this is the one a caller sees. New kinds may be added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No connection could be made (refused, DNS, TLS handshake, connect timeout).
    Connect,
    /// An attempt or the whole call ran past its deadline.
    Timeout,
    /// The server answered with a status that is not a success.
    Status,
    /// The response body could not be decoded into the return type.
    Decode,
    /// The request could not be built (a parameter, header or body that cannot be sent).
    Encode,
    /// The circuit breaker is open; the call was not sent.
    BreakerOpen,
    /// The bulkhead was full; the call was not sent.
    Rejected,
    /// The rate limiter had no token in time; the call was not sent.
    RateLimited,
    /// Credentials could not be obtained or were refused.
    Auth,
    /// The client or its profile is misconfigured.
    Config,
    /// An interceptor refused the request or the response.
    Interceptor,
    /// The response body was larger than `max_response_bytes`.
    BodyTooLarge,
    /// A stream's server reported a failure inside the stream (an error event or line the
    /// method declares, `returns: { error: .. }`): the stream ended there, its answer partial.
    /// [`Error::detail`] holds the decoded error, [`Error::body`] its first bytes.
    ErrorEvent,
}

impl ErrorKind {
    /// The kind in snake_case, as logs, spans and metrics label it (`breaker_open`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Connect => "connect",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Status => "status",
            ErrorKind::Decode => "decode",
            ErrorKind::Encode => "encode",
            ErrorKind::BreakerOpen => "breaker_open",
            ErrorKind::Rejected => "rejected",
            ErrorKind::RateLimited => "rate_limited",
            ErrorKind::Auth => "auth",
            ErrorKind::Config => "config",
            ErrorKind::Interceptor => "interceptor",
            ErrorKind::BodyTooLarge => "body_too_large",
            ErrorKind::ErrorEvent => "error_event",
        }
    }
}

/// How many bytes of an error response body an [`Error`] keeps.
pub const BODY_SNIPPET_BYTES: usize = 512;

/// A failed call: its kind, the client and method it came from, and for `Status` the status and
/// the first bytes of the body. Cheap to clone. Display and Debug never contain a secret: URLs,
/// headers and credentials are left out.
#[derive(Clone)]
pub struct Error(Box<Inner>);

#[derive(Clone)]
struct Inner {
    kind: ErrorKind,
    client: &'static str,
    method: &'static str,
    /// Borrowed for the pipeline's own fixed messages: a refused call (breaker open, bulkhead
    /// full, rate limited) then allocates only the error itself.
    message: Cow<'static, str>,
    status: Option<StatusCode>,
    body: Option<Bytes>,
    retry_in: Option<Duration>,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
    /// The error body decoded as the method's declared error type (`errors:`).
    detail: Option<Detail>,
    /// A timeout of the caller's own deadline, not of the method's limits.
    callers_deadline: bool,
    /// The source is written after the message; not when the message already says what it
    /// holds ("connection refused", where the source reads "error sending request").
    source_shown: bool,
    /// The failure was retryable and the retry policy had attempts left, but the method is not
    /// idempotent: the message says so, since a user who wrote `retry:` expects retries.
    not_idempotent: bool,
    /// For a stream that broke off: the items it had delivered.
    delivered: Option<u64>,
    /// How many bytes of `body` the message (`Display`, `Debug`) shows: the profile's
    /// `errors.body_in_message`.
    body_shown: usize,
}

/// A decoded error body of a method's declared error type, kept in the [`Error`] whatever the
/// type; [`Error::detail`] gives it back typed.
pub type Detail = Arc<dyn std::any::Any + Send + Sync>;

impl Error {
    /// A new error of `kind`; the pipeline adds the client and method.
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error::with_message(kind, Cow::Owned(message.into()))
    }

    /// [`Error::new`] with a fixed message, which is not copied.
    #[cold]
    pub(crate) fn fixed(kind: ErrorKind, message: &'static str) -> Error {
        Error::with_message(kind, Cow::Borrowed(message))
    }

    // Cold, as every constructor: a failure's path is laid out away from the answer's, whose
    // instructions then share fewer cache lines with code that does not run.
    #[cold]
    #[inline(never)]
    fn with_message(kind: ErrorKind, message: Cow<'static, str>) -> Error {
        Error(Box::new(Inner {
            kind,
            client: "",
            method: "",
            message,
            status: None,
            body: None,
            retry_in: None,
            source: None,
            detail: None,
            callers_deadline: false,
            source_shown: true,
            not_idempotent: false,
            delivered: None,
            body_shown: BODY_SNIPPET_BYTES,
        }))
    }

    /// A `Status` error for a response that was not a success.
    #[cold]
    pub(crate) fn status_error(status: StatusCode, body: &Bytes) -> Error {
        let mut error = Error::new(ErrorKind::Status, format!("HTTP {status}"));
        error.0.status = Some(status);
        error.0.body = Some(body.slice(..body.len().min(BODY_SNIPPET_BYTES)));
        error
    }

    /// Shows at most `bytes` of the body in the message (`errors.body_in_message`); `body()`
    /// keeps what it kept.
    pub(crate) fn showing_body(mut self, bytes: u64) -> Error {
        self.0.body_shown = usize::try_from(bytes).unwrap_or(usize::MAX);
        self
    }

    /// The part of the body the message may show.
    fn shown_body(&self) -> Option<&[u8]> {
        let body = self.0.body.as_deref()?;
        Some(&body[..body.len().min(self.0.body_shown)]).filter(|b| !b.is_empty())
    }

    /// Attaches the underlying error (kept for `source()`, never for Display).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Error {
        self.0.source = Some(Arc::new(source));
        self
    }

    /// Attaches the underlying error for `source()` only: the message already says what it
    /// holds.
    pub(crate) fn with_hidden_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        self.0.source = Some(Arc::new(source));
        self.0.source_shown = false;
        self
    }

    /// Names the client and method the error came from.
    pub(crate) fn in_call(mut self, client: &'static str, method: &'static str) -> Error {
        self.0.client = client;
        self.0.method = method;
        self
    }

    /// The same error filed under another kind, with a new message (the status and body stay).
    pub(crate) fn reclassify(mut self, kind: ErrorKind, message: impl Into<String>) -> Error {
        self.0.kind = kind;
        self.0.message = Cow::Owned(message.into());
        self
    }

    /// The same error ending a stream that broke off after `delivered` items, saying why it
    /// was not resumed.
    pub(crate) fn broke_off(mut self, delivered: u64, why: &str) -> Error {
        let message = format!(
            "the stream broke off after {delivered} item{} ({why}): {}",
            if delivered == 1 { "" } else { "s" },
            self.0.message
        );
        self.0.message = Cow::Owned(message);
        self.0.delivered = Some(delivered);
        self
    }

    /// For an error that ended a stream part-way: how many events (or lines) the stream had
    /// delivered before it.
    pub fn delivered(&self) -> Option<u64> {
        self.0.delivered
    }

    /// Marks a timeout as the caller's deadline's (a [`crate::deadline`] scope), not the
    /// method's own limits'.
    pub(crate) fn of_callers_deadline(mut self) -> Error {
        self.0.callers_deadline = true;
        self
    }

    /// True for a `Timeout` that ran out of the caller's own deadline (a [`crate::deadline`]
    /// scope, or a `DeadlineLayer`'s header) before the method's limits: it says nothing about
    /// the downstream, so it is no breaker failure, no slow call, no drop for an adaptive limit
    /// and no failure of the endpoint.
    pub fn is_callers_deadline(&self) -> bool {
        self.0.callers_deadline
    }

    /// Marks a failure the retry policy would have retried, had the method been idempotent.
    pub(crate) fn not_retried_as_not_idempotent(mut self) -> Error {
        self.0.not_idempotent = true;
        self
    }

    /// Records how long until the breaker lets calls through again.
    /// Keeps the first [`BODY_SNIPPET_BYTES`] of what failed to decode (a streamed event's data
    /// or a line), for [`Error::body`] and the message, as a status error keeps its body's.
    pub(crate) fn with_body_snippet(mut self, body: &[u8]) -> Error {
        let body = &body[..body.len().min(BODY_SNIPPET_BYTES)];
        self.0.body = Some(Bytes::copy_from_slice(body));
        self
    }

    pub(crate) fn with_retry_in(mut self, wait: Duration) -> Error {
        self.0.retry_in = Some(wait);
        self
    }

    /// The class of failure.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The client's name (`UserClient`), empty before a client was involved.
    pub fn client(&self) -> &str {
        self.0.client
    }

    /// The method's name (`get_user`), empty outside a call.
    pub fn method(&self) -> &str {
        self.0.method
    }

    /// The HTTP status, for `Status` errors.
    pub fn status(&self) -> Option<StatusCode> {
        self.0.status
    }

    /// The first bytes (at most [`BODY_SNIPPET_BYTES`]) of the error response's body.
    pub fn body(&self) -> Option<&[u8]> {
        self.0.body.as_deref()
    }

    /// The error body decoded as the method's declared error type, for a method with `errors:`
    /// (`err.detail::<GetUserError>()`); `None` for another type, another kind of error, or a
    /// body that did not decode.
    pub fn detail<T: std::any::Any>(&self) -> Option<&T> {
        self.0.detail.as_deref()?.downcast_ref()
    }

    /// Attaches a decoded error body.
    pub(crate) fn with_detail(mut self, detail: Option<Detail>) -> Error {
        self.0.detail = detail;
        self
    }

    /// For `BreakerOpen`: how long until the breaker turns half-open.
    pub fn retry_in(&self) -> Option<Duration> {
        self.0.retry_in
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, true)
    }
}

/// An error as remcall's own telemetry writes it (log lines, span events): its message with
/// nothing of the server's body, whatever `errors.body_in_message` lets the caller's `Display`
/// show. A body echoes what the request sent; the caller who wants it has `body()`.
pub(crate) struct Told<'a>(&'a Error);

impl fmt::Display for Told<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(f, false)
    }
}

impl Error {
    /// This error as telemetry writes it: [`Told`].
    pub(crate) fn told(&self) -> Told<'_> {
        Told(self)
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, with_body: bool) -> fmt::Result {
        let inner = &*self.0;
        match (inner.client, inner.method) {
            ("", "") => {}
            (client, "") => write!(f, "{client}: ")?,
            (client, method) => write!(f, "{client}.{method}: ")?,
        }
        f.write_str(&inner.message)?;
        if let (ErrorKind::BreakerOpen, Some(wait)) = (inner.kind, inner.retry_in)
            && !wait.is_zero()
        {
            // Written here rather than into the message, so a refusal formats nothing.
            write!(f, "; trial calls in {} ms", wait.as_millis().max(1))?;
        }
        if let Some(body) = self.shown_body().filter(|_| with_body) {
            // The server's text: a line break or an escape sequence in it must not forge a log
            // line or repaint a terminal, so control characters are written escaped.
            f.write_str(": ")?;
            write_escaped(f, String::from_utf8_lossy(body).trim())?;
        }
        if let Some(source) = inner.source.as_ref().filter(|_| inner.source_shown) {
            write!(f, ": {source}")?;
        }
        if inner.not_idempotent {
            f.write_str("; not retried, since the method is not idempotent: mark it `idempotent: true`, or give it an `idempotency_key:`")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &*self.0;
        let mut d = f.debug_struct("Error");
        d.field("kind", &inner.kind)
            .field("client", &inner.client)
            .field("method", &inner.method)
            .field("message", &inner.message);
        if let Some(status) = inner.status {
            d.field("status", &status);
        }
        if let Some(body) = self.shown_body() {
            d.field("body", &String::from_utf8_lossy(body));
        }
        if let Some(wait) = inner.retry_in {
            d.field("retry_in", &wait);
        }
        if let Some(source) = &inner.source {
            d.field("source", &source.to_string());
        }
        d.finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

impl From<remcall_profile::ProfileError> for Error {
    fn from(error: remcall_profile::ProfileError) -> Self {
        Error::new(ErrorKind::Config, error.0)
    }
}

/// Writes a server's `text` with its control characters escaped (`\n`, `\u{1b}`): a line break
/// or an escape sequence in it must not forge a log line or repaint a terminal.
pub(crate) fn write_escaped(out: &mut impl fmt::Write, text: &str) -> fmt::Result {
    for c in text.chars() {
        if c.is_control() {
            write!(out, "{}", c.escape_default())?;
        } else {
            out.write_char(c)?;
        }
    }
    Ok(())
}

/// `text` cut to `chars` characters (an ellipsis says it was): a server's text quoted in an
/// error, which must not grow with the answer.
pub(crate) fn cut(text: &str, chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]).into(),
        None => text.into(),
    }
}

#[cfg(test)]
mod tests;

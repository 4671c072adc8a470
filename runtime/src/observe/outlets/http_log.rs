//! Per-attempt logging through `tracing` (target `remcall::http`, level DEBUG), as the profile's
//! `log:` asks: `basic` (method, URL template, the endpoint sent to, status, time), `headers`
//! (plus headers), `full` (plus bodies); a field the level leaves out is absent, not empty. Authorization, Proxy-Authorization, Cookie, Set-Cookie and every header marked
//! sensitive (profile headers with `secret: true`, credentials) show as `<redacted>`.

use std::fmt::Write;
use tokio::time::Instant;

use remcall_profile::LogLevel;
use reqwest::header::HeaderMap;

use crate::decode::response::Response;
use crate::wire::outgoing::{CallInfo, Outgoing};

/// How much of a body `full` logs.
const BODY_BYTES: usize = 4096;

const ALWAYS_SECRET: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// `endpoint`: the base URL the attempt went to, so with several instances the log says which.
pub(crate) fn request(level: LogLevel, template: &str, endpoint: &str, request: &Outgoing) {
    if level == LogLevel::None || !tracing::enabled!(target: "remcall::http", tracing::Level::DEBUG)
    {
        return;
    }
    let call = request.call;
    let (headers, body) = details(
        level,
        &request.headers,
        request.body.as_deref().unwrap_or_default(),
    );
    tracing::debug!(
        target: "remcall::http",
        client = call.client,
        method = call.method,
        attempt = call.attempt,
        http.method = %request.http_method,
        url.template = template,
        endpoint,
        headers = headers.as_deref(),
        body = body.as_deref(),
        "request"
    );
}

/// The headers (from `headers` up, redacted) and the body (`full` only) as `level` asks; `None`
/// leaves the field out of the event (tracing records an `Option` only when it is `Some`).
fn details(
    level: LogLevel,
    headers: &HeaderMap,
    payload: &[u8],
) -> (Option<String>, Option<String>) {
    let headers = (level >= LogLevel::Headers).then(|| redacted(headers));
    let body = (level == LogLevel::Full).then(|| body(payload));
    (headers, body)
}

/// `sent` is when the attempt was sent; the clock is read only when the event is logged.
pub(crate) fn response(
    level: LogLevel,
    call: &CallInfo,
    endpoint: &str,
    response: &Response,
    sent: Instant,
) {
    if level == LogLevel::None || !tracing::enabled!(target: "remcall::http", tracing::Level::DEBUG)
    {
        return;
    }
    let elapsed = sent.elapsed();
    let (headers, body) = details(level, &response.headers, &response.body);
    tracing::debug!(
        target: "remcall::http",
        client = call.client,
        method = call.method,
        attempt = call.attempt,
        endpoint,
        status = response.status.as_u16(),
        elapsed_ms = elapsed.as_secs_f64() * 1000.0,
        headers = headers.as_deref(),
        body = body.as_deref(),
        "response"
    );
}

/// `name: value` pairs with secrets replaced.
pub(crate) fn redacted(headers: &HeaderMap) -> String {
    let mut out = String::new();
    for (name, value) in headers {
        let secret = value.is_sensitive() || ALWAYS_SECRET.contains(&name.as_str());
        let shown = if secret {
            "<redacted>"
        } else {
            value.to_str().unwrap_or("<binary>")
        };
        let _ = write!(
            out,
            "{}{name}: {shown}",
            if out.is_empty() { "" } else { "; " }
        );
    }
    out
}

/// A body as `full` logs it: the first [`BODY_BYTES`], with control characters escaped, so a
/// server's line breaks and escape sequences cannot forge log lines or repaint a terminal.
fn body(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(BODY_BYTES)];
    let mut text = String::with_capacity(shown.len());
    let _ = crate::error::write_escaped(&mut text, &String::from_utf8_lossy(shown));
    if bytes.len() > BODY_BYTES {
        let _ = write!(text, "… ({} bytes in all)", bytes.len());
    }
    text
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn a_logged_body_cannot_forge_lines_or_escape_sequences() {
        let logged = body(b"{}\n2026-11-30T00:00:00Z INFO forged\x1b[2J");
        assert!(
            !logged.contains('\n') && !logged.contains('\x1b'),
            "{logged:?}"
        );
        assert!(logged.contains("\\n2026"), "{logged}");
    }

    #[test]
    fn secrets_are_redacted() {
        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_static("Bearer s3cr3t"));
        headers.insert("cookie", HeaderValue::from_static("session=abc"));
        let mut key = HeaderValue::from_static("k3y");
        key.set_sensitive(true);
        headers.insert("x-api-key", key);
        headers.insert("x-app", HeaderValue::from_static("crm"));
        let shown = redacted(&headers);
        for secret in ["s3cr3t", "abc", "k3y"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("x-app: crm"), "{shown}");
    }
}

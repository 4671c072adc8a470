use super::*;

#[test]
fn a_server_body_cannot_forge_log_lines_or_escape_sequences() {
    let body = Bytes::from_static(b"oops\n2026-11-30 INFO all good\x1b[2J\r");
    let shown = Error::status_error(StatusCode::INTERNAL_SERVER_ERROR, &body).to_string();
    assert!(
        !shown.contains('\n') && !shown.contains('\x1b') && !shown.contains('\r'),
        "{shown:?}"
    );
    assert!(
        shown.contains("oops\\n2026-11-30 INFO all good\\u{1b}[2J"),
        "{shown}"
    );
}

#[test]
fn display_names_client_method_status_and_body() {
    let err = Error::status_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        &Bytes::from_static(b"boom"),
    )
    .in_call("UserClient", "get_user");
    assert_eq!(
        err.to_string(),
        "UserClient.get_user: HTTP 500 Internal Server Error: boom"
    );
    assert_eq!(err.kind(), ErrorKind::Status);
    assert!(err.allows_fallback());
    let bad_request = Error::status_error(StatusCode::BAD_REQUEST, &Bytes::new());
    assert!(!bad_request.allows_fallback());
}

#[test]
fn an_open_breaker_says_when_trials_start() {
    let open = Error::fixed(ErrorKind::BreakerOpen, "the circuit breaker is open")
        .with_retry_in(Duration::from_millis(250))
        .in_call("C", "m");
    assert_eq!(
        open.to_string(),
        "C.m: the circuit breaker is open; trial calls in 250 ms"
    );
    let soon = Error::fixed(ErrorKind::BreakerOpen, "open").with_retry_in(Duration::ZERO);
    assert_eq!(soon.to_string(), "open");
    assert_eq!(soon.retry_in(), Some(Duration::ZERO));
}

#[test]
fn the_body_snippet_is_bounded() {
    let body = Bytes::from(vec![b'x'; 10_000]);
    let err = Error::status_error(StatusCode::BAD_GATEWAY, &body);
    assert_eq!(err.body().unwrap().len(), BODY_SNIPPET_BYTES);
}

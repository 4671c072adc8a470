//! An attempt's request, built: the method's arguments, the profile's headers and query, the
//! credential and the time it has left. Shared by an attempt and by the cache's lookup for a
//! call refused before any attempt.

use tokio::time::Instant;

use crate::client::MethodState;
use crate::outbound::endpoints::Endpoint;
use crate::outbound::interceptor::CallInfo;
use crate::outcome::FailedAttempt;
use crate::wire::outgoing::Outgoing;
use crate::wire::request::Request;

/// The attempt's request as interceptors see it, with the time it will wait when the profile
/// propagates deadlines.
pub(super) fn outgoing(
    state: &MethodState,
    request: &Request,
    endpoint: &Endpoint,
    call: CallInfo,
    credential: Option<reqwest::header::HeaderValue>,
    attempt_deadline: Instant,
) -> Result<Outgoing, FailedAttempt> {
    let mut outgoing = request
        .outgoing(
            call,
            &state.http_method,
            |path| endpoint.url(path),
            endpoint.host.as_ref(),
            &state.headers,
            &state.query,
            credential,
        )
        .map_err(FailedAttempt::other)?;
    if let Some(header) = &state.settings.deadline_header {
        add_time_left(state, &mut outgoing, header, attempt_deadline);
    }
    crate::observe::probe::on_the_wire(
        &mut outgoing.headers,
        &outgoing.url,
        &state.query,
        state.settings.trace_context,
    );
    Ok(outgoing)
}

/// The request to send. A stub of this process is told which method calls: two may share a
/// verb and route.
pub(super) fn sent(outgoing: Outgoing) -> reqwest::Request {
    #[cfg(feature = "stub")]
    {
        let method = outgoing.call.method;
        let mut request = outgoing.into_request();
        crate::stub::name_the_method(&mut request, method);
        request
    }
    #[cfg(not(feature = "stub"))]
    outgoing.into_request()
}

/// Tells the downstream what this attempt will wait, in whole milliseconds, in `header`: it can
/// stop when nobody waits any more.
fn add_time_left(
    state: &MethodState,
    outgoing: &mut Outgoing,
    header: &str,
    attempt_deadline: Instant,
) {
    let left = attempt_deadline.saturating_duration_since(Instant::now());
    let value = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
    state.decided(crate::observe::probe::Decision::DeadlinePropagated {
        header,
        left_ms: value,
    });
    if let Ok(name) = reqwest::header::HeaderName::from_bytes(header.as_bytes()) {
        outgoing.headers.insert(name, value.into());
    }
}

//! What a result means, every rule in one place: whether a failed attempt may be retried, when
//! a hedge race is settled, whether a finished call is a failure (or slow) for the breaker,
//! whether the downstream dropped it (the adaptive limit), whether an endpoint looks unhealthy,
//! whether a fallback may answer (`Error::allows_fallback`), and what breaks a stream and
//! whether it is resumed; and the types a result without an answer travels in ([`FailedAttempt`]
//! from an attempt, [`Unanswered`] from the call's attempts, each with the kept answer that may
//! stand in for it). The call's steps (`call/`: `Retries`, `Attempt`, `Hedge`; streams in
//! `call/stream.rs`) and the hedge race (`policy/hedge/race.rs`) ask these; none of them
//! decides on its own.

use std::time::Duration;

use remcall_profile::{BreakerSettings, Condition, RetrySettings};
use reqwest::StatusCode;

use crate::decode::response::{Response, Unread};
use crate::error::{Error, ErrorKind, is_malformed_answer};
use crate::policy::breaker::Outcome;

/// An attempt that brought no answer: the error the caller sees if it is the last, its retry
/// class, how long the server asked to wait (`Retry-After`), if it did, and the kept answer
/// still allowed to stand in for it (`cache.stale_if_error`), if the cache has one.
#[derive(Debug)]
pub(crate) struct FailedAttempt {
    pub(crate) error: Error,
    pub(crate) failure: AttemptFailure,
    pub(crate) retry_after: Option<Duration>,
    pub(crate) stale: Option<Box<Response>>,
}

/// A call's attempts that brought no answer: the error the caller sees, and the last attempt's
/// kept answer that may stand in for it, which the call takes before the fallback.
#[derive(Debug)]
pub(crate) struct Unanswered {
    pub(crate) error: Error,
    pub(crate) stale: Option<Box<Response>>,
}

impl From<Error> for Unanswered {
    fn from(error: Error) -> Unanswered {
        Unanswered { error, stale: None }
    }
}

impl From<FailedAttempt> for Unanswered {
    fn from(failed: FailedAttempt) -> Unanswered {
        Unanswered {
            error: failed.error,
            stale: failed.stale,
        }
    }
}

impl FailedAttempt {
    /// A failure no retry can help (encoding, configuration, an interceptor's refusal).
    #[cold]
    pub(crate) fn other(error: Error) -> FailedAttempt {
        FailedAttempt {
            error,
            failure: AttemptFailure::Other,
            retry_after: None,
            stale: None,
        }
    }
}

/// Why an attempt failed, as far as retrying is concerned: unlike [`crate::error::ErrorKind`], it tells
/// a failure before anything was sent (`Connect`) from one after (`Broken`, `Timeout`), which
/// decides whether a non-idempotent request may go again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptFailure {
    /// No connection was made: nothing was sent, so even a POST may be retried.
    Connect,
    /// The attempt timed out: the request may have been processed.
    Timeout,
    /// The connection broke after the request may have been sent (reset, truncated body).
    Broken,
    /// The server answered with this status.
    Status(u16),
    /// Anything else (an encoding, decoding, size or configuration error): never retried.
    Other,
}

/// True when `failure` may be retried under `settings` for a method that is (or is not)
/// idempotent. A non-idempotent method is retried only when nothing was sent.
pub fn is_retryable(settings: &RetrySettings, failure: AttemptFailure, idempotent: bool) -> bool {
    let listed = |wanted: Condition| settings.on.contains(&wanted);
    match failure {
        AttemptFailure::Connect => listed(Condition::Connect),
        AttemptFailure::Timeout => idempotent && listed(Condition::Timeout),
        AttemptFailure::Broken => idempotent && listed(Condition::Connect),
        AttemptFailure::Status(status) => {
            idempotent && settings.on.iter().any(|c| c.matches_status(status))
        }
        AttemptFailure::Other => false,
    }
}

/// A transport error's class for the retry decision: a connect error sent nothing; anything
/// later may have reached the server. What the caller reads of it is [`Error::from_transport`].
#[cold]
pub(crate) fn from_transport(error: reqwest::Error) -> FailedAttempt {
    let failure = if is_malformed_answer(&error) {
        // The server will answer the same again: not retried.
        AttemptFailure::Other
    } else if error.is_connect() {
        AttemptFailure::Connect
    } else if error.is_timeout() {
        AttemptFailure::Timeout
    } else if error.is_builder() {
        AttemptFailure::Other
    } else {
        // A redirect loop, a reset, a truncated body, a protocol error: the request may have
        // been processed.
        AttemptFailure::Broken
    };
    FailedAttempt {
        error: Error::from_transport(error),
        failure,
        retry_after: None,
        stale: None,
    }
}

impl From<Unread> for FailedAttempt {
    fn from(unread: Unread) -> FailedAttempt {
        match unread {
            Unread::TooLarge(error) => FailedAttempt::other(error),
            Unread::Transport(error) => from_transport(error),
        }
    }
}

impl Error {
    /// True for the errors a fallback may answer: the downstream is unavailable or protected
    /// (BreakerOpen, Rejected, RateLimited, Timeout, Connect, 5xx, 429). Not for the caller's
    /// own mistakes (4xx, Encode, Decode, Config, Auth).
    pub fn allows_fallback(&self) -> bool {
        match self.kind() {
            ErrorKind::BreakerOpen
            | ErrorKind::Rejected
            | ErrorKind::RateLimited
            | ErrorKind::Timeout
            | ErrorKind::Connect => true,
            ErrorKind::Status => self
                .status()
                .is_some_and(|s| s.is_server_error() || s == StatusCode::TOO_MANY_REQUESTS),
            _ => false,
        }
    }
}

/// True when a hedge race may stop at `outcome` without waiting for the other attempts: an
/// answer, or a failure no retry would follow (a 4xx: the server has spoken).
pub(crate) fn settles_race(
    settings: &RetrySettings,
    outcome: &Result<Response, FailedAttempt>,
) -> bool {
    match outcome {
        Ok(_) => true,
        // Only idempotent methods are hedged.
        Err(failed) => !is_retryable(settings, failed.failure, true),
    }
}

/// How a finished call counts for the breaker: `record:` decides which failures count (never a
/// timeout of the caller's own deadline); a success counts as slow past `slow_over` (when
/// `slow_call` is set).
pub(crate) fn for_breaker<T>(
    result: &Result<T, Error>,
    elapsed: Duration,
    settings: &BreakerSettings,
    slow_over: Option<Duration>,
) -> Outcome {
    let record = &settings.record;
    match result {
        Ok(_) => Outcome::Success {
            slow: slow_over.is_some_and(|over| elapsed > over),
        },
        // The caller ran out of its own time: nothing is known of the downstream.
        Err(error) if error.is_callers_deadline() => Outcome::Ignored,
        Err(error) => {
            let counts = match error.kind() {
                ErrorKind::Connect => record.contains(&Condition::Connect),
                ErrorKind::Timeout => record.contains(&Condition::Timeout),
                ErrorKind::Status => error
                    .status()
                    .is_some_and(|s| record.iter().any(|c| c.matches_status(s.as_u16()))),
                _ => false,
            };
            if counts {
                Outcome::Failure
            } else {
                Outcome::Ignored
            }
        }
    }
}

/// True when the downstream dropped the call, as an adaptive concurrency limit reads it: it
/// timed out (of its own limits, not the caller's deadline), refused the connection, or shed
/// load (429, 503). The limit shrinks on these.
pub(crate) fn dropped<T>(result: &Result<T, Error>) -> bool {
    result.as_ref().is_err_and(|error| {
        (matches!(error.kind(), ErrorKind::Timeout | ErrorKind::Connect)
            && !error.is_callers_deadline())
            || error
                .status()
                .is_some_and(|s| matches!(s.as_u16(), 429 | 503))
    })
}

/// True when an attempt's outcome says its endpoint is unhealthy (for outlier ejection): a 5xx,
/// or a connection that failed, broke or timed out. A 4xx, a local failure or the caller's
/// deadline says nothing about the endpoint.
pub(crate) fn endpoint_unhealthy(outcome: &Result<Response, FailedAttempt>) -> bool {
    match outcome {
        Ok(response) => response.status.is_server_error(),
        Err(failed) if failed.error.is_callers_deadline() => false,
        Err(failed) => match failed.failure {
            AttemptFailure::Connect | AttemptFailure::Timeout | AttemptFailure::Broken => true,
            AttemptFailure::Status(status) => status >= 500,
            AttemptFailure::Other => false,
        },
    }
}

/// Why an open stream stopped short: its connection failed (a reset, a truncated chunk), the
/// body ended before the declared end came, the server said nothing for `timeout.idle`, or one
/// event ran past `max_event_bytes`.
#[derive(Debug)]
pub(crate) enum StreamBreak {
    Transport(reqwest::Error),
    Truncated,
    Idle(Duration),
    TooLong(usize),
}

/// A broken stream as a failed attempt: the error its consumer reads if it is not resumed, and
/// its retry class. A reset or a truncated body is `Broken`, a silence `Timeout`; an event too
/// large is never resumed (the server would send it again).
pub(crate) fn stream_break(broke: StreamBreak) -> FailedAttempt {
    let (kind, failure, message) = match broke {
        StreamBreak::Transport(error) => return from_transport(error),
        StreamBreak::Truncated => (
            ErrorKind::Connect,
            AttemptFailure::Broken,
            "the body ended before the stream's declared end".to_owned(),
        ),
        StreamBreak::Idle(idle) => (
            ErrorKind::Timeout,
            AttemptFailure::Timeout,
            format!("the server sent nothing for {idle:?} (`timeout.idle`)"),
        ),
        StreamBreak::TooLong(limit) => (
            ErrorKind::BodyTooLarge,
            AttemptFailure::Other,
            format!("an event ran past the profile's `max_event_bytes` of {limit} bytes"),
        ),
    };
    FailedAttempt {
        error: Error::new(kind, message),
        failure,
        retry_after: None,
        stale: None,
    }
}

/// Whether a broken stream is resumed: the server gave event ids to resume from, and the break
/// is one the retry policy would retry for this method (so only a method that may be repeated,
/// GET or `idempotent: true`). The error says why not.
pub(crate) fn stream_resumes(
    settings: &RetrySettings,
    failed: &FailedAttempt,
    idempotent: bool,
    resume_from: Option<&str>,
) -> Result<(), &'static str> {
    if resume_from.is_none() {
        return Err("not resumed: the server gave no event id to resume from");
    }
    if !is_retryable(settings, failed.failure, true) {
        return Err("not resumed: the retry policy does not retry this failure");
    }
    if !idempotent {
        return Err("not resumed: the method may not be repeated; mark it `idempotent: true`");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use remcall_profile::{Profile, Settings};

    use super::*;

    fn settings(yaml: &str) -> Settings {
        Settings::from_profile(&Profile::from_yaml_str(yaml).unwrap())
    }

    #[test]
    fn post_is_retried_only_when_nothing_was_sent() {
        let s = settings("").retry;
        assert!(!is_retryable(&s, AttemptFailure::Status(503), false));
        assert!(!is_retryable(&s, AttemptFailure::Timeout, false));
        assert!(is_retryable(&s, AttemptFailure::Connect, false));
        assert!(is_retryable(&s, AttemptFailure::Status(503), true));
        assert!(
            !is_retryable(&s, AttemptFailure::Status(500), true),
            "500 is not in the default list"
        );
        assert!(!is_retryable(&s, AttemptFailure::Other, true));
        let classes = settings("retry: { on: [5xx] }").retry;
        assert!(is_retryable(&classes, AttemptFailure::Status(500), true));
        assert!(!is_retryable(&classes, AttemptFailure::Connect, true));
    }

    #[test]
    fn the_breaker_counts_what_record_lists_and_slow_successes() {
        let s = settings("breaker: { record: [timeout, 503] }").breaker;
        let status = |code: u16| -> Result<(), Error> {
            Err(Error::status_error(
                StatusCode::from_u16(code).unwrap(),
                &bytes::Bytes::new(),
            ))
        };
        let second = Duration::from_secs(1);
        assert_eq!(
            for_breaker(&status(503), second, &s, None),
            Outcome::Failure
        );
        assert_eq!(
            for_breaker(&status(500), second, &s, None),
            Outcome::Ignored
        );
        let timeout: Result<(), Error> = Err(Error::new(ErrorKind::Timeout, "late"));
        assert_eq!(for_breaker(&timeout, second, &s, None), Outcome::Failure);
        let ok: Result<(), Error> = Ok(());
        assert_eq!(
            for_breaker(&ok, second, &s, Some(Duration::from_millis(500))),
            Outcome::Success { slow: true }
        );
        assert_eq!(
            for_breaker(&ok, second, &s, None),
            Outcome::Success { slow: false }
        );
    }

    #[test]
    fn drops_and_fallbacks_are_the_downstreams_troubles_not_the_callers() {
        let status = |code: u16| {
            Error::status_error(StatusCode::from_u16(code).unwrap(), &bytes::Bytes::new())
        };
        for (error, dropped_it, fallback) in [
            (status(503), true, true),
            (status(429), true, true),
            (status(500), false, true),
            (status(404), false, false),
            (Error::new(ErrorKind::Connect, "refused"), true, true),
            (Error::new(ErrorKind::Decode, "bad json"), false, false),
            (Error::new(ErrorKind::BreakerOpen, "open"), false, true),
        ] {
            assert_eq!(dropped::<()>(&Err(error.clone())), dropped_it, "{error}");
            assert_eq!(error.allows_fallback(), fallback, "{error}");
        }
        assert!(!dropped(&Ok(())));
    }

    #[test]
    fn the_callers_own_deadline_says_nothing_of_the_downstream() {
        let s = settings("").breaker;
        let late = Error::new(ErrorKind::Timeout, "late").of_callers_deadline();
        let result: Result<(), Error> = Err(late.clone());
        let second = Duration::from_secs(1);
        assert_eq!(for_breaker(&result, second, &s, None), Outcome::Ignored);
        assert!(!dropped(&result));
        let attempt: Result<Response, FailedAttempt> = Err(FailedAttempt {
            error: late.clone(),
            failure: AttemptFailure::Timeout,
            retry_after: None,
            stale: None,
        });
        assert!(!endpoint_unhealthy(&attempt));
        assert!(
            late.allows_fallback(),
            "a fallback may still answer the caller"
        );
        let own: Result<(), Error> = Err(Error::new(ErrorKind::Timeout, "late"));
        assert_eq!(for_breaker(&own, second, &s, None), Outcome::Failure);
        assert!(dropped(&own));
    }
}

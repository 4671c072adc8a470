//! Deadline propagation: a service whose caller waits 300 ms more should not start a call with a
//! 30 s total. A [`scope`] caps every call made inside it (on the same task) at its deadline; a
//! profile's `deadline: { propagate: HEADER }` sends each attempt's remaining milliseconds on;
//! [`from_headers`] reads such a header from an incoming request, and, with the `tower` feature,
//! [`DeadlineLayer`] does it for every request a tower or axum service handles.
//!
//! ```no_run
//! # async fn handler() {
//! use std::time::Duration;
//! // Every remcall call inside finishes, or fails with `Timeout`, within 300 ms.
//! remcall::deadline::scope(Duration::from_millis(300), async {
//!     // users.get_user(..).await
//! })
//! .await;
//! # }
//! ```

use std::future::Future;
use std::time::Duration;

use reqwest::header::HeaderMap;
use tokio::time::Instant;

tokio::task_local! {
    static DEADLINE: Instant;
}

/// Runs `work` with every remcall call inside it capped at `within` from now (or at an outer
/// scope's deadline, when that comes first).
pub async fn scope<F: Future>(within: Duration, work: F) -> F::Output {
    let deadline = Instant::now() + within;
    scope_until(deadline, work).await
}

/// [`scope`] with an instant rather than a duration.
pub async fn scope_until<F: Future>(deadline: Instant, work: F) -> F::Output {
    let deadline = current().map_or(deadline, |outer| outer.min(deadline));
    DEADLINE.scope(deadline, work).await
}

/// The deadline of the scope this task runs in, if any.
pub fn current() -> Option<Instant> {
    DEADLINE.try_with(|deadline| *deadline).ok()
}

/// The time left in the current scope, if there is one (zero once it has passed).
pub fn remaining() -> Option<Duration> {
    current().map(|deadline| deadline.saturating_duration_since(Instant::now()))
}

/// The time an incoming request's caller gives it, from a header holding milliseconds
/// (`X-Request-Timeout-Ms: 250`, as `deadline: { propagate: .. }` sends it). `None` when the
/// header is absent or not a whole number.
pub fn from_headers(headers: &HeaderMap, name: &str) -> Option<Duration> {
    let text = headers.get(name)?.to_str().ok()?;
    text.trim().parse::<u64>().ok().map(Duration::from_millis)
}

#[cfg(feature = "tower")]
pub use layer::{Deadline, DeadlineLayer};

#[cfg(feature = "tower")]
mod layer {
    use std::task::{Context, Poll};

    use super::*;

    /// A tower layer (axum: `.layer(DeadlineLayer::new("X-Request-Timeout-Ms"))`) that runs each
    /// request's handler in a [`scope`] of the time its header gives, when it has one.
    #[derive(Clone, Debug)]
    pub struct DeadlineLayer {
        header: &'static str,
    }

    impl DeadlineLayer {
        /// Reads the deadline from `header` (milliseconds).
        pub fn new(header: &'static str) -> DeadlineLayer {
            DeadlineLayer { header }
        }
    }

    impl<S> tower_layer::Layer<S> for DeadlineLayer {
        type Service = Deadline<S>;

        fn layer(&self, inner: S) -> Deadline<S> {
            Deadline {
                inner,
                header: self.header,
            }
        }
    }

    /// The service [`DeadlineLayer`] wraps.
    #[derive(Clone, Debug)]
    pub struct Deadline<S> {
        inner: S,
        header: &'static str,
    }

    impl<S, B> tower_service::Service<http::Request<B>> for Deadline<S>
    where
        S: tower_service::Service<http::Request<B>>,
    {
        type Response = S::Response;
        type Error = S::Error;
        type Future = tokio::task::futures::TaskLocalFuture<Instant, S::Future>;

        fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
            self.inner.poll_ready(cx)
        }

        fn call(&mut self, request: http::Request<B>) -> Self::Future {
            // No header: a deadline far enough away to be none (a scope's future type is the
            // same either way).
            let within = from_headers(request.headers(), self.header)
                .unwrap_or(Duration::from_secs(86_400 * 365));
            let deadline = Instant::now() + within;
            let deadline = current().map_or(deadline, |outer| outer.min(deadline));
            DEADLINE.scope(deadline, self.inner.call(request))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn scopes_nest_to_the_earlier_deadline() {
        assert_eq!(remaining(), None);
        scope(Duration::from_millis(300), async {
            assert_eq!(remaining(), Some(Duration::from_millis(300)));
            scope(Duration::from_secs(5), async {
                assert_eq!(
                    remaining(),
                    Some(Duration::from_millis(300)),
                    "the outer wins"
                );
            })
            .await;
            tokio::time::sleep(Duration::from_millis(400)).await;
            assert_eq!(remaining(), Some(Duration::ZERO));
        })
        .await;
    }

    #[test]
    fn a_header_of_milliseconds_is_read_and_anything_else_ignored() {
        let mut headers = HeaderMap::new();
        assert_eq!(from_headers(&headers, "x-request-timeout-ms"), None);
        headers.insert("x-request-timeout-ms", " 250".parse().unwrap());
        assert_eq!(
            from_headers(&headers, "X-Request-Timeout-Ms"),
            Some(Duration::from_millis(250))
        );
        headers.insert("x-request-timeout-ms", "-3".parse().unwrap());
        assert_eq!(from_headers(&headers, "x-request-timeout-ms"), None);
    }
}

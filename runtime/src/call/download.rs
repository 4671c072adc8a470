//! Downloads: a response body handed over as a stream of chunks instead of read whole, for
//! bodies larger than `max_response_bytes` (which does not apply to them).
//!
//! The call runs the pipeline up to the response headers: retries, breaker, limits and statistics
//! see it as answered when a success status arrives, and the attempt timeout covers the headers.
//! Then the chunks come as they are read, each within the call's total deadline; a broken
//! connection or the deadline mid-body is an error item, never retried (part of the body has been
//! handed over).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use tokio::time::Instant;

use crate::client::Client;
use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};
use crate::wire::request::Request;

type Chunk =
    Pin<Box<dyn Future<Output = (reqwest::Response, Result<Option<Bytes>, Error>)> + Send>>;

/// A response body, chunk by chunk: a [`Stream`] of `Result<Bytes, Error>` (or
/// `while let Some(chunk) = body.next().await`). It ends after the last chunk or the first error.
pub struct ByteStream {
    status: StatusCode,
    headers: HeaderMap,
    state: State,
    deadline: Instant,
    total: Duration,
    client: &'static str,
    method: &'static str,
}

enum State {
    Idle(reqwest::Response),
    Reading(Chunk),
    Done,
}

impl std::fmt::Debug for ByteStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByteStream")
            .field("status", &self.status)
            .field("done", &matches!(self.state, State::Done))
            .finish_non_exhaustive()
    }
}

impl ByteStream {
    /// The response's status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The response's headers (`Content-Length`, `Content-Type`, …).
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The next chunk; `None` after the last.
    pub async fn next(&mut self) -> Option<Result<Bytes, Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for ByteStream {
    type Item = Result<Bytes, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            match std::mem::replace(&mut this.state, State::Done) {
                State::Done => return Poll::Ready(None),
                State::Idle(mut response) => {
                    let (deadline, total) = (this.deadline, this.total);
                    this.state = State::Reading(Box::pin(async move {
                        let chunk = match tokio::time::timeout_at(deadline, response.chunk()).await
                        {
                            Ok(Ok(chunk)) => Ok(chunk),
                            Ok(Err(e)) => Err(Error::from_transport(e)),
                            Err(_) => Err(Error::new(
                                ErrorKind::Timeout,
                                format!(
                                    "the download ran past the call's total deadline of {total:?}"
                                ),
                            )),
                        };
                        (response, chunk)
                    }));
                }
                State::Reading(mut reading) => match reading.as_mut().poll(cx) {
                    Poll::Pending => {
                        this.state = State::Reading(reading);
                        return Poll::Pending;
                    }
                    Poll::Ready((response, Ok(Some(chunk)))) => {
                        this.state = State::Idle(response);
                        return Poll::Ready(Some(Ok(chunk)));
                    }
                    Poll::Ready((_, Ok(None))) => return Poll::Ready(None),
                    Poll::Ready((_, Err(error))) => {
                        return Poll::Ready(Some(Err(error.in_call(this.client, this.method))));
                    }
                },
            }
        }
    }
}

impl Client {
    /// Runs one logical call up to its response headers and hands the body over as a stream.
    pub async fn call_stream(&self, mut request: Request) -> Result<ByteStream, Error> {
        let method = request.method;
        let total = self.shared.method(method).settings.total_timeout;
        let deadline = Instant::now() + total;
        request.download = true;
        let response = self.call(request, Response::into_live).await?;
        Ok(ByteStream {
            status: response.status(),
            headers: response.headers().clone(),
            state: State::Idle(response),
            deadline,
            total,
            client: self.shared.spec.name,
            method: method.name,
        })
    }
}

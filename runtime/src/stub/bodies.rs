//! The stub's answers as bodies: whole, compressed, slow, or streamed with faults between
//! events (a cut, a stall), and the error that breaks one off mid-way.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;

use super::compress::{Compressor, Encoding};
use super::faults::Between;

/// A body; its error breaks the response off mid-way (a stream cut by a fault).
pub(super) type Body = http_body_util::combinators::BoxBody<Bytes, Reset>;

/// A whole body.
pub(super) fn full(bytes: Bytes) -> Body {
    Full::new(bytes)
        .map_err(|never: Infallible| match never {})
        .boxed()
}

/// Why the connection closes without an answer.
#[derive(Debug)]
pub(super) struct Reset;

impl std::fmt::Display for Reset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection reset by the stub")
    }
}

impl std::error::Error for Reset {}

/// A streamed answer's frames (each flushed, so it decodes as it arrives; the stream's end
/// goes with the last) or its whole body, compressed with `encoding`.
pub(super) fn compressed(
    encoding: Encoding,
    frames: Option<Vec<Bytes>>,
    body: Bytes,
) -> std::io::Result<(Option<Vec<Bytes>>, Bytes)> {
    let Some(frames) = frames else {
        return Ok((None, encoding.compress(&body)?.into()));
    };
    let mut compressor = Compressor::new(encoding)?;
    let mut out = frames
        .iter()
        .map(|frame| compressor.chunk(frame))
        .collect::<std::io::Result<Vec<Bytes>>>()?;
    let end = compressor.finish()?;
    match out.last_mut() {
        Some(last) => *last = [last.as_ref(), end.as_ref()].concat().into(),
        None => out.push(end),
    }
    Ok((Some(out), Bytes::new()))
}

/// `body` in chunks of `chunk` bytes, `every` apart.
pub(super) fn slow(body: Bytes, chunk: usize, every: Duration) -> Body {
    let chunks: Vec<Bytes> = (0..body.len())
        .step_by(chunk)
        .map(|start| body.slice(start..(start + chunk).min(body.len())))
        .collect();
    let stream = futures_util::stream::iter(chunks).then(move |piece| async move {
        tokio::time::sleep(every).await;
        Ok::<_, Reset>(Frame::data(piece))
    });
    BodyExt::boxed(StreamBody::new(stream))
}

/// A streamed body, one chunk an event, with the faults between events: each `every` apart,
/// cut off (the connection breaks) or stalled (it stays open, silent) after so many.
pub(super) fn framed(frames: Vec<Bytes>, between: &Between) -> Body {
    let Between {
        every,
        cut_after,
        stall_after,
    } = *between;
    let stream = futures_util::stream::unfold(
        (frames.into_iter(), 0usize),
        move |(mut frames, sent)| async move {
            if sent == usize::MAX {
                return None;
            }
            if cut_after == Some(sent) {
                // Pending once first, so the connection flushes the events before it; an error
                // with them still buffered would break the answer before its headers.
                tokio::task::yield_now().await;
                return Some((Err(Reset), (frames, usize::MAX)));
            }
            if stall_after == Some(sent) {
                std::future::pending::<()>().await;
            }
            let frame = frames.next()?;
            if let Some(every) = every {
                tokio::time::sleep(every).await;
            }
            Some((Ok(Frame::data(frame)), (frames, sent + 1)))
        },
    );
    BodyExt::boxed(StreamBody::new(stream))
}

/// `response`, after which the connection closes (its request was not read to the end).
pub(super) fn close(mut response: hyper::Response<Body>) -> hyper::Response<Body> {
    response.headers_mut().insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    response
}

pub(super) fn plain(status: u16, message: &str) -> hyper::Response<Body> {
    let mut response = hyper::Response::new(full(Bytes::from(message.to_owned())));
    *response.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    response
}

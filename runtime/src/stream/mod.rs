//! Streamed responses: Server-Sent Events ([`Events`]) and JSON Lines ([`Lines`]), typed.
//!
//! A stream is produced by one future (`call/stream.rs`) that opens it, reads it chunk by
//! chunk and resumes it; it owns the call's bulkhead slot while the stream is open, so
//! dropping the stream releases everything. [`Feed`] turns that future into a `Stream`: the
//! future parses a chunk into a batch of items and hands it over, and is polled again only when
//! the consumer has taken the batch, so at most one chunk's items wait in memory.

mod cases;
pub(crate) mod errors;
mod feed;
pub(crate) mod lines;
mod spec;
pub(crate) mod sse;

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;

use crate::error::Error;
pub use errors::ErrorEvents;
use errors::Read;
pub(crate) use feed::{Feed, Sender};
pub use spec::{EventsSpec, LinesSpec};

/// One Server-Sent Event: its data decoded as `T`, its type, the last event id and the
/// reconnection time it set.
#[derive(Debug, Clone, PartialEq)]
pub struct Event<T> {
    /// The `data:` lines, joined and decoded.
    pub data: T,
    /// The `event:` field; `None` for the default type (`message`).
    pub event: Option<String>,
    /// The last event id at this event (ids carry over to the events after them).
    pub id: Option<String>,
    /// The `retry:` the server set with this event.
    pub retry: Option<Duration>,
}

impl<T> Event<T> {
    /// An event of the default type with `data`, no id (for fallbacks and stubs).
    pub fn new(data: T) -> Event<T> {
        Event {
            data,
            event: None,
            id: None,
            retry: None,
        }
    }

    /// The same event with id `id`.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Event<T> {
        self.id = Some(id.into());
        self
    }

    /// The same event with type `event`.
    #[must_use]
    pub fn with_event(mut self, event: impl Into<String>) -> Event<T> {
        self.event = Some(event.into());
        self
    }
}

/// A stream of Server-Sent Events: a [`Stream`] of `Result<Event<T>, Error>` (or
/// `while let Some(event) = events.next().await`). An event whose data does not decode is an
/// `Err` item and the stream goes on; a stream that breaks and cannot be resumed ends with an
/// `Err` item saying how many events came. Dropping it closes the connection and frees the
/// bulkhead slot it holds.
pub struct Events<T> {
    feed: Feed<Result<Event<T>, Error>>,
}

/// A stream of JSON Lines (NDJSON): a [`Stream`] of `Result<T, Error>`, one item a line.
pub struct Lines<T> {
    feed: Feed<Result<T, Error>>,
}

macro_rules! stream_type {
    ($name:ident, $item:ty) => {
        impl<T: Send + 'static> $name<T> {
            pub(crate) fn from_feed(feed: Feed<$item>) -> Self {
                Self { feed }
            }

            /// A stream of these items, already at hand (what a fallback may answer with).
            pub fn from_items(items: impl IntoIterator<Item = $item>) -> Self {
                Self {
                    feed: Feed::ready(items.into_iter().collect()),
                }
            }

            /// The next item; `None` after the last.
            pub async fn next(&mut self) -> Option<$item> {
                std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
            }
        }

        impl<T: Send + 'static> Stream for $name<T> {
            type Item = $item;

            fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<$item>> {
                self.feed.poll_next(cx)
            }
        }

        impl<T> std::fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("done", &self.feed.is_done())
                    .finish_non_exhaustive()
            }
        }
    };
}

stream_type!(Events, Result<Event<T>, Error>);
stream_type!(Lines, Result<T, Error>);

/// What a stream's format makes of its bytes: SSE events or JSON lines, typed.
pub(crate) trait Format: Send + Sync + 'static {
    /// What the consumer gets of each event or line.
    type Item: Send + 'static;

    /// Reads `chunk`, adding its items to `out`; true when a declared end came (the stream is
    /// over, whatever follows).
    fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<Self::Item>) -> Result<bool, sse::TooLong>;

    /// The body ended cleanly: what is left is an item or nothing. False when the body should not
    /// have ended there (a declared end had not come).
    fn finish(&mut self, out: &mut VecDeque<Self::Item>) -> bool;

    /// Where a reconnection resumes from (the last event id), when the stream can be resumed.
    fn resume_from(&self) -> Option<&str>;

    /// How long the server asked a reconnection to wait.
    fn reconnection_time(&self) -> Option<Duration>;

    /// The stream is read again from a reconnection.
    fn reconnected(&mut self);

    /// The media type asked for with `Accept`.
    fn accept(&self) -> &'static str;

    /// The item that ends a broken stream.
    fn failed(error: Error) -> Self::Item;

    /// The server reported an error in the stream (an error event or line): the stream is
    /// over, and did not end well.
    fn reported(&self) -> bool;
}

/// How an event's data (with its `event:` type) becomes a `T`; the text says why it did not.
pub type EventDecoder<T> = fn(Option<&str>, &str) -> Result<T, String>;

/// Server-Sent Events whose data decode as `T`.
pub(crate) struct SseFormat<T> {
    pub(crate) parser: sse::SseParser,
    pub(crate) decode: EventDecoder<T>,
    /// The data that ends the stream (`[DONE]`), when the method declares one.
    pub(crate) end: Option<&'static str>,
    /// The error events the method declares.
    pub(crate) errors: Option<ErrorEvents>,
    /// A declared end came, or an error event: what follows is not read.
    pub(crate) ended: bool,
    pub(crate) reported: bool,
    pub(crate) names: Owner,
}

/// Whose stream it is, and how much of the server's text its errors may show in their message
/// (`errors.body_in_message`), as a call's errors do.
#[derive(Clone, Copy)]
pub(crate) struct Owner {
    pub(crate) client: &'static str,
    pub(crate) method: &'static str,
    pub(crate) body_shown: u64,
}

impl<T: Send + 'static> Format for SseFormat<T> {
    type Item = Result<Event<T>, Error>;

    fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<Self::Item>) -> Result<bool, sse::TooLong> {
        let (decode, end, names) = (self.decode, self.end, self.names);
        let (errors, ended, reported) = (self.errors.as_ref(), &mut self.ended, &mut self.reported);
        self.parser.feed(chunk, &mut |raw| {
            if *ended {
                return;
            }
            if end == Some(raw.data.as_str()) {
                *ended = true;
                return;
            }
            let named = errors.is_some_and(|e| e.names(raw.event.as_deref()));
            let read = errors::read(errors, named, raw.data.as_bytes(), || {
                decode(raw.event.as_deref(), &raw.data)
            });
            out.push_back(match read {
                Read::Item(data) => Ok(Event {
                    data,
                    event: raw.event,
                    id: raw.id,
                    retry: raw.retry,
                }),
                Read::Undecodable(why) => {
                    let what = event_named(raw.event.as_deref(), raw.id.as_deref());
                    Err(undecodable(&what, &why, names, raw.data.as_bytes()))
                }
                Read::Reported(detail) => {
                    (*ended, *reported) = (true, true);
                    let what = event_named(raw.event.as_deref(), raw.id.as_deref());
                    Err(errors::reported(&what, detail, names, raw.data.as_bytes()))
                }
            });
        })?;
        Ok(self.ended)
    }

    fn finish(&mut self, _: &mut VecDeque<Self::Item>) -> bool {
        self.ended || self.end.is_none()
    }

    fn reported(&self) -> bool {
        self.reported
    }

    fn resume_from(&self) -> Option<&str> {
        self.parser.last_event_id()
    }

    fn reconnection_time(&self) -> Option<Duration> {
        self.parser.reconnection_time()
    }

    fn reconnected(&mut self) {
        self.parser.reconnected();
    }

    fn accept(&self) -> &'static str {
        "text/event-stream"
    }

    fn failed(error: Error) -> Self::Item {
        Err(error)
    }
}

/// JSON Lines whose lines decode as `T`.
pub(crate) struct LinesFormat<T> {
    pub(crate) splitter: lines::LineSplitter,
    pub(crate) decode: fn(&[u8]) -> Result<T, String>,
    /// The error lines the method declares.
    pub(crate) errors: Option<ErrorEvents>,
    /// An error line came: what follows is not read.
    pub(crate) reported: bool,
    pub(crate) names: Owner,
}

impl<T> LinesFormat<T> {
    /// The splitter, and beside it what reading a line needs.
    fn split(&mut self) -> (&mut lines::LineSplitter, Reading<'_, T>) {
        let LinesFormat {
            splitter,
            decode,
            errors,
            reported,
            names,
        } = self;
        (splitter, (*decode, errors.as_ref(), reported, *names))
    }
}

/// Reads one line into `out`, unless an error line ended the stream before it.
fn read_line<T>(reading: &mut Reading<'_, T>, line: &[u8], out: &mut VecDeque<Result<T, Error>>) {
    let (decode, errors, reported, names) = (reading.0, reading.1, &mut *reading.2, reading.3);
    if *reported {
        return;
    }
    out.push_back(match errors::read(errors, false, line, || decode(line)) {
        Read::Item(item) => Ok(item),
        Read::Undecodable(why) => Err(undecodable("line", &why, names, line)),
        Read::Reported(detail) => {
            *reported = true;
            Err(errors::reported("line", detail, names, line))
        }
    });
}

/// What reading a line needs of a [`LinesFormat`], borrowed beside its splitter.
type Reading<'a, T> = (
    fn(&[u8]) -> Result<T, String>,
    Option<&'a ErrorEvents>,
    &'a mut bool,
    Owner,
);

impl<T: Send + 'static> Format for LinesFormat<T> {
    type Item = Result<T, Error>;

    fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<Self::Item>) -> Result<bool, sse::TooLong> {
        let (splitter, mut reading) = self.split();
        splitter.feed(chunk, &mut |line| read_line(&mut reading, line, out))?;
        Ok(self.reported)
    }

    fn finish(&mut self, out: &mut VecDeque<Self::Item>) -> bool {
        let (splitter, mut reading) = self.split();
        splitter.finish(&mut |line| read_line(&mut reading, line, out));
        true
    }

    fn resume_from(&self) -> Option<&str> {
        None
    }

    fn reconnection_time(&self) -> Option<Duration> {
        None
    }

    fn reconnected(&mut self) {
        self.splitter.reset();
    }

    fn accept(&self) -> &'static str {
        "application/jsonl, application/x-ndjson"
    }

    fn failed(error: Error) -> Self::Item {
        Err(error)
    }

    fn reported(&self) -> bool {
        self.reported
    }
}

/// An event or line whose data is not the declared type: an item of the stream, which goes on.
/// A streamed item that did not decode: where in it and why (`why`), and its first bytes
/// (`data`) kept as the error's body.
fn undecodable(what: &str, why: &str, owner: Owner, data: &[u8]) -> Error {
    Error::new(
        crate::error::ErrorKind::Decode,
        format!("a streamed {what} is not the declared type: {why}"),
    )
    .in_call(owner.client, owner.method)
    .with_body_snippet(data)
    .showing_body(owner.body_shown)
}

/// An event as an error names it: with its `event:` type and `id:`, the server's text quoted
/// and escaped (`event (event: 'token', id: '7')`).
fn event_named(event: Option<&str>, id: Option<&str>) -> String {
    let quoted = |name: &str, value: Option<&str>| {
        value.map(|v| format!("{name}: {}", crate::decode::located::string_literal(v)))
    };
    let fields: Vec<String> = [quoted("event", event), quoted("id", id)]
        .into_iter()
        .flatten()
        .collect();
    if fields.is_empty() {
        "event".to_owned()
    } else {
        format!("event ({})", fields.join(", "))
    }
}

/// Decodes an event's data as JSON of type `T` (what generated code passes for one type).
pub fn event_json<T: serde::de::DeserializeOwned>(
    _event: Option<&str>,
    data: &str,
) -> Result<T, String> {
    crate::decode::item(data.as_bytes())
}

/// Takes an event's data as text (what generated code passes for a `String`).
pub fn event_text(_event: Option<&str>, data: &str) -> Result<String, String> {
    Ok(data.to_owned())
}

/// Takes a line as text.
pub fn line_text(line: &[u8]) -> Result<String, String> {
    Ok(String::from_utf8_lossy(line).into_owned())
}

/// Decodes a JSON line as `T`.
pub fn line_json<T: serde::de::DeserializeOwned>(line: &[u8]) -> Result<T, String> {
    crate::decode::item(line)
}

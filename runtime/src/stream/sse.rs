//! The event-stream format (`text/event-stream`), read as the WHATWG HTML standard's
//! "interpreting an event stream" says: a leading BOM is dropped; lines end at CRLF, LF or CR
//! (a CR at the end of one chunk and an LF at the start of the next are one line end); a line
//! starting with `:` is a comment; a field without a colon has an empty value; one space after
//! the colon is dropped; `data` lines are joined with `\n`; an `id` holding NUL is ignored and
//! an id persists until another replaces it; `retry` is taken only when it is all ASCII digits;
//! a blank line dispatches the event, unless it has no data; an event cut off by the end of the
//! stream is never dispatched.
//!
//! The parser keeps at most `limit` bytes of one event (its unfinished line and its data), so a
//! server that never ends a line or an event cannot make it grow without bound; and it looks at
//! each byte once, however the stream is cut into chunks.

use std::hash::{Hash, Hasher};
use std::time::Duration;

/// One dispatched event, its data not yet decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawEvent {
    /// The `event:` field; `None` for the default type (`message`).
    pub(crate) event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub(crate) data: String,
    /// The last event id when it was dispatched (ids persist from event to event); `None` when
    /// empty.
    pub(crate) id: Option<String>,
    /// A `retry:` field read since the event before.
    pub(crate) retry: Option<Duration>,
}

/// An event (or one line of it) longer than the parser may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLong {
    pub(crate) limit: usize,
}

/// The parser's state between chunks.
#[derive(Debug)]
pub(crate) struct SseParser {
    /// The unfinished line carried over from the chunk before.
    line: Vec<u8>,
    /// The last chunk ended with CR: an LF first in the next one ends nothing.
    after_cr: bool,
    /// No line has been read yet: a BOM at its start is dropped.
    first_line: bool,
    data: String,
    event: String,
    /// The last event id buffer, which outlives the event it came with.
    last_id: String,
    /// The last event id as of the last dispatch (the standard's "last event ID string"): what
    /// a reconnection sends, so an event whose `id:` came but whose blank line did not is asked
    /// for again.
    dispatched_id: String,
    retry: Option<Duration>,
    /// The reconnection time the stream asked for last.
    reconnect: Option<Duration>,
    limit: usize,
    /// The event being read has an `id:` line of its own (not one carried from before).
    own_id: bool,
    /// A digest of the last event delivered with an id of its own (its id, type and data).
    last_delivered: Option<u64>,
}

impl SseParser {
    /// A parser keeping at most `limit` bytes of one event.
    pub(crate) fn new(limit: usize) -> SseParser {
        SseParser {
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            data: String::new(),
            event: String::new(),
            last_id: String::new(),
            dispatched_id: String::new(),
            retry: None,
            reconnect: None,
            limit,
            own_id: false,
            last_delivered: None,
        }
    }

    /// The id of the last event dispatched (`Last-Event-ID` for a reconnection), if any.
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        (!self.dispatched_id.is_empty()).then_some(self.dispatched_id.as_str())
    }

    /// The reconnection time the stream asked for with `retry:`, if it did.
    pub(crate) fn reconnection_time(&self) -> Option<Duration> {
        self.reconnect
    }

    /// Starts over after a reconnection: the half-read event is dropped; the last event id and
    /// the reconnection time are kept, as a browser's `EventSource` keeps them.
    pub(crate) fn reconnected(&mut self) {
        self.line.clear();
        self.after_cr = false;
        self.first_line = true;
        self.data.clear();
        self.event.clear();
        self.retry = None;
        self.last_id.clone_from(&self.dispatched_id);
        self.own_id = false;
    }

    /// Reads `chunk`, handing each event it completes to `dispatch`.
    pub(crate) fn feed(
        &mut self,
        mut chunk: &[u8],
        dispatch: &mut impl FnMut(RawEvent),
    ) -> Result<(), TooLong> {
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        while let Some(end) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            let (line, rest) = chunk.split_at(end);
            let crlf = rest.starts_with(b"\r\n");
            if rest[0] == b'\r' && rest.len() == 1 {
                self.after_cr = true;
            }
            chunk = &rest[if crlf { 2 } else { 1 }..];
            if self.line.is_empty() {
                self.line_done(line, dispatch)?;
            } else {
                self.keep(line)?;
                let whole = std::mem::take(&mut self.line);
                self.line_done(&whole, dispatch)?;
                // The buffer's allocation serves the next unfinished line.
                self.line = whole;
                self.line.clear();
            }
        }
        self.keep(chunk)
    }

    /// Carries part of an unfinished line over to the next chunk, within the limit.
    fn keep(&mut self, part: &[u8]) -> Result<(), TooLong> {
        if self.line.len() + part.len() + self.data.len() > self.limit {
            return Err(TooLong { limit: self.limit });
        }
        self.line.extend_from_slice(part);
        Ok(())
    }

    /// One whole line, its end taken off.
    fn line_done(
        &mut self,
        mut line: &[u8],
        dispatch: &mut impl FnMut(RawEvent),
    ) -> Result<(), TooLong> {
        if std::mem::take(&mut self.first_line) {
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(dispatch);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        let value = String::from_utf8_lossy(value);
        match field {
            b"event" => {
                self.event.clear();
                self.event.push_str(&value);
            }
            b"data" => {
                if self.data.len() + value.len() + 1 > self.limit {
                    return Err(TooLong { limit: self.limit });
                }
                self.data.push_str(&value);
                self.data.push('\n');
            }
            b"id" if !value.contains('\0') => {
                self.last_id.clear();
                self.last_id.push_str(&value);
                self.own_id = true;
            }
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // More digits than a u64 holds is a very long time, not an error.
                let ms = value.parse::<u64>().unwrap_or(u64::MAX);
                let retry = Duration::from_millis(ms);
                self.retry = Some(retry);
                self.reconnect = Some(retry);
            }
            _ => {}
        }
        Ok(())
    }

    /// A blank line: the event so far, unless it has no data.
    fn dispatch(&mut self, dispatch: &mut impl FnMut(RawEvent)) {
        let retry = self.retry.take();
        if self.dispatched_id != self.last_id {
            self.dispatched_id.clone_from(&self.last_id);
        }
        let own_id = std::mem::take(&mut self.own_id);
        if self.data.is_empty() {
            self.event.clear();
            return;
        }
        // An event sent again right after itself — id, type and data the same: a server that
        // goes on from the event a reconnection named rather than after it, or whose replay
        // races its live feed — was delivered already. (Only the same data: a server may give
        // two events one id, as LangGraph's does within a millisecond.)
        let digest = own_id.then(|| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            (&self.last_id, &self.event, &self.data).hash(&mut hasher);
            hasher.finish()
        });
        let again = digest.is_some() && digest == self.last_delivered;
        self.last_delivered = digest;
        if again {
            self.data.clear();
            self.event.clear();
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the `\n` after the last data line
        let event = std::mem::take(&mut self.event);
        dispatch(RawEvent {
            event: (!event.is_empty()).then_some(event),
            data,
            id: (!self.last_id.is_empty()).then(|| self.last_id.clone()),
            retry,
        });
    }
}

#[cfg(test)]
mod tests;

//! A rule being written ([`Stubbing`]: its matchers, its answer, how often) and the faults added
//! for one operation or all ([`Faults`]).

use std::time::Duration;

use bytes::Bytes;

use super::compress::{Compression, Encoding};
use super::faults::Fault;
use super::frames::{line_frames, sse_frame, text_event};
use super::rules::{Answer, Does, Part, Rule};
use super::{Received, Recorded, Stub};
use crate::spec::MethodSpec;

/// A rule being written: where it matches, what it answers, how often. From
/// [`Stub::operation`], the rule is made by the first of these calls.
#[derive(Debug)]
pub struct Stubbing<'a> {
    pub(super) stub: &'a Stub,
    /// `None`: every operation's (`Stub::all`).
    pub(super) operation: Option<&'static MethodSpec>,
    pub(super) index: Option<usize>,
}

impl<'a> Stubbing<'a> {
    fn edit(mut self, change: impl FnOnce(&mut Rule)) -> Self {
        let mut state = self.stub.state();
        let index = *self.index.get_or_insert_with(|| {
            state
                .rules
                .push(Rule::new(self.operation, Does::Answer(Answer::default())));
            state.rules.len() - 1
        });
        change(&mut state.rules[index]);
        drop(state);
        self
    }

    /// The requests it received, read as `R` (a generated `<Method>Received`); one that does
    /// not read (it was answered 400, and fails the test when the stub is dropped) is left out.
    pub fn calls_as<R: Received>(&self) -> Vec<R> {
        self.calls()
            .iter()
            .filter_map(|raw| R::decode(raw).ok())
            .collect()
    }

    /// The requests the operation (or, for `Stub::all`'s, every operation) received, in order.
    pub fn calls(&self) -> Vec<Recorded> {
        let state = self.stub.state();
        state
            .recorded
            .iter()
            .filter(|r| self.operation.is_none_or(|o| r.index == o.index))
            .cloned()
            .collect()
    }

    /// Faults for the operation (for every operation, from `Stub::all`'s).
    pub fn faults(&self) -> Faults<'a> {
        Faults {
            stub: self.stub,
            operation: self.operation,
        }
    }

    fn answer(self, change: impl FnOnce(&mut Answer)) -> Self {
        self.edit(|rule| {
            if let Does::Answer(answer) = &mut rule.does {
                change(answer);
            }
        })
    }

    /// Matches only requests whose path parameter `name` is `value`, written as the client
    /// writes it (a list comma-separated).
    pub fn with_path(self, name: &str, value: impl serde::Serialize) -> Self {
        self.matching(Part::Path(name.to_owned()), &value)
    }

    /// Matches only requests whose query parameter `name` is `value` (its first value).
    pub fn with_query(self, name: &str, value: impl serde::Serialize) -> Self {
        self.matching(Part::Query(name.to_owned()), &value)
    }

    /// Matches only requests whose header `name` is `value` (its first value).
    pub fn with_header(self, name: &str, value: impl serde::Serialize) -> Self {
        self.matching(Part::Header(name.to_owned()), &value)
    }

    fn matching(self, part: Part, value: &impl serde::Serialize) -> Self {
        let mut texts = Vec::new();
        let written = crate::wire::params::each_text("", value, |text| {
            texts.push(text.to_owned());
            Ok(())
        });
        let text = match (&part, written) {
            (Part::Path(_), Ok(())) => texts.join(","),
            (_, Ok(())) => texts.into_iter().next().unwrap_or_default(),
            // A value no client could send (a map): matches nothing.
            (_, Err(_)) => "\u{0}a value no client sends".to_owned(),
        };
        self.edit(|rule| rule.matchers.push((part, text)))
    }

    /// Answers 200 with `value` as JSON.
    pub fn returns_json<T: serde::Serialize>(self, value: &T) -> Self {
        self.returns_json_status(200, value)
    }

    /// Answers `status` with `value` as JSON (a declared error body, say).
    pub fn returns_json_status<T: serde::Serialize>(
        self,
        status: impl IntoStatus,
        value: &T,
    ) -> Self {
        let body = serde_json::to_vec(value).unwrap_or_default();
        self.returns_body(status, "application/json", body)
    }

    /// Answers `status` with no body.
    pub fn returns_status(self, status: impl IntoStatus) -> Self {
        let status = status.code();
        self.answer(move |answer| answer.status = status)
    }

    /// Answers `status` with `body` of `content_type`.
    pub fn returns_body(
        self,
        status: impl IntoStatus,
        content_type: &str,
        body: impl Into<Bytes>,
    ) -> Self {
        let status = status.code();
        let body = body.into();
        let content_type = content_type.to_owned();
        self.answer(move |answer| {
            answer.status = status;
            answer.body = body;
            answer
                .headers
                .retain(|(name, _)| !name.eq_ignore_ascii_case("content-type"));
            answer
                .headers
                .push(("content-type".to_owned(), content_type));
        })
    }

    /// Answers 200 with `events` as Server-Sent Events, each a chunk of its own (the faults
    /// `cut_after`, `stall_after` and `slow_events` count them), then `end` as the last event's
    /// data when the method declares one; `write` gives an event's name (when its
    /// [`Event::event`](crate::stream::Event) has none) and data: [`json_event`](super::json_event), [`text_event`](super::text_event) or a
    /// generated events enum's `to_event`.
    pub fn returns_events_with<T>(
        self,
        events: &[crate::stream::Event<T>],
        write: fn(&T) -> (Option<String>, String),
        end: Option<&str>,
    ) -> Self {
        let mut frames: Vec<Bytes> = events.iter().map(|event| sse_frame(event, write)).collect();
        if let Some(end) = end {
            frames.push(sse_frame(
                &crate::stream::Event::new(end.to_owned()),
                text_event,
            ));
        }
        self.returns_frames("text/event-stream", frames)
    }

    /// Answers 200 with `events` as [`returns_events_with`](Self::returns_events_with) does,
    /// then `error`, an error event's name and data: the server reporting a failure
    /// mid-answer. No end follows it.
    pub fn returns_events_then_error<T>(
        self,
        events: &[crate::stream::Event<T>],
        write: fn(&T) -> (Option<String>, String),
        error: (Option<&str>, String),
    ) -> Self {
        let mut frames: Vec<Bytes> = events.iter().map(|event| sse_frame(event, write)).collect();
        let (name, data) = error;
        let mut event = crate::stream::Event::new(data);
        event.event = name.map(str::to_owned);
        frames.push(sse_frame(&event, text_event));
        self.returns_frames("text/event-stream", frames)
    }

    /// Answers 200 with `lines` as [`returns_lines_with`](Self::returns_lines_with) does,
    /// then the line `error`: the server reporting a failure mid-answer.
    pub fn returns_lines_then_error<T>(
        self,
        lines: &[T],
        write: fn(&T) -> String,
        error: String,
    ) -> Self {
        let frames = line_frames(lines.iter().map(write).chain(std::iter::once(error)));
        self.returns_frames("application/x-ndjson", frames)
    }

    /// Answers 200 with `lines` as JSON Lines, each a chunk of its own; `write` is
    /// [`json_line`](super::json_line) or [`text_line`](super::text_line).
    pub fn returns_lines_with<T>(self, lines: &[T], write: fn(&T) -> String) -> Self {
        let frames = line_frames(lines.iter().map(write));
        self.returns_frames("application/x-ndjson", frames)
    }

    fn returns_frames(self, content_type: &str, frames: Vec<Bytes>) -> Self {
        let body: Vec<u8> = frames.concat();
        self.returns_body(200, content_type, body)
            .answer(|answer| answer.frames = Some(frames))
    }

    /// Answers with `ETag: "<tag>"`, and a request whose `If-None-Match` names it with `304
    /// Not Modified` and no body: the server side of a client's revalidation (`cache:`).
    pub fn etag(self, tag: &str) -> Self {
        let quoted = format!("\"{}\"", tag.replace('"', ""));
        self.answer(|answer| {
            answer.headers.push(("etag".to_owned(), quoted.clone()));
            answer.etag = Some(quoted);
        })
    }

    /// Answers compressed with the first of gzip, br, zstd and deflate the request's
    /// `Accept-Encoding` names (as it is when it names none), with `Content-Encoding`; a
    /// streamed answer is flushed event by event.
    pub fn compressed(self) -> Self {
        self.answer(|answer| answer.compression = Some(Compression::Asked))
    }

    /// Answers compressed with `encoding` whatever the request accepts, as a server that
    /// compresses anyway does.
    pub fn compressed_as(self, encoding: Encoding) -> Self {
        self.answer(|answer| answer.compression = Some(Compression::Always(encoding)))
    }

    /// Adds a response header.
    pub fn header(self, name: &str, value: &str) -> Self {
        let header = (name.to_owned(), value.to_owned());
        self.answer(|answer| answer.headers.push(header))
    }

    /// Answers after `delay`.
    pub fn after(self, delay: Duration) -> Self {
        self.answer(|answer| answer.delay = delay)
    }

    /// Takes the next `n` matching requests, then no more.
    pub fn times(self, n: u32) -> Self {
        self.edit(|rule| rule.remaining = Some(n))
    }

    /// Must have taken exactly `n` requests when the stub is dropped (else the drop panics).
    pub fn expect(self, n: u32) -> Self {
        self.edit(|rule| rule.expected = Some(n))
    }
}

/// Faults to add, for one operation or all; each is a rule of its own (`times`, `with_*`).
#[derive(Debug)]
pub struct Faults<'a> {
    pub(super) stub: &'a Stub,
    pub(super) operation: Option<&'static MethodSpec>,
}

impl<'a> Faults<'a> {
    fn fault(self, fault: Fault) -> Stubbing<'a> {
        self.stub.rule(self.operation, Does::Fault(fault))
    }

    /// Answers `status` (with `.times(n)`: the next `n` requests).
    pub fn fail(self, status: impl IntoStatus) -> Stubbing<'a> {
        self.fault(Fault::Status(status.code()))
    }

    /// Answers `status` to a share `rate` (0–1) of requests, drawn from the seed.
    pub fn fail_rate(self, rate: f64, status: impl IntoStatus) -> Stubbing<'a> {
        let status = status.code();
        self.fault(Fault::Rate { status, rate })
    }

    /// Waits before answering: half the requests under `p50`, 99 % under `p99`, drawn from the
    /// seed.
    pub fn latency(self, p50: Duration, p99: Duration) -> Stubbing<'a> {
        self.fault(Fault::Latency { p50, p99 })
    }

    /// Resets the connection instead of answering.
    pub fn reset_connection(self) -> Stubbing<'a> {
        self.fault(Fault::Reset)
    }

    /// Sends the answer's body `chunk` bytes at a time, `every` apart.
    pub fn slow_body(self, chunk: usize, every: Duration) -> Stubbing<'a> {
        self.fault(Fault::SlowBody { chunk, every })
    }

    /// Answers `status` with `Retry-After` (whole seconds, rounded up).
    pub fn retry_after(self, status: impl IntoStatus, after: Duration) -> Stubbing<'a> {
        let status = status.code();
        self.fault(Fault::RetryAfter { status, after })
    }

    /// Never answers: the client's own timeout ends the attempt.
    pub fn stall(self) -> Stubbing<'a> {
        self.fault(Fault::Stall)
    }

    /// Sends a streamed answer's events `every` apart.
    pub fn slow_events(self, every: Duration) -> Stubbing<'a> {
        self.fault(Fault::SlowEvents(every))
    }

    /// Breaks a streamed answer off after `n` events: the connection fails mid-body (with
    /// `.times(1)`, the client's resumption gets the whole answer).
    pub fn cut_after(self, n: usize) -> Stubbing<'a> {
        self.fault(Fault::CutAfter(n))
    }

    /// Goes silent after `n` events of a streamed answer, the connection left open (the
    /// client's `timeout.idle` ends it).
    pub fn stall_after(self, n: usize) -> Stubbing<'a> {
        self.fault(Fault::StallAfter(n))
    }
}

/// A status the stub answers with: a number (`fail(503)`) or the `StatusCode` that
/// [`crate::error::Error::status`] gives (`fail(StatusCode::SERVICE_UNAVAILABLE)`), so a test states and
/// compares statuses in one type.
pub trait IntoStatus {
    /// The status's number.
    fn code(self) -> u16;
}

impl IntoStatus for u16 {
    fn code(self) -> u16 {
        self
    }
}

impl IntoStatus for reqwest::StatusCode {
    fn code(self) -> u16 {
        self.as_u16()
    }
}

//! A stub of a client's API for the tests of the code that calls it (feature `stub`): a server
//! on a free loopback port that answers each operation as a test tells it, injects faults
//! (failures, a failure rate, latency, a reset connection, a slow body, `Retry-After`, a stall),
//! deterministic from a seed, and records every request. A generated `<Client>Stub` is a typed
//! layer over it; this is its untyped core, usable on its own with a client's `MethodSpec`s.
//!
//! Rules are kept in the order they are made. A request of an operation takes every fault rule
//! that matches it and the first answer rule that does; a request no answer rule matches (and no
//! fault answers) gets 501 with what the closest rule wanted. `expect(n)` is checked when the
//! stub is dropped.

mod compress;
mod faults;
mod frames;
mod running;
// Counted by the server, which only the `stub` feature builds.
#[cfg_attr(not(feature = "stub"), allow(dead_code))]
mod quota;
mod rules;
#[cfg(feature = "stub")]
mod server;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;

use compress::Compression;
pub use compress::Encoding;
use faults::Fault;
pub use frames::{json_event, json_line, text_event, text_line};
use frames::{line_frames, sse_frame};
pub use rules::Recorded;
use rules::{Answer, Does, Part, Rule};
pub use running::METHOD_HEADER;
#[cfg(feature = "stub")]
pub(crate) use running::name_the_method;

use crate::spec::{ClientSpec, MethodSpec};

/// A running stub of one client's API; it stops when dropped.
pub struct Stub {
    shared: Arc<Shared>,
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

struct Shared {
    spec: &'static ClientSpec,
    /// Whether a request is what the spec describes (a generated stub's decoding).
    #[cfg_attr(not(feature = "stub"), allow(dead_code))]
    check: Option<Check>,
    state: Mutex<State>,
    /// Accepts that failed (out of file descriptors): each is followed by a pause.
    #[cfg_attr(not(feature = "stub"), allow(dead_code))]
    accept_failures: std::sync::atomic::AtomicU64,
}

/// Reads a received request as the spec's types; the error says what does not fit.
pub type Check = fn(&Recorded) -> Result<(), String>;

struct State {
    rules: Vec<Rule>,
    recorded: Vec<Recorded>,
    /// Requests the check refused, with why: each fails the test when the stub is dropped.
    refused: Vec<String>,
    rng: fastrand::Rng,
    /// How much of each request body is recorded.
    #[cfg_attr(not(feature = "stub"), allow(dead_code))]
    keep_body_bytes: usize,
    /// The quota the stub announces, if a test set one.
    quota: Option<quota::StubQuota>,
    /// Quotas of some operations each (their names), announced on their answers only.
    route_quotas: Vec<(Vec<String>, quota::StubQuota)>,
}

/// How much of each request body a stub records unless told otherwise.
pub const KEEP_BODY_BYTES: usize = 1 << 20;

impl std::fmt::Debug for Stub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stub")
            .field("client", &self.shared.spec.name)
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// Why a stub cannot start without the `stub` feature.
const MISSING_FEATURE: &str = "a stub needs the `stub` feature of remcall: add `remcall = { version = \"…\", features = [\"stub\"] }` to [dev-dependencies]";

/// The error every stub of a test binary without the `stub` feature gives: its message is said
/// once on stderr as written, and the error's `Debug` (what a test's `unwrap()` prints) is that
/// text too, not an escaped string in an `io::Error`'s fields.
fn missing_feature() -> std::io::Error {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| eprintln!("error: {MISSING_FEATURE}"));
    std::io::Error::other(MissingFeature)
}

struct MissingFeature;

impl std::fmt::Display for MissingFeature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(MISSING_FEATURE)
    }
}

impl std::fmt::Debug for MissingFeature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for MissingFeature {}

impl Stub {
    /// Starts a stub of `spec`'s API on a free port of 127.0.0.1, with seed 0.
    ///
    /// Without the runtime's `stub` feature there is no server: this fails, saying so (a
    /// generated stub compiles either way, and works in the tests that turn the feature on).
    pub async fn start(spec: &'static ClientSpec) -> std::io::Result<Stub> {
        Stub::start_checked(spec, None).await
    }

    /// [`Stub::start`], reading each request with `check` first: one that does not fit the
    /// spec is answered 400 with the reason, and fails the test when the stub is dropped.
    pub async fn start_checked(
        spec: &'static ClientSpec,
        check: Option<Check>,
    ) -> std::io::Result<Stub> {
        if cfg!(not(feature = "stub")) {
            return Err(missing_feature());
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        running::started(addr);
        let shared = Arc::new(Shared {
            spec,
            check,
            state: Mutex::new(State {
                rules: Vec::new(),
                recorded: Vec::new(),
                refused: Vec::new(),
                rng: fastrand::Rng::with_seed(0),
                keep_body_bytes: KEEP_BODY_BYTES,
                quota: None,
                route_quotas: Vec::new(),
            }),
            accept_failures: Default::default(),
        });
        #[cfg(feature = "stub")]
        let task = tokio::spawn(server::accept(listener, shared.clone()));
        #[cfg(not(feature = "stub"))]
        let task = tokio::spawn(async move { drop(listener) });
        Ok(Stub { shared, addr, task })
    }

    /// The base URL a client of the stubbed API is built with.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Records at most the first `bytes` of each request body ([`KEEP_BODY_BYTES`], 1 MiB,
    /// unless told): a test that uploads more and reads the upload back raises it. A cut body
    /// says so when read as JSON, a form or text.
    pub fn keep_body_bytes(&self, bytes: usize) {
        self.state().keep_body_bytes = bytes;
    }

    /// Accepts that failed so far, each followed by a pause (remcall's own tests).
    #[doc(hidden)]
    pub fn accept_failures(&self) -> u64 {
        self.shared
            .accept_failures
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Seeds the random faults (`fail_rate`, `latency`): the same seed, the same run.
    pub fn seed(&self, seed: u64) {
        self.state().rng = fastrand::Rng::with_seed(seed);
    }

    /// Announces a quota of `limit` calls per `window` on every answer (`X-RateLimit-Limit`,
    /// `-Remaining`, `-Reset`), and answers a call past it 429 with `Retry-After`, as a rate
    /// limited API does: [`Stub::quota_refusals`] then says whether the client kept under it.
    pub fn announce_quota(&self, limit: u64, window: Duration) {
        self.state().quota = Some(quota::StubQuota::new(
            limit,
            window,
            tokio::time::Instant::now(),
        ));
    }

    /// Announces a quota named `name` of `limit` calls per `window` on the answers of the
    /// `operations` named (`X-RateLimit-Resource: name` besides), counted apart from any other
    /// quota, as an API with a bucket per route does (a code host's `core` and `search`).
    pub fn announce_quota_of(&self, operations: &[&str], name: &str, limit: u64, window: Duration) {
        let quota = quota::StubQuota::new(limit, window, tokio::time::Instant::now()).named(name);
        let operations = operations.iter().map(|o| (*o).to_owned()).collect();
        self.state().route_quotas.push((operations, quota));
    }

    /// The calls the announced quotas refused (429): 0 for a client that paces by them.
    pub fn quota_refusals(&self) -> u64 {
        let state = self.state();
        state.quota.as_ref().map_or(0, |q| q.refused)
            + state
                .route_quotas
                .iter()
                .map(|(_, q)| q.refused)
                .sum::<u64>()
    }

    /// A new rule for `operation`: it answers 200 with no body until told otherwise.
    pub fn on(&self, operation: &'static MethodSpec) -> Stubbing<'_> {
        self.rule(Some(operation), Does::Answer(Answer::default()))
    }

    /// `operation`, for a rule made by the first matcher or answer given (none until then),
    /// its faults and its recorded calls: what a generated stub's `stub.get_user()` is.
    pub fn operation(&self, operation: &'static MethodSpec) -> Stubbing<'_> {
        Stubbing {
            stub: self,
            operation: Some(operation),
            index: None,
        }
    }

    /// Faults for every operation (`stub.all().fail(503).times(2)`).
    pub fn all(&self) -> Faults<'_> {
        Faults {
            stub: self,
            operation: None,
        }
    }

    /// Faults for `operation` alone.
    pub fn faults(&self, operation: &'static MethodSpec) -> Faults<'_> {
        Faults {
            stub: self,
            operation: Some(operation),
        }
    }

    /// The requests `operation` received, in order.
    pub fn calls(&self, operation: &'static MethodSpec) -> Vec<Recorded> {
        self.state()
            .recorded
            .iter()
            .filter(|r| r.index == operation.index)
            .cloned()
            .collect()
    }

    fn rule(&self, operation: Option<&'static MethodSpec>, does: Does) -> Stubbing<'_> {
        let mut state = self.state();
        state.rules.push(Rule::new(operation, does));
        Stubbing {
            stub: self,
            operation,
            index: Some(state.rules.len() - 1),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared.state()
    }
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.task.abort();
        running::stopped(self.addr);
        if std::thread::panicking() {
            return;
        }
        let state = self.state();
        let mut unmet: Vec<String> = state
            .rules
            .iter()
            .filter(|rule| rule.expected.is_some_and(|n| n != rule.matched))
            .map(|rule| {
                format!(
                    "`{}` expected {} call(s), got {}",
                    rule.operation.map_or("every operation", |o| o.name),
                    rule.expected.unwrap_or_default(),
                    rule.matched
                )
            })
            .collect();
        unmet.extend(
            state
                .refused
                .iter()
                .map(|why| format!("a request that does not fit the spec: {why}")),
        );
        drop(state);
        assert!(
            unmet.is_empty(),
            "{} stub: {}",
            self.shared.spec.name,
            unmet.join("; ")
        );
    }
}

/// A rule being written: where it matches, what it answers, how often. From
/// [`Stub::operation`], the rule is made by the first of these calls.
#[derive(Debug)]
pub struct Stubbing<'a> {
    stub: &'a Stub,
    /// `None`: every operation's (`Stub::all`).
    operation: Option<&'static MethodSpec>,
    index: Option<usize>,
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
    pub fn returns_json_status<T: serde::Serialize>(self, status: u16, value: &T) -> Self {
        let body = serde_json::to_vec(value).unwrap_or_default();
        self.returns_body(status, "application/json", body)
    }

    /// Answers `status` with no body.
    pub fn returns_status(self, status: u16) -> Self {
        self.answer(|answer| answer.status = status)
    }

    /// Answers `status` with `body` of `content_type`.
    pub fn returns_body(self, status: u16, content_type: &str, body: impl Into<Bytes>) -> Self {
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
    /// [`Event::event`](crate::stream::Event) has none) and data: [`json_event`], [`text_event`] or a
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
    /// [`json_line`] or [`text_line`].
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
    stub: &'a Stub,
    operation: Option<&'static MethodSpec>,
}

impl<'a> Faults<'a> {
    fn fault(self, fault: Fault) -> Stubbing<'a> {
        self.stub.rule(self.operation, Does::Fault(fault))
    }

    /// Answers `status` (with `.times(n)`: the next `n` requests).
    pub fn fail(self, status: u16) -> Stubbing<'a> {
        self.fault(Fault::Status(status))
    }

    /// Answers `status` to a share `rate` (0–1) of requests, drawn from the seed.
    pub fn fail_rate(self, rate: f64, status: u16) -> Stubbing<'a> {
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
    pub fn retry_after(self, status: u16, after: Duration) -> Stubbing<'a> {
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

/// An event as a server writes it: `event:`, `id:` and `retry:` when set, one `data:` line a
/// line of its data, a blank line. A line break in the name or id would end its field early,
/// so it is written as a space.
/// A request an operation received, read as the spec's types: what a generated
/// `<Method>Received` is, and what [`Stubbing::calls_as`] and the stub's check read.
pub trait Received: Sized {
    /// Reads `raw` as the spec's types; the error says what does not fit.
    fn decode(raw: &Recorded) -> Result<Self, String>;
}

#[cfg(test)]
mod tests {
    #[test]
    fn without_the_feature_the_error_reads_plainly_in_a_failed_unwrap() {
        let error = super::missing_feature();
        let shown = format!("{error:?}");
        assert!(shown.contains(super::MISSING_FEATURE), "{shown}");
        assert!(!shown.contains('\\'), "escaped: {shown}");
        assert_eq!(error.to_string(), super::MISSING_FEATURE);
    }
}

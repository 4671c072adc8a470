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

mod faults;
mod rules;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;

use faults::{Decided, Fault};
pub use rules::Recorded;
use rules::{Answer, Does, Part, Rule};

use crate::spec::{ClientSpec, MethodSpec};

/// The largest request body a stub reads.
const MAX_BODY: usize = 16 << 20;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// A running stub of one client's API; it stops when dropped.
pub struct Stub {
    shared: Arc<Shared>,
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

struct Shared {
    spec: &'static ClientSpec,
    state: Mutex<State>,
}

struct State {
    rules: Vec<Rule>,
    recorded: Vec<Recorded>,
    rng: fastrand::Rng,
}

impl std::fmt::Debug for Stub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stub")
            .field("client", &self.shared.spec.name)
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Stub {
    /// Starts a stub of `spec`'s API on a free port of 127.0.0.1, with seed 0.
    pub async fn start(spec: &'static ClientSpec) -> std::io::Result<Stub> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            spec,
            state: Mutex::new(State {
                rules: Vec::new(),
                recorded: Vec::new(),
                rng: fastrand::Rng::with_seed(0),
            }),
        });
        let task = tokio::spawn(accept(listener, shared.clone()));
        Ok(Stub { shared, addr, task })
    }

    /// The base URL a client of the stubbed API is built with.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Seeds the random faults (`fail_rate`, `latency`): the same seed, the same run.
    pub fn seed(&self, seed: u64) {
        self.state().rng = fastrand::Rng::with_seed(seed);
    }

    /// A new rule for `operation`: it answers 200 with no body until told otherwise.
    pub fn on(&self, operation: &'static MethodSpec) -> Stubbing<'_> {
        self.rule(Some(operation), Does::Answer(Answer::default()))
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
            .filter(|r| r.operation == operation.name)
            .cloned()
            .collect()
    }

    fn rule(&self, operation: Option<&'static MethodSpec>, does: Does) -> Stubbing<'_> {
        let mut state = self.state();
        state.rules.push(Rule::new(operation, does));
        Stubbing {
            stub: self,
            index: state.rules.len() - 1,
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
        if std::thread::panicking() {
            return;
        }
        let state = self.state();
        let unmet: Vec<String> = state
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
        drop(state);
        assert!(
            unmet.is_empty(),
            "{} stub: {}",
            self.shared.spec.name,
            unmet.join("; ")
        );
    }
}

/// A rule being written: where it matches, what it answers, how often.
#[derive(Debug)]
pub struct Stubbing<'a> {
    stub: &'a Stub,
    index: usize,
}

impl Stubbing<'_> {
    fn edit(self, change: impl FnOnce(&mut Rule)) -> Self {
        change(&mut self.stub.state().rules[self.index]);
        self
    }

    fn answer(self, change: impl FnOnce(&mut Answer)) -> Self {
        self.edit(|rule| {
            if let Does::Answer(answer) = &mut rule.does {
                change(answer);
            }
        })
    }

    /// Matches only requests whose path parameter `name` is `value` (as the client writes it).
    pub fn with_path(self, name: &str, value: impl ToString) -> Self {
        let part = Part::Path(name.to_owned());
        self.edit(|rule| rule.matchers.push((part, value.to_string())))
    }

    /// Matches only requests whose query parameter `name` is `value`.
    pub fn with_query(self, name: &str, value: impl ToString) -> Self {
        let part = Part::Query(name.to_owned());
        self.edit(|rule| rule.matchers.push((part, value.to_string())))
    }

    /// Matches only requests whose header `name` is `value`.
    pub fn with_header(self, name: &str, value: impl ToString) -> Self {
        let part = Part::Header(name.to_owned());
        self.edit(|rule| rule.matchers.push((part, value.to_string())))
    }

    /// Answers 200 with `value` as JSON.
    pub fn returns_json<T: serde::Serialize>(self, value: &T) -> Self {
        let body = serde_json::to_vec(value).unwrap_or_default();
        self.returns_body(200, "application/json", body)
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
}

async fn accept(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        // A second handle on the socket, to make its close a reset when a fault asks for one.
        let Ok(std_stream) = stream.into_std() else {
            continue;
        };
        let socket = std_stream.try_clone().ok().map(Arc::new);
        let Ok(stream) = tokio::net::TcpStream::from_std(std_stream) else {
            continue;
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                handle(shared.clone(), socket.clone(), request)
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}

/// Why the connection closes without an answer.
#[derive(Debug)]
struct Reset;

impl std::fmt::Display for Reset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection reset by the stub")
    }
}

impl std::error::Error for Reset {}

async fn handle(
    shared: Arc<Shared>,
    socket: Option<Arc<std::net::TcpStream>>,
    request: hyper::Request<hyper::body::Incoming>,
) -> Result<hyper::Response<Body>, Reset> {
    let (parts, body) = request.into_parts();
    let body = match http_body_util::Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return Ok(plain(413, "the request body is larger than the stub reads")),
    };
    let Some((operation, recorded)) = recognise(shared.spec, &parts, body) else {
        let message = format!(
            "no operation of {} is `{} {}`",
            shared.spec.name,
            parts.method,
            parts.uri.path()
        );
        return Ok(plain(501, &message));
    };
    let (answer, decided) = {
        let mut state = shared.state();
        state.recorded.push(recorded.clone());
        choose(&mut state, operation, &recorded)
    };
    tokio::time::sleep(decided.delay + answer.as_ref().map_or(Duration::ZERO, |a| a.delay)).await;
    if decided.stall {
        std::future::pending::<()>().await;
    }
    if decided.reset {
        if let Some(socket) = socket {
            let _ = socket2::SockRef::from(&*socket).set_linger(Some(Duration::ZERO));
        }
        return Err(Reset);
    }
    Ok(respond(operation, answer, &decided))
}

/// The operation a request is for and the request as recorded, or `None` for a path or
/// method of no operation.
fn recognise(
    spec: &'static ClientSpec,
    parts: &hyper::http::request::Parts,
    body: Bytes,
) -> Option<(&'static MethodSpec, Recorded)> {
    let below = parts.uri.path().strip_prefix(spec.base_path)?;
    let (operation, path_params) = spec.methods.iter().find_map(|method| {
        (method.http_method == parts.method.as_str())
            .then(|| rules::path_params(method.path, below))
            .flatten()
            .map(|params| (*method, params))
    })?;
    let query = parts
        .uri
        .query()
        .map(|q| serde_urlencoded::from_str::<Vec<(String, String)>>(q).unwrap_or_default())
        .unwrap_or_default();
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    Some((
        operation,
        Recorded {
            operation: operation.name,
            method: parts.method.to_string(),
            path: below.to_owned(),
            path_params,
            query,
            headers,
            body,
        },
    ))
}

/// The faults that take this request and the first answer that does; `None` for the answer
/// when no rule gives one (the reason is then in the 501 `respond` writes).
fn choose(
    state: &mut State,
    operation: &'static MethodSpec,
    request: &Recorded,
) -> (Option<Answer>, Decided) {
    let State { rules, rng, .. } = state;
    let mut decided = Decided::default();
    let mut answer = None;
    // Faults first: a request a fault answers (a status, a reset, a stall) is not an answer
    // rule's, and does not count against its `times` or `expect`.
    for rule in rules.iter_mut() {
        if let Does::Fault(fault) = &rule.does
            && rule.mismatch(operation, request).is_none()
        {
            decided.add(fault, rng);
            rule.took_one();
        }
    }
    let answered_by_fault = decided.status.is_some() || decided.reset || decided.stall;
    if !answered_by_fault {
        for rule in rules.iter_mut() {
            if let Does::Answer(given) = &rule.does
                && rule.mismatch(operation, request).is_none()
            {
                answer = Some(given.clone());
                rule.took_one();
                break;
            }
        }
    }
    if answer.is_none() && !answered_by_fault {
        let closest = rules
            .iter()
            .filter(|rule| {
                rule.operation.is_some_and(|o| o.index == operation.index)
                    && matches!(rule.does, Does::Answer(_))
            })
            .find_map(|rule| rule.mismatch(operation, request));
        let message = match closest {
            Some(why) => format!(
                "no stub of `{}` matches: the closest wants {why}",
                operation.name
            ),
            None => format!("no stub of `{}`: add one with `on`", operation.name),
        };
        answer = Some(Answer {
            status: 501,
            headers: vec![("content-type".to_owned(), "text/plain".to_owned())],
            body: Bytes::from(message),
            delay: Duration::ZERO,
        });
    }
    (answer, decided)
}

fn respond(
    operation: &'static MethodSpec,
    answer: Option<Answer>,
    decided: &Decided,
) -> hyper::Response<Body> {
    let mut answer = answer.unwrap_or_default();
    if let Some(status) = decided.status {
        answer = Answer {
            status,
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            body: Bytes::from(format!(
                "{{\"error\":\"a fault of the stub\",\"operation\":\"{}\"}}",
                operation.name
            )),
            delay: Duration::ZERO,
        };
    }
    let mut builder = hyper::Response::builder().status(answer.status);
    for (name, value) in &answer.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    if let Some(after) = decided.retry_after {
        let seconds = after.as_secs() + u64::from(after.subsec_nanos() > 0);
        builder = builder.header("retry-after", seconds.to_string());
    }
    let body = match decided.slow_body {
        Some((chunk, every)) => slow(answer.body, chunk, every),
        None => Full::new(answer.body).boxed(),
    };
    builder
        .body(body)
        .unwrap_or_else(|_| plain(500, "the stub's answer is not valid HTTP"))
}

/// `body` in chunks of `chunk` bytes, `every` apart.
fn slow(body: Bytes, chunk: usize, every: Duration) -> Body {
    let chunks: Vec<Bytes> = (0..body.len())
        .step_by(chunk)
        .map(|start| body.slice(start..(start + chunk).min(body.len())))
        .collect();
    let stream = futures_util::stream::iter(chunks).then(move |piece| async move {
        tokio::time::sleep(every).await;
        Ok::<_, Infallible>(Frame::data(piece))
    });
    BodyExt::boxed(StreamBody::new(stream))
}

fn plain(status: u16, message: &str) -> hyper::Response<Body> {
    let mut response = hyper::Response::new(Full::new(Bytes::from(message.to_owned())).boxed());
    *response.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    response
}

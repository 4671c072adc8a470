//! The stub's server (feature `stub`): one hyper connection per accepted socket, which a reset
//! fault closes with a real reset (RST), the request recognised as an operation and recorded,
//! the rules chosen, faults applied, the answer written.
//!
//! It runs in every test suite of a generated client, next to whatever else the test does, so it
//! holds nothing for a client that stops sending: headers and bodies are read within a deadline,
//! an accept that fails (no file descriptor left) is retried after a pause rather than at once,
//! and a recorded body is a bounded prefix of what was sent.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;

use super::bodies::{Body, Reset, close, compressed, framed, full, plain, slow};
use super::faults::Decided;
use super::rules::Does;
use super::rules::{self, Answer, Recorded};
use super::{Shared, State};
use crate::spec::{ClientSpec, MethodSpec};

/// The largest request body a stub reads.
const MAX_BODY: usize = 16 << 20;

/// How long a client may take to send a request's headers (from the connection's start, or the
/// end of the answer before): a test's client sends them at once.
pub(crate) const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client may take to send a request's body, once its headers are in.
pub(crate) const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The pause after a failed accept, doubled while it keeps failing: out of file descriptors,
/// accept fails at once, and retrying at once would spin a core until one is closed.
const ACCEPT_PAUSE: (Duration, Duration) = (Duration::from_millis(5), Duration::from_secs(1));

/// Serves `shared`'s stub on `listener` until the task is aborted.
/// A stub's listener and the registration of its address, dropped together (the registration
/// first: a field's drop runs in declaration order).
pub(super) struct Listening {
    /// Held for its drop.
    pub(super) _registered: super::running::Registered,
    pub(super) listener: tokio::net::TcpListener,
}

pub(super) async fn accept(listening: Listening, shared: Arc<Shared>) {
    let mut pause = Duration::ZERO;
    let listener = &listening.listener;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                shared.accept_failures.fetch_add(1, Ordering::Relaxed);
                pause = (pause * 2).clamp(ACCEPT_PAUSE.0, ACCEPT_PAUSE.1);
                tokio::time::sleep(pause).await;
                continue;
            }
        };
        pause = Duration::ZERO;
        let _ = stream.set_nodelay(true);
        let reset = Arc::new(AtomicBool::new(false));
        let io = hyper_util::rt::TokioIo::new(Connection {
            stream,
            reset: reset.clone(),
        });
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                handle(shared.clone(), reset.clone(), request)
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(io, service)
                .await;
        });
    }
}

/// An accepted socket, closed with a reset (RST) rather than a FIN when a reset fault marked it:
/// the mark is all a request's handler can reach, since hyper owns the socket.
struct Connection {
    stream: tokio::net::TcpStream,
    reset: Arc<AtomicBool>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        if self.reset.load(Ordering::Relaxed) {
            // A zero linger makes the close that follows a reset.
            let _ = socket2::SockRef::from(&self.stream).set_linger(Some(Duration::ZERO));
        }
    }
}

impl tokio::io::AsyncRead for Connection {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Connection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

async fn handle(
    shared: Arc<Shared>,
    reset: Arc<AtomicBool>,
    request: hyper::Request<hyper::body::Incoming>,
) -> Result<hyper::Response<Body>, Reset> {
    let (parts, body) = request.into_parts();
    let read = http_body_util::Limited::new(body, MAX_BODY).collect();
    let body = match tokio::time::timeout(BODY_READ_TIMEOUT, read).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(_)) => return Ok(plain(413, "the request body is larger than the stub reads")),
        Err(_) => {
            let message = format!(
                "the request body did not arrive within {} s",
                BODY_READ_TIMEOUT.as_secs()
            );
            return Ok(close(plain(408, &message)));
        }
    };
    let Some((operation, mut recorded)) = recognise(shared.spec, &parts, body) else {
        let message = format!(
            "no operation of {} is `{} {}`",
            shared.spec.name,
            parts.method,
            parts.uri.path()
        );
        return Ok(plain(501, &message));
    };
    // The check reads the whole body; what is kept is a bounded prefix.
    let checked = shared.check.map(|check| check(&recorded));
    recorded.keep_body_prefix(shared.state().keep_body_bytes);
    if let Some(Err(why)) = checked {
        let why = format!("`{}`: {why}", operation.name);
        let mut state = shared.state();
        state.recorded.push(recorded);
        state.refused.push(why.clone());
        return Ok(plain(
            400,
            &format!("the request does not fit the spec: {why}"),
        ));
    }
    let (answer, decided, counted) = {
        let mut state = shared.state();
        state.recorded.push(recorded.clone());
        let now = tokio::time::Instant::now();
        let of_route = state
            .route_quotas
            .iter_mut()
            .find(|(operations, _)| operations.iter().any(|o| o == operation.name));
        let counted = match of_route {
            Some((_, quota)) => Some(quota.count(now)),
            None => state.quota.as_mut().map(|quota| quota.count(now)),
        };
        let (answer, decided) = choose(&mut state, operation, &recorded);
        (answer, decided, counted)
    };
    let announced = counted.as_ref().map_or(&[][..], |c| c.headers.as_slice());
    if let Some(after) = counted.as_ref().and_then(|c| c.spent_for) {
        return Ok(spent(announced, after));
    }
    tokio::time::sleep(decided.delay + answer.as_ref().map_or(Duration::ZERO, |a| a.delay)).await;
    if decided.stall {
        std::future::pending::<()>().await;
    }
    if decided.reset {
        reset.store(true, Ordering::Relaxed);
        return Err(Reset);
    }
    if let Some(tag) = named_tag(answer.as_ref(), &recorded) {
        return Ok(not_modified(tag, announced));
    }
    let accept_encoding = recorded.header("accept-encoding");
    Ok(announcing(
        respond(operation, answer, &decided, accept_encoding),
        announced,
    ))
}

/// The answer's entity tag, when the request's `If-None-Match` names it.
fn named_tag<'a>(answer: Option<&'a Answer>, recorded: &Recorded) -> Option<&'a str> {
    let tag = answer?.etag.as_deref()?;
    let named = recorded
        .headers
        .iter()
        .any(|(name, value)| name == "if-none-match" && value.split(',').any(|v| v.trim() == tag));
    named.then_some(tag)
}

/// `response` with the quota's headers.
fn announcing(
    mut response: hyper::Response<Body>,
    announced: &[(String, String)],
) -> hyper::Response<Body> {
    for (name, value) in announced {
        if let (Ok(name), Ok(value)) = (
            hyper::header::HeaderName::from_bytes(name.as_bytes()),
            hyper::header::HeaderValue::from_str(value),
        ) {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

/// The answer of a spent quota: 429, its headers and `Retry-After`.
fn spent(announced: &[(String, String)], after: Duration) -> hyper::Response<Body> {
    let seconds = after.as_secs() + u64::from(after.subsec_nanos() > 0);
    let mut builder = hyper::Response::builder()
        .status(429)
        .header("retry-after", seconds.to_string())
        .header("content-type", "application/json");
    for (name, value) in announced {
        builder = builder.header(name.as_str(), value.as_str());
    }
    builder
        .body(full(Bytes::from_static(
            b"{\"error\":\"the stub's quota is spent\"}",
        )))
        .unwrap_or_else(|_| plain(500, "the stub's answer is not valid HTTP"))
}

/// `304 Not Modified` for a request that names the answer's entity tag.
fn not_modified(tag: &str, announced: &[(String, String)]) -> hyper::Response<Body> {
    let mut builder = hyper::Response::builder().status(304).header("etag", tag);
    for (name, value) in announced {
        builder = builder.header(name.as_str(), value.as_str());
    }
    builder
        .body(full(Bytes::new()))
        .unwrap_or_else(|_| plain(500, "the stub's answer is not valid HTTP"))
}

/// The operation a request is for and the request as recorded, or `None` for a path or
/// method of no operation.
fn recognise(
    spec: &'static ClientSpec,
    parts: &hyper::http::request::Parts,
    body: Bytes,
) -> Option<(&'static MethodSpec, Recorded)> {
    let below = parts.uri.path().strip_prefix(spec.base_path)?;
    // An operation that answers JSON or a stream is two methods of one verb and path (`x` and
    // `x_events`): the request's `Accept` says which was called, as the runtime asks a stream
    // for its media type.
    let wants_stream = parts
        .headers
        .get_all(hyper::header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|accept| {
            [
                "text/event-stream",
                "application/jsonl",
                "application/x-ndjson",
            ]
            .iter()
            .any(|stream| accept.contains(stream))
        });
    let mut matching = spec.methods.iter().filter_map(|method| {
        (method.http_method == parts.method.as_str())
            .then(|| rules::path_params(method.path, below))
            .flatten()
            .map(|params| (*method, params))
    });
    // A client of this process names its method: that settles which of a route's methods
    // was called, whatever else they share.
    let named = parts
        .headers
        .get(super::METHOD_HEADER)
        .and_then(|value| value.to_str().ok());
    let first = matching.next()?;
    let (operation, path_params) = if named.is_some_and(|name| name == first.0.name) {
        first
    } else if let Some(called) =
        named.and_then(|name| matching.clone().find(|(method, _)| method.name == name))
    {
        called
    } else if first.0.streams == wants_stream {
        first
    } else {
        matching
            .find(|(method, _)| method.streams == wants_stream)
            .unwrap_or(first)
    };
    let query = parts
        .uri
        .query()
        .map(|q| serde_urlencoded::from_str::<Vec<(String, String)>>(q).unwrap_or_default())
        .unwrap_or_default();
    // The stub's own header is no part of what the method sent.
    let headers = parts
        .headers
        .iter()
        .filter(|(name, _)| name.as_str() != super::METHOD_HEADER)
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
            index: operation.index,
            method: parts.method.to_string(),
            path: below.to_owned(),
            path_params,
            query,
            headers,
            body_len: body.len(),
            body,
        },
    ))
}

fn respond(
    operation: &'static MethodSpec,
    answer: Option<Answer>,
    decided: &Decided,
    accept_encoding: Option<&str>,
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
            frames: None,
            etag: None,
            compression: None,
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
    let encoding = answer
        .compression
        .and_then(|compression| compression.choose(accept_encoding));
    let (frames, body) = match encoding {
        Some(encoding) => match compressed(encoding, answer.frames, answer.body) {
            Ok(compressed) => {
                builder = builder.header("content-encoding", encoding.name());
                compressed
            }
            Err(error) => {
                let message = format!("the stub could not compress its answer: {error}");
                return plain(500, &message);
            }
        },
        None => (answer.frames, answer.body),
    };
    let body = match (frames, decided.slow_body) {
        (Some(frames), _) => framed(frames, &decided.between),
        (None, Some((chunk, every))) => slow(body, chunk, every),
        (None, None) => full(body),
    };
    builder
        .body(body)
        .unwrap_or_else(|_| plain(500, "the stub's answer is not valid HTTP"))
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
            None => format!(
                "no stub of `{}`: give it an answer (`stub.{}().returns(..)`, or `on` on the untyped stub)",
                operation.name, operation.name
            ),
        };
        answer = Some(Answer {
            status: 501,
            headers: vec![("content-type".to_owned(), "text/plain".to_owned())],
            body: Bytes::from(message),
            delay: Duration::ZERO,
            frames: None,
            etag: None,
            compression: None,
        });
    }
    (answer, decided)
}

//! One loopback test server for the whole workspace, with the faults tests need.
//!
//! `Server::start(router)` serves an axum router on 127.0.0.1 and records every request it
//! receives (method, raw URI, headers, body), so tests can assert on what went over the wire.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::HeaderMap;
use axum::middleware::{self, Next};
use axum::response::Response;

pub mod hostile;
pub mod logs;
pub mod quota;
pub mod redis;
pub mod tls;

/// A request as the server received it.
#[derive(Clone, Debug)]
pub struct Received {
    /// `GET`, `POST`, …
    pub method: String,
    /// The raw path and query, exactly as sent (`/users/a%2Fb?tag=x&tag=y`).
    pub uri: String,
    /// The headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Bytes,
}

/// A running loopback server; stops when dropped.
#[derive(Debug)]
pub struct Server {
    scheme: &'static str,
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Server {
    /// Serves `router` on an ephemeral loopback port.
    pub async fn start(router: Router) -> Server {
        Server::start_on(router, "127.0.0.1:0".parse().expect("loopback address")).await
    }

    /// Serves `router` on `addr` (a loopback address): to bring back a stopped server on its port.
    pub async fn start_on(router: Router, addr: SocketAddr) -> Server {
        let received = Arc::new(Mutex::new(Vec::new()));
        let router = recording(router, received.clone());
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Server {
            scheme: "http",
            addr,
            received,
            task,
            stop: Some(stop),
        }
    }

    /// Serves `router` over TLS with `config` on an ephemeral loopback port; its URL names
    /// `localhost`, the name the test certificates carry. Failed handshakes are dropped.
    pub async fn start_tls(router: Router, config: Arc<rustls::ServerConfig>) -> Server {
        let received = Arc::new(Mutex::new(Vec::new()));
        let router = recording(router, received.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let acceptor = tokio_rustls::TlsAcceptor::from(config);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (acceptor, router) = (acceptor.clone(), router.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(stream).await else {
                        return;
                    };
                    let service = hyper_util::service::TowerToHyperService::new(router);
                    let _ = hyper_util::server::conn::auto::Builder::new(
                        hyper_util::rt::TokioExecutor::new(),
                    )
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                    .await;
                });
            }
        });
        Server {
            scheme: "https",
            addr,
            received,
            task,
            stop: None,
        }
    }

    /// Stops accepting, closes idle keep-alive connections and waits until the server is gone:
    /// afterwards connecting to its port is refused.
    pub async fn stop(mut self) -> SocketAddr {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), &mut self.task).await;
        self.addr
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, or `https://localhost:PORT` for a TLS server.
    pub fn url(&self) -> String {
        match self.scheme {
            "https" => format!("https://localhost:{}", self.addr.port()),
            _ => format!("http://{}", self.addr),
        }
    }

    /// Every request received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn recording(router: Router, log: Arc<Mutex<Vec<Received>>>) -> Router {
    router.layer(middleware::from_fn(move |request: Request, next: Next| {
        let log = log.clone();
        async move { record(log, request, next).await }
    }))
}

async fn record(log: Arc<Mutex<Vec<Received>>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 64 << 20)
        .await
        .unwrap_or_default();
    if let Ok(mut log) = log.lock() {
        log.push(Received {
            method: parts.method.to_string(),
            uri: parts.uri.to_string(),
            headers: parts.headers.clone(),
            body: body.clone(),
        });
    }
    next.run(Request::from_parts(parts, Body::from(body))).await
}

/// A loopback URL where nothing listens: connecting is refused.
pub async fn refused_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    drop(listener);
    format!("http://{addr}")
}

/// A response body that streams `total` bytes in 64 KiB chunks, without a Content-Length, so a
/// client cannot refuse it up front and must count as it reads.
pub fn endless_body(total: usize) -> Body {
    let chunk = Bytes::from(vec![b'x'; 64 << 10]);
    let count = total.div_ceil(chunk.len());
    let chunks = std::iter::repeat_n(chunk, count).map(Ok::<_, std::io::Error>);
    Body::from_stream(futures_util::stream::iter(chunks))
}

/// A body sent in `parts`, with `gap` between them, so the client reads several chunks.
pub fn chunked_body(parts: Vec<&'static str>, gap: Duration) -> Body {
    let stream = futures_util::stream::unfold(parts.into_iter(), move |mut parts| async move {
        let part = parts.next()?;
        tokio::time::sleep(gap).await;
        Some((
            Ok::<_, std::io::Error>(Bytes::from_static(part.as_bytes())),
            parts,
        ))
    });
    Body::from_stream(stream)
}

/// A body that sends `parts` a few milliseconds apart (so the headers and the first part are on
/// the wire), then breaks off: the server aborts the response mid-body.
pub fn broken_body(parts: Vec<&'static str>) -> Body {
    let items: Vec<std::io::Result<Bytes>> = parts
        .into_iter()
        .map(|part| Ok(Bytes::from_static(part.as_bytes())))
        .chain(std::iter::once(Err(std::io::Error::other(
            "the server broke off",
        ))))
        .collect();
    let stream = futures_util::stream::unfold(items.into_iter(), |mut items| async move {
        let item = items.next()?;
        tokio::time::sleep(Duration::from_millis(20)).await;
        Some((item, items))
    });
    Body::from_stream(stream)
}

/// Sleeps, then answers: a slow downstream.
pub async fn slow<T>(delay: Duration, answer: T) -> T {
    tokio::time::sleep(delay).await;
    answer
}

/// A user service (`/v1/api/users/{id}`, answering `{"id": 1, "name": "Ada"}`) whose status the
/// test sets, counting the requests it gets: the resilience tests' downstream.
#[derive(Debug)]
pub struct Flaky {
    /// The running service.
    pub server: Server,
    /// The status every request gets (200 to start with).
    pub status: Arc<std::sync::atomic::AtomicU16>,
    /// Requests received.
    pub hits: Arc<std::sync::atomic::AtomicUsize>,
}

impl Flaky {
    /// Starts the service on a free loopback port.
    pub async fn start() -> Flaky {
        use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
        let status = Arc::new(AtomicU16::new(200));
        let hits = Arc::new(AtomicUsize::new(0));
        let (s, h) = (status.clone(), hits.clone());
        let router = Router::new().route(
            "/v1/api/users/{id}",
            axum::routing::any(move || {
                let (s, h) = (s.clone(), h.clone());
                async move {
                    h.fetch_add(1, Ordering::SeqCst);
                    let code = axum::http::StatusCode::from_u16(s.load(Ordering::SeqCst))
                        .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
                    (
                        code,
                        [("content-type", "application/json")],
                        r#"{"id": 1, "name": "Ada"}"#,
                    )
                }
            }),
        );
        Flaky {
            server: Server::start(router).await,
            status,
            hits,
        }
    }
}

/// The message `work` panics with (a `String` or `&str` payload), or `None` when it does not
/// panic: for a test that something fails loudly (a stub's unmet expectation, dropped).
pub fn panic_message(work: impl FnOnce()) -> Option<String> {
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).err()?;
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
}

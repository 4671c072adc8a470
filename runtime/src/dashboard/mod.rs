//! A live dashboard for a service's clients (feature `dashboard`): one self-contained page (no
//! CDN, no external font or script: it works in an air-gapped cluster) with, per method, a health
//! circle (size: calls a second, colour: failures, amber when a fallback answered them), the breaker's state, sparklines of the last
//! two minutes and the adaptive limit; beside it `/stats.json` and `/metrics` in the Prometheus
//! text format, both from the clients' statistics, the one source of truth.
//!
//! ```no_run
//! # async fn run(users: remcall::__codegen::Client) -> std::io::Result<()> {
//! use remcall::Observe;
//! // A page of its own on 127.0.0.1:9900 (port 0: any free one; `dashboard.addr()` says which) …
//! let dashboard = remcall::dashboard::serve("127.0.0.1:9900", vec![users.observe()]).await?;
//! println!("dashboard: {}", dashboard.url());
//! // … or mounted in the service's own axum router, whatever its state, at `/remcall` and
//! // `/remcall/` alike.
//! #[derive(Clone)]
//! struct AppState;
//! let app: axum::Router<AppState> = axum::Router::new();
//! let app: axum::Router = remcall::dashboard::mount(app, "/remcall", vec![users.observe()]).with_state(AppState);
//! # let _ = app;
//! # Ok(()) }
//! ```
//!
//! Clients are held weakly: a client dropped while its page is open disappears from it. The
//! routes answer GET only (anything else: 405). Served on its own, the page answers only a
//! `Host` that names its address (421 otherwise: no DNS rebinding).

mod host;
mod watched;

pub use watched::Watched;

use std::sync::Arc;

use axum::Router;
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use serde_json::{Value, json};

use crate::client::Observer;

const PAGE: &str = include_str!("page.html");

/// The routes: `/` (the page), `/stats.json`, `/metrics`; for a router of any state (they use
/// none). To put them under a path of an app, [`mount`] does it, the path's trailing slash
/// included.
pub fn router<S: Clone + Send + Sync + 'static>(watched: impl Into<Watched>) -> Router<S> {
    let clients = Arc::new(watched.into());
    let json_clients = clients.clone();
    let metric_clients = clients.clone();
    Router::new()
        .route(
            "/",
            get({
                let clients = clients.clone();
                move || {
                    let clients = clients.clone();
                    async move {
                        (
                            [(header::CACHE_CONTROL, "no-store")],
                            Html(page(&snapshot_of(&clients, View::Whole))),
                        )
                    }
                }
            }),
        )
        .route(
            "/stats.json",
            get(
                move |axum::extract::RawQuery(query): axum::extract::RawQuery| {
                    let clients = json_clients.clone();
                    async move {
                        let view = match query.as_deref() {
                            Some("view=changes") => View::Changes,
                            _ => View::Whole,
                        };
                        (
                            [(header::CACHE_CONTROL, "no-store")],
                            axum::Json(snapshot_of(&clients, view)),
                        )
                    }
                },
            ),
        )
        .route(
            "/metrics",
            get(move || {
                let clients = metric_clients.clone();
                async move {
                    (
                        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
                        clients.metrics(),
                    )
                        .into_response()
                }
            }),
        )
}

/// `app` with the dashboard's routes under `path` (`"/remcall"`): the page at `/remcall` and at
/// `/remcall/` (redirected), `/remcall/stats.json`, `/remcall/metrics`.
pub fn mount<S: Clone + Send + Sync + 'static>(
    app: Router<S>,
    path: &str,
    clients: impl Into<Watched>,
) -> Router<S> {
    let path = path.trim_end_matches('/').to_owned();
    let with_slash = format!("{path}/");
    let to = path.clone();
    app.nest(&path, router(clients)).route(
        &with_slash,
        get(move || {
            let to = to.clone();
            async move { axum::response::Redirect::permanent(&to) }
        }),
    )
}

/// The page with `figures` in it, so it shows them as it loads rather than a waiting page. In
/// a script element of JSON, `<` is written `\u003c`: no name can close the element.
fn page(figures: &Value) -> String {
    let json = figures.to_string().replace('<', "\\u003c");
    PAGE.replacen("{\"clients\":[]}", &json, 1)
}

/// Serves [`router`] on `addr` (`"127.0.0.1:9900"`, a `SocketAddr`, port 0 for any free one)
/// in a task of its own, answering only the names of its address (see [`serve_listener`]).
/// Returns once it is bound: [`Serving::addr`] is where. Bind to `127.0.0.1` unless the page
/// should be reachable from other hosts: that is the caller's choice, written in `addr`.
pub async fn serve(
    addr: impl tokio::net::ToSocketAddrs,
    clients: impl Into<Watched>,
) -> std::io::Result<Serving> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(serve_listener(listener, clients, &[]));
    Ok(Serving { addr, task })
}

/// A dashboard being served by [`serve`]: it runs until [`Serving::stop`] or the runtime ends
/// (dropping this leaves it running).
#[derive(Debug)]
pub struct Serving {
    addr: std::net::SocketAddr,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Serving {
    /// The address it is bound to: the port chosen when `addr` asked for port 0.
    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr
    }

    /// The page's URL, `http://<addr>/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Stops serving.
    pub fn stop(self) {
        self.task.abort();
    }
}

/// Serves [`router`] on `listener` until the future is dropped, answering only requests whose
/// `Host` names this server: an IP address, `localhost` when the listener is on a loopback or
/// every address, or one of `hosts` (the names it is reached by, e.g. `dash.internal`); any
/// other gets 421 Misdirected Request. So a web page elsewhere that points a domain of its own
/// at this address (DNS rebinding) cannot read the figures through the viewer's browser. The
/// future borrows nothing: `tokio::spawn` it.
pub fn serve_listener(
    listener: tokio::net::TcpListener,
    clients: impl Into<Watched>,
    hosts: &[&str],
) -> impl std::future::Future<Output = std::io::Result<()>> + Send + 'static {
    let clients = clients.into();
    let names: Arc<Vec<String>> = Arc::new(hosts.iter().map(|h| (*h).to_owned()).collect());
    async move {
        let bound = listener.local_addr()?.ip();
        let app = router::<()>(clients).layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let names = names.clone();
                async move {
                    let host = request
                        .headers()
                        .get(header::HOST)
                        .and_then(|h| h.to_str().ok());
                    if host::allowed(host, bound, &names) {
                        next.run(request).await
                    } else {
                        (
                            axum::http::StatusCode::MISDIRECTED_REQUEST,
                            "this dashboard answers only the names of its own address",
                        )
                            .into_response()
                    }
                }
            },
        ));
        axum::serve(listener, app).await
    }
}

/// `/stats.json`: each living client's statistics, and each used method's last two minutes.
///
/// ```json
/// { "clients": [ { "client": "UserClient",
///     "methods": { "get_user": { "calls": 10, "...": "as remcall::MethodStats",
///                                "last_10s": { "calls": 4, "errors": 0, "fallbacks": 0, "retries": 0, "hedges": 0, "short_circuited": 0, "events": 0, "streams_broken": 0, "resumes": 0, "p99_ms": 2.3 },
///                                "history": [ { "calls": 1, "errors": 0, "fallbacks": 0, "retries": 0, "hedges": 0, "short_circuited": 0, "p99_ms": 1.4 } ] } },
///     "endpoints": [ { "url": "http://…", "in_flight": 0, "ejected": false } ] } ] }
/// ```
///
/// `history` holds 120 seconds, oldest first; a method never called has none.
pub fn snapshot(clients: &[Observer]) -> Value {
    snapshot_of(&Watched::from(clients.to_vec()), View::Whole)
}

/// The last seconds of each history a changes view sends: a page whose asks come late (a busy
/// browser, a slow network) still fills its two minutes without a gap.
const CHANGED_SECONDS: usize = 5;

/// What a `/stats.json` answer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    /// Every method, each with its two minutes: the page's first figures, and any reader's.
    Whole,
    /// `?view=changes`, what the page asks each second: the methods used so far, each with
    /// its last few seconds only (the page keeps the two minutes), and how many methods the
    /// client has in all. A client of a thousand methods, ten of them used, costs the page ten cards'
    /// worth a second, not a thousand.
    Changes,
}

fn snapshot_of(watched: &Watched, view: View) -> Value {
    let living: Vec<Value> = watched
        .clients
        .iter()
        .filter_map(|observer| {
            let stats = match view {
                View::Whole => observer.stats_all()?,
                View::Changes => observer.stats()?,
            };
            let history = observer.history().unwrap_or_default();
            let mut value = serde_json::to_value(&stats).ok()?;
            if view == View::Changes {
                value["methods_in_all"] = observer.method_count()?.into();
            }
            // The second (of the Unix clock) the histories end with: what lets the page lay
            // a few last seconds over the two minutes it keeps, however its asks fall.
            value["history_end"] = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
                .into();
            if let Some(methods) = value.get_mut("methods").and_then(Value::as_object_mut) {
                for (name, series) in history {
                    let Some(method) = methods.get_mut(name).and_then(Value::as_object_mut) else {
                        continue;
                    };
                    let recent = &series[series.len().saturating_sub(10)..];
                    let sum = |f: fn(&crate::observe::history::Second) -> u32| -> u32 {
                        recent.iter().map(f).sum()
                    };
                    let p99 = recent.iter().map(|s| s.p99_ms).fold(0.0, f64::max);
                    method.insert(
                        "last_10s".into(),
                        json!({
                            "calls": sum(|s| s.calls),
                            "errors": sum(|s| s.errors),
                            "fallbacks": sum(|s| s.fallbacks),
                            "retries": sum(|s| s.retries),
                            "hedges": sum(|s| s.hedges),
                            "short_circuited": sum(|s| s.short_circuited),
                            "events": sum(|s| s.events),
                            "streams_broken": sum(|s| s.streams_broken),
                            "resumes": sum(|s| s.resumes),
                            "p99_ms": p99,
                        }),
                    );
                    let kept = match view {
                        View::Whole => &series[..],
                        View::Changes => &series[series.len().saturating_sub(CHANGED_SECONDS)..],
                    };
                    method.insert(
                        "history".into(),
                        serde_json::to_value(kept).unwrap_or_default(),
                    );
                }
            }
            Some(value)
        })
        .collect();
    let mut figures = match view {
        View::Whole => json!({ "clients": living }),
        View::Changes => json!({ "view": "changes", "clients": living }),
    };
    // A receiver's counts are a few numbers: whole in either view.
    if let Some(webhooks) = watched.webhooks() {
        figures["webhooks"] = webhooks;
    }
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures go into the page inside a JSON script element: no name in them can close it.
    #[test]
    fn figures_in_the_page_cannot_close_their_script_element() {
        let figures = json!({ "clients": [ { "client": "</script><script>alert(1)</script>" } ] });
        let html = page(&figures);
        assert_eq!(
            html.matches("</script>").count(),
            PAGE.matches("</script>").count()
        );
        assert!(html.contains(r"\u003c/script>\u003cscript>alert(1)\u003c/script>"));
        let inside = html
            .split(r#"<script id="figures" type="application/json">"#)
            .nth(1)
            .and_then(|rest| rest.split("</script>").next())
            .unwrap();
        assert_eq!(serde_json::from_str::<Value>(inside).unwrap(), figures);
    }
}

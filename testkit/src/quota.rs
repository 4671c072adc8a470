//! A loopback API that enforces a quota and announces it: a fixed window of `limit` calls,
//! counted by the server, announced in one of the dialects servers speak (the IETF fields,
//! `X-RateLimit-*`, GitHub's with the reset as an epoch second and a 403 when spent). What the
//! quota tests and the quotas bench call against.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// How the server announces its quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `RateLimit-Policy: "window";q=..;w=..` and `RateLimit: "window";r=..;t=..`.
    Ietf,
    /// `X-RateLimit-Limit`, `-Remaining`, `-Reset` (seconds from now); a 429 when spent.
    XRateLimit,
    /// `x-ratelimit-*` with the reset as the epoch second it falls in, `x-ratelimit-resource:
    /// core`, and a 403 when spent.
    GitHub,
}

/// A fixed-window quota: `limit` calls per `window`, and what it refused and served.
#[derive(Debug)]
pub struct QuotaWindow {
    dialect: Dialect,
    /// The quota's name, when the server names it (a bucket per route).
    name: Option<&'static str>,
    limit: u64,
    window: Duration,
    state: Mutex<(Instant, u64)>,
    refused: AtomicU64,
    served: AtomicU64,
    /// The calls served in each window since the first, the current one last.
    per_window: Mutex<Vec<u64>>,
}

impl QuotaWindow {
    /// A window that opens now.
    pub fn new(dialect: Dialect, limit: u64, window: Duration) -> QuotaWindow {
        QuotaWindow {
            dialect,
            name: None,
            limit,
            window,
            state: Mutex::new((Instant::now(), 0)),
            refused: AtomicU64::new(0),
            served: AtomicU64::new(0),
            per_window: Mutex::new(vec![0]),
        }
    }

    /// A window that opens now, announced under `name` (the IETF policy's name, or
    /// `X-RateLimit-Resource`): one of several a server keeps, one per route.
    pub fn named(
        dialect: Dialect,
        name: &'static str,
        limit: u64,
        window: Duration,
    ) -> QuotaWindow {
        QuotaWindow {
            name: Some(name),
            ..QuotaWindow::new(dialect, limit, window)
        }
    }

    /// A router answering GETs of `path` (an axum route, `{id}` and all) with `body` under
    /// this quota.
    pub fn router(self: &Arc<Self>, path: &str, body: &'static str) -> Router {
        let window = self.clone();
        Router::new().route(
            path,
            get(move || {
                let window = window.clone();
                async move { window.answer(body) }
            }),
        )
    }

    /// The calls served in each window, from the first: a client that paces well fills every
    /// window but its last.
    pub fn per_window(&self) -> Vec<u64> {
        self.per_window
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Calls the server refused because the quota was spent.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// Calls the server answered with `body`.
    pub fn served(&self) -> u64 {
        self.served.load(Ordering::Relaxed)
    }

    /// One call: counted, answered with `body` (JSON) or refused, the quota announced.
    pub fn answer(&self, body: &'static str) -> Response {
        let (left, exact, allowed) = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let mut per_window = self.per_window.lock().unwrap_or_else(|e| e.into_inner());
            while now >= state.0 + self.window {
                state.0 += self.window;
                state.1 = 0;
                per_window.push(0);
            }
            let allowed = state.1 < self.limit;
            if allowed {
                state.1 += 1;
                if let Some(count) = per_window.last_mut() {
                    *count += 1;
                }
            }
            (self.limit - state.1, state.0 + self.window - now, allowed)
        };
        // Rounded up to the second, as servers do.
        let reset_in = exact.as_secs_f64().ceil() as u64;
        let mut headers = HeaderMap::new();
        let mut set = |name: &'static str, value: String| {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(name, value);
            }
        };
        match self.dialect {
            Dialect::Ietf => {
                let name = self.name.unwrap_or("window");
                let policy = format!("\"{name}\";q={};w={}", self.limit, self.window.as_secs());
                set("ratelimit-policy", policy);
                set("ratelimit", format!("\"{name}\";r={left};t={reset_in}"));
            }
            Dialect::XRateLimit => {
                set("x-ratelimit-limit", self.limit.to_string());
                set("x-ratelimit-remaining", left.to_string());
                set("x-ratelimit-reset", reset_in.to_string());
                if let Some(name) = self.name {
                    set("x-ratelimit-resource", name.to_owned());
                }
            }
            Dialect::GitHub => {
                // The epoch second the window has reset by.
                let reset_at = (SystemTime::now() + exact)
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs_f64().ceil() as u64);
                set("x-ratelimit-limit", self.limit.to_string());
                set("x-ratelimit-remaining", left.to_string());
                set("x-ratelimit-reset", reset_at.to_string());
                set(
                    "x-ratelimit-resource",
                    self.name.unwrap_or("core").to_owned(),
                );
            }
        }
        if !allowed {
            self.refused.fetch_add(1, Ordering::Relaxed);
            let status = match self.dialect {
                Dialect::GitHub => StatusCode::FORBIDDEN,
                _ => {
                    set("retry-after", reset_in.to_string());
                    StatusCode::TOO_MANY_REQUESTS
                }
            };
            return (status, headers, "{\"message\":\"quota spent\"}").into_response();
        }
        self.served.fetch_add(1, Ordering::Relaxed);
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        (StatusCode::OK, headers, body).into_response()
    }
}

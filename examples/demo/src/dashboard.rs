//! A live statistics page, as Hystrix's dashboard was: an auto-refreshing HTML table of each
//! client's per-method figures, breaker states and endpoints, and the same as JSON.

use std::fmt::Write;
use std::sync::Arc;

use axum::Router;
use axum::response::Html;
use axum::routing::get;
use remcall::ClientStats;

/// Something that reports statistics: usually a closure over a few clients' `stats()`.
pub type StatsSource = Arc<dyn Fn() -> Vec<ClientStats> + Send + Sync>;

/// `GET /` (the page, refreshing every two seconds) and `GET /stats.json`.
pub fn router(source: StatsSource) -> Router {
    let page_source = source.clone();
    Router::new()
        .route(
            "/",
            get(move || std::future::ready(Html(page(&page_source())))),
        )
        .route(
            "/stats.json",
            get(move || std::future::ready(axum::Json(source()))),
        )
}

/// The HTML of the page.
pub fn page(clients: &[ClientStats]) -> String {
    let mut html = String::from(concat!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"2\">",
        "<title>remcall</title><style>body{font-family:sans-serif}table{border-collapse:collapse;margin-bottom:1em}",
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}",
        ".closed{background:#dfd}.open{background:#fdd}.half_open{background:#ffd}</style></head><body>"
    ));
    for client in clients {
        let _ = write!(
            html,
            "<h2>{}</h2><table><tr><th>method</th><th>calls</th><th>ok</th><th>failed</th><th>retries</th><th>short-circuited</th><th>rejected</th><th>rate-limited</th><th>fallbacks</th><th>breaker</th><th>p50 ms</th><th>p99 ms</th></tr>",
            escape(client.client)
        );
        for (method, s) in &client.methods {
            let state = match s.breaker {
                remcall::BreakerState::Closed => "closed",
                remcall::BreakerState::Open => "open",
                remcall::BreakerState::HalfOpen => "half_open",
            };
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{state}\">{state}</td><td>{:.1}</td><td>{:.1}</td></tr>",
                escape(method),
                s.calls,
                s.successes,
                s.failures,
                s.retries,
                s.short_circuited,
                s.rejected,
                s.rate_limited,
                s.fallbacks,
                s.p50.as_secs_f64() * 1000.0,
                s.p99.as_secs_f64() * 1000.0
            );
        }
        html.push_str("</table><table><tr><th>endpoint</th><th>in flight</th><th>state</th></tr>");
        for e in &client.endpoints {
            let state = if e.ejected { "ejected" } else { "in rotation" };
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{state}</td></tr>",
                escape(&e.url),
                e.in_flight
            );
        }
        html.push_str("</table>");
    }
    html.push_str("</body></html>");
    html
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

//! The demo's live dashboard: the user service behind a switch that makes it fail, a steady load
//! on every method of a `UserClient`, and remcall's dashboard page over the client. The
//! `dashboard` binary runs it; the browser test drives the same page in headless Chromium.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::IntoResponse;
use remcall::{Observe, Profile};

use crate::service;
use crate::user_client::{User, UserClient};

/// A running demo.
#[derive(Debug)]
pub struct Live {
    /// The dashboard page's URL.
    pub page: String,
    /// The client under load.
    pub users: UserClient,
    /// While true, the service answers 503 to everything.
    pub failing: Arc<AtomicBool>,
    /// Calls made so far.
    pub calls: Arc<AtomicU64>,
}

/// Starts the service, the load and the page, on loopback ports. With `cycle`, the service fails
/// two seconds out of every six, by itself.
pub async fn start(cycle: bool) -> std::io::Result<Live> {
    let failing = Arc::new(AtomicBool::new(false));
    let switch = failing.clone();
    let router = service::router().layer(middleware::from_fn(
        move |request: axum::extract::Request, next: Next| {
            let failing = switch.load(Ordering::Relaxed);
            async move {
                if failing {
                    StatusCode::SERVICE_UNAVAILABLE.into_response()
                } else {
                    next.run(request).await
                }
            }
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let service_url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, router).await });
    if cycle {
        let failing = failing.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(4)).await;
                failing.store(true, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_secs(2)).await;
                failing.store(false, Ordering::Relaxed);
            }
        });
    }

    let profile = Profile::from_yaml_str(
        "retry: { max_attempts: 2, backoff: { initial: 5ms } }\nbreaker: { window: { calls: 20 }, min_calls: 10, open_for: 1s, half_open_calls: 3 }",
    )
    .map_err(std::io::Error::other)?;
    let users = UserClient::builder()
        .base_url(&service_url)
        .profile(profile)
        .build()
        .map_err(std::io::Error::other)?;
    let calls = Arc::new(AtomicU64::new(0));
    // Four callers of get_user, one of query_user, one of delete_user, each at its own pace.
    for (callers, pace, what) in [(4, 20, 0), (1, 100, 1), (1, 400, 2)] {
        for _ in 0..callers {
            let (users, calls) = (users.clone(), calls.clone());
            tokio::spawn(async move {
                loop {
                    let _ = match what {
                        0 => users.get_user(1, None, "demo").await.map(|_| ()),
                        1 => users.query_user(&example()).await.map(|_| ()),
                        _ => users.delete_user(99).await,
                    };
                    calls.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(pace)).await;
                }
            });
        }
    }

    let dashboard = remcall::dashboard::serve("127.0.0.1:0", vec![users.observe()]).await?;
    Ok(Live {
        page: dashboard.url(),
        users,
        failing,
        calls,
    })
}

fn example() -> User {
    User {
        id: 0,
        name: "Ada".to_owned(),
        email: None,
        created_at: None,
    }
}

/// Headless Chromium on `url`, with `args` (`--dump-dom`, `--screenshot=…`): what it printed.
/// Every host but loopback resolves to nothing, so a request the page made outside would show
/// as a console error. Chromium's console lines go to stderr (`--enable-logging=stderr`).
pub fn chromium(url: &str, args: &[&str]) -> std::io::Result<Output> {
    let binary = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "chromium is not installed (Debian: apt-get install -y chromium)",
            )
        })?;
    let profile = tempfile_dir()?;
    let output = Command::new(binary)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=4000",
            "--window-size=1280,900",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output();
    // Each run's profile is thrown away with it.
    let _ = std::fs::remove_dir_all(&profile);
    output
}

/// A fresh profile directory for one Chromium run.
fn tempfile_dir() -> std::io::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "remcall-chromium-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A screenshot of the page into `path` (PNG).
pub fn screenshot(url: &str, path: &Path) -> std::io::Result<()> {
    let path = std::path::absolute(path)?;
    let output = chromium(url, &[&format!("--screenshot={}", path.display())])?;
    if !path.exists() {
        return Err(std::io::Error::other(format!(
            "chromium wrote no screenshot: {}",
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(())
}

/// A client of `count` methods, each `GET /ping`, named `operation_000` on (as many digits as
/// the last needs): an imported API's size, for the dashboard's tests.
pub fn many_methods(name: &'static str, count: usize) -> &'static remcall::__codegen::ClientSpec {
    use remcall::__codegen::{ClientSpec, MethodSpec};
    let width = count.saturating_sub(1).to_string().len();
    let methods: Vec<&'static MethodSpec> = (0..count)
        .map(|index| {
            let method: &'static str =
                Box::leak(format!("operation_{index:0width$}").into_boxed_str());
            &*Box::leak(Box::new(MethodSpec {
                index,
                name: method,
                http_method: "GET",
                path: "/ping",
                idempotent: true,
                reads: true,
                not_found_none: false,
                streams: false,
                profile: "",
            }))
        })
        .collect();
    Box::leak(Box::new(ClientSpec {
        name,
        base_urls: &[],
        base_path: "",
        profile: "",
        methods: Box::leak(methods.into_boxed_slice()),
    }))
}

//! A server started for one test: a child process on a free loopback port, waited for until it
//! answers, stopped when dropped, its output kept in a file for the message when it fails.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// How long a server may take to answer its first request (Jupyter imports a few hundred
/// modules first; a loaded CI machine is slow): the test's own bound, not a guess at the
/// machine's speed.
const STARTUP: Duration = Duration::from_secs(300);

/// How long one request may take: a FastAPI server builds its description on the first
/// request for it, which on a machine busy with a build took past ten seconds. Bounded by the
/// test's own limit, not by the machine's speed.
const REQUEST: Duration = Duration::from_secs(300);

/// A running server; killed when dropped.
#[derive(Debug)]
pub struct Running {
    child: Child,
    port: u16,
    log: PathBuf,
    scratch: tempfile::TempDir,
}

impl Running {
    /// Starts `python3 args…` with `PYTHONPATH` the installed package's folder, in a fresh
    /// working folder (also its `HOME`), `{port}` in `args` replaced by a free loopback port;
    /// returns when `GET ready_path` answers 200.
    pub fn python(installed: &Path, args: &[&str], ready_path: &str) -> anyhow::Result<Running> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let scratch = tempfile::tempdir()?;
        let log = scratch.path().join("server.log");
        let out = std::fs::File::create(&log)?;
        let child = Command::new("python3")
            .args(args.iter().map(|a| a.replace("{port}", &port.to_string())))
            .current_dir(scratch.path())
            .env("PYTHONPATH", installed)
            .env("HOME", scratch.path())
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()
            .context("starting python3")?;
        let mut running = Running {
            child,
            port,
            log,
            scratch,
        };
        running.wait_ready(ready_path)?;
        Ok(running)
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The working folder the server was started in.
    pub fn folder(&self) -> &Path {
        self.scratch.path()
    }

    /// The last lines the server printed.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    fn wait_ready(&mut self, path: &str) -> anyhow::Result<()> {
        let started = Instant::now();
        let url = format!("{}{path}", self.url());
        loop {
            if let Some(status) = self.child.try_wait()? {
                bail!("the server exited ({status}):\n{}", self.log_tail());
            }
            if fetch(&url, &[]).is_ok() {
                return Ok(());
            }
            if started.elapsed() > STARTUP {
                bail!(
                    "the server did not answer {url} within {STARTUP:?}:\n{}",
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of `GET url` with `headers`, when it answers 2xx; waited on as long as the server
/// takes, up to [`REQUEST`], and an error that says what it waited for.
pub fn fetch(url: &str, headers: &[(&str, &str)]) -> anyhow::Result<Vec<u8>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let started = Instant::now();
    runtime
        .block_on(async {
            let client = reqwest::Client::builder().timeout(REQUEST).build()?;
            let mut request = client.get(url);
            for (name, value) in headers {
                request = request.header(*name, *value);
            }
            let response = request.send().await?.error_for_status()?;
            Ok::<_, anyhow::Error>(response.bytes().await?.to_vec())
        })
        .with_context(|| format!("GET {url}, waited {:?}", started.elapsed()))
}

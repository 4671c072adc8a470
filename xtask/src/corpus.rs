//! `cargo xtask corpus DIR`: every OpenAPI description in DIR (and, when DIR has
//! `apis/SOURCES.tsv`, the entry document of each folder it lists) imported, generated, built in
//! a scratch crate with `cargo check` and then clippy, one table row each, and the share of
//! operations imported faithfully over all of them; and, beside it,
//! progenitor's result on the same document when `bench/corpus-progenitor` can be built (it
//! needs crates.io; see its README).
//!
//! The documents are a measuring set: nothing here knows any of them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// One document's row.
struct Row {
    name: String,
    summary: String,
    import: Duration,
    check: Option<(bool, Duration)>,
    clippy_warnings: Option<usize>,
    doc_warnings: Option<usize>,
    progenitor: String,
    /// The description's base path and whether the spec calls under it.
    base_path: String,
}

/// What a corpus run does beside importing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// Import, generate, build, clippy and rustdoc each client, and progenitor beside it.
    Build { progenitor: bool },
    /// Import only: the faithful count and the base path column, in seconds.
    ImportOnly,
}

pub(crate) fn run(root: &Path, dir: &Path, depth: Depth) -> anyhow::Result<()> {
    let with_progenitor = matches!(depth, Depth::Build { progenitor: true });
    let status = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(["build", "--release", "--quiet", "-p", "remcall-codegen"])
        .status()
        .context("building remcall")?;
    if !status.success() {
        bail!("cargo build of remcall failed");
    }
    let cli = root.join("target/release/remcall");
    let documents = documents(dir)?;
    let scratch = root.join("target/corpus");
    std::fs::create_dir_all(&scratch)?;
    let progenitor = with_progenitor.then(|| progenitor_tool(root)).flatten();
    let mut rows = Vec::new();
    let mut unchecked: Vec<String> = Vec::new();
    for (i, document) in documents.iter().enumerate() {
        let name = document_name(dir, document);
        eprintln!("[{}/{}] {name}", i + 1, documents.len());
        let krate = scratch.join(format!("remcall-{name}"));
        let _ = std::fs::remove_dir_all(&krate);
        std::fs::create_dir_all(krate.join("src"))?;
        let spec = krate.join("spec.yaml");
        let start = Instant::now();
        let output = Command::new(&cli)
            .arg("import")
            .arg(document)
            .arg("--out")
            .arg(&spec)
            .output()
            .context("running remcall import")?;
        let import = start.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let summary = stderr
            .lines()
            .last()
            .unwrap_or_default()
            .split("; wrote")
            .next()
            .unwrap_or_default()
            .to_owned();
        let mut row = Row {
            name: name.clone(),
            summary: if output.status.success() {
                summary
            } else {
                format!("FAILED: {}", stderr.lines().next().unwrap_or_default())
            },
            import,
            check: None,
            clippy_warnings: None,
            doc_warnings: None,
            progenitor: String::new(),
            base_path: if output.status.success() {
                base_path_kept(document, &spec)
            } else {
                "—".to_owned()
            },
        };
        // What the importer wrote and `check` then refused is always the importer's bug (a
        // rename that missed a reference): each is listed, and the run fails.
        let written = std::fs::read_to_string(&spec).unwrap_or_default();
        unchecked.extend(
            written
                .lines()
                .filter(|line| line.starts_with('#') && line.contains("would not check"))
                .map(|line| format!("{name}: {}", line.trim_start_matches(['#', ' ']))),
        );
        if output.status.success() && depth != Depth::ImportOnly {
            let generated = Command::new(&cli)
                .arg("gen")
                .arg(&spec)
                .arg("--out")
                .arg(krate.join("src"))
                .output()?;
            if generated.status.success() {
                std::fs::rename(krate.join("src/mod.rs"), krate.join("src/lib.rs"))?;
                let lib = std::fs::read_to_string(krate.join("src/lib.rs"))?;
                std::fs::write(krate.join("src/lib.rs"), format!("//! {name}.\n{lib}"))?;
                scratch_manifest(
                    root,
                    &krate,
                    &format!("remcall-{name}"),
                    runtime_dependency(&krate.join("src")),
                )?;
                row.check = Some(cargo(root, &krate, "check")?);
                row.clippy_warnings = Some(clippy_warnings(root, &krate)?);
                row.doc_warnings = Some(doc_warnings(root, &krate)?);
            }
        }
        row.progenitor = match &progenitor {
            Some(tool) => progenitor_row(root, tool, document, &scratch, &name)?,
            None => "not run (see bench/corpus-progenitor/README.md)".to_owned(),
        };
        rows.push(row);
    }
    let (faithful, operations) = rows.iter().fold((0, 0), |(f, o), row| {
        let (rf, ro) = faithful_of(&row.summary);
        (f + rf, o + ro)
    });
    let imported = rows
        .iter()
        .filter(|r| !r.summary.starts_with("FAILED"))
        .count();
    println!(
        "{imported} of {} documents imported; {faithful} of {operations} operations faithful",
        rows.len()
    );
    let lost = rows
        .iter()
        .filter(|r| r.base_path.starts_with("LOST"))
        .count();
    println!("{lost} base path(s) lost");
    println!(
        "| document | remcall import | base path | import + generate | cargo check | clippy warnings | rustdoc warnings | progenitor |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for row in rows {
        let check = match row.check {
            Some((true, time)) => format!("ok, {:.1} s", time.as_secs_f64()),
            Some((false, _)) => "FAILS".to_owned(),
            None => "—".to_owned(),
        };
        let clippy = row
            .clippy_warnings
            .map_or("—".to_owned(), |n| n.to_string());
        let doc = row.doc_warnings.map_or("—".to_owned(), |n| n.to_string());
        println!(
            "| {} | {} | {} | {} ms | {check} | {clippy} | {doc} | {} |",
            row.name,
            row.summary,
            row.base_path,
            row.import.as_millis(),
            row.progenitor
        );
    }
    if !unchecked.is_empty() {
        bail!(
            "the importer wrote what check refuses ({} item(s)):\n{}",
            unchecked.len(),
            unchecked.join("\n")
        );
    }
    Ok(())
}

/// Whether the imported spec calls under the description's base path (Swagger 2.0 `basePath`,
/// the path of the first OpenAPI 3 server, its variables at their defaults): `kept /api/v1`,
/// or `LOST` with what the spec calls under instead.
fn base_path_kept(document: &Path, spec: &Path) -> String {
    let read = |path: &Path| -> Option<serde_json::Value> {
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str(&text)
            .ok()
            .or_else(|| serde_yaml::from_str(&text).ok())
    };
    let (Some(description), Some(spec)) = (read(document), read(spec)) else {
        return "—".to_owned();
    };
    let path_of = |url: &str| -> String {
        let rest = url.split_once("://").map_or(url, |(_, rest)| {
            rest.find('/').map_or("", |slash| &rest[slash..])
        });
        let rest = rest.split(['?', '#']).next().unwrap_or_default();
        rest.trim_end_matches('/').to_owned()
    };
    let expected = match description.get("swagger") {
        Some(_) => description
            .get("basePath")
            .and_then(|p| p.as_str())
            .unwrap_or("")
            .trim_end_matches('/')
            .to_owned(),
        None => description
            .pointer("/servers/0")
            .map(|server| {
                let mut url = server
                    .get("url")
                    .and_then(|u| u.as_str())
                    .unwrap_or("")
                    .to_owned();
                for (name, variable) in server
                    .get("variables")
                    .and_then(|v| v.as_object())
                    .into_iter()
                    .flatten()
                {
                    let default = variable
                        .get("default")
                        .and_then(|d| d.as_str())
                        .unwrap_or("");
                    url = url.replace(&format!("{{{name}}}"), default);
                }
                if url.contains("://") {
                    path_of(&url)
                } else {
                    url.split(['?', '#'])
                        .next()
                        .unwrap_or_default()
                        .trim_end_matches('/')
                        .to_owned()
                }
            })
            .unwrap_or_default(),
    };
    let base_url = spec.get("base_url").and_then(|u| u.as_str()).unwrap_or("");
    let resolved = remcall_profile::vars::expand(base_url, |_| None).unwrap_or_default();
    let base_path = spec.get("base_path").and_then(|p| p.as_str()).unwrap_or("");
    let called = format!("{}{}", path_of(&resolved), base_path.trim_end_matches('/'));
    if called == expected {
        format!(
            "kept `{}`",
            if expected.is_empty() { "/" } else { &expected }
        )
    } else {
        format!("LOST: `{expected}`, calls `{called}`")
    }
}

/// The entry documents `apis/SOURCES.tsv` lists (name, repository, commit, entry, …), one
/// folder each.
/// A corpus folder's documents: the descriptions at its top, then the entry document of each
/// folder `apis/SOURCES.tsv` lists.
pub(crate) fn documents(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut documents: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("json" | "yaml" | "yml")
            )
        })
        .collect();
    documents.sort();
    documents.extend(listed_documents(dir)?);
    Ok(documents)
}

fn listed_documents(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let apis = dir.join("apis");
    let Ok(sources) = std::fs::read_to_string(apis.join("SOURCES.tsv")) else {
        return Ok(Vec::new());
    };
    let mut documents = Vec::new();
    for line in sources.lines().skip(1) {
        let columns: Vec<&str> = line.split('\t').collect();
        if let [name, _, _, entry, ..] = columns.as_slice() {
            documents.push(apis.join(name).join(entry));
        }
    }
    Ok(documents)
}

/// A document's row name: its file's stem, or its folder's name under `apis/`.
fn document_name(dir: &Path, document: &Path) -> String {
    match document.strip_prefix(dir.join("apis")) {
        Ok(inside) => inside
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default(),
        Err(_) => document_label(document),
    }
}

/// A document's name from its path alone: the folder after an `apis/` in it, else its stem.
pub(crate) fn document_label(document: &Path) -> String {
    let parts: Vec<String> = document
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.iter().position(|part| part == "apis") {
        Some(i) if i + 2 < parts.len() => parts[i + 1].clone(),
        _ => document
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

/// (faithful, operations) from an import's summary line; a failed import counts its
/// operations as none faithful (their number is unknown: counted as zero).
fn faithful_of(summary: &str) -> (usize, usize) {
    let number_before = |word: &str| -> Option<usize> {
        let end = summary.find(word)?;
        summary[..end].split_whitespace().last()?.parse().ok()
    };
    match (number_before(" faithful"), number_before(" operation(s)")) {
        (Some(faithful), Some(operations)) => (faithful, operations),
        _ => (0, 0),
    }
}

/// A scratch crate's manifest, its own workspace, with the main workspace's lock file.
/// The runtime as a user of the generated client depends on it: with its `webhooks` feature
/// when the client has a receiver (a description that declares webhooks or callbacks).
pub(crate) fn runtime_dependency(src: &Path) -> &'static str {
    let has_receiver = std::fs::read_dir(src)
        .into_iter()
        .flatten()
        .flatten()
        .any(|entry| {
            std::fs::read_to_string(entry.path())
                .is_ok_and(|code| code.contains("pub mod webhooks {"))
        });
    if has_receiver {
        "remcall = { path = \"RUNTIME\", features = [\"webhooks\"] }"
    } else {
        "remcall = { path = \"RUNTIME\" }"
    }
}

pub(crate) fn scratch_manifest(
    root: &Path,
    krate: &Path,
    name: &str,
    dependencies: &str,
) -> anyhow::Result<()> {
    let dependencies = dependencies.replace("RUNTIME", &root.join("runtime").to_string_lossy());
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[dependencies]\n{dependencies}\n\n[workspace]\n"
        ),
    )?;
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock"))?;
    Ok(())
}

/// `cargo check` (or another subcommand) of a scratch crate: whether it passed, how long it took.
fn cargo(root: &Path, krate: &Path, subcommand: &str) -> anyhow::Result<(bool, Duration)> {
    let start = Instant::now();
    let status = Command::new(env!("CARGO"))
        .current_dir(krate)
        .args([subcommand, "--quiet", "--offline"])
        .env("CARGO_TARGET_DIR", root.join("target/corpus-check"))
        .stderr(std::process::Stdio::null())
        .status()?;
    Ok((status.success(), start.elapsed()))
}

/// clippy's warnings and errors on the crate.
fn clippy_warnings(root: &Path, krate: &Path) -> anyhow::Result<usize> {
    diagnostics(root, krate, &["clippy"])
}

/// `cargo doc` of the crate (its own items): rustdoc's warnings (links that lead nowhere, HTML it
/// cannot read, bare URLs) and errors.
fn doc_warnings(root: &Path, krate: &Path) -> anyhow::Result<usize> {
    diagnostics(root, krate, &["doc", "--no-deps"])
}

/// The warnings and errors a cargo command reports on the crate.
fn diagnostics(root: &Path, krate: &Path, command: &[&str]) -> anyhow::Result<usize> {
    let output = Command::new(env!("CARGO"))
        .current_dir(krate)
        .args(command)
        .args(["--offline", "--message-format", "short"])
        .env("CARGO_TARGET_DIR", root.join("target/corpus-check"))
        .output()?;
    Ok(String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|l| l.contains(": warning:") || l.contains(": error:"))
        .count())
}

/// The progenitor helper, built, if it can be (it needs crates.io for its dependencies).
pub(crate) fn progenitor_tool(root: &Path) -> Option<PathBuf> {
    let manifest = root.join("bench/corpus-progenitor/Cargo.toml");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .status()
        .ok()?;
    status
        .success()
        .then(|| root.join("bench/corpus-progenitor/target/release/corpus-progenitor"))
}

/// Progenitor on one document: what it made of it, and whether its output compiles.
fn progenitor_row(
    root: &Path,
    tool: &Path,
    document: &Path,
    scratch: &Path,
    name: &str,
) -> anyhow::Result<String> {
    let krate = match progenitor_crate(root, tool, document, scratch, name)? {
        Ok(krate) => krate,
        Err(said) => return Ok(said),
    };
    let manifest = root.join("bench/corpus-progenitor");
    let start = Instant::now();
    let status = Command::new(env!("CARGO"))
        .current_dir(&krate)
        .args(["check", "--quiet", "--offline"])
        .env("CARGO_TARGET_DIR", manifest.join("target/check"))
        .stderr(std::process::Stdio::null())
        .status()?;
    Ok(if status.success() {
        format!(
            "generated; compiles ({:.1} s)",
            start.elapsed().as_secs_f64()
        )
    } else {
        "generated; does not compile".to_owned()
    })
}

/// A scratch crate with what progenitor generates from `document`, or what it said instead.
pub(crate) fn progenitor_crate(
    root: &Path,
    tool: &Path,
    document: &Path,
    scratch: &Path,
    name: &str,
) -> anyhow::Result<Result<PathBuf, String>> {
    let krate = scratch.join(format!("progenitor-{name}"));
    let _ = std::fs::remove_dir_all(&krate);
    std::fs::create_dir_all(krate.join("src"))?;
    let output = Command::new(tool)
        .arg(document)
        .arg(krate.join("src/lib.rs"))
        .output()?;
    let said = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() {
        return Ok(Err(said));
    }
    let manifest = root.join("bench/corpus-progenitor");
    let dependencies = std::fs::read_to_string(manifest.join("client-dependencies.toml"))?;
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"progenitor-{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\n{dependencies}\n[workspace]\n"
        ),
    )?;
    std::fs::copy(manifest.join("Cargo.lock"), krate.join("Cargo.lock"))?;
    Ok(Ok(krate))
}

//! `cargo xtask conformance DOC…`: imported clients checked on the wire against a server nobody
//! here wrote. For each description: `remcall import`, `remcall gen` into a scratch crate, and a
//! driver program beside the client that calls every method whose arguments it can build (each
//! argument a value made from the *description's* schema — its example, enum, format, required
//! properties — decoded into the generated type); Prism (`@stoplight/prism-cli`, installed into
//! `target/prism` with npm when missing) mocks the description with request validation
//! (`prism mock --errors --dynamic`), so a request it refuses is one the client got wrong, and
//! a random but valid response that does not decode is a type the importer got wrong.
//!
//! Prints a table row per document and the totals; exits non-zero when `--require N` (percent)
//! is not met. Nothing here knows any document.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use serde_json::Value;

mod description;
mod driver;
mod faithful;
mod prism;
mod roundtrip;
mod routes;

use description::Description;
use driver::driver;
use faithful::faithfulness;
pub(crate) use prism::prism;
use prism::{prism_could_not_answer, start_prism};

/// One document's counts.
#[derive(Default, Debug)]
struct Tally {
    methods: usize,
    /// Calls made (arguments built).
    called: usize,
    /// Calls Prism took as valid requests.
    accepted: usize,
    /// Accepted calls whose response decoded (or had no body to decode).
    decoded: usize,
    /// Decode failures of a negative number into an unsigned type: Prism's generator ignores
    /// `format: uint32/uint64`, which a real server does not.
    unsigned: usize,
    /// Accepted calls Prism could not answer (a 500 of its own: a response it cannot make up,
    /// such as an object as text, or a media type without a schema): nothing to decode.
    unanswered: usize,
    /// The description's operations, and those whose method says everything they declare, as
    /// checked here apart from the importer (see [`faithfulness`]).
    operations: usize,
    faithful: usize,
    /// What went wrong, a line each (the first few are printed).
    problems: Vec<String>,
    /// Round trip: instances sent through the generated types, and those that came back whole.
    instances: usize,
    kept: usize,
    /// Of the instances not kept, those that were the description's own examples.
    lost_examples: usize,
}

/// What a run does with each document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Import, check faithfulness, build the driver and call Prism.
    Calls,
    /// Import and check faithfulness only: no build, no Prism (a minute for the corpus).
    FaithfulOnly,
    /// Import, build, and send instances of every JSON body and answer through the generated
    /// types and back ([`roundtrip`]): no Prism.
    RoundTrip,
}

pub(crate) fn run(
    root: &Path,
    documents: &[PathBuf],
    require: Option<f64>,
    mode: Mode,
) -> anyhow::Result<()> {
    let cli = build_cli(root)?;
    let prism = match mode {
        Mode::Calls => prism(root)?,
        Mode::FaithfulOnly | Mode::RoundTrip => PathBuf::new(),
    };
    let scratch = root.join("target/conformance");
    std::fs::create_dir_all(&scratch)?;
    let mut total = Tally::default();
    let mut rows = Vec::new();
    let mut not_run = Vec::new();
    for document in documents {
        let name = crate::corpus::document_label(document);
        eprintln!("conformance: {name}");
        let tally = match one(root, &cli, &prism, &scratch, document, &name, mode) {
            Ok(tally) => tally,
            Err(error) => {
                // The table keeps a line; the whole of it (a build's output) goes to stderr.
                let error = format!("{error:#}");
                eprintln!("{name}: {error}");
                let first = error.lines().next().unwrap_or_default();
                rows.push(format!("| {name} | not run: {first} | | | | | |"));
                not_run.push(name);
                continue;
            }
        };
        let shown = if mode == Mode::FaithfulOnly {
            usize::MAX
        } else {
            8
        };
        for problem in tally.problems.iter().take(shown) {
            eprintln!("  {problem}");
        }
        if mode == Mode::RoundTrip {
            rows.push(format!(
                "| {name} | {} of {} | {} of {} instances round-trip | {} |",
                tally.faithful, tally.operations, tally.kept, tally.instances, tally.lost_examples
            ));
            total.instances += tally.instances;
            total.kept += tally.kept;
            total.lost_examples += tally.lost_examples;
            total.operations += tally.operations;
            total.faithful += tally.faithful;
            continue;
        }
        rows.push(format!(
            "| {name} | {} of {} | {} of {} | {} | {} | {} | {} |",
            tally.faithful,
            tally.operations,
            tally.called,
            tally.methods,
            tally.accepted,
            tally.decoded,
            tally.unsigned,
            tally.unanswered
        ));
        total.methods += tally.methods;
        total.called += tally.called;
        total.accepted += tally.accepted;
        total.decoded += tally.decoded;
        total.unsigned += tally.unsigned;
        total.unanswered += tally.unanswered;
        total.operations += tally.operations;
        total.faithful += tally.faithful;
    }
    if mode == Mode::RoundTrip {
        println!(
            "| document | faithful operations | round trip | of the losses, the description's examples |"
        );
        println!("| --- | --- | --- | --- |");
        for row in &rows {
            println!("{row}");
        }
        let kept = if total.instances == 0 {
            100.0
        } else {
            100.0 * total.kept as f64 / total.instances as f64
        };
        println!(
            "round trip: {} of {} instances ({kept:.1}%) decode with their generated type and encode back as they were; {} of the {} that did not are the description's own examples",
            total.kept,
            total.instances,
            total.lost_examples,
            total.instances - total.kept
        );
        if !not_run.is_empty() {
            bail!("round trip not measured for {}", not_run.join(", "));
        }
        if let Some(required) = require
            && kept < required
        {
            bail!("round trip below {required}%");
        }
        return Ok(());
    }
    println!(
        "| document | faithful operations | methods called | accepted by Prism | decoded | unsigned (Prism) | Prism could not answer |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for row in &rows {
        println!("{row}");
    }
    let percent = |n: usize, of: usize| {
        if of == 0 {
            100.0
        } else {
            100.0 * n as f64 / of as f64
        }
    };
    let accepted = percent(total.accepted, total.called);
    println!(
        "faithful: {} of {} operations (checked against the description here, not by the importer)",
        total.faithful, total.operations
    );
    let answered = total.accepted - total.unanswered;
    let decoded = percent(total.decoded + total.unsigned, answered);
    println!(
        "conformance: {} of {} methods called; {} accepted ({accepted:.1}%); of {answered} answered, {} decoded and {} more were Prism's negative unsigned numbers ({decoded:.1}%)",
        total.called, total.methods, total.accepted, total.decoded, total.unsigned
    );
    let faithful = percent(total.faithful, total.operations);
    if require.is_some() && !not_run.is_empty() {
        // A required level of a document that did not run is not met: 0 of 0 is no evidence.
        bail!("conformance not measured for {}", not_run.join(", "));
    }
    if let Some(required) = require
        && (accepted < required || decoded < required || faithful < required)
    {
        bail!("conformance below {required}%");
    }
    Ok(())
}

/// The CLI (a debug build: imports take a second at most even so, and the test suite has built it).
fn build_cli(root: &Path) -> anyhow::Result<PathBuf> {
    let status = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(["build", "--quiet", "-p", "remcall-codegen"])
        .status()
        .context("building remcall")?;
    if !status.success() {
        bail!("cargo build of remcall failed");
    }
    Ok(root.join("target/debug/remcall"))
}

fn one(
    root: &Path,
    cli: &Path,
    prism: &Path,
    scratch: &Path,
    document: &Path,
    name: &str,
    mode: Mode,
) -> anyhow::Result<Tally> {
    let krate = scratch.join(name);
    let _ = std::fs::remove_dir_all(krate.join("src"));
    std::fs::create_dir_all(krate.join("src"))?;
    let spec_path = krate.join("spec.yaml");
    let imported = Command::new(cli)
        .arg("import")
        .arg(document)
        .args(["--client", "Api", "--out"])
        .arg(&spec_path)
        .output()?;
    if !imported.status.success() {
        bail!(
            "import failed: {}",
            String::from_utf8_lossy(&imported.stderr)
                .lines()
                .next()
                .unwrap_or_default()
        );
    }
    let generated = Command::new(cli)
        .arg("gen")
        .arg(&spec_path)
        .arg("--out")
        .arg(krate.join("src"))
        .output()?;
    if !generated.status.success() {
        bail!("gen failed");
    }
    std::fs::remove_file(krate.join("src/mod.rs"))?;
    let spec_text = std::fs::read_to_string(&spec_path)?;
    let spec: Value = serde_yaml::from_str(&spec_text).context("reading the imported spec")?;
    // One document for Prism and for the driver: the description with every file it refers
    // to copied in, and no references inside examples.
    let bundled = crate::bundle::bundle(document)?;
    let bundled_path = krate.join("bundled.json");
    std::fs::write(&bundled_path, serde_json::to_vec(&bundled)?)?;
    let mut description = Description::new(bundled);
    if mode == Mode::Calls {
        description.sample_patterns(prism)?;
    }
    // The parameters' order is the arguments' order: read it from YAML's own (ordered) maps.
    let ordered: serde_yaml::Value = serde_yaml::from_str(&spec_text)?;
    let (driver, methods) = driver(&spec, &ordered, &description);
    let (faithful, operations, unfaithful) = faithfulness(&spec, &description);
    if mode == Mode::FaithfulOnly {
        return Ok(Tally {
            methods,
            operations,
            faithful,
            problems: unfaithful,
            ..Tally::default()
        });
    }
    let instances = (mode == Mode::RoundTrip).then(|| roundtrip::instances(&spec, &description));
    match &instances {
        Some(instances) => {
            std::fs::write(krate.join("src/main.rs"), roundtrip::program(instances))?;
            std::fs::write(
                krate.join("instances.json"),
                serde_json::to_vec(&roundtrip::input(instances))?,
            )?;
        }
        None => std::fs::write(krate.join("src/main.rs"), driver)?,
    }
    // A description with webhooks makes a client that sends them: the runtime's `webhooks`.
    let generated = std::fs::read_to_string(krate.join("src/api.rs")).unwrap_or_default();
    let features: &[&str] = if generated.contains("remcall::webhooks::") {
        &["webhooks"]
    } else {
        &[]
    };
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"conformance-{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[dependencies]\nremcall = {{ path = {:?}, features = {features:?} }}\ntokio = {{ version = \"1\", features = [\"rt-multi-thread\", \"macros\"] }}\n\n{}\n[workspace]\n",
            name.to_ascii_lowercase()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "-"),
            root.join("runtime"),
            remcall_real_server_tests::SCRATCH_PROFILE
        ),
    )?;
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock"))?;
    // Shared with the real servers' workloads: the runtime is built once for both.
    let target = root.join(remcall_real_server_tests::SCRATCH_TARGET);
    let built = Command::new(env!("CARGO"))
        .current_dir(&krate)
        .args(["build", "--quiet", "--offline"])
        .env("CARGO_TARGET_DIR", &target)
        .output()?;
    if !built.status.success() {
        // The whole of what cargo said but the linker's command line (thousands of arguments):
        // a failed link's cause (a missing symbol, a full disk) is on the lines after its first.
        let stderr = String::from_utf8_lossy(&built.stderr);
        let said: Vec<&str> = stderr.lines().filter(|l| l.len() <= 2_000).collect();
        bail!(
            "the driver does not build:\n{}",
            said[said.len().saturating_sub(40)..].join("\n")
        );
    }
    let binary = target.join("debug").join(format!(
        "conformance-{}",
        name.to_ascii_lowercase()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    ));
    if let Some(instances) = instances {
        let output = Command::new(&binary).current_dir(&krate).output()?;
        let mut tally = Tally {
            methods,
            operations,
            faithful,
            problems: unfaithful,
            instances: instances.len(),
            ..Tally::default()
        };
        let back: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect();
        for (i, instance) in instances.iter().enumerate() {
            let line = back.get(i).map(String::as_str).unwrap_or("!not run");
            let lost = match serde_json::from_str::<Value>(line) {
                Ok(value) => {
                    let nulls = instance.role == "body";
                    roundtrip::difference(&instance.value, &value, "$", nulls)
                }
                Err(_) => Some(line.chars().take(200).collect()),
            };
            match lost {
                None => tally.kept += 1,
                Some(at) => {
                    tally.lost_examples += usize::from(instance.example);
                    let source = if instance.example {
                        " (the description's example)"
                    } else {
                        ""
                    };
                    tally.problems.push(format!(
                        "{} {} `{}`{source}: {at}",
                        instance.method, instance.role, instance.ty
                    ));
                }
            }
        }
        return Ok(tally);
    }
    let (mut server, url) = start_prism(prism, &bundled_path)?;
    let mut run = Command::new(&binary);
    run.arg(&url);
    // Every `${VAR}` the spec names: the base URL is Prism's, the rest a placeholder secret.
    for var in variables(&spec_text) {
        let value = if var.ends_with("_URL") {
            url.clone()
        } else {
            "conformance".to_owned()
        };
        run.env(var, value);
    }
    let output = run.output();
    let _ = server.kill();
    let _ = server.wait();
    let output = output?;
    std::fs::write(krate.join("calls.tsv"), &output.stdout)?;
    let mut tally = Tally {
        methods,
        operations,
        faithful,
        problems: unfaithful,
        ..Tally::default()
    };
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(method), Some(outcome)) = (parts.next(), parts.next()) else {
            continue;
        };
        let detail = parts.next().unwrap_or_default();
        match outcome {
            "unbuilt" => tally
                .problems
                .push(format!("{method}: arguments not built: {detail}")),
            "decoded" => {
                tally.called += 1;
                tally.accepted += 1;
                tally.decoded += 1;
            }
            "undecoded" => {
                tally.called += 1;
                tally.accepted += 1;
                if detail.contains("invalid value: integer `-")
                    && (detail.contains("u64") || detail.contains("u32"))
                {
                    tally.unsigned += 1;
                } else {
                    tally
                        .problems
                        .push(format!("{method}: response not decoded: {detail}"));
                }
            }
            "rejected" if prism_could_not_answer(detail) => {
                tally.called += 1;
                tally.accepted += 1;
                tally.unanswered += 1;
            }
            "rejected" => {
                tally.called += 1;
                tally
                    .problems
                    .push(format!("{method}: request refused: {detail}"));
            }
            _ => {
                tally.called += 1;
                tally
                    .problems
                    .push(format!("{method}: {outcome}: {detail}"));
            }
        }
    }
    if !output.status.success() {
        tally.problems.push(format!(
            "the driver failed: {}",
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or_default()
        ));
    }
    Ok(tally)
}

/// The `${VAR}` names in a spec.
fn variables(spec: &str) -> Vec<String> {
    let mut out: Vec<String> = spec
        .split("${")
        .skip(1)
        .filter_map(|rest| {
            let end = rest.find(['}', ':'])?;
            Some(rest[..end].to_owned())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

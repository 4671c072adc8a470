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

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};

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
}

/// What a run does with each document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Import, check faithfulness, build the driver and call Prism.
    Calls,
    /// Import and check faithfulness only: no build, no Prism (a minute for the corpus).
    FaithfulOnly,
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
        Mode::FaithfulOnly => PathBuf::new(),
    };
    let scratch = root.join("target/conformance");
    std::fs::create_dir_all(&scratch)?;
    let mut total = Tally::default();
    let mut rows = Vec::new();
    for document in documents {
        let name = document_name(document);
        eprintln!("conformance: {name}");
        let tally = match one(root, &cli, &prism, &scratch, document, &name, mode) {
            Ok(tally) => tally,
            Err(error) => {
                rows.push(format!("| {name} | not run: {error:#} | | | | | |"));
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

/// A document's name: the folder under an `apis/` directory it is the entry of, else its
/// file's stem.
fn document_name(document: &Path) -> String {
    let components: Vec<String> = document
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match components.iter().position(|c| c == "apis") {
        Some(at) if at + 2 < components.len() => components[at + 1].clone(),
        _ => document
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

/// Prism's command, installed into `target/prism` when it is not there.
pub(crate) fn prism(root: &Path) -> anyhow::Result<PathBuf> {
    let prefix = root.join("target/prism");
    let bin = prefix.join("node_modules/.bin/prism");
    if bin.exists() {
        return Ok(bin);
    }
    eprintln!(
        "installing Prism (@stoplight/prism-cli) into {}",
        prefix.display()
    );
    std::fs::create_dir_all(&prefix)?;
    let status = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(&prefix)
        .arg("@stoplight/prism-cli@5")
        .status()
        .context("running npm (Prism needs node and npm: apt-get install nodejs npm)")?;
    if !status.success() || !bin.exists() {
        bail!("npm could not install @stoplight/prism-cli");
    }
    Ok(bin)
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
    std::fs::write(krate.join("src/main.rs"), driver)?;
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"conformance-{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[dependencies]\nremcall = {{ path = {:?} }}\ntokio = {{ version = \"1\", features = [\"rt-multi-thread\", \"macros\"] }}\n\n[workspace]\n",
            name.to_ascii_lowercase()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "-"),
            root.join("runtime")
        ),
    )?;
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock"))?;
    let target = root.join("target/conformance-build");
    let built = Command::new(env!("CARGO"))
        .current_dir(&krate)
        .args(["build", "--quiet", "--offline"])
        .env("CARGO_TARGET_DIR", &target)
        .output()?;
    if !built.status.success() {
        let stderr = String::from_utf8_lossy(&built.stderr);
        bail!(
            "the driver does not build: {}",
            stderr
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or_default()
        );
    }
    let binary = target.join("debug").join(format!(
        "conformance-{}",
        name.to_ascii_lowercase()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    ));
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
fn prism_could_not_answer(detail: &str) -> bool {
    PRISM_CANNOT_ANSWER.iter().any(|kind| detail.contains(kind))
        || detail.contains("errors#VIOLATIONS")
            && detail.contains(r#""validation":[{"location":["response""#)
}

/// Prism mocking `document` on a free loopback port, once it listens.
fn start_prism(prism: &Path, document: &Path) -> anyhow::Result<(Child, String)> {
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

/// The description as a value tree, for the parameters' and bodies' schemas; `$ref`s inside
/// the entry document are followed (one that leaves it gives no sample: the call is not made).
struct Description {
    root: Value,
    swagger2: bool,
    /// A string for each `pattern` in the description, made by json-schema-faker (Prism's own
    /// generator): only in a run that calls Prism.
    patterns: HashMap<String, String>,
}

impl Description {
    /// The description bundled into one value (see `bundle.rs`).
    fn new(root: Value) -> Description {
        let swagger2 = root.get("swagger").is_some();
        Description {
            root,
            swagger2,
            patterns: HashMap::new(),
        }
    }

    /// Fills [`Description::patterns`] with one node process that asks json-schema-faker, from
    /// Prism's installation, for a string matching each pattern.
    fn sample_patterns(&mut self, prism: &Path) -> anyhow::Result<()> {
        fn collect(value: &Value, out: &mut Vec<String>) {
            match value {
                Value::Object(map) => {
                    if let Some(Value::String(pattern)) = map.get("pattern")
                        && !out.contains(pattern)
                    {
                        out.push(pattern.clone());
                    }
                    map.values().for_each(|v| collect(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
                _ => {}
            }
        }
        let mut patterns = Vec::new();
        collect(&self.root, &mut patterns);
        if patterns.is_empty() {
            return Ok(());
        }
        let schemas: Vec<Value> = patterns
            .iter()
            .map(|p| json!({ "type": "string", "pattern": p }))
            .collect();
        // .../target/prism/node_modules/.bin/prism → .../target/prism
        let install = prism
            .ancestors()
            .nth(3)
            .context("Prism's installation directory")?;
        let mut child = Command::new("node")
            .current_dir(install)
            .arg("-e")
            .arg(PATTERN_SCRIPT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("running node")?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            stdin.write_all(serde_json::to_string(&schemas)?.as_bytes())?;
        }
        let output = child.wait_with_output()?;
        let samples: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap_or_default();
        for (pattern, sample) in patterns.into_iter().zip(samples) {
            if let Value::String(text) = sample {
                self.patterns.insert(pattern, text);
            }
        }
        Ok(())
    }

    /// True when another route of the description has the same shape and verb: Prism routes
    /// a request to the first, so what it checks and answers may be the other operation's.
    fn ambiguous(&self, verb: &str, route: &str) -> bool {
        let shape = placeholders_blank(route);
        let paths = self.root.get("paths").and_then(Value::as_object);
        paths
            .into_iter()
            .flatten()
            .filter(|(path, item)| {
                placeholders_blank(path) == shape
                    && self
                        .deref(item)
                        .is_some_and(|item| item.get(verb).is_some())
            })
            .count()
            > 1
    }

    /// `value`, its `$ref`s followed.
    fn deref<'a>(&'a self, mut value: &'a Value) -> Option<&'a Value> {
        for _ in 0..32 {
            match value.get("$ref").and_then(Value::as_str) {
                Some(reference) => value = self.root.pointer(reference.strip_prefix('#')?)?,
                None => return Some(value),
            }
        }
        None
    }

    /// The operation for `verb` and a spec's route (placeholders renamed as the importer
    /// names them), and its path item: the route whose placeholders name the same words, else
    /// the one of the same shape. Returns the description's route too.
    fn operation(&self, verb: &str, route: &str) -> Option<(&str, &Value, &Value)> {
        let paths = self.root.get("paths")?.as_object()?;
        let find = |exact: bool| {
            paths.iter().find_map(|(path, item)| {
                let same = if exact {
                    placeholders_named(path) == placeholders_named(route)
                } else {
                    placeholders_blank(path) == placeholders_blank(route)
                };
                same.then_some(())?;
                let item = self.deref(item)?;
                Some((path.as_str(), item, self.deref(item.get(verb)?)?))
            })
        };
        find(true).or_else(|| find(false))
    }

    /// A value the schema accepts, made from its example, enum, format and required
    /// properties; `None` when a `$ref` cannot be followed.
    fn sample(&self, schema: &Value, depth: usize) -> Option<Value> {
        let schema = self.deref(schema)?;
        if depth > 12 {
            return Some(Value::Null);
        }
        if let Some(example) = schema
            .get("example")
            .filter(|e| !e.is_null() && fits(e, schema))
        {
            return Some(example.clone());
        }
        if let Some(examples) = schema.get("examples").and_then(Value::as_array)
            && let Some(first) = examples.first().filter(|e| fits(e, schema))
        {
            return Some(first.clone());
        }
        if let Some(value) = schema.get("const") {
            return Some(value.clone());
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array)
            && let Some(first) = values.iter().find(|v| !v.is_null())
        {
            return Some(first.clone());
        }
        if let Some(default) = schema.get("default") {
            return Some(default.clone());
        }
        // Alternatives that only say which properties are required: the object, with the
        // first alternative's required properties.
        if schema.get("properties").is_some()
            && let Some(first) = ["oneOf", "anyOf"]
                .iter()
                .filter_map(|k| schema.get(*k).and_then(Value::as_array))
                .flatten()
                .next()
            && first.get("properties").is_none()
            && first.get("type").is_none()
            && first.get("$ref").is_none()
        {
            let mut object = schema.as_object()?.clone();
            object.remove("oneOf");
            object.remove("anyOf");
            let mut required = object
                .get("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            required.extend(
                first
                    .get("required")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            );
            object.insert("required".to_owned(), Value::Array(required));
            return self.sample(&Value::Object(object), depth + 1);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|a| {
                a.iter()
                    .find(|s| s.get("type").and_then(Value::as_str) != Some("null"))
            }) {
                return self.sample(first, depth + 1);
            }
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            let mut merged = Map::new();
            for part in parts {
                match self.sample(part, depth + 1)? {
                    Value::Object(fields) => merged.extend(fields),
                    other if parts.len() == 1 => return Some(other),
                    _ => {}
                }
            }
            return Some(Value::Object(merged));
        }
        let kind = match schema.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("string"),
            _ if schema.get("properties").is_some() => "object",
            _ => "object",
        };
        let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
        if kind == "string"
            && let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
            && let Some(text) = self.patterns.get(pattern)
        {
            return Some(json!(text));
        }
        Some(match kind {
            "string" => json!(match format {
                "date-time" => "2024-01-02T03:04:05Z",
                "date" => "2024-01-02",
                "time" => "03:04:05",
                "uuid" => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                "email" => "user@example.com",
                "uri" | "url" => "https://example.com/",
                "hostname" => "example.com",
                "ipv4" => "192.0.2.1",
                "ipv6" => "2001:db8::1",
                "byte" => "aGVsbG8=",
                _ => {
                    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(1);
                    let max = schema
                        .get("maxLength")
                        .and_then(Value::as_u64)
                        .unwrap_or(27);
                    let length = 6_u64.clamp(min.min(27), max.clamp(1, 27));
                    &"sample-sample-sample-sample"[..length as usize]
                }
            }),
            "integer" => json!(
                schema
                    .get("minimum")
                    .and_then(Value::as_i64)
                    .map_or(1, |m| m.max(1))
            ),
            "number" => json!(
                schema
                    .get("minimum")
                    .and_then(Value::as_f64)
                    .map_or(1.0, |m| m.max(1.0))
            ),
            "boolean" => json!(true),
            "array" => {
                // One item at least: an empty list says little, and a path list needs one.
                let count = schema
                    .get("minItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .max(1);
                let item = schema.get("items").map(|i| self.sample(i, depth + 1));
                match item {
                    Some(Some(item)) => Value::Array(vec![item; count as usize]),
                    Some(None) => return None,
                    _ => json!([]),
                }
            }
            _ => {
                let mut object = Map::new();
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                    for (name, property) in properties {
                        let property_schema = self.deref(property)?;
                        if required.contains(&name.as_str())
                            && property_schema.get("readOnly") != Some(&Value::Bool(true))
                        {
                            object.insert(name.clone(), self.sample(property, depth + 1)?);
                        }
                    }
                }
                Value::Object(object)
            }
        })
    }
}

/// Checks, apart from the importer, what it promises: every operation of the description has a
/// method with its verb and route, each declared path, query and header parameter (but those
/// the client sets itself, an idempotency key, cookies), a body where it takes one, and a
/// result where a 2xx response has a body. Returns (faithful, operations, what is missing); an
/// operation whose parts sit in other files is not counted.
fn faithfulness(spec: &Value, description: &Description) -> (usize, usize, Vec<String>) {
    const OWN: &[&str] = &["authorization", "content-type", "content-length"];
    const VERBS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch"];
    let methods: Vec<&Value> = spec
        .get("methods")
        .and_then(Value::as_object)
        .map(|m| m.values().collect())
        .unwrap_or_default();
    let method_for = |verb: &str, route: &str| {
        let same = |exact: bool| {
            methods.iter().copied().find(|m| {
                let request = m.get("request").and_then(Value::as_str).unwrap_or_default();
                request.split_once(' ').is_some_and(|(v, r)| {
                    v.eq_ignore_ascii_case(verb)
                        && if exact {
                            placeholders_named(r) == placeholders_named(route)
                        } else {
                            placeholders_blank(r) == placeholders_blank(route)
                        }
                })
            })
        };
        same(true).or_else(|| same(false))
    };
    let names_in = |method: &Value, section: &str| -> Vec<String> {
        method
            .get(section)
            .and_then(Value::as_object)
            .map(|params| {
                params
                    .iter()
                    .map(|(key, def)| {
                        def.get("name")
                            .and_then(Value::as_str)
                            .unwrap_or(key)
                            .to_ascii_lowercase()
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (mut faithful, mut operations, mut missing) = (0, 0, Vec::new());
    let paths = description.root.get("paths").and_then(Value::as_object);
    for (route, item) in paths.into_iter().flatten() {
        let Some(item) = description.deref(item) else {
            continue;
        };
        for verb in VERBS {
            let Some(operation) = item.get(*verb) else {
                continue;
            };
            let Some(operation) = description.deref(operation) else {
                continue;
            };
            let label = format!("{} {route}", verb.to_ascii_uppercase());
            let mut lacks = Vec::new();
            let mut resolved = true;
            let mut takes_body = operation.get("requestBody").is_some();
            let Some(method) = method_for(verb, route) else {
                operations += 1;
                missing.push(format!("{label}: no method"));
                continue;
            };
            let mut parameters = Vec::new();
            for list in [item.get("parameters"), operation.get("parameters")] {
                for parameter in list.and_then(Value::as_array).into_iter().flatten() {
                    match description.deref(parameter) {
                        Some(parameter) => parameter_list_add(&mut parameters, parameter),
                        None => resolved = false,
                    }
                }
            }
            for parameter in &parameters {
                let text = |key: &str| parameter.get(key).and_then(Value::as_str).unwrap_or("");
                let wire = text("name").to_ascii_lowercase();
                let present = match text("in") {
                    // The method was found by its route: every placeholder is there.
                    "path" => true,
                    "query" => names_in(method, "query").contains(&wire),
                    "header" if OWN.contains(&wire.as_str()) => true,
                    "header" if wire == "idempotency-key" => {
                        method.get("idempotency_key").is_some()
                            || names_in(method, "headers").contains(&wire)
                    }
                    "header" => names_in(method, "headers").contains(&wire),
                    "body" | "formData" => {
                        takes_body = true;
                        true
                    }
                    _ => true,
                };
                if !present {
                    lacks.push(format!("{} parameter `{}`", text("in"), text("name")));
                }
            }
            if takes_body && method.get("body").is_none() {
                lacks.push("its body".to_owned());
            }
            let responses = operation.get("responses").and_then(Value::as_object);
            let returns_body = responses.into_iter().flatten().any(|(status, response)| {
                // 204 and 205 have no body in HTTP, whatever is declared for them.
                let success = status.starts_with('2') && !matches!(status.as_str(), "204" | "205");
                let response = description.deref(response);
                success
                    && response.is_some_and(|r| {
                        r.get("schema").is_some()
                            || r.get("content")
                                .and_then(Value::as_object)
                                .is_some_and(|c| c.values().any(|m| m.get("schema").is_some()))
                    })
            });
            if returns_body && method.get("returns").is_none() && method.get("responses").is_none()
            {
                lacks.push("its result".to_owned());
            }
            if !resolved {
                continue;
            }
            operations += 1;
            if lacks.is_empty() {
                faithful += 1;
            } else {
                missing.push(format!("{label}: the method lacks {}", lacks.join(", ")));
            }
        }
    }
    (faithful, operations, missing)
}

/// Adds an operation's parameter, replacing the path item's of the same name and place.
fn parameter_list_add(parameters: &mut Vec<Value>, parameter: &Value) {
    let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
    parameters.retain(|p| key(p) != key(parameter));
    parameters.push(parameter.clone());
}

/// Reads a JSON list of schemas on stdin, prints a sample of each (null where it cannot).
const PATTERN_SCRIPT: &str = r#"
const jsf = require("json-schema-faker");
let input = "";
process.stdin.on("data", d => input += d).on("end", () => {
  const schemas = JSON.parse(input);
  console.log(JSON.stringify(schemas.map(s => { try { return jsf.generate(s); } catch (e) { return null; } })));
});
"#;

/// `/a/{Order-Id}/b` → `/a/{orderid}/b`: placeholders as words without case or separators, so
/// a description's route and the importer's renamed one compare equal.
fn placeholders_named(route: &str) -> String {
    with_placeholders(route, |name| {
        name.chars()
            .flat_map(char::to_lowercase)
            .filter(char::is_ascii_alphanumeric)
            .collect()
    })
}

/// `/a/{id}/b` → `/a/{}/b`.
fn placeholders_blank(route: &str) -> String {
    with_placeholders(route, |_| String::new())
}

/// `route` with each placeholder's name replaced by what `name` makes of it.
fn with_placeholders(route: &str, name: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(route.len());
    let mut rest = route;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..=open]);
        out.push_str(&name(&rest[open + 1..open + close]));
        out.push('}');
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// The driver's source: one block per method, and the number of methods.
fn driver(spec: &Value, ordered: &serde_yaml::Value, description: &Description) -> (String, usize) {
    // OAuth2 client credentials would fetch a token from the API's real token URL, which no
    // test reaches: a bearer token stands in, which is all Prism checks of an OAuth2 scheme.
    let oauth2 = spec.pointer("/configs/main/auth/oauth2").is_some();
    let mut out = DRIVER_HEAD.replace(
        "PROFILE",
        if oauth2 {
            "\\nauth: { bearer: { token: conformance } }"
        } else {
            ""
        },
    );
    let methods = spec
        .get("methods")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let copy = copy_types(spec);
    for (name, method) in &methods {
        let order = |section: &str| -> Vec<String> {
            ordered
                .get("methods")
                .and_then(|m| m.get(name.as_str()))
                .and_then(|m| m.get(section))
                .and_then(serde_yaml::Value::as_mapping)
                .map(|m| {
                    m.keys()
                        .filter_map(|k| k.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        out.push_str(&call(name, method, &order, &copy, description));
    }
    out.push_str("}\n");
    (out, methods.len())
}

const DRIVER_HEAD: &str = r#"//! Generated by `cargo xtask conformance`: calls every method of the imported client.
#![allow(unused, clippy::all)]
mod api;
use api::*;
use std::collections::HashMap;

fn arg<T: remcall::serde::de::DeserializeOwned>(json: &str) -> Result<T, String> {
    remcall::serde_json::from_str(json).map_err(|e| e.to_string())
}

fn report(method: &str, result: Result<(), remcall::Error>) {
    let line = match result {
        Ok(()) => "decoded\t".to_owned(),
        Err(e) if e.kind() == remcall::ErrorKind::Decode => format!("undecoded\t{e}"),
        Err(e) => {
            let text = e.to_string().replace(['\t', '\n'], " ");
            match text.find("stoplight.io/prism/errors#") {
                Some(at) => format!("rejected\t{}", &text[at..text.len().min(at + 300)]),
                None if e.kind() == remcall::ErrorKind::Status => "decoded\t".to_owned(),
                None => format!("failed\t{text}"),
            }
        }
    };
    println!("{method}\t{line}");
}

#[tokio::main]
async fn main() {
    let url = std::env::args().nth(1).unwrap_or_default();
    let profile = remcall::Profile::from_yaml_str("retry: { max_attempts: 1 }\ntimeout: { attempt: 20s, total: 30s }PROFILE").unwrap();
    let client = match Api::builder().base_url(&url).profile(profile).build() {
        Ok(client) => client,
        Err(e) => { eprintln!("cannot build the client: {e}"); std::process::exit(1) }
    };
"#;

/// One method's block: its arguments from the description, the call, the report.
fn call(
    name: &str,
    method: &Value,
    order: &dyn Fn(&str) -> Vec<String>,
    copy: &[String],
    description: &Description,
) -> String {
    let request = method
        .get("request")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (verb, route) = request.split_once(' ').unwrap_or(("GET", "/"));
    let verb = verb.to_ascii_lowercase();
    // The reason goes into a `println!` format string: its braces are written doubled.
    let unbuilt = |why: &str| {
        let why = why.escape_default().to_string();
        format!(
            "    println!(\"{name}\\tunbuilt\\t{}\");\n",
            why.replace('{', "{{").replace('}', "}}")
        )
    };
    let Some((description_route, item, operation)) = description.operation(&verb, route) else {
        return unbuilt("no operation in the description");
    };
    if description.ambiguous(&verb, description_route) {
        return unbuilt(
            "another route of the same shape (`/{a}/x` and `/{b}/x`): Prism cannot tell which is called",
        );
    }
    // The description's parameters, by place and name.
    let mut declared: BTreeMap<(String, String), Value> = BTreeMap::new();
    for list in [item.get("parameters"), operation.get("parameters")] {
        for parameter in list.and_then(Value::as_array).into_iter().flatten() {
            let Some(parameter) = description.deref(parameter) else {
                continue;
            };
            let place = parameter
                .get("in")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let wire = parameter
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            declared.insert(
                (place.to_owned(), wire.to_ascii_lowercase()),
                parameter.clone(),
            );
        }
    }
    let ours = placeholder_names(route);
    let theirs = placeholder_names(description_route);
    let mut args: Vec<(String, String)> = Vec::new(); // (type, json)
    let params = |section: &str| -> Vec<(String, Value)> {
        let Some(map) = method.get(section).and_then(Value::as_object) else {
            return Vec::new();
        };
        order(section)
            .into_iter()
            .filter_map(|k| map.get(&k).map(|v| (k, v.clone())))
            .collect()
    };
    let ty_of = |def: &Value| -> String {
        match def {
            Value::String(ty) => ty.clone(),
            other => other
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        }
    };
    let path = params("path");
    for key in &ours {
        let Some((_, def)) = path.iter().find(|(k, _)| k == key) else {
            return unbuilt("a placeholder without a parameter");
        };
        let wire = theirs
            .get(ours.iter().position(|k| k == key).unwrap_or(0))
            .cloned()
            .unwrap_or_default();
        let sample = declared
            .get(&("path".to_owned(), wire.to_ascii_lowercase()))
            .and_then(|p| parameter_sample(description, p))
            .unwrap_or(json!("sample"));
        args.push((ty_of(def), sample.to_string()));
    }
    for (place, section) in [("query", "query"), ("header", "headers")] {
        for (key, def) in params(section) {
            let wire = def
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or(&key)
                .to_owned();
            let ty = ty_of(&def);
            let parameter = declared.get(&(place.to_owned(), wire.to_ascii_lowercase()));
            let required = parameter.is_some_and(|p| p.get("required") == Some(&Value::Bool(true)));
            let sample = if required || !ty.starts_with("Option<") && !ty.starts_with("Vec<") {
                parameter
                    .and_then(|p| parameter_sample(description, p))
                    .unwrap_or(Value::Null)
            } else if ty.starts_with("Vec<") {
                json!([])
            } else {
                Value::Null
            };
            args.push((ty, sample.to_string()));
        }
    }
    if let Some(body) = method.get("body") {
        let ty = ty_of(body);
        if ty == "File"
            || ty.contains("bytes::Bytes")
            || body.get("as").and_then(Value::as_str) == Some("multipart")
        {
            return unbuilt("a file or bytes body");
        }
        let schema = if description.swagger2 {
            operation
                .get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|p| description.deref(p))
                .find(|p| p.get("in").and_then(Value::as_str) == Some("body"))
                .and_then(|p| p.get("schema").cloned())
        } else {
            operation
                .get("requestBody")
                .and_then(|b| description.deref(b))
                .and_then(|b| b.get("content"))
                .and_then(Value::as_object)
                .and_then(|content| {
                    content
                        .iter()
                        .find(|(media, _)| media.contains("json"))
                        .or_else(|| content.iter().next())
                        .and_then(|(_, media)| media.get("schema").cloned())
                })
        };
        let sample = match schema {
            Some(schema) => match description.sample(&schema, 0) {
                Some(sample) => sample,
                None => return unbuilt("the body's schema leaves the document"),
            },
            None if description.swagger2 => {
                let mut form = Map::new();
                for field in operation
                    .get("parameters")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|p| description.deref(p))
                    .filter(|p| p.get("in").and_then(Value::as_str) == Some("formData"))
                {
                    if field.get("required") != Some(&Value::Bool(true)) {
                        continue;
                    }
                    let name = field
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    match parameter_sample(description, field) {
                        Some(value) => form.insert(name.to_owned(), value),
                        None => return unbuilt("a formData field"),
                    };
                }
                Value::Object(form)
            }
            None => json!({}),
        };
        let sample = if ty == "String" && !sample.is_string() {
            json!(sample.to_string())
        } else {
            sample
        };
        args.push((ty, sample.to_string()));
    }
    // A labelled block: an argument that does not decode into its type ends it early.
    let mut block = String::from("    'call: {\n");
    let mut passed = Vec::new();
    for (i, (ty, json)) in args.iter().enumerate() {
        let rust = rust_type(ty);
        block.push_str(&format!(
            "        let v{i}: {rust} = match arg({json:?}) {{ Ok(v) => v, Err(e) => {{ println!(\"{name}\\tunbuilt\\targument {i}: {{}}\", e.replace(['\\t', '\\n'], \" \")); break 'call; }} }};\n"
        ));
        passed.push(pass(ty, &format!("v{i}"), copy));
    }
    block.push_str(&format!(
        "        report(\"{name}\", client.{}({}).await.map(|_| ()));\n    }}\n",
        rust_ident(name),
        passed.join(", ")
    ));
    block
}

/// True when an example has the JSON type its schema says (a template's `{{id}}` for an
/// integer does not: the description's slip, and a sample of the schema is used instead).
fn fits(example: &Value, schema: &Value) -> bool {
    // A template's placeholder (`{{network}}`) stands for a value, it is none.
    if example.as_str().is_some_and(|text| text.contains("{{")) {
        return false;
    }
    if let Some(object) = example.as_object()
        && object.values().any(|v| !fits(v, &Value::Null))
    {
        return false;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => example.is_i64() || example.is_u64(),
        Some("number") => example.is_number(),
        Some("boolean") => example.is_boolean(),
        Some("string") => example.is_string(),
        Some("array") => example.is_array(),
        Some("object") => example.is_object(),
        _ => true,
    }
}

/// A parameter's sample: its own example (3.x `example`, `examples`, 2.0 keywords), else its
/// schema's.
fn parameter_sample(description: &Description, parameter: &Value) -> Option<Value> {
    let schema = match parameter.get("schema") {
        Some(schema) => description.deref(schema)?,
        None => parameter,
    };
    // An example of another JSON type than the schema's (a template's `{{id}}` for an
    // integer) is the description's slip: a sample of the schema is used instead.
    let example = parameter.get("example").cloned().or_else(|| {
        parameter
            .get("examples")
            .and_then(Value::as_object)
            .and_then(|e| e.values().next())
            .and_then(|e| description.deref(e))
            .and_then(|e| e.get("value"))
            .cloned()
    });
    match example {
        Some(example) if fits(&example, schema) => Some(example),
        _ => description.sample(schema, 0),
    }
}

fn placeholder_names(route: &str) -> Vec<String> {
    route
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_owned()))
        .collect()
}

/// A spec type expression as the driver writes it.
fn rust_type(ty: &str) -> String {
    ty.replace("serde_json::", "remcall::serde_json::")
        .replace("bytes::Bytes", "remcall::bytes::Bytes")
}

/// How the generated method takes an argument of spec type `ty` held in `var` (DESIGN.md:
/// `String` as `&str`, `Vec<T>` as `&[T]`, `Copy` types by value, the rest by reference).
fn pass(ty: &str, var: &str, copy: &[String]) -> String {
    const COPY: &[&str] = &[
        "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "bool",
    ];
    let is_copy = |t: &str| COPY.contains(&t) || copy.iter().any(|c| c == t);
    if let Some(inner) = ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')) {
        return if is_copy(inner) {
            var.to_owned()
        } else if inner == "String" || inner.starts_with("Vec<") {
            format!("{var}.as_deref()")
        } else {
            format!("{var}.as_ref()")
        };
    }
    if is_copy(ty) {
        var.to_owned()
    } else {
        format!("&{var}")
    }
}

/// The spec's types the generator makes `Copy`: enums of integers (an open one keeps an
/// unknown value as an integer too).
fn copy_types(spec: &Value) -> Vec<String> {
    spec.get("types")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, def)| {
            def.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| {
                    values
                        .iter()
                        .all(|v| v.is_i64() || v.get("value").is_some_and(Value::is_i64))
                })
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// A method name as an identifier.
fn rust_ident(name: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern",
        "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe",
        "use", "where", "while", "abstract", "become", "box", "do", "final", "macro", "override",
        "priv", "try", "typeof", "unsized", "virtual", "yield",
    ];
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_compare_by_their_placeholders() {
        assert_eq!(placeholders_blank("/a/{id}/b/{x}"), "/a/{}/b/{}");
        assert_eq!(placeholders_named("/a/{Order-Id}/b"), "/a/{orderid}/b");
        assert_eq!(placeholders_named("/a/{order_id}/b"), "/a/{orderid}/b");
        assert_eq!(placeholders_blank("/plain"), "/plain");
    }
}

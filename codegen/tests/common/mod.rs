//! What several test files share: a crate of generated clients, checked with clippy against the
//! real runtime.

use std::path::Path;

/// Writes `generated` into a crate beside the workspace (its root `remcall gen`'s mod.rs, with
/// the lint allowances) and runs `clippy -D warnings` on it, with the workspace's lock file so no
/// dependency is re-resolved and a target directory of its own that stays warm between runs.
/// Returns clippy's stderr when it fails.
#[allow(dead_code)]
pub fn clippy_clean(generated: &[remcall_codegen::Generated]) -> Result<(), String> {
    let args = [
        "clippy",
        "--quiet",
        "--offline",
        "--message-format",
        "short",
        "--",
        "-D",
        "warnings",
    ];
    sample_crate(generated, &args, "sample-check").map(drop)
}

/// Runs the doctests of a library crate of `generated`: what `cargo test --doc` prints.
#[allow(dead_code)]
pub fn doctests(generated: &[remcall_codegen::Generated]) -> Result<String, String> {
    sample_crate(
        generated,
        &["test", "--offline", "--doc"],
        "sample-doctests",
    )
}

/// Cargo `args` in a crate of `generated`, its target directory `target/<target>`: stdout, or
/// stderr when it fails.
fn sample_crate(
    generated: &[remcall_codegen::Generated],
    args: &[&str],
    target: &str,
) -> Result<String, String> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    for (name, content) in remcall_codegen::output::files(generated) {
        let (name, content) = match name.as_str() {
            "mod.rs" => ("lib.rs".to_owned(), format!("//! Sample.\n{content}")),
            _ => (name, content),
        };
        std::fs::write(src.join(name), content).unwrap();
    }
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"sample\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[dependencies]\nremcall = {{ path = {:?}, features = [\"webhooks\"] }}\n\n[workspace]\n",
            workspace.join("runtime")
        ),
    )
    .unwrap();
    std::fs::copy(workspace.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    let output = std::process::Command::new(env!("CARGO"))
        .args(args)
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", workspace.join("target").join(target))
        .output()
        .unwrap();
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// The top-level keys an imported spec may have: any other was planted by a description.
#[allow(dead_code)]
pub const IMPORTED_SPEC_KEYS: &[&str] = &[
    "client",
    "doc",
    "base_url",
    "base_path",
    "config",
    "configs",
    "types",
    "methods",
    "webhooks",
];

/// True when `spec` says what the YAML snippet `expected` says: some node of the spec holds
/// every key and value of the snippet (a snippet that is no YAML, a comment say, is looked for
/// as text). The spec is written by a YAML emitter, so what it says, not its layout, is what a
/// test asserts.
#[allow(dead_code)]
pub fn spec_says(spec: &str, expected: &str) -> bool {
    use serde_yaml::Value;
    let snippet = unindent(expected);
    let parsed = serde_yaml::from_str::<Value>(&snippet);
    match parsed {
        Ok(value @ (Value::Mapping(_) | Value::Sequence(_))) => {
            let tree: Value = serde_yaml::from_str(spec).unwrap();
            somewhere(&tree, &value)
        }
        _ => spec.contains(expected),
    }
}

/// A snippet cut from the middle of a spec, moved left by its first line's indentation.
fn unindent(text: &str) -> String {
    let indent = text.len() - text.trim_start_matches(' ').len();
    text.lines()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn somewhere(tree: &serde_yaml::Value, expected: &serde_yaml::Value) -> bool {
    use serde_yaml::Value;
    holds(tree, expected)
        || match tree {
            Value::Mapping(map) => map.values().any(|v| somewhere(v, expected)),
            Value::Sequence(items) => items.iter().any(|v| somewhere(v, expected)),
            _ => false,
        }
}

/// `actual` says at least what `expected` says: a mapping's keys (and what they say), a
/// sequence's items in order, a scalar equal (`200` and `"200"` alike).
fn holds(actual: &serde_yaml::Value, expected: &serde_yaml::Value) -> bool {
    use serde_yaml::Value;
    match (actual, expected) {
        (Value::Mapping(a), Value::Mapping(e)) => e
            .iter()
            .all(|(k, v)| a.iter().any(|(ak, av)| scalar_eq(ak, k) && holds(av, v))),
        (Value::Sequence(a), Value::Sequence(e)) => {
            let mut rest = a.iter();
            e.iter()
                .all(|item| rest.any(|candidate| holds(candidate, item)))
        }
        // `key:` with nothing after it in a snippet: the key is there.
        (_, Value::Null) => true,
        (a, e) => scalar_eq(a, e),
    }
}

fn scalar_eq(a: &serde_yaml::Value, b: &serde_yaml::Value) -> bool {
    use serde_yaml::Value;
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    a == b || (text(a).is_some() && text(a) == text(b))
}

/// An import's notes, one a line, as the CLI prints them.
#[allow(dead_code)]
pub fn notes_of(imported: &remcall_openapi::Imported) -> String {
    let notes: Vec<String> = imported
        .summary
        .notes
        .iter()
        .map(ToString::to_string)
        .collect();
    notes.join("\n")
}

/// Writes `text` at `path` below `root`, its folders made.
#[allow(dead_code)]
pub fn write_under(root: &std::path::Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

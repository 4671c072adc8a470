//! ARCHITECTURE.md against the tree: every file and folder it names exists, and every crate,
//! runtime module, importer module, xtask command and runtime item generated code names is in
//! it. A map that names a file that moved sends a new contributor nowhere; one that leaves a
//! module out hides it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// The text of the section whose heading starts with `heading`, up to the next one.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(&format!("\n## {heading}"))
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no section `{heading}`"));
    let rest = &text[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// Every code span of `text` (between single backticks).
fn spans(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        out.push(&after[..close]);
        rest = &after[close + 1..];
    }
    out
}

/// Every file and folder of the repository (not `target/`, not dot-folders), relative to the
/// root, folders ending with `/`.
fn tree() -> BTreeSet<String> {
    let root = root();
    let mut out = BTreeSet::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable folder") {
            let entry = entry.expect("a folder entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || (dir == root && name == "target") {
                continue;
            }
            let path = entry.path();
            let relative = path
                .strip_prefix(&root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            if entry.file_type().expect("a file type").is_dir() {
                out.insert(format!("{relative}/"));
                stack.push(path);
            } else {
                out.insert(relative);
            }
        }
    }
    out
}

/// A code span that names a file or folder: a path of words ending in a known extension or
/// `/` (not a command, not a URL, not a placeholder like `<client>_stub.rs`).
fn is_path(span: &str) -> bool {
    let plain = span
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
    let shaped = [".rs", ".md", ".yaml", ".toml"]
        .iter()
        .any(|ext| span.ends_with(ext))
        || (span.ends_with('/') && span.len() > 1);
    plain && shaped && !span.starts_with("target/") && !span.contains("//")
}

#[test]
fn every_file_and_folder_it_names_exists() {
    let tree = tree();
    let text = architecture();
    let top: BTreeSet<&str> = tree
        .iter()
        .filter(|p| p.ends_with('/') && p.matches('/').count() == 1)
        .map(|p| p.trim_end_matches('/'))
        .collect();
    let mut missing = Vec::new();
    for span in spans(&text).into_iter().filter(|s| is_path(s)) {
        let rooted = top.contains(span.split('/').next().unwrap_or(""));
        let found = if rooted || tree.contains(span) {
            tree.contains(span)
        } else {
            // A name inside the folder the sentence is about: some file or folder of the tree
            // ends with it.
            tree.iter().any(|p| p.ends_with(&format!("/{span}")))
        };
        if !found {
            missing.push(span);
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what the tree does not hold: {missing:?}"
    );
}

#[test]
fn every_crate_runtime_module_and_importer_module_is_on_the_map() {
    let text = architecture();
    let names = |section_text: &str| -> BTreeSet<String> {
        spans(section_text).into_iter().map(str::to_owned).collect()
    };
    let crates = names(section(&text, "Crates"));
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let members = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("the workspace's members");
    let mut missing = Vec::new();
    for member in members.split(',').map(|m| m.trim().trim_matches('"')) {
        let top = member.split('/').next().unwrap_or(member);
        if !member.is_empty() && !crates.contains(&format!("{top}/")) {
            missing.push(format!("crate {member}"));
        }
    }
    let modules = |folder: &str| -> Vec<String> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(root().join(folder)).expect("a source folder") {
            let entry = entry.expect("an entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().expect("a file type").is_dir() {
                out.push(format!("{name}/"));
            } else if name.ends_with(".rs") && name != "lib.rs" && name != "main.rs" {
                out.push(name);
            }
        }
        out
    };
    let call = names(section(&text, "Call → response"));
    for module in modules("runtime/src") {
        if !call.contains(&module) {
            missing.push(format!("runtime/src/{module}"));
        }
    }
    let spec = names(section(&text, "Spec → client"));
    for module in modules("openapi/src") {
        let written = [module.clone(), format!("openapi/src/{module}")];
        if !written.iter().any(|w| spec.contains(w)) {
            missing.push(format!("openapi/src/{module}"));
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md leaves out: {missing:?}"
    );
}

#[test]
fn every_xtask_command_is_listed() {
    let text = architecture();
    let row = text
        .lines()
        .find(|line| line.starts_with("| `xtask/`"))
        .expect("the xtask row");
    let main = std::fs::read_to_string(root().join("xtask/src/main.rs")).expect("xtask's main");
    let usage = main
        .lines()
        .find(|line| line.contains("\"usage: cargo xtask"))
        .expect("xtask's usage line");
    let commands: Vec<&str> = usage
        .split("cargo xtask ")
        .skip(1)
        .filter_map(|part| part.split_whitespace().next())
        .collect();
    assert!(commands.len() > 5, "read the commands: {commands:?}");
    let listed: Vec<&str> = row
        .split('`')
        .nth(3)
        .expect("the row's command span")
        .trim_start_matches("cargo xtask ")
        .split('|')
        .map(str::trim)
        .collect();
    let missing: Vec<&&str> = commands
        .iter()
        .filter(|c| !listed.contains(&c.trim_end_matches('"')))
        .collect();
    assert!(missing.is_empty(), "the xtask row leaves out {missing:?}");
}

#[test]
fn every_runtime_item_generated_code_names_is_in_the_inventory() {
    let text = architecture();
    let inventory = section(&text, "What generated code may name");
    let allowed: BTreeSet<String> = spans(inventory)
        .into_iter()
        .flat_map(|span| {
            // `remcall::serde`, `Form`/`Multipart`/`Files`, `serde_*!`, `Observe` …
            span.split(['/', ' '])
                .map(|part| {
                    // `stub::*` allows the module; `remcall::serde` the name after the path.
                    let part = part.strip_suffix("::*").unwrap_or(part);
                    part.rsplit("::").next().unwrap_or(part).to_owned()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let macro_family = |name: &str| {
        name.starts_with("serde_") && allowed.contains("serde_*!")
            || allowed.contains(&format!("{name}!"))
    };
    let clients = root().join("examples/committed/src/clients");
    let mut unnamed = BTreeSet::new();
    let mut seen = 0;
    for entry in std::fs::read_dir(&clients).expect("the committed clients") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let code = std::fs::read_to_string(&path).expect("a client");
        for (at, _) in code.match_indices("remcall::") {
            let mut rest = &code[at + "remcall::".len()..];
            if let Some(inner) = rest.strip_prefix("__codegen::") {
                rest = inner;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() || name == "__codegen" {
                continue;
            }
            seen += 1;
            if !allowed.contains(&name) && !macro_family(&name) {
                unnamed.insert(name);
            }
        }
    }
    assert!(seen > 100, "read the generated clients: {seen} paths");
    assert!(
        unnamed.is_empty(),
        "generated code names runtime items the inventory leaves out: {unnamed:?}"
    );
}

/// The table of a call's steps: each type is declared in its file and composed, with `of(..)`,
/// in the files the table says and in no other file of `call/` (no step builds another it does
/// not compose: a download, which is `Client::call` whole, builds none), the steps composed in
/// one file in the table's order.
#[test]
fn each_step_of_a_call_is_a_type_in_its_file_composed_in_order() {
    let text = architecture();
    let start = text
        .find("### A call's steps")
        .expect("ARCHITECTURE.md has the call's steps");
    let rows: Vec<Vec<&str>> = text[start..]
        .lines()
        .skip_while(|line| !line.starts_with("| step |"))
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            line.split(" | ")
                .map(|cell| cell.trim_matches(['|', ' ', '`']))
                .collect()
        })
        .collect();
    assert!(rows.len() >= 5, "the steps' table: {rows:?}");
    let call = root().join("runtime/src/call");
    // Every file of `call/`, its code without comments and tests.
    let mut files: Vec<(String, String)> = Vec::new();
    let mut pending = vec![call.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let name = path
                    .strip_prefix(&call)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let text = std::fs::read_to_string(&path).unwrap();
                let code: Vec<&str> = text
                    .split("#[cfg(test)]")
                    .next()
                    .unwrap_or_default()
                    .lines()
                    .map(|line| line.split("//").next().unwrap_or_default())
                    .collect();
                files.push((name, code.join("\n")));
            }
        }
    }
    let code_of = |file: &str| -> &str {
        files
            .iter()
            .find(|(name, _)| name == file)
            .map(|(_, code)| code.as_str())
            .unwrap_or_else(|| panic!("call/{file} does not exist"))
    };
    let mut last_in: std::collections::HashMap<&str, usize> = Default::default();
    for row in &rows {
        let [_, ty, file, composed] = row.as_slice() else {
            panic!("a row of four cells: {row:?}");
        };
        assert!(
            code_of(file).contains(&format!("pub(super) struct {ty}<")),
            "`{ty}` is not a type of call/{file}"
        );
        let composers: Vec<&str> = composed
            .split(',')
            .map(|c| c.trim_matches([' ', '`']))
            .collect();
        let made = format!("{ty}::of(");
        for composer in &composers {
            let at = code_of(composer)
                .find(&made)
                .unwrap_or_else(|| panic!("call/{composer} does not compose `{ty}`"));
            if let Some(before) = last_in.insert(composer, at) {
                assert!(
                    before < at,
                    "call/{composer} composes `{ty}` out of the table's order"
                );
            }
        }
        for (name, code) in &files {
            assert!(
                composers.contains(&name.as_str()) || !code.contains(&made),
                "call/{name} builds `{ty}`, which the table says only {composers:?} compose"
            );
        }
    }
}

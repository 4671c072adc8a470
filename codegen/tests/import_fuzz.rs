//! The importer under structural mutation: descriptions (small ones of our own, and any real
//! ones `REMCALL_FUZZ_SEEDS` names) with schemas swapped, wrapped in `allOf`/`anyOf`/`oneOf`,
//! pointed at each other by `$ref`, made nullable, and hostile text in every string and key.
//! Whatever comes in: the import never fails whole, the spec it writes checks and generates,
//! no text of the description is YAML of its own, and no placeholder names a variable the
//! importer did not make. `REMCALL_FUZZ_CASES` sets how many descriptions are tried (CI runs a
//! bounded number; a long run prints its count every hundred); a failing one is written to
//! `REMCALL_FUZZ_FAILURES` (a directory) when set.
//! Documents kept in `tests/fuzz-regressions/` are imported first, every run.
//!
//! Each description is imported from inside a repository of files it may and may not read
//! ([`Tree`]): a sibling JSON file, a page beside it, secrets above it, a dotfile beside it.
//! Mutations point descriptions and `$ref`s at them, and add overlay actions of costly shapes;
//! the import reads no file it may not, puts no secret in the spec, and an overlay past its
//! bounds fails located in the overlay, quickly.

mod common;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};

/// Text an attacker or a careless generator puts where a name or prose goes.
const HOSTILE: &[&str] = &[
    "x\u{2028}config: leak\u{2028}configs: {leak: {headers: {X-Leak: {value: \"${SECRET}\", secret: true}}}}",
    "a\nb: c\n# d",
    "\u{feff}",
    "}${SECRET}",
    "$${HOME}",
    "${SECRET:-x}",
    "v1.A",
    "R2 V4 Response",
    ":id",
    "/rooms/:rid#frag?x=1",
    "{",
    "}",
    "",
    " ",
    "-",
    "_",
    "2fa",
    "self",
    "Self",
    "type",
    "Option",
    "größe",
    "名前",
    "\u{202e}evil",
    "```rust\npanic!()\n```",
    "    indented code",
    "<pre>panic!()</pre>",
    "~~~should_panic\nx\n~~~",
    "null",
    "true",
    "0",
    "x_with",
    "x_stream",
    "new",
    "'quoted'",
    "\"double\"",
    "a: b",
    "- item",
    "&anchor",
    "*alias",
    "!tag",
    "%directive",
    "@at",
    "`tick`",
    "|",
    ">",
    "\\",
];

/// Small descriptions of our own, one per version, that use most of what the importer reads.
fn seeds() -> Vec<Value> {
    let schemas = json!({
        "Pet": { "type": "object", "required": ["id", "name"], "description": "A pet.",
            "properties": { "id": { "type": "integer", "format": "int64" }, "name": { "type": "string" },
                "tag": { "type": "string", "nullable": true }, "kind": { "$ref": "#/components/schemas/Kind" },
                "owner": { "$ref": "#/components/schemas/Owner" },
                "extra": { "type": "object", "additionalProperties": { "type": "integer" } } } },
        "Kind": { "type": "string", "enum": ["cat", "dog", "in-progress"] },
        "Owner": { "allOf": [{ "$ref": "#/components/schemas/Base" }, { "type": "object", "properties": { "pets": { "type": "array", "items": { "$ref": "#/components/schemas/Pet" } } } }] },
        "Base": { "type": "object", "properties": { "id": { "type": "string" } } },
        "Shape": { "oneOf": [{ "$ref": "#/components/schemas/Pet" }, { "$ref": "#/components/schemas/Owner" }],
            "discriminator": { "propertyName": "kind" } },
        "Error": { "type": "object", "properties": { "message": { "type": "string" } } }
    });
    let v3 = json!({
        "openapi": "3.0.3",
        "info": { "title": "Fuzz", "version": "1", "description": "Pets, as `code` and [links](https://x.test)." },
        "servers": [{ "url": "https://{region}.api.test/v1", "variables": { "region": { "default": "eu" } } }],
        "security": [{ "key": [] }, { "oauth": [] }],
        "paths": {
            "/pets": {
                "get": { "operationId": "listPets", "tags": ["pets"],
                    "parameters": [
                        { "name": "limit", "in": "query", "schema": { "type": "integer" } },
                        { "name": "cursor", "in": "query", "schema": { "type": "string" } },
                        { "name": "tags", "in": "query", "style": "form", "explode": false, "schema": { "type": "array", "items": { "type": "string" } } },
                        { "name": "X-Request-Id", "in": "header", "schema": { "type": "string" } }],
                    "responses": { "200": { "description": "ok", "content": { "application/json": {
                        "schema": { "type": "object", "properties": {
                            "items": { "type": "array", "items": { "$ref": "#/components/schemas/Pet" } },
                            "next_cursor": { "type": "string" } } } } } },
                        "4XX": { "description": "bad", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } },
                "post": { "operationId": "createPet",
                    "requestBody": { "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Pet" } } } },
                    "responses": { "201": { "description": "made", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Shape" } } } } } }
            },
            "/pets/{petId}": {
                "parameters": [{ "name": "petId", "in": "path", "required": true, "schema": { "type": "integer" } }],
                "get": { "responses": { "200": { "description": "ok", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Pet" } } } },
                    "404": { "description": "none" } } },
                "put": { "requestBody": { "content": { "multipart/form-data": { "schema": { "type": "object",
                    "properties": { "file": { "type": "string", "format": "binary" }, "note": { "type": "string" } } } } } },
                    "responses": { "204": { "description": "ok" } } }
            }
        },
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "key": { "type": "apiKey", "in": "header", "name": "X-Api-Key" },
                "oauth": { "type": "oauth2", "flows": { "clientCredentials": { "tokenUrl": "/oauth/token", "scopes": { "pets.read": "read" } } } }
            }
        }
    });
    let v2 = json!({
        "swagger": "2.0",
        "info": { "title": "Fuzz Two", "version": "1" },
        "host": "api.test",
        "basePath": "/api/v1",
        "schemes": ["https"],
        "securityDefinitions": { "basic": { "type": "basic" } },
        "security": [{ "basic": [] }],
        "paths": {
            "/items/{id}": {
                "get": { "operationId": "getItem",
                    "parameters": [{ "name": "id", "in": "path", "required": true, "type": "string" },
                        { "name": "expand", "in": "query", "type": "array", "items": { "type": "string" }, "collectionFormat": "csv" }],
                    "responses": { "200": { "description": "ok", "schema": { "$ref": "#/definitions/Item" } } } },
                "post": { "operationId": "upload", "consumes": ["multipart/form-data"],
                    "parameters": [{ "name": "id", "in": "path", "required": true, "type": "string" },
                        { "name": "file", "in": "formData", "type": "file" }],
                    "responses": { "204": { "description": "ok" } } }
            }
        },
        "definitions": {
            "Item": { "type": "object", "properties": { "id": { "type": "string" },
                "children": { "type": "array", "items": { "$ref": "#/definitions/Item" } },
                "state": { "type": "string", "enum": ["open", "closed"] } } }
        }
    });
    let mut out = vec![v3, v2];
    if let Ok(dir) = std::env::var("REMCALL_FUZZ_SEEDS") {
        for path in files_under(Path::new(&dir)) {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let value = serde_json::from_str::<Value>(&text)
                .ok()
                .or_else(|| serde_yaml::from_str::<Value>(&text).ok());
            if let Some(value) = value.filter(|v| v.get("openapi").or(v.get("swagger")).is_some()) {
                out.push(value);
            }
        }
    }
    out
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "json" || e == "yaml" || e == "yml")
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// One structural change, chosen by two numbers.
#[derive(Debug, Clone)]
enum Mutation {
    /// A string value becomes hostile text.
    Text(usize, usize),
    /// An object key becomes hostile text.
    Key(usize, usize),
    /// A schema is replaced by another one of the document.
    Swap(usize, usize),
    /// A schema is wrapped: `allOf`, `anyOf`, `oneOf` with another, or made nullable.
    Wrap(usize, usize),
    /// A schema becomes a `$ref` to another (or to nothing).
    Refer(usize, usize),
    /// A path key gets an odd form.
    Route(usize, usize),
    /// A string becomes a `$ref` to one of the tree's files, a schema a `$ref` into one.
    File(usize, usize),
    /// An overlay action of one of [`OVERLAY_TARGETS`] and [`OVERLAY_CHANGES`].
    Overlay(usize, usize),
}

/// What a description may `$ref`, and what it may not: (reference from `repo/vendor/api.json`).
const FILE_REFERENCES: &[&str] = &[
    "docs/intro.md",
    "docs/intro.md#/x",
    "../secret.md",
    "../.env",
    ".hidden.md",
    ".private/draft.md",
    "docs/../.hidden.md",
    "plain",
    "../../outside.md",
    "common.json",
    "common.json#/Shared",
    "../../outside.json#/Secret",
    "/etc/hostname",
    "https://elsewhere.test/x.md",
];

/// Overlay targets, from the usual to the costly.
const OVERLAY_TARGETS: &[&str] = &[
    "$.info",
    "$.paths.*.*",
    "$..description",
    "$..*",
    "$..[?@.type == 'object']",
    "$..[?@..[?@..[?@..type]]]",
    "$[?@[?@[?@[?@[?@.a]]]]]",
    "$.components.schemas.*",
    "$.nowhere",
];

/// What an overlay action does.
fn overlay_change(n: usize) -> Value {
    match n % 5 {
        0 => json!({ "remove": true }),
        1 => json!({ "update": { "x-fuzz": HOSTILE[n % HOSTILE.len()] } }),
        2 => {
            json!({ "update": { "description": { "$ref": FILE_REFERENCES[n % FILE_REFERENCES.len()] } } })
        }
        3 => json!({ "update": { "x-pad": "p".repeat(4096) } }),
        _ => json!({ "update": { "nullable": true } }),
    }
}

/// A description and the overlay actions to apply to it.
#[derive(Debug, Clone)]
struct Case {
    document: Value,
    overlay: Vec<Value>,
}

/// The folder a case is imported from: `repo/` (a repository: `.git`) holding the description
/// in `vendor/`, with what it may read (`vendor/common.json`, `vendor/docs/intro.md`, and JSON
/// elsewhere in the repository) and what it may not (`repo/secret.md`, `repo/.env`,
/// `vendor/.hidden.md`, `vendor/.private/`, `vendor/plain`, and `outside.*` beside the
/// repository). Every secret's text holds `SEKRIT`.
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let files: &[(&str, &str)] = &[
            ("repo/.git/HEAD", "ref: refs/heads/main\n"),
            ("repo/secret.md", "SEKRIT-repo"),
            ("repo/.env", "SEKRIT=env"),
            ("repo/vendor/.hidden.md", "SEKRIT-dotfile"),
            ("repo/vendor/.private/draft.md", "SEKRIT-dot-folder"),
            ("repo/vendor/plain", "SEKRIT-plain"),
            ("repo/vendor/docs/intro.md", "The intro, in Markdown."),
            (
                "repo/vendor/common.json",
                r#"{ "Shared": { "type": "object", "properties": { "shared": { "type": "string" } } } }"#,
            ),
            ("outside.md", "SEKRIT-outside"),
            (
                "outside.json",
                r#"{ "Secret": { "type": "object", "properties": { "SEKRIT": { "type": "string" } } } }"#,
            ),
        ];
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Tree { dir }
    }

    fn main(&self) -> PathBuf {
        self.dir.path().join("repo/vendor/api.json")
    }

    /// Why the import may not have read `file`, if it may not: JSON or YAML only inside the
    /// repository, any other file only beside the description or below it, never a dotfile.
    fn forbidden(&self, file: &Path) -> Option<String> {
        let repo = self.dir.path().canonicalize().unwrap().join("repo");
        let vendor = repo.join("vendor");
        let json = file
            .extension()
            .is_some_and(|e| e == "json" || e == "yaml" || e == "yml");
        let allowed = if json {
            file.starts_with(&repo)
        } else {
            file.strip_prefix(&vendor).is_ok_and(|below| {
                !below
                    .components()
                    .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
            })
        };
        (!allowed).then(|| format!("the import read {}", file.display()))
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let n = || 0usize..10_000;
    prop_oneof![
        3 => (n(), n()).prop_map(|(a, b)| Mutation::Text(a, b)),
        2 => (n(), n()).prop_map(|(a, b)| Mutation::Key(a, b)),
        2 => (n(), n()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        2 => (n(), n()).prop_map(|(a, b)| Mutation::Wrap(a, b)),
        2 => (n(), n()).prop_map(|(a, b)| Mutation::Refer(a, b)),
        1 => (n(), n()).prop_map(|(a, b)| Mutation::Route(a, b)),
        2 => (n(), n()).prop_map(|(a, b)| Mutation::File(a, b)),
        1 => (n(), n()).prop_map(|(a, b)| Mutation::Overlay(a, b)),
    ]
}

/// JSON pointers of the document's nodes, by kind.
#[derive(Default)]
struct Places {
    strings: Vec<String>,
    keys: Vec<(String, String)>,
    schemas: Vec<String>,
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn walk(value: &Value, pointer: &str, in_schema: bool, out: &mut Places) {
    match value {
        Value::String(_) => out.strings.push(pointer.to_owned()),
        Value::Object(map) => {
            if in_schema {
                out.schemas.push(pointer.to_owned());
            }
            for (key, child) in map {
                let child_pointer = format!("{pointer}/{}", escape(key));
                out.keys.push((pointer.to_owned(), key.clone()));
                let schema_below = matches!(
                    key.as_str(),
                    "schema" | "items" | "additionalProperties" | "not"
                ) || (in_schema && key == "properties")
                    || pointer.ends_with("/schemas")
                    || pointer.ends_with("/definitions")
                    || pointer.ends_with("/properties");
                match child {
                    Value::Array(items) if matches!(key.as_str(), "allOf" | "anyOf" | "oneOf") => {
                        for (i, item) in items.iter().enumerate() {
                            walk(item, &format!("{child_pointer}/{i}"), true, out);
                        }
                    }
                    _ => walk(
                        child,
                        &child_pointer,
                        schema_below && key != "properties",
                        out,
                    ),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{pointer}/{i}"), false, out);
            }
        }
        _ => {}
    }
}

fn apply(case: &mut Case, mutation: &Mutation) {
    let document = &mut case.document;
    let mut places = Places::default();
    walk(document, "", false, &mut places);
    let pick = |list_len: usize, n: usize| (list_len > 0).then(|| n % list_len);
    let hostile = |n: usize| HOSTILE[n % HOSTILE.len()];
    match *mutation {
        Mutation::Text(a, b) => {
            if let Some(i) = pick(places.strings.len(), a)
                && let Some(slot) = document.pointer_mut(&places.strings[i])
            {
                *slot = Value::String(format!("{}{}", slot.as_str().unwrap_or(""), hostile(b)));
            }
        }
        Mutation::Key(a, b) => {
            if let Some(i) = pick(places.keys.len(), a) {
                let (parent, key) = &places.keys[i];
                if let Some(Value::Object(map)) = document.pointer_mut(parent)
                    && let Some(value) = map.remove(key)
                {
                    let new = if b % 3 == 0 {
                        hostile(b).to_owned()
                    } else {
                        format!("{key}{}", hostile(b))
                    };
                    map.insert(new, value);
                }
            }
        }
        Mutation::Swap(a, b) | Mutation::Wrap(a, b) | Mutation::Refer(a, b) => {
            let (Some(i), Some(j)) = (pick(places.schemas.len(), a), pick(places.schemas.len(), b))
            else {
                return;
            };
            let other = document
                .pointer(&places.schemas[j])
                .cloned()
                .unwrap_or(Value::Null);
            let Some(slot) = document.pointer_mut(&places.schemas[i]) else {
                return;
            };
            *slot = match mutation {
                Mutation::Swap(..) => other,
                Mutation::Wrap(..) => match b % 4 {
                    0 => json!({ "allOf": [slot.clone(), other.clone(), slot.clone()] }),
                    1 => json!({ "anyOf": [slot.clone(), { "nullable": true }] }),
                    2 => json!({ "oneOf": [slot.clone(), other, { "type": "null" }] }),
                    _ => {
                        let mut nullable = slot.clone();
                        if let Value::Object(map) = &mut nullable {
                            map.insert("nullable".into(), Value::Bool(true));
                        }
                        nullable
                    }
                },
                _ => {
                    let target = if a % 5 == 0 {
                        "#/components/schemas/Nowhere".to_owned()
                    } else {
                        format!("#{}", places.schemas[j])
                    };
                    json!({ "$ref": target })
                }
            };
        }
        Mutation::File(a, b) => {
            let reference = FILE_REFERENCES[b % FILE_REFERENCES.len()];
            let place = if a % 2 == 0 {
                pick(places.strings.len(), a).map(|i| &places.strings[i])
            } else {
                pick(places.schemas.len(), a).map(|i| &places.schemas[i])
            };
            if let Some(slot) = place.and_then(|p| document.pointer_mut(p)) {
                *slot = json!({ "$ref": reference });
            }
        }
        Mutation::Overlay(a, b) => {
            let mut action = overlay_change(b);
            action["target"] = OVERLAY_TARGETS[a % OVERLAY_TARGETS.len()].into();
            case.overlay.push(action);
        }
        Mutation::Route(a, b) => {
            let Some(Value::Object(paths)) = document.get_mut("paths") else {
                return;
            };
            let keys: Vec<String> = paths.keys().cloned().collect();
            if let Some(i) = pick(keys.len(), a) {
                let key = &keys[i];
                let new = match b % 5 {
                    0 => format!("{key}#fragment"),
                    1 => key.replace('{', ":").replace('}', ""),
                    2 => format!("{key}/{{petId}}/again/{{petId}}"),
                    3 => format!("{key}?action=x"),
                    _ => format!("{key}/{}", hostile(b)),
                };
                if let Some(value) = paths.remove(key) {
                    paths.insert(new, value);
                }
            }
        }
    }
}

/// Imports `case` from a fresh [`Tree`] and checks every promise; the failure, when one is
/// broken.
fn promises_hold(case: &Case) -> Result<(), String> {
    let tree = Tree::new();
    let path = tree.main();
    std::fs::write(&path, serde_json::to_string(&case.document).unwrap()).unwrap();
    let mut options = remcall_openapi::Options {
        client: Some("Fuzz".to_owned()),
        ..remcall_openapi::Options::default()
    };
    let overlay = path.with_file_name("fix.json");
    if !case.overlay.is_empty() {
        let document = json!({ "overlay": "1.0.0", "info": { "title": "fuzz", "version": "1" },
            "actions": case.overlay });
        std::fs::write(&overlay, document.to_string()).unwrap();
        options.overlays.push(overlay.clone());
    }
    let out = Path::new("specs/fuzz.yaml");
    let imported = match remcall_codegen::import(&path, out, &options) {
        Ok(imported) => imported,
        // Only a document that is not a description at all may be refused, or an overlay
        // action past its bounds, located in the overlay.
        Err(remcall_codegen::ImportError::Description(e))
            if e.message.contains("not")
                || e.message.contains("cannot")
                || e.message.starts_with("unknown")
                || e.file.ends_with("fix.json") =>
        {
            return Ok(());
        }
        Err(e) => return Err(format!("import failed: {e}")),
    };
    let spec = &imported.spec;
    if spec.contains("SEKRIT") {
        return Err(format!("a file it may not read reached the spec\n{spec}"));
    }
    if let Some(why) = imported.files.iter().find_map(|f| tree.forbidden(f)) {
        return Err(why);
    }
    remcall_codegen::generate_text(out, spec).map_err(|e| format!("{e:?}\n{spec}"))?;
    let tree: serde_yaml::Value =
        serde_yaml::from_str(spec).map_err(|e| format!("not YAML: {e}\n{spec}"))?;
    for key in tree.as_mapping().into_iter().flat_map(|m| m.keys()) {
        if !key
            .as_str()
            .is_some_and(|k| common::IMPORTED_SPEC_KEYS.contains(&k))
        {
            return Err(format!("a key {key:?} was planted\n{spec}"));
        }
    }
    if tree["configs"].as_mapping().is_some_and(|c| c.len() > 1) {
        return Err(format!("a profile was planted\n{spec}"));
    }
    let header = spec.lines().take_while(|l| !l.starts_with("client:"));
    if let Some(line) = header.into_iter().find(|l| !l.starts_with('#')) {
        return Err(format!("the header's line `{line}` is no comment\n{spec}"));
    }
    // What the runtime resolves `${…}` in: the base URL and the profiles.
    let mut strings = Vec::new();
    collect_strings(&tree["base_url"], &mut strings);
    collect_strings(&tree["configs"], &mut strings);
    for method in tree["methods"]
        .as_mapping()
        .into_iter()
        .flat_map(|m| m.values())
    {
        collect_strings(&method["config"], &mut strings);
    }
    for text in strings {
        let names = remcall_profile::vars::missing(&text, |_| None);
        if let Some(name) = names.iter().find(|n| !n.starts_with("FUZZ_")) {
            return Err(format!("`{text}` reads the variable `{name}`\n{spec}"));
        }
    }
    Ok(())
}

fn collect_strings(value: &serde_yaml::Value, out: &mut Vec<String>) {
    match value {
        serde_yaml::Value::String(text) => out.push(text.clone()),
        serde_yaml::Value::Mapping(map) => map.iter().for_each(|(k, v)| {
            collect_strings(k, out);
            collect_strings(v, out);
        }),
        serde_yaml::Value::Sequence(items) => items.iter().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

#[test]
fn kept_regressions_import_into_specs_that_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    for path in files_under(&dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        let document: Value = serde_json::from_str(&text).unwrap();
        let case = Case {
            document,
            overlay: Vec::new(),
        };
        if let Err(failure) = promises_hold(&case) {
            panic!("{}: {failure}", path.display());
        }
    }
}

#[test]
fn mutated_descriptions_import_into_specs_that_check() {
    let cases: u32 = std::env::var("REMCALL_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(120);
    let seeds = seeds();
    let long_run = std::env::var("REMCALL_FUZZ_CASES").is_ok();
    let config = Config {
        cases,
        failure_persistence: None,
        // A long run over real descriptions keeps the failing document as it is (written to
        // REMCALL_FUZZ_FAILURES) rather than spend its hour shrinking it.
        max_shrink_iters: if long_run { 0 } else { 256 },
        ..Config::default()
    };
    // A fixed seed in CI, so a run is repeatable; a longer run takes one from the clock.
    let rng = if long_run {
        TestRng::from_seed(RngAlgorithm::ChaCha, &rand_seed())
    } else {
        TestRng::deterministic_rng(RngAlgorithm::ChaCha)
    };
    let mut runner = TestRunner::new_with_rng(config, rng);
    let strategy = (0..seeds.len(), proptest::collection::vec(mutation(), 1..12));
    let tried = std::sync::atomic::AtomicUsize::new(0);
    let result = runner.run(&strategy, |(seed, mutations)| {
        // A long run says how far it got, every hundred descriptions.
        let n = tried.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if long_run && n.is_multiple_of(100) {
            eprintln!("{n} descriptions tried");
        }
        let mut case = Case {
            document: seeds[seed].clone(),
            overlay: Vec::new(),
        };
        for mutation in &mutations {
            apply(&mut case, mutation);
        }
        if let Err(failure) = promises_hold(&case) {
            if let Ok(dir) = std::env::var("REMCALL_FUZZ_FAILURES") {
                let name = format!(
                    "failure-{}.json",
                    std::process::id() as u64 * 1000 + u64::from(rand_seed()[0])
                );
                let _ = std::fs::create_dir_all(&dir);
                let kept = json!({ "document": case.document, "overlay": case.overlay });
                let _ = std::fs::write(Path::new(&dir).join(name), kept.to_string());
            }
            return Err(TestCaseError::fail(failure));
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
}

fn rand_seed() -> [u8; 32] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut seed = [0u8; 32];
    for (i, byte) in seed.iter_mut().enumerate() {
        *byte = (nanos >> ((i % 16) * 8)) as u8 ^ (i as u8).wrapping_mul(31);
    }
    seed
}

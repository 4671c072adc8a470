//! A description is text an attacker may write: what it says may only ever reach the spec as a
//! quoted scalar or an escaped note, never as YAML of its own, a placeholder, or code that
//! `cargo test` runs. Each test is a reproduction of a way in that worked once.

mod common;

use std::cell::RefCell;
use std::path::Path;

use serde_json::json;

/// Imports `description` (JSON) from a fresh directory: the spec's text, checked and generated.
fn import(description: &serde_json::Value) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.json");
    std::fs::write(&path, serde_json::to_string_pretty(description).unwrap()).unwrap();
    let options = remcall_openapi::Options {
        client: Some("Hostile".to_owned()),
        ..remcall_openapi::Options::default()
    };
    let imported = remcall_openapi::import(&path, &options).unwrap_or_else(|e| panic!("{e}"));
    let spec_path = Path::new("specs/hostile.yaml");
    remcall_codegen::generate_text(spec_path, &imported.spec)
        .unwrap_or_else(|e| panic!("{e:?}\n{}", imported.spec));
    imported.spec
}

/// Every line-break class, the byte-order mark, bidi and zero-width controls, ESC.
const BREAKERS: &[char] = &[
    '\n', '\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}', '\u{feff}', '\u{202e}',
    '\u{2066}', '\u{200b}', '\u{1b}',
];

/// What a description tried to plant, after a line break, in every text position.
fn payload(c: char) -> String {
    format!(
        "x{c}config: leak{c}configs: {{leak: {{headers: {{X-Leak: {{value: \"${{AWS_SECRET_ACCESS_KEY}}\", secret: true}}}}}}}}{c}# "
    )
}

fn hostile_description(c: char) -> serde_json::Value {
    let p = payload(c);
    json!({
        "openapi": "3.0.3",
        "info": { "title": format!("T{p}"), "version": "1", "description": p },
        "servers": [{ "url": format!("https://api.example.test/{p}") }],
        "tags": [{ "name": p, "description": p }],
        "paths": {
            format!("/a/{{id}}/{p}"): {
                "get": {
                    "operationId": format!("get{p}"),
                    "summary": p,
                    "parameters": [
                        { "name": "id", "in": "path", "required": true, "schema": { "type": "string" } },
                        { "name": format!("q{p}"), "in": "query", "description": p, "schema": { "type": "string", "enum": [p, "b"] } },
                        { "name": format!("H{p}"), "in": "header", "schema": { "type": "string" } }
                    ],
                    "responses": {
                        "200": {
                            "description": p,
                            "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{p}") } } }
                        },
                        "201": {
                            "description": p,
                            "content": { "application/json": { "schema": { "$ref": format!("./{p}.json#/x") } } }
                        }
                    }
                }
            }
        },
        "components": {
            "schemas": {
                p.clone(): {
                    "type": "object",
                    "description": p,
                    "required": [p],
                    "properties": {
                        p.clone(): { "type": "string", "description": p, "const": p },
                        "kind": { "type": "string", "enum": [p, format!("{c}")] }
                    }
                }
            },
            "securitySchemes": {
                p.clone(): { "type": "apiKey", "in": "header", "name": format!("X-Key{p}") }
            }
        },
        "security": [{ p.clone(): [] }]
    })
}

#[test]
fn no_character_of_a_description_plants_yaml() {
    for &c in BREAKERS {
        let spec = import(&hostile_description(c));
        let tree: serde_yaml::Value = serde_yaml::from_str(&spec).unwrap();
        let keys: Vec<&str> = tree
            .as_mapping()
            .unwrap()
            .keys()
            .map(|k| k.as_str().unwrap())
            .collect();
        for key in &keys {
            assert!(
                common::IMPORTED_SPEC_KEYS.contains(key),
                "{c:?}: a key `{key}` was planted:\n{spec}"
            );
        }
        // The only profile is the importer's own, with the description's credentials.
        assert!(
            matches!(tree["config"].as_str(), None | Some("main")),
            "{c:?}:\n{spec}"
        );
        let configs = tree["configs"].as_mapping().map_or(0, |c| c.len());
        assert!(configs <= 1, "{c:?}:\n{spec}");
        // Nothing of the description reads a variable it chose.
        let planted = |text: &str| text.contains("${AWS_SECRET_ACCESS_KEY}");
        assert!(
            !planted(&serde_yaml::to_string(&tree["configs"]).unwrap()),
            "{c:?}:\n{spec}"
        );
        assert!(
            !planted(tree["base_url"].as_str().unwrap_or_default()),
            "{c:?}:\n{spec}"
        );
        // Every comment line is one line: the header's lines all start with `#`.
        let header: Vec<&str> = spec
            .lines()
            .take_while(|l| !l.starts_with("client:"))
            .collect();
        assert!(header.iter().all(|l| l.starts_with('#')), "{c:?}:\n{spec}");
        for line in spec.lines().filter(|l| l.starts_with('#')) {
            assert!(
                !line.contains(c) || c == '\n',
                "{c:?} stands raw in a comment: {line}"
            );
        }
    }
}

#[test]
fn text_of_a_url_never_forms_a_placeholder() {
    let hostile = [
        "https://api.real.example}${AWS_SECRET_ACCESS_KEY}",
        "https://a.example/$${HOME}/x",
        "https://a.example/$}$$/${",
        "https://a.example/${A:-${B}}",
    ];
    for url in hostile {
        // OpenAPI 3: the server and the token URL.
        let description = json!({
            "openapi": "3.0.3",
            "info": { "title": "t", "version": "1" },
            "servers": [{ "url": url }],
            "paths": { "/a": { "get": { "responses": { "204": { "description": "ok" } } } } },
            "components": { "securitySchemes": { "o": { "type": "oauth2", "flows": {
                "clientCredentials": { "tokenUrl": format!("{url}/token"), "scopes": {} } } } } },
            "security": [{ "o": [] }]
        });
        let spec = import(&description);
        let tree: serde_yaml::Value = serde_yaml::from_str(&spec).unwrap();
        let base = tree["base_url"].as_str().unwrap();
        assert_eq!(read_back(base, "HOSTILE_URL"), url, "{spec}");
        let token = tree["configs"]["main"]["auth"]["oauth2"]["token_url"]
            .as_str()
            .unwrap();
        assert_eq!(
            read_back(token, "HOSTILE_TOKEN_URL"),
            format!("{url}/token")
        );
        // Swagger 2.0: a host and a base path.
        let (host, path) = url
            .strip_prefix("https://")
            .unwrap()
            .split_once('/')
            .unwrap_or((url.strip_prefix("https://").unwrap(), ""));
        let base_path = if path.is_empty() {
            "/v1".to_owned()
        } else {
            format!("/{path}/v1")
        };
        let description = json!({
            "swagger": "2.0",
            "info": { "title": "t", "version": "1" },
            "host": host,
            "basePath": base_path,
            "schemes": ["https"],
            "paths": { "/a": { "get": { "responses": { "204": { "description": "ok" } } } } }
        });
        let spec = import(&description);
        let tree: serde_yaml::Value = serde_yaml::from_str(&spec).unwrap();
        let base = tree["base_url"].as_str().unwrap();
        assert_eq!(
            read_back(base, "HOSTILE_URL"),
            format!("https://{host}{base_path}"),
            "{spec}"
        );
    }
}

/// The text a client built from `written` uses when the variable it is overridable by is
/// unset; no other variable may even be looked at.
fn read_back(written: &str, own: &str) -> String {
    let asked = RefCell::new(Vec::new());
    let value = remcall_profile::vars::expand(written, |name| {
        asked.borrow_mut().push(name.to_owned());
        None
    })
    .unwrap_or_else(|e| panic!("{written}: {e}"));
    assert_eq!(*asked.borrow(), [own], "{written}");
    value
}

#[test]
fn a_swagger_base_path_without_a_host_is_kept() {
    let spec = import(&json!({
        "swagger": "2.0",
        "info": { "title": "t", "version": "1" },
        "basePath": "/api/v1/",
        "paths": { "/repos": { "get": { "responses": { "204": { "description": "ok" } } } } }
    }));
    assert!(common::spec_says(&spec, "base_path: /api/v1"), "{spec}");
    assert!(spec.contains("with no host"), "{spec}");
}

/// Every way Markdown (and HTML made Markdown) has to make a code block.
const CODE: &[&str] = &[
    "```\nfn main() { std::process::exit(3) }\n```",
    "```rust\npanic!(\"ran\")\n```",
    "```should_panic\nfn main() {}\n```",
    "```edition2021\npanic!(\"ran\")\n```",
    "```rust,should_panic\nfn main() {}\n```",
    "```test_harness\n#[test] fn t() { panic!() }\n```",
    "```standalone_crate\npanic!(\"ran\")\n```",
    "```no_run\ncompile_error!(\"compiled\");\n```",
    "~~~\npanic!(\"ran\")\n~~~",
    "````\npanic!(\"ran\")\n```\n````",
    "Steps:\n\n- one\n\n      panic!(\"ran\")\n\n- two",
    "Intro.\n\n    panic!(\"ran\")\n",
    "> ```\n> panic!(\"ran\")\n> ```",
    "<pre>panic!(\"ran\")</pre>",
    "<pre><code class=\"language-rust\">panic!(\"ran\")</code></pre>",
    "<p>See</p><pre>\n```rust\npanic!(\"ran\")\n```\n</pre>",
    "```json,no_run\ncompile_error!(\"compiled\");\n```",
    "```{.rust}\npanic!(\"ran\")\n```",
];

#[test]
fn no_code_of_a_description_runs_as_a_doctest() {
    let mut operations = serde_json::Map::new();
    let mut schemas = serde_json::Map::new();
    for (i, code) in CODE.iter().enumerate() {
        operations.insert(
            format!("/op{i}"),
            json!({ "get": { "operationId": format!("op{i}"), "description": code,
                "parameters": [{ "name": "q", "in": "query", "description": code, "schema": { "type": "string" } }],
                "responses": { "200": { "description": code, "content": { "application/json": {
                    "schema": { "$ref": format!("#/components/schemas/S{i}") } } } } } } }),
        );
        schemas.insert(
            format!("S{i}"),
            json!({ "type": "object", "description": code,
                "properties": { "a": { "type": "string", "description": code } } }),
        );
    }
    let description = json!({
        "openapi": "3.0.3",
        "info": { "title": "t", "version": "1", "description": CODE.join("\n\n") },
        "paths": operations,
        "components": { "schemas": schemas }
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.json");
    std::fs::write(&path, description.to_string()).unwrap();
    let options = remcall_openapi::Options {
        client: Some("Docs".to_owned()),
        ..remcall_openapi::Options::default()
    };
    let imported = remcall_openapi::import(&path, &options).unwrap();
    let generated =
        remcall_codegen::generate_text(Path::new("specs/docs.yaml"), &imported.spec).unwrap();
    assert!(
        generated.code.matches("```text").count() > CODE.len() * 4,
        "the docs' code is there, as text"
    );
    let doctests = common::doctests(&[generated]).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        doctests.contains("running 0 tests"),
        "doctests ran:\n{doctests}"
    );
}

/// Each shape once lost a whole document: the spec the importer wrote did not check.
#[test]
fn odd_items_import_into_a_spec_that_checks() {
    let ok = json!({ "204": { "description": "ok" } });
    let documents = [
        // Names `check` reads by another rule than the importer once did.
        json!({ "swagger": "2.0", "info": { "title": "t", "version": "1" },
            "definitions": { "v1.A": { "type": "object", "properties": { "a": { "type": "string" } } },
                             "R2 V4 Response": { "type": "object" } },
            "paths": { "/a": { "get": { "responses": { "200": { "description": "ok",
                "schema": { "$ref": "#/definitions/v1.A" } } } } },
                       "/b": { "get": { "responses": { "200": { "description": "ok",
                "schema": { "$ref": "#/definitions/R2 V4 Response" } } } } } } }),
        // Express-style segments, a parameter named twice, a fragment.
        json!({ "openapi": "3.0.3", "info": { "title": "t", "version": "1" }, "paths": {
            "/rooms/:rid/members": { "get": { "parameters": [
                { "name": "rid", "in": "path", "required": true, "schema": { "type": "string" } }],
                "responses": ok } },
            "/accounts/{account_id}/maps/{map_id}/accounts/{account_id}": { "get": { "parameters": [
                { "name": "account_id", "in": "path", "required": true, "schema": { "type": "string" } },
                { "name": "map_id", "in": "path", "required": true, "schema": { "type": "string" } }],
                "responses": ok } },
            "/files/{id}#get_link": { "get": { "parameters": [
                { "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
                "responses": ok } },
            "/x/{unclosed/y}}/:odd/{}": { "get": { "responses": ok } } } }),
        // A multipart body that is not an object; a server URL with a query and fragment.
        json!({ "openapi": "3.0.3", "info": { "title": "t", "version": "1" },
            "servers": [{ "url": "https://a.example/v1?api-version=2#top" }],
            "paths": { "/up": { "post": { "requestBody": { "content": { "multipart/form-data": {
                "schema": { "type": "string", "format": "binary" } } } }, "responses": ok } } } }),
        // `x_with` beside `x`, whose optional parameters are named (its `x_with` form).
        json!({ "openapi": "3.0.3", "info": { "title": "t", "version": "1" }, "paths": {
            "/x": { "get": { "operationId": "x", "parameters": [
                { "name": "a", "in": "query", "schema": { "type": "string" } },
                { "name": "b", "in": "query", "schema": { "type": "string" } },
                { "name": "c", "in": "query", "schema": { "type": "string" } }],
                "responses": ok } },
            "/y": { "get": { "operationId": "x_with", "responses": ok } },
            "/z": { "get": { "operationId": "x_stream", "responses": ok } } } }),
        // A byte-order mark at the start of a line of prose.
        json!({ "openapi": "3.0.3", "info": { "title": "t", "version": "1",
            "description": "Line one.\n\u{feff}Line two.\n\u{feff}" },
            "paths": { "/a": { "get": { "description": "\u{feff}- item\n\u{feff}x", "responses": ok } } } }),
    ];
    let specs: Vec<String> = documents.iter().map(import).collect();
    assert!(
        specs[1].contains("request: GET /rooms/{rid}/members"),
        "{}",
        specs[1]
    );
    assert!(
        specs[1].contains("request: GET /files/{id}\n"),
        "{}",
        specs[1]
    );
    assert!(specs[2].contains("names no parts"), "{}", specs[2]);
    assert!(
        specs[2].contains("base_url: ${HOSTILE_URL:-https://a.example/v1}"),
        "{}",
        specs[2]
    );
    assert!(specs[3].contains("x_with_2:"), "{}", specs[3]);
    // `x` is not paginated: it makes no `x_stream`, and the operation keeps its name.
    assert!(specs[3].contains("  x_stream:\n"), "{}", specs[3]);
}

/// What `check` refuses of an import is set aside, and the rest written: a method left out, a
/// type read as `serde_json::Value` where it was used.
#[test]
fn a_refused_item_is_set_aside_and_the_rest_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.json");
    let description = json!({ "openapi": "3.0.3", "info": { "title": "t", "version": "1" },
        "paths": {
            "/a": { "get": { "operationId": "get_a", "responses": { "200": { "description": "ok",
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/A" } } } } } } },
            "/b": { "get": { "operationId": "get_b", "responses": { "200": { "description": "ok",
                "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/A" } } } } } } } } },
        "components": { "schemas": { "A": { "type": "object", "properties": { "x": { "type": "string" } } } } } });
    std::fs::write(&path, description.to_string()).unwrap();
    let options = remcall_openapi::Options {
        refused: vec![
            remcall_openapi::Refused::Type {
                name: "A".into(),
                reason: "a reason".into(),
            },
            remcall_openapi::Refused::Method {
                name: "get_a".into(),
                reason: "another".into(),
            },
        ],
        ..remcall_openapi::Options::default()
    };
    let out = Path::new("specs/t.yaml");
    let imported = remcall_codegen::import(&path, out, &options).unwrap();
    let spec = &imported.spec;
    assert!(
        common::spec_says(spec, "get_b:\n  returns: Vec<serde_json::Value>"),
        "{spec}"
    );
    assert!(
        !spec.contains("  get_a:") && !spec.contains("  A:"),
        "{spec}"
    );
    assert_eq!(imported.summary.skipped.len(), 1);
    assert!(
        spec.contains("the method would not check: another"),
        "{spec}"
    );
    assert!(
        spec.contains("the type `A` would not check (a reason)"),
        "{spec}"
    );
}

/// A description spread over sibling folders (`specs/search/spec.yml` → `../common/…`): the
/// boundary is the tree a user points at — the repository, else the description's folder,
/// widened by `--ref-root` — judged by real path for every file, `--ref-dir` copies included.
#[test]
fn references_reach_the_descriptions_tree_and_no_further() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| common::write_under(root, path, text);
    write(
        "repo/specs/search/spec.json",
        &json!({ "openapi": "3.0.3", "info": { "title": "t", "version": "1" }, "paths": { "/a": { "get": {
            "parameters": [{ "$ref": "../common/parameters.json#/q" }],
            "responses": { "200": { "description": "ok", "content": { "application/json": {
                "schema": { "$ref": "../common/parameters.json#/Thing" } } } },
                "201": { "description": "ok", "content": { "application/json": {
                "schema": { "$ref": "../common/leak.json#/Thing" } } } },
                "202": { "description": "ok", "content": { "application/json": {
                "schema": { "$ref": "https://vendor.test/schemas/out.json#/Thing" } } } } } } } } })
        .to_string(),
    );
    write(
        "repo/specs/common/parameters.json",
        r#"{ "q": { "name": "q", "in": "query", "schema": { "type": "string" } },
             "Thing": { "type": "object", "properties": { "inside_field": { "type": "string" } } } }"#,
    );
    write(
        "secret/thing.json",
        r#"{ "Thing": { "type": "object", "properties": { "sekrit": { "type": "string" } } } }"#,
    );
    write("vendor/schemas/placeholder.json", "{}");
    // A link inside the tree to a file outside it, and one inside a `--ref-dir` copy.
    symlink(
        root.join("secret/thing.json"),
        root.join("repo/specs/common/leak.json"),
    )
    .unwrap();
    symlink(
        root.join("secret/thing.json"),
        root.join("vendor/schemas/out.json"),
    )
    .unwrap();
    let main = root.join("repo/specs/search/spec.json");
    let run = |ref_roots: Vec<std::path::PathBuf>| {
        let options = remcall_openapi::Options {
            ref_roots,
            ref_dirs: vec![(
                "https://vendor.test/schemas/".to_owned(),
                root.join("vendor/schemas"),
            )],
            ..remcall_openapi::Options::default()
        };
        let imported = remcall_openapi::import(&main, &options).unwrap();
        let notes = common::notes_of(&imported);
        (imported.spec, notes)
    };

    // No repository: the description's folder only; the sibling is refused, and said so.
    let (spec, notes) = run(Vec::new());
    assert!(!spec.contains("inside_field"), "{spec}");
    assert!(
        notes.contains("is outside the description's tree"),
        "{notes}"
    );
    assert!(notes.contains("--ref-root"), "{notes}");

    // In a repository: the sibling folder is read; the links out of the tree are not.
    std::fs::create_dir_all(root.join("repo/.git")).unwrap();
    let (spec, notes) = run(Vec::new());
    assert!(spec.contains("inside_field"), "{spec}");
    assert!(common::spec_says(&spec, "q: Option<String>"), "{spec}");
    assert!(!spec.contains("sekrit"), "{spec}\n{notes}");
    assert_eq!(
        notes.matches("is outside the description's tree").count(),
        1,
        "{notes}"
    );
    // A link out of a `--ref-dir` copy is refused as such, not with advice to pass --ref-dir.
    assert!(
        notes.contains("is read from the local copy of https://vendor.test/schemas/ (--ref-dir), and leads out of that folder"),
        "{notes}"
    );
    assert!(!notes.contains("a local copy of it: --ref-dir"), "{notes}");
    // Notes name files from the description, never by this machine's paths.
    assert!(!notes.contains(&*root.to_string_lossy()), "{notes}");

    // `--ref-root` widens the tree to the folder it names (the link's target is then inside).
    let (spec, _) = run(vec![root.join("secret")]);
    assert!(spec.contains("sekrit"), "{spec}");
}

/// A text `$ref` (a `description` from a page beside the description) reaches the client's
/// docs, which are committed and published: it reads only a Markdown, text or HTML page in the
/// description's own folder or below (or a `--ref-root`), never a dotfile, and every page read
/// or refused is named in a note. A vendor's description in a repository cannot pull in the
/// repository's secrets, however it names them.
#[test]
fn text_references_read_only_pages_beside_the_description() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| common::write_under(root, path, text);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let secrets = [
        ".env.production",
        "config/master.key",
        "secrets.toml",
        "deploy/server.pem",
        "infra/prod.tfvars",
        "settings.xml",
        "notes/ops.md",
    ];
    for (i, secret) in secrets.iter().enumerate() {
        write(secret, &format!("sekrit-{i}"));
    }
    write("vendor/acme/.private/draft.md", "sekrit-dot-folder");
    write("vendor/acme/.hidden.md", "sekrit-dotfile");
    write("vendor/acme/docs/intro.md", "The **intro**.");
    write("vendor/acme/plain", "sekrit-no-extension");
    let operation = |i: usize, reference: &str| {
        (
            format!("/op{i}"),
            json!({ "get": { "operationId": format!("op{i}"),
                "description": { "$ref": reference },
                "responses": { "204": { "description": "done" } } } }),
        )
    };
    let mut references: Vec<String> = secrets.iter().map(|s| format!("../../{s}")).collect();
    references.extend(
        [
            ".private/draft.md",
            ".hidden.md",
            "plain",
            "docs/../.hidden.md",
        ]
        .map(str::to_owned),
    );
    let paths: serde_json::Map<String, serde_json::Value> = references
        .iter()
        .enumerate()
        .map(|(i, reference)| operation(i, reference))
        .collect();
    write(
        "vendor/acme/.private/schema.json",
        r#"{ "type": "object", "properties": { "sekrit": { "type": "string" } } }"#,
    );
    let mut paths = paths;
    // A schema's `$ref` reads JSON or YAML only (a `.env` reads as YAML too), never a dotfile.
    for (i, reference) in ["../../.env.production", ".private/schema.json"]
        .iter()
        .enumerate()
    {
        paths.insert(
            format!("/schema{i}"),
            json!({ "get": { "operationId": format!("schema{i}"), "responses": { "200": {
                "description": "ok", "content": { "application/json": { "schema": { "$ref": reference } } } } } } }),
        );
    }
    write(
        "vendor/acme/api.json",
        &json!({ "openapi": "3.0.3",
            "info": { "title": "t", "version": "1", "description": { "$ref": "docs/intro.md" } },
            "paths": paths })
        .to_string(),
    );
    let run = |ref_roots: Vec<std::path::PathBuf>| {
        let options = remcall_openapi::Options {
            ref_roots,
            ..remcall_openapi::Options::default()
        };
        let imported = remcall_openapi::import(&root.join("vendor/acme/api.json"), &options)
            .unwrap_or_else(|e| panic!("{e}"));
        let notes = common::notes_of(&imported);
        (imported, notes)
    };
    let (imported, notes) = run(Vec::new());
    assert!(!imported.spec.contains("sekrit"), "{}", imported.spec);
    assert!(
        imported.spec.contains("The **intro**."),
        "{}",
        imported.spec
    );
    assert!(
        notes.contains("the text of `docs/intro.md` is read"),
        "{notes}"
    );
    assert_eq!(
        notes.matches("the text `$ref").count(),
        references.len(),
        "{notes}"
    );
    assert_eq!(notes.matches("dotfile").count(), 4, "{notes}");
    assert!(
        notes.contains("`$ref: plain` is left out: only a `.md`"),
        "{notes}"
    );
    assert!(
        notes.contains(
            "`$ref: ../../.env.production` is not read: only a `.json`, `.yaml` or `.yml` file"
        ),
        "{notes}"
    );
    assert!(
        notes.contains(
            "`$ref: .private/schema.json` is not read: a dotfile or a file in a dot-folder"
        ),
        "{notes}"
    );
    assert!(!notes.contains(&*root.to_string_lossy()), "{notes}");
    // Neither refused page is among the files read (a build script would watch them).
    let read = imported.files.iter().map(|f| f.display().to_string());
    assert!(
        read.clone()
            .all(|f| !f.contains("notes") && !f.contains(".hidden"))
    );

    // A folder the user names with --ref-root lends its pages, still never a dotfile.
    let (imported, notes) = run(vec![root.join("notes")]);
    assert!(imported.spec.contains("sekrit-6"), "{}", imported.spec);
    assert!(!imported.spec.contains("sekrit-0"), "{}", imported.spec);
    assert!(
        notes.contains("the text of `../../notes/ops.md` is read"),
        "{notes}"
    );
}

/// Two thousand enum values, properties and operations that all sanitise to one identifier
/// (`a`, `a_`, `a__`…) are numbered in order, by the importer and by `check` alike, and the
/// client generates. (How long it takes at N and 2N is the `import/colliding_names_*` bench.)
#[test]
fn names_that_all_collide_are_numbered_in_order() {
    const N: usize = 2000;
    let spelled = |i: usize| format!("a{}", "_".repeat(i));
    let mut properties: serde_json::Map<String, serde_json::Value> = (0..N)
        .map(|i| (spelled(i), json!({ "type": "string" })))
        .collect();
    properties.insert(
        "kind".to_owned(),
        json!({ "$ref": "#/components/schemas/Kind" }),
    );
    let paths: serde_json::Map<String, serde_json::Value> = (0..N)
        .map(|i| {
            (
                format!("/p{i}"),
                json!({ "get": { "operationId": spelled(i), "responses": { "200": {
                    "description": "ok", "content": { "application/json": { "schema": {
                        "$ref": "#/components/schemas/Thing" } } } } } } }),
            )
        })
        .collect();
    let values: Vec<String> = (0..N).map(spelled).collect();
    let spec = import(&json!({
        "openapi": "3.0.3",
        "info": { "title": "Colliding", "version": "1" },
        "paths": paths,
        "components": { "schemas": {
            "Thing": { "type": "object", "properties": properties,
                "required": [spelled(N - 1)] },
            "Kind": { "type": "string", "enum": values }
        } }
    }));
    assert!(spec.contains(&format!("  a_{N}:\n")), "the last operation");
    let last = format!(
        "      a_{N}:\n        type: String\n        rename: {}\n",
        spelled(N - 1)
    );
    assert!(spec.contains(&last), "the last field");
    let generated = remcall_codegen::generate_text(Path::new("specs/hostile.yaml"), &spec)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        generated.code.contains(&format!("A{N},")),
        "the last value's variant"
    );
    assert!(generated.code.contains("A2,"));
}

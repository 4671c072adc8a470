//! `remcall import`: small descriptions, one per version and feature, written for these tests
//! (codegen/tests/openapi/), through the CLI as a user runs it; and every way a description can
//! be broken.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn description(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/openapi")
        .join(name)
}

/// Runs `remcall import`: the exit code, stderr, and the spec written (if any).
fn import(doc: &Path, extra: &[&str]) -> (i32, String, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("spec.yaml");
    let output = Command::new(env!("CARGO_BIN_EXE_remcall"))
        .arg("import")
        .arg(doc)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    let spec = std::fs::read_to_string(&out).ok();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        spec,
    )
}

fn imported(name: &str) -> String {
    let (code, stderr, spec) = import(&description(name), &[]);
    assert_eq!(code, 0, "{stderr}");
    spec.unwrap()
}

#[track_caller]
fn has(spec: &str, expected: &str) {
    assert!(
        common::spec_says(spec, expected),
        "`{expected}` not in:\n{spec}"
    );
}

#[test]
fn openapi_3_0_becomes_a_spec_with_every_feature() {
    let spec = imported("shop-3.0.yaml");
    for expected in [
        // Server variables and the bearer scheme, each from the environment.
        "base_url: \"${SHOP_CLIENT_URL:-https://${SHOP_CLIENT_REGION:-eu}.shop.test/v1}\"",
        "auth: { bearer: { token: \"${SHOP_CLIENT_TOKEN}\" } }",
        // allOf, nullable-and-required, a field that is not an identifier, recursion.
        "  Order:\n    doc: An order.\n    all_of: [Entity]",
        "      plus_1:\n        type: Option<i64>\n        rename: \"+1\"",
        "      note:\n        type: Option<String>\n        required: true",
        "      parent: Option<Order>",
        // Enums are open; `other` steps aside for `Other`; integer enums.
        "      - { value: \"other\", name: OtherValue }",
        "    enum: [1, 2, 3]\n    open: true",
        // A discriminated union, its default mapping the schema's name.
        "    one_of: [Card, Transfer]\n    tag: kind\n    mapping:\n      card: Card\n      Transfer: Transfer",
        // Path-level parameters through $ref, renamed placeholders, explode: false, headers.
        "    request: \"GET /orders/{order_id}\"",
        "      expand:\n        type: Option<Vec<String>>\n        explode: false",
        "      x_trace:\n        type: Option<String>\n        name: X-Trace",
        // Declared errors, several success shapes, an idempotency key instead of a parameter.
        "    errors:\n      \"404\": Problem\n      \"4XX\": Problem",
        "    responses:\n      201: Order\n      202: Line\n    idempotency_key: Idempotency-Key",
        // deepObject, a custom content type, multipart with a file, text.
        "      filter:\n        type: Option<ListOrdersFilter>\n        style: deep_object",
        "      content_type: \"application/merge-patch+json\"",
        "      file: Option<File>",
        "    returns: { type: String, as: text }",
        // Operations without an operationId are named from their route.
        "  delete_order:\n    request: \"DELETE /orders/{order_id}\"",
        // Pagination as the description shows it: a Link header on a list, a next URL beside a
        // list, dropshot's page token.
        "    returns: Vec<Order>\n    paginate: { link_header: next }",
        "    paginate: { items: data, next_url: links.next }",
        "    paginate: { items: items, cursor: { param: page_token, from: next_page } }",
        // What could not be imported is said, in the spec and on stderr.
        "# skipped GET /session: it needs the cookie `sid`, which remcall does not send",
    ] {
        has(&spec, expected);
    }
}

#[test]
fn swagger_2_0_reads_host_form_data_files_and_basic_auth() {
    let spec = imported("petstore-2.0.yaml");
    for expected in [
        "base_url: \"${PETS_CLIENT_URL:-https://pets.test/api}\"",
        "auth: { basic: { username: \"${PETS_CLIENT_USERNAME}\", password: \"${PETS_CLIENT_PASSWORD}\" } }",
        "      tags:\n        type: Option<Vec<String>>\n        explode: false",
        "  UploadPhotoForm:\n    fields:\n      photo: File\n      caption: Option<String>",
        "      type: UploadPhotoForm\n      as: multipart",
        "    body: NewPet",
        // Optional and `x-nullable` in a type a body sends: null can be sent, apart from absent.
        "      tag: Nullable<String>",
        "  Pet:\n    all_of: [NewPet]",
    ] {
        has(&spec, expected);
    }
}

#[test]
fn openapi_3_1_reads_null_types_consts_const_enums_and_files_beside_it() {
    let spec = imported("chat-3.1.json");
    for expected in [
        // Overridable from the environment, as the base URL is.
        "token_url: \"${CHAT_CLIENT_TOKEN_URL:-https://chat.test/token}\"",
        "client_secret: \"${CHAT_CLIENT_CLIENT_SECRET}\"",
        "scopes: [read, write]",
        "      kind:\n        type: String\n        const: \"message\"",
        "      text:\n        type: Option<String>\n        required: true",
        "      - { value: 0, name: GuildText, doc: \"a text channel\" }",
        "      - { value: 1, name: Dm }",
        // A $ref into another file is followed; a `$ref` key in an example is data.
        "      attachments: Option<Vec<Attachment>>",
        "  Attachment:",
        "    request: \"POST /channels/{channel_id}/messages\"",
        "    errors:\n      default: CreateMessageErrorDefault",
    ] {
        has(&spec, expected);
    }
}

#[test]
fn the_same_description_gives_the_same_bytes() {
    for name in [
        "shop-3.0.yaml",
        "petstore-2.0.yaml",
        "chat-3.1.json",
        "errors-3.0.yaml",
        "webhooks-3.1.yaml",
    ] {
        assert_eq!(imported(name), imported(name), "{name}");
    }
}

#[test]
fn tags_and_operations_narrow_the_import() {
    let (code, stderr, spec) = import(
        &description("shop-3.0.yaml"),
        &["--operations", "getOrder,pay", "--client", "Orders"],
    );
    assert_eq!(code, 0, "{stderr}");
    let spec = spec.unwrap();
    has(&spec, "client: Orders");
    has(&spec, "  get_order:");
    has(&spec, "  pay:");
    assert!(!spec.contains("create_order"), "{spec}");
}

/// A description written to a temporary directory, with the files beside it.
fn written(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let main = dir.path().join(files[0].0);
    (dir, main)
}

#[test]
fn api_keys_become_secret_headers_or_query_parameters_from_the_environment() {
    let doc = |place: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{ title: Keyed, version: '1' }}\nsecurity: [{{ key: [] }}]\ncomponents:\n  securitySchemes:\n    key: {{ type: apiKey, in: {place}, name: api_key }}\npaths:\n  /ping:\n    get:\n      operationId: ping\n      responses: {{ '204': {{ description: ok }} }}\n"
        )
    };
    for (place, expected) in [
        (
            "query",
            "    query:\n      api_key: { value: \"${KEYED_CLIENT_API_KEY}\", secret: true }",
        ),
        (
            "header",
            "    headers:\n      api_key: { value: \"${KEYED_CLIENT_API_KEY}\", secret: true }",
        ),
        // A cookie API key is a cookie of the profile, sent in the `Cookie` header.
        (
            "cookie",
            "    cookies:\n      api_key: { value: \"${KEYED_CLIENT_API_KEY}\", secret: true }",
        ),
    ] {
        let (_dir, path) = written(&[("keyed.yaml", &doc(place))]);
        let (code, stderr, spec) = import(&path, &[]);
        assert_eq!(code, 0, "{stderr}");
        has(&spec.unwrap(), expected);
    }
}

/// A description the way big APIs publish theirs (DigitalOcean's is 2,850 files): path items,
/// parameters and schemas in files of their own, in other directories, referring to each other
/// and round in a cycle, with a `$ref` key inside an example that is data.
#[test]
fn a_description_spread_over_hundreds_of_files_imports_whole() {
    const N: usize = 300;
    let mut files: Vec<(String, String)> = Vec::new();
    let paths: String = (0..N)
        .map(|i| format!("  /things{i}/{{id}}:\n    $ref: 'resources/things/thing{i}.yaml'\n"))
        .collect();
    files.push((
        "api.yaml".into(),
        format!("openapi: 3.0.3\ninfo: {{ title: Many, version: '1' }}\npaths:\n{paths}"),
    ));
    for i in 0..N {
        files.push((
            format!("resources/things/thing{i}.yaml"),
            format!(
                "parameters: [{{ $ref: '../../shared/params.yaml#/Id' }}]\nget:\n  operationId: get_thing_{i}\n  responses:\n    '200':\n      description: ok\n      content:\n        application/json:\n          schema: {{ $ref: '../../shared/models/thing{i}.yaml' }}\n"
            ),
        ));
        files.push((
            format!("shared/models/thing{i}.yaml"),
            format!(
                "type: object\nrequired: [id]\nproperties:\n  id: {{ $ref: '../common.yaml#/components/schemas/Id' }}\n  next: {{ $ref: 'thing{}.yaml' }}\n",
                (i + 1) % N
            ),
        ));
    }
    files.push((
        "shared/params.yaml".into(),
        "Id: { name: id, in: path, required: true, schema: { $ref: 'common.yaml#/components/schemas/Id' } }\n".into(),
    ));
    files.push((
        "shared/common.yaml".into(),
        "components:\n  schemas:\n    Id: { type: string, example: { $ref: 'no-such-file.yaml' } }\n".into(),
    ));
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_str()))
        .collect();
    let (_dir, path) = written(&borrowed);
    let (code, stderr, spec) = import(&path, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("300 operation(s): 300 method(s), 300 faithful, 0 skipped"),
        "{stderr}"
    );
    let spec = spec.unwrap();
    has(
        &spec,
        "  Thing299:\n    fields:\n      id: String\n      next: Option<Thing0>",
    );
    has(
        &spec,
        "  get_thing_7:\n    request: \"GET /things7/{id}\"\n    path:\n      id: String\n    returns: Thing7",
    );
}

#[test]
fn a_description_that_cannot_be_read_is_named_with_its_place_and_nothing_is_written() {
    let cases: Vec<(Vec<(&str, String)>, &str)> = vec![
        (
            vec![("api.json", "{ \"openapi\": ".to_owned())],
            "invalid JSON at 1:",
        ),
        (
            vec![("api.yaml", "openapi: [3.0\n  broken".to_owned())],
            "invalid YAML",
        ),
        (
            // 32,000 nested `[` in 64 KB took the YAML parser seconds before it refused them.
            vec![(
                "api.yaml",
                format!(
                    "openapi: 3.0.0\nx: {}{}\n",
                    "[".repeat(32_000),
                    "]".repeat(32_000)
                ),
            )],
            "invalid YAML at 2:132: collections (`[`, `{`) nested more than 128 deep",
        ),
        (
            vec![(
                "api.json",
                r#"{ "openapi": "4.0.0", "info": {} }"#.to_owned(),
            )],
            "at /openapi: unknown OpenAPI version `4.0.0`",
        ),
        (
            vec![("api.json", r#"{ "info": {} }"#.to_owned())],
            "not an OpenAPI description: no `openapi:`",
        ),
    ];
    for (files, expected) in cases {
        let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
        let (dir, main) = written(&files);
        let out = dir.path().join("spec.yaml");
        let output = Command::new(env!("CARGO_BIN_EXE_remcall"))
            .args(["import"])
            .arg(&main)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{expected}: {stderr}");
        assert!(stderr.contains(expected), "`{expected}` not in: {stderr}");
        assert!(
            stderr.contains(&main.file_name().unwrap().to_string_lossy().to_string())
                || expected.contains(".json"),
            "{stderr}"
        );
        assert!(!out.exists(), "nothing written for {expected}");
    }
    let (code, stderr, _) = import(Path::new("/nonexistent/api.json"), &[]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("/nonexistent/api.json: cannot read it"),
        "{stderr}"
    );
}

/// A `$ref` that cannot be followed loses that one schema, not the import: the result is a
/// `serde_json::Value` and a note naming the place; `--strict` refuses it and writes nothing.
#[test]
fn a_reference_that_cannot_be_followed_is_a_note_and_a_value() {
    let paths = r#""paths": { "/a": { "get": { "responses": { "200": { "description": "x", "content": { "application/json": { "schema": { "$ref": "REF" } } } } } } } }"#;
    let doc = |reference: &str| {
        format!(
            r#"{{ "openapi": "3.0.0", "info": {{ "title": "T" }}, {} }}"#,
            paths.replace("REF", reference)
        )
    };
    let cases = [
        (
            "#/components/schemas/Missing",
            "api.json#/components/schemas/Missing: a `$ref` points here, and there is nothing",
        ),
        ("../outside.json", "is outside the description's tree"),
        (
            "https://evil.test/schema.json",
            "leaves the description: only files beside it are read",
        ),
        ("gone.json#/X", "gone.json: cannot read it"),
    ];
    for (reference, expected) in cases {
        let text = doc(reference);
        let (dir, main) = written(&[("api.json", text.as_str())]);
        let (code, stderr, spec) = import(&main, &[]);
        assert_eq!(code, 0, "{reference}: {stderr}");
        assert!(stderr.contains(expected), "`{expected}` not in: {stderr}");
        assert!(stderr.contains("[loses]"), "{stderr}");
        let spec = spec.unwrap();
        has(&spec, "returns: serde_json::Value");
        has(&spec, "# note: ");

        let out = dir.path().join("strict.yaml");
        let output = Command::new(env!("CARGO_BIN_EXE_remcall"))
            .arg("import")
            .arg(&main)
            .arg("--out")
            .arg(&out)
            .arg("--strict")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("--strict"), "{stderr}");
        assert!(!out.exists(), "--strict wrote {}", out.display());
    }
}

/// A symlink inside the description's tree decides nothing: where a file really is does. A
/// `$ref` through `link -> elsewhere` (or `rootlink -> /`) is outside, under `import` and under a
/// spec's `openapi:` alike; a symlink to a file inside the tree is followed.
#[cfg(unix)]
#[test]
fn references_through_symlinks_out_of_the_tree_are_not_read() {
    use std::os::unix::fs::symlink;
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("secret.md"), "sekrit-text").unwrap();
    std::fs::write(
        elsewhere.path().join("schema.json"),
        r#"{ "type": "object", "properties": { "sekrit_field": { "type": "string" } } }"#,
    )
    .unwrap();
    let response = |reference: &str| {
        format!(
            r#"{{ "description": "x", "content": {{ "application/json": {{ "schema": {{ "$ref": "{reference}" }} }} }} }}"#
        )
    };
    let doc = format!(
        r#"{{ "openapi": "3.0.0", "info": {{ "title": "T", "description": {{ "$ref": "link/secret.md" }} }},
  "paths": {{
    "/a": {{ "get": {{ "operationId": "a", "responses": {{ "200": {} }} }} }},
    "/b": {{ "get": {{ "operationId": "b", "responses": {{ "200": {} }} }} }},
    "/c": {{ "get": {{ "operationId": "c", "responses": {{ "200": {} }} }} }} }} }}"#,
        response("link/schema.json"),
        response("rootlink/proc/self/pagemap"),
        response("alias.json"),
    );
    let (dir, main) = written(&[
        ("api.json", doc.as_str()),
        (
            "schemas/thing.json",
            r#"{ "type": "object", "properties": { "inside_field": { "type": "string" } } }"#,
        ),
        (
            "spec.yaml",
            "client: Linked\nopenapi: { file: api.json }\nmethods: {}\n",
        ),
    ]);
    symlink(elsewhere.path(), dir.path().join("link")).unwrap();
    symlink("/", dir.path().join("rootlink")).unwrap();
    symlink("schemas/thing.json", dir.path().join("alias.json")).unwrap();

    let (code, stderr, spec) = import(&main, &[]);
    assert_eq!(code, 0, "{stderr}");
    let spec = spec.unwrap();
    assert_eq!(
        stderr.matches("is outside the description's tree").count(),
        2,
        "{stderr}"
    );
    assert!(!spec.contains("sekrit"), "{spec}");
    has(&spec, "inside_field");

    let check = Command::new(env!("CARGO_BIN_EXE_remcall"))
        .arg("check")
        .arg(dir.path().join("spec.yaml"))
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&check.stdout) + String::from_utf8_lossy(&check.stderr);
    assert!(!shown.contains("sekrit"), "{shown}");
}

/// The imported clients compile and are clippy-clean against the real runtime, their stubs too.
#[test]
fn imported_clients_type_check() {
    let dir = tempfile::tempdir().unwrap();
    let specs = dir.path().join("specs");
    std::fs::create_dir_all(&specs).unwrap();
    for name in [
        "shop-3.0.yaml",
        "petstore-2.0.yaml",
        "chat-3.1.json",
        "errors-3.0.yaml",
        "webhooks-3.1.yaml",
    ] {
        let stem = name.split('-').next().unwrap();
        std::fs::write(specs.join(format!("{stem}.yaml")), imported(name)).unwrap();
    }
    let options = remcall_codegen::Options {
        stubs: true,
        ..Default::default()
    };
    let generated = remcall_codegen::generate_with(
        &remcall_codegen::expand_inputs(&[specs]).unwrap(),
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(generated.iter().all(|g| g.code.contains("pub mod stub {")));
    if let Err(clippy) = common::clippy_clean(&generated) {
        panic!("{clippy}");
    }
}

/// A description whose server is relative (`/api`, as FastAPI serves one behind its mount):
/// its routes live under that path on every route into a client — `remcall import`, `openapi:`
/// in a spec (with or without a base URL of the spec's own), and a build script.
#[test]
fn a_relative_server_is_the_base_path_on_every_route() {
    let doc = r#"{ "openapi": "3.0.3", "info": { "title": "Flows", "version": "1" },
  "servers": [{ "url": "/api" }],
  "paths": { "/flows/{id}": { "get": { "operationId": "read_flow",
    "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
    "responses": { "200": { "description": "ok",
      "content": { "application/json": { "schema": { "type": "object" } } } } } } } } }"#;
    let (dir, description) = written(&[
        ("api.json", doc),
        (
            "flows.yaml",
            "client: Flows\nopenapi: { file: api.json }\nmethods: {}\n",
        ),
        (
            "own_url.yaml",
            "client: OwnUrl\nbase_url: http://127.0.0.1:4200\nopenapi: { file: api.json }\nmethods: {}\n",
        ),
    ]);
    let (code, stderr, spec) = import(&description, &[]);
    assert_eq!(code, 0, "{stderr}");
    has(&spec.unwrap(), "base_path: /api");
    for spec in ["flows.yaml", "own_url.yaml"] {
        let generated = remcall_codegen::generate_one(&dir.path().join(spec)).unwrap();
        assert!(
            generated.code.contains("base_path: \"/api\""),
            "{spec}: {}",
            generated.code
        );
    }
    let out = dir.path().join("out");
    remcall_codegen::Builder::new()
        .spec(dir.path().join("own_url.yaml"))
        .out_dir(&out)
        .generate()
        .unwrap();
    let built = std::fs::read_to_string(out.join("own_url.rs")).unwrap();
    assert!(built.contains("base_path: \"/api\""), "{built}");
}

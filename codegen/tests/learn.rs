//! `remcall learn`: a description that lies in every way a real server showed
//! (`tests/learn/inventory.yaml`, a drf-spectacular-style description) and a recording of its
//! server's answers (`inventory.jsonl`): each kind of lie is learned as an overlay action that
//! targets the description's own places, the recording then checks whole, and the spec that
//! names the overlay generates. Stale overlay actions warn where they are written; hostile keys
//! stay bounded and inert; a key that only cases like a declared one never takes its name.

use std::path::{Path, PathBuf};
use std::process::Command;

use remcall_codegen::learn::{Report, learn};

/// The fixture copied into a fresh folder: the description and the recording.
fn fixture() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/learn");
    for name in ["inventory.yaml", "inventory.jsonl"] {
        std::fs::copy(here.join(name), dir.path().join(name)).unwrap();
    }
    let description = dir.path().join("inventory.yaml");
    let recording = dir.path().join("inventory.jsonl");
    (dir, description, recording)
}

fn learned(dir: &Path, description: &Path, recording: &Path) -> (Report, String) {
    let out = dir.join("inventory-learned.yaml");
    let report = learn(description, recording, &[], Some(&out)).unwrap();
    let overlay = std::fs::read_to_string(&out).unwrap();
    (report, overlay)
}

#[test]
fn before_learning_the_recording_fails_its_check_and_after_it_passes_whole() {
    let (dir, description, recording) = fixture();
    let before = learn(&description, &recording, &[], None).unwrap();
    assert!(!before.passes(), "{before:?}");
    let list = &before.methods["list_items"];
    assert_eq!((list.answers, list.strict), (3, 0), "{list:?}");
    let (after, overlay) = learned(dir.path(), &description, &recording);
    assert!(after.passes(), "{after:?}\n{overlay}");
    for method in after.methods.values() {
        assert_eq!((method.strict, method.lost), (method.answers, 0));
    }
    // Every target is a place of the description, never a name the generator made.
    for generated in ["ItemPageResultsItem", "ListItemsError400", "$.."] {
        assert!(!overlay.contains(generated), "`{generated}` in\n{overlay}");
    }
    // Checked again from the committed files, as a user's CI does.
    let out = dir.path().join("inventory-learned.yaml");
    let again = learn(&description, &recording, &[out], None).unwrap();
    assert!(again.passes(), "{again:?}");
}

#[test]
fn an_undeclared_key_is_declared_required_where_always_sent_and_any_where_only_null() {
    let (dir, description, recording) = fixture();
    let (_, overlay) = learned(dir.path(), &description, &recording);
    let document: serde_json::Value = serde_yaml::from_str(&overlay).unwrap();
    let actions = document["actions"].as_array().unwrap();
    let on = |target: &str| -> Vec<&serde_json::Value> {
        actions.iter().filter(|a| a["target"] == target).collect()
    };
    let page = on("$['components']['schemas']['ItemPage']");
    assert_eq!(page[0]["update"]["properties"]["cursor"]["type"], "string");
    let required = on("$['components']['schemas']['ItemPage']['required']");
    assert_eq!(required[0]["update"], serde_json::json!(["cursor"]));
    let item = on("$['components']['schemas']['Item']");
    let owner = &item
        .iter()
        .find(|a| a["update"]["properties"]["owner"].is_object())
        .unwrap()["update"]["properties"]["owner"];
    assert_eq!(*owner, serde_json::json!({}), "only null came: any value");
    // Which method taught it, from how many answers, first seen when.
    assert_eq!(page[0]["x-remcall-learned"]["methods"][0], "list_items");
    assert_eq!(page[0]["x-remcall-learned"]["answers"], 2);
    assert!(page[0]["x-remcall-learned"]["first_seen"].is_string());
}

#[test]
fn a_type_every_answer_contradicts_is_replaced_by_what_came() {
    let (dir, description, recording) = fixture();
    let (_, overlay) = learned(dir.path(), &description, &recording);
    let document: serde_json::Value = serde_yaml::from_str(&overlay).unwrap();
    let actions = document["actions"].as_array().unwrap();
    let removed = actions.iter().any(|a| {
        a["target"] == "$['components']['schemas']['Item']['properties']['tags']"
            && a["remove"] == true
    });
    let tags = actions
        .iter()
        .find(|a| a["target"] == "$['components']['schemas']['Item']['properties']")
        .unwrap();
    assert!(removed, "{overlay}");
    assert_eq!(tags["update"]["tags"]["type"], "array");
    assert_eq!(
        tags["update"]["tags"]["items"]["properties"]["label"]["type"],
        "string"
    );
}

#[test]
fn items_that_share_no_key_with_their_schema_become_the_schema_that_covers_them() {
    let (dir, description, recording) = fixture();
    let (_, overlay) = learned(dir.path(), &description, &recording);
    let document: serde_json::Value = serde_yaml::from_str(&overlay).unwrap();
    let results = document["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["target"] == "$['components']['schemas']['ItemPage']['properties']['results']")
        .unwrap();
    assert_eq!(
        results["update"]["items"],
        serde_json::json!({ "$ref": "#/components/schemas/Item" })
    );
    // The keys `Item` lacked are learned on it in the next round (`detail`, sent with a flag).
    assert!(overlay.contains("weight"), "{overlay}");
}

#[test]
fn a_key_never_sent_beside_one_always_sent_is_a_rename_proposed_commented_out() {
    let (dir, description, recording) = fixture();
    let (report, overlay) = learned(dir.path(), &description, &recording);
    assert_eq!(report.learned.as_ref().unwrap().proposals, 1);
    let proposal = overlay
        .lines()
        .find(|line| line.contains("a rename?"))
        .unwrap_or_else(|| panic!("{overlay}"));
    assert!(proposal.starts_with('#'), "{proposal}");
    assert!(proposal.contains("`predictions_count` never came, `prediction_count` always did"));
    // Applied meanwhile: only what widens (the key sent declared, the one never sent no longer
    // required).
    assert!(overlay.contains("[?@ == 'predictions_count']"), "{overlay}");
}

#[test]
fn an_error_body_of_another_shape_and_an_undeclared_status_are_declared() {
    let (dir, description, recording) = fixture();
    let (_, overlay) = learned(dir.path(), &description, &recording);
    let document: serde_json::Value = serde_yaml::from_str(&overlay).unwrap();
    let actions = document["actions"].as_array().unwrap();
    let bad_request = actions
        .iter()
        .find(|a| {
            a["target"]
                == "$['paths']['/items/']['get']['responses']['400']['content']['application/json']"
        })
        .unwrap();
    assert_eq!(bad_request["update"]["schema"]["type"], "object");
    let not_found = actions
        .iter()
        .find(|a| a["target"] == "$['paths']['/items/{id}']['get']['responses']")
        .unwrap();
    assert_eq!(
        not_found["update"]["404"]["content"]["application/json"]["schema"]["properties"]["detail"]
            ["type"],
        "string"
    );
}

#[test]
fn the_spec_that_names_the_learned_overlay_generates_the_types_the_server_sends() {
    let (dir, description, recording) = fixture();
    learned(dir.path(), &description, &recording);
    let spec_path = dir.path().join("inventory_client.yaml");
    let spec = "client: Inventory\nopenapi: { file: inventory.yaml, overlays: [inventory-learned.yaml] }\n";
    std::fs::write(&spec_path, spec).unwrap();
    let generated = remcall_codegen::generate(&[spec_path]).unwrap();
    let code = &generated[0].code;
    assert!(
        generated[0].warnings.is_empty(),
        "{:?}",
        generated[0].warnings
    );
    assert!(code.contains("pub results: Vec<Item>"), "{code}");
    assert!(code.contains("pub prediction_count: i64"), "{code}");
    assert!(
        code.contains("pub tags: Option<Vec<ItemTagsItem>>"),
        "{code}"
    );
}

/// An overlay written for an older description goes stale: `check`, `gen` and build.rs warn
/// at the action, in the overlay, and `--deny-warnings` makes it an error.
#[test]
fn an_overlay_action_that_selects_nothing_is_a_located_warning() {
    let (dir, _, _) = fixture();
    std::fs::write(
        dir.path().join("stale.yaml"),
        "overlay: 1.0.0\ninfo: { title: t, version: '1' }\nactions:\n  - target: $['components']['schemas']['Item']\n    update: { description: kept }\n  - target: $['components']['schemas']['Gone']\n    update: { description: stale }\n",
    )
    .unwrap();
    let spec_path = dir.path().join("inventory_client.yaml");
    std::fs::write(
        &spec_path,
        "client: Inventory\nopenapi: { file: inventory.yaml, overlays: [stale.yaml] }\n",
    )
    .unwrap();
    let generated = remcall_codegen::generate(std::slice::from_ref(&spec_path)).unwrap();
    let warnings: Vec<String> = generated[0]
        .warnings
        .iter()
        .map(|w| w.render(false))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("stale.yaml:6:13") && warnings[0].contains("selects nothing"),
        "{}",
        warnings[0]
    );
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_remcall"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let checked = run(&["check", "inventory_client.yaml"]);
    assert!(checked.status.success());
    assert!(String::from_utf8_lossy(&checked.stderr).contains("stale.yaml:6:13"));
    let denied = run(&["check", "--deny-warnings", "inventory_client.yaml"]);
    assert_eq!(denied.status.code(), Some(1));
    // build.rs: the warning is cargo's, and `deny_warnings` makes it the build's error.
    let out = dir.path().join("out");
    remcall_codegen::Builder::new()
        .spec(&spec_path)
        .out_dir(&out)
        .generate()
        .unwrap();
    let denied = remcall_codegen::Builder::new()
        .spec(&spec_path)
        .out_dir(dir.path().join("denied"))
        .deny_warnings(true)
        .generate();
    assert!(
        matches!(&denied, Err(remcall_codegen::Error::Invalid(w)) if w.len() == 1),
        "{denied:?}"
    );
    assert!(!dir.path().join("denied").join("inventory.rs").exists());
}

/// A misspelt overlay is a file that does not exist, said so with the name meant; a target
/// that is no JSONPath is shown in the overlay, at its action.
#[test]
fn an_overlays_mistakes_are_reported_where_they_are() {
    let (dir, _, _) = fixture();
    std::fs::write(
        dir.path().join("fix.yaml"),
        "overlay: 1.0.0\ninfo: { title: t, version: '1' }\nactions:\n  - target: $[[nope\n    update: { description: x }\n",
    )
    .unwrap();
    let run = |spec: &str| {
        std::fs::write(dir.path().join("c.yaml"), spec).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_remcall"))
            .args(["check", "c.yaml"])
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, said) = run("client: C\nopenapi: { file: inventory.yaml, overlays: [fxi.yaml] }\n");
    assert_eq!(code, Some(1));
    assert!(
        said.contains("the overlay `fxi.yaml` cannot be read: no such file")
            && said.contains("did you mean `fix.yaml`?"),
        "{said}"
    );
    let (code, said) = run("client: C\nopenapi: { file: inventory.yaml, overlays: [fix.yaml] }\n");
    assert_eq!(code, Some(1));
    assert!(
        said.contains("fix.yaml:4:13") && said.contains("JSONPath"),
        "{said}"
    );
}

/// Keys a hostile server sends reach the overlay bounded and as data: a line break or an
/// escape sequence in a key is a quoted YAML string, a 1 MB name and the keys past 256 of
/// 64,000 are left out, and the overlay still reads back.
#[test]
fn hostile_keys_stay_bounded_and_inert() {
    let (dir, description, _) = fixture();
    let mut body = serde_json::Map::new();
    body.insert("count".into(), 1.into());
    body.insert("results".into(), serde_json::json!([]));
    body.insert("x\n# forged: comment\u{1b}[2J".into(), 1.into());
    body.insert("y".repeat(1 << 20), 1.into());
    for n in 0..64_000 {
        body.insert(format!("k{n}"), n.into());
    }
    let line = serde_json::json!({
        "method": "list_items", "verb": "GET", "route": "/items/", "url": "/items/",
        "status": 200, "body": { "json": body },
    });
    let recording = dir.path().join("hostile.jsonl");
    std::fs::write(&recording, format!("{line}\n")).unwrap();
    let (report, overlay) = learned(dir.path(), &description, &recording);
    assert!(overlay.len() < 200_000, "{} bytes", overlay.len());
    assert!(!overlay.contains('\u{1b}'));
    assert!(
        !overlay.lines().any(|l| l.starts_with("# forged")),
        "{overlay}"
    );
    let document: serde_json::Value = serde_yaml::from_str(&overlay).unwrap();
    let declared = document["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|a| a["update"]["properties"].as_object())
        .unwrap();
    assert!(declared.len() <= 256, "{}", declared.len());
    assert!(declared.keys().all(|k| k.len() < 1024));
    // What was left out is counted as lost, not hidden.
    assert!(report.methods["list_items"].lost > 0, "{report:?}");
}

/// A server's key that only cases like a declared one (`NICKNAME` beside `nickname`) is
/// learned, and never takes the declared field's Rust name, whatever the order; a note says so.
#[test]
fn a_learned_key_never_takes_a_declared_fields_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("people.yaml"),
        "openapi: 3.0.3\ninfo: { title: People, version: '1' }\npaths:\n  /me:\n    get:\n      operationId: getMe\n      responses:\n        '200': { description: me, content: { application/json: { schema: { $ref: '#/components/schemas/Person' } } } }\ncomponents:\n  schemas:\n    Person: { type: object, properties: { nickname: { type: string } } }\n",
    )
    .unwrap();
    let line = serde_json::json!({
        "method": "get_me", "verb": "GET", "route": "/me", "url": "/me", "status": 200,
        "body": { "json": { "nickname": "ann", "NICKNAME": "ANN" } },
    });
    std::fs::write(dir.path().join("me.jsonl"), format!("{line}\n")).unwrap();
    let out = dir.path().join("learned.yaml");
    let report = learn(
        &dir.path().join("people.yaml"),
        &dir.path().join("me.jsonl"),
        &[],
        Some(&out),
    )
    .unwrap();
    assert!(report.passes(), "{report:?}");
    let options = remcall_openapi::Options {
        overlays: vec![out],
        ..remcall_openapi::Options::default()
    };
    let imported = remcall_openapi::import(&dir.path().join("people.yaml"), &options).unwrap();
    assert!(
        imported.spec.contains("nickname: Option<String>"),
        "{}",
        imported.spec
    );
    assert!(
        imported.spec.contains("nickname_2") && imported.spec.contains("rename: NICKNAME"),
        "{}",
        imported.spec
    );
    let noted = imported.summary.notes.iter().map(ToString::to_string);
    assert!(
        noted
            .clone()
            .any(|n| n.contains("`NICKNAME` is `nickname` in Rust")),
        "{:?}",
        noted.collect::<Vec<_>>()
    );
}

/// The command: exit 1 with `--check` before learning, 0 after; a line of the recording that
/// is not an exchange names its number.
#[test]
fn the_command_exits_as_its_check_says() {
    let (dir, _, _) = fixture();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_remcall"))
            .arg("learn")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let before = run(&[
        "inventory.yaml",
        "--recording",
        "inventory.jsonl",
        "--check",
    ]);
    assert_eq!(before.status.code(), Some(1));
    let table = String::from_utf8_lossy(&before.stdout);
    assert!(
        table.contains("list_items") && table.contains("sharing no key"),
        "{table}"
    );
    let learned = run(&[
        "inventory.yaml",
        "--recording",
        "inventory.jsonl",
        "--out",
        "fix.yaml",
    ]);
    assert_eq!(
        learned.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&learned.stderr)
    );
    let after = run(&[
        "inventory.yaml",
        "--recording",
        "inventory.jsonl",
        "--overlay",
        "fix.yaml",
        "--check",
    ]);
    assert_eq!(after.status.code(), Some(0));
    std::fs::write(
        dir.path().join("bad.jsonl"),
        "{\"method\": \"x\"}\nnot json\n",
    )
    .unwrap();
    let bad = run(&["inventory.yaml", "--recording", "bad.jsonl", "--check"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("line 1"));
}

//! `remcall schema` describes what the loader accepts: every spec in the repository validates
//! against it, and the structurally broken fixtures do not.

use std::path::{Path, PathBuf};

fn schema() -> jsonschema::Validator {
    let schema = serde_json::to_value(remcall_codegen::schema()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

fn instance(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn yaml_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_spec_in_the_repository_validates() {
    let validator = schema();
    let mut files = yaml_files("../specs");
    files.extend(yaml_files("../specs/configs"));
    files.extend(yaml_files("tests/edge"));
    assert!(files.len() >= 9, "{files:?}");
    for file in files {
        let errors: Vec<String> = validator
            .iter_errors(&instance(&file))
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
    }
}

#[test]
fn structurally_broken_specs_fail_the_schema() {
    let validator = schema();
    for name in [
        "misspelt_key.yaml",
        "bad_duration.yaml",
        "wrong_value_type.yaml",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/broken")
            .join(name);
        assert!(
            !validator.is_valid(&instance(&path)),
            "{name} passed the schema"
        );
    }
}

#[test]
fn the_committed_schema_file_is_fresh() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/remcall.schema.json");
    let current = serde_json::to_string_pretty(&remcall_codegen::schema()).unwrap() + "\n";
    assert_eq!(
        std::fs::read_to_string(&committed).unwrap_or_default(),
        current,
        "run `cargo xtask codegen` to refresh docs/remcall.schema.json"
    );
}

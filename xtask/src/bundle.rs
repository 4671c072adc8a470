//! A description and the files its `$ref`s point into, as one document: each value another
//! file holds is copied under `x-bundled` and its `$ref` pointed there, the way bundlers
//! (Redocly's, swagger-cli's) do. The conformance run reads the bundle, and gives it to Prism,
//! which then needs nothing beside it. `$ref`s inside examples are dropped: they are data, and
//! Prism would try to fetch the URLs some descriptions put there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{Map, Value};

/// Reads `path` and every file it refers to, as one value tree.
pub(crate) fn bundle(path: &Path) -> anyhow::Result<Value> {
    let mut bundler = Bundler {
        files: HashMap::new(),
        bundled: Map::new(),
        keys: HashMap::new(),
    };
    let main = path.canonicalize()?;
    let mut root = bundler.file(&main)?;
    bundler.rewrite(&mut root, &main, true);
    if !bundler.bundled.is_empty()
        && let Value::Object(top) = &mut root
    {
        top.insert("x-bundled".to_owned(), Value::Object(bundler.bundled));
    }
    Ok(root)
}

struct Bundler {
    files: HashMap<PathBuf, Value>,
    /// Key → the value copied in.
    bundled: Map<String, Value>,
    /// (file, pointer) → its key, so each is copied once and cycles end.
    keys: HashMap<(PathBuf, String), String>,
}

impl Bundler {
    fn file(&mut self, path: &Path) -> anyhow::Result<Value> {
        if let Some(value) = self.files.get(path) {
            return Ok(value.clone());
        }
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let value: Value = if path.extension().is_some_and(|e| e == "json") {
            serde_json::from_str(&text).or_else(|_| serde_yaml::from_str(&text))?
        } else {
            serde_yaml::from_str(&text)?
        };
        self.files.insert(path.to_path_buf(), value.clone());
        Ok(value)
    }

    /// Points every `$ref` below `value` (found in `file`) into the bundle; `main` when the
    /// file is the description itself, whose own `#/…` references stay as they are.
    fn rewrite(&mut self, value: &mut Value, file: &Path, main: bool) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get("$ref").cloned() {
                    if let Some(key) = self.target(&reference, file, main) {
                        map.insert(
                            "$ref".to_owned(),
                            Value::String(format!("#/x-bundled/{key}")),
                        );
                    }
                    return;
                }
                for (key, child) in map.iter_mut() {
                    if matches!(key.as_str(), "example" | "examples" | "x-ms-examples") {
                        drop_references(child);
                        continue;
                    }
                    self.rewrite(child, file, main);
                }
            }
            Value::Array(items) => items
                .iter_mut()
                .for_each(|item| self.rewrite(item, file, main)),
            _ => {}
        }
    }

    /// The bundle key of what `reference` (found in `file`) names, copied in if it is new;
    /// `None` for a reference that stays as it is (the description's own) or that cannot be
    /// read (left for the importer's notes and Prism's errors).
    fn target(&mut self, reference: &str, file: &Path, main: bool) -> Option<String> {
        let (target_file, pointer) = match reference.split_once('#') {
            Some(("", _)) if main => return None,
            Some(("", pointer)) => (file.to_path_buf(), pointer.to_owned()),
            Some((other, pointer)) => (resolve(file, other)?, pointer.to_owned()),
            None => (resolve(file, reference)?, String::new()),
        };
        let identity = (target_file.clone(), pointer.clone());
        if let Some(key) = self.keys.get(&identity) {
            return Some(key.clone());
        }
        let key = format!("b{}", self.keys.len());
        self.keys.insert(identity, key.clone());
        let document = self.file(&target_file).ok()?;
        let mut value = document.pointer(&pointer)?.clone();
        self.rewrite(&mut value, &target_file, false);
        self.bundled.insert(key.clone(), value);
        Some(key)
    }
}

/// A relative file reference, from the file it is in; `None` for a URL.
fn resolve(from: &Path, reference: &str) -> Option<PathBuf> {
    if reference.contains("://") {
        return None;
    }
    let joined = from.parent()?.join(reference);
    joined.canonicalize().ok()
}

/// Removes every `$ref` below an example: data, not references.
fn drop_references(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("$ref");
            map.values_mut().for_each(drop_references);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_references),
        _ => {}
    }
}

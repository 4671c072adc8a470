//! A `description` or `summary` that is a `$ref` to a page: found in each file as it is read,
//! and replaced by the page's text where the boundary allows it (`boundary.rs`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Documents, MAX_FILE_BYTES, Place, escape, relative_to};
use crate::files::read_capped;

impl Documents {
    /// Keeps a file's value, its text references read: a `description` (or `summary`) that is
    /// a `$ref` to a Markdown, text or HTML page in the description's folder (or below, or in a
    /// `--ref-root`) is that page's text, where the specification expects a string. Each page
    /// read is named in a note; any other text reference is left out, and said so.
    pub(super) fn add(&mut self, file: PathBuf, mut value: Value) {
        let mut texts = Vec::new();
        text_references(&mut value, &mut String::new(), &mut texts);
        let place = Place {
            file: file.clone(),
            pointer: String::new(),
        };
        for (pointer, reference) in texts {
            let at = Place {
                file: file.clone(),
                pointer: pointer.clone(),
            };
            let text = self.text_path(&place, &reference).and_then(|path| {
                let text = read_capped(&path, MAX_FILE_BYTES)
                    .map_err(|e| format!("cannot be read: {e}"))?;
                Ok((path, text))
            });
            let slot = value.pointer_mut(&pointer);
            match text {
                Ok((path, text)) => {
                    let shown = relative_to(&self.home, &path);
                    self.notes.push((
                        at,
                        format!("the text of `{}` is read as written here", shown.display()),
                    ));
                    self.texts.push(path);
                    if let Some(slot) = slot {
                        *slot = Value::String(text);
                    }
                }
                Err(why) => {
                    let reference = crate::escape::one_line(&reference);
                    self.notes.push((
                        at,
                        format!("the text `$ref: {reference}` is left out: {why}"),
                    ));
                    if let Some(slot) = slot {
                        *slot = Value::Null;
                    }
                }
            }
        }
        self.files.insert(file, value);
    }
}

/// The `description`/`summary` values below `value` that are a `$ref` to a text file (by its
/// extension: anything but JSON and YAML), as (JSON pointer, reference).
fn text_references(value: &mut Value, pointer: &mut String, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if matches!(key.as_str(), "example" | "examples") {
                    continue;
                }
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape(key));
                let reference = child
                    .as_object()
                    .filter(|o| o.len() == 1)
                    .and_then(|o| o.get("$ref"))
                    .and_then(Value::as_str);
                match reference {
                    Some(reference)
                        if matches!(key.as_str(), "description" | "summary")
                            && is_text_file(reference) =>
                    {
                        out.push((pointer.clone(), reference.to_owned()));
                    }
                    _ => text_references(child, pointer, out),
                }
                pointer.truncate(length);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                text_references(item, pointer, out);
                pointer.truncate(length);
            }
        }
        _ => {}
    }
}

/// True for a reference to a whole file that is not named as JSON or YAML (a Markdown page, or
/// a file without an extension, which is refused with a note rather than dropped unsaid).
fn is_text_file(reference: &str) -> bool {
    let extension = Path::new(reference)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    !reference.is_empty()
        && !reference.contains('#')
        && !matches!(extension.as_deref(), Some("json" | "yaml" | "yml"))
}

//! A description's file as a value tree: JSON or YAML, within a size, its numbers as wide as
//! they are written.

use std::path::Path;

use serde_json::Value;

use super::{MAX_FILE_BYTES, Place};
use crate::Error;
use crate::files::read_capped;

/// A file as a value tree: JSON, or YAML (by extension, else by trying JSON first).
pub(super) fn read(path: &Path) -> Result<Value, Error> {
    let place = Place {
        file: path.to_path_buf(),
        pointer: String::new(),
    };
    let text = read_capped(path, MAX_FILE_BYTES).map_err(|e| Error::io(path, e.to_string()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let json_first = path.extension().is_some_and(|e| e == "json");
    let as_json = || {
        serde_json::from_str::<Value>(text).map_err(|e| {
            Error::at(
                &place,
                format!("invalid JSON at {}:{}: {e}", e.line(), e.column()),
            )
        })
    };
    if json_first {
        return as_json().or_else(|error| wide_numbers(text, true).ok_or(error));
    }
    if let Err(deep) = crate::nesting::check_flow_nesting(text) {
        return Err(Error::at(
            &place,
            format!("invalid YAML at {}:{}: {deep}", deep.line, deep.column),
        ));
    }
    match serde_yaml::from_str::<Value>(text) {
        Ok(value) => Ok(value),
        Err(e) => match as_json().ok().or_else(|| wide_numbers(text, false)) {
            Some(value) => Ok(value),
            None => {
                let at = e
                    .location()
                    .map(|l| format!(" at {}:{}", l.line(), l.column()))
                    .unwrap_or_default();
                let first = e.to_string();
                let first = first.lines().next().unwrap_or_default();
                Err(Error::at(&place, format!("invalid YAML{at}: {first}")))
            }
        },
    }
}

/// A description whose numbers do not all fit a JSON value (a `minimum` of `-1e30` written out
/// in digits), read again with each such integer written as a float: it becomes the nearest
/// `f64`. Only keywords hold such numbers, and none of them types anything. An integer counts
/// when it is a whole value (after `:`, `[`, `,` or a list's `- `, before `,`, `]`, `}` or the
/// line's end), so digits inside text are left alone.
fn wide_numbers(text: &str, json: bool) -> Option<Value> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let before = text[..start]
            .trim_end_matches(' ')
            .trim_end_matches('-')
            .trim_end_matches(' ');
        let after = text[i..].trim_start_matches(' ');
        let whole_value = matches!(before.chars().last(), Some(':' | '[' | ',' | '\n') | None)
            || before.ends_with("- ");
        let ends = after.is_empty() || after.starts_with([',', ']', '}', '\n', '\r']);
        if i - start > 18 && whole_value && ends {
            out.push_str(&text[last..i]);
            out.push_str(".0");
            last = i;
        }
    }
    out.push_str(&text[last..]);
    if json {
        serde_json::from_str(&out).ok()
    } else {
        serde_yaml::from_str(&out).ok()
    }
}

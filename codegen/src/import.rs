//! `remcall import`: a description's spec that checks, by construction and then by test. The
//! importer names and shapes everything by the rules `check` reads; should `check` still
//! refuse an item (a shape no rule foresaw), that item alone is set aside — a method left out,
//! a type read as `serde_json::Value` — with a note, and the description imported again, so
//! one odd item never loses a whole document.

use std::path::Path;

use remcall_openapi::{Imported, Options, Refused};

use crate::{Diagnostic, Error};

/// How many times items are set aside before the import is given up as the importer's bug:
/// each round sets aside every item refused in it, so a second round is rare.
const ROUNDS: usize = 4;

/// Why an import wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The description cannot be read at all (no such file, not JSON or YAML, not OpenAPI).
    #[error("{0}")]
    Description(#[from] remcall_openapi::Error),
    /// What was refused lies outside any method or type: a bug of the importer.
    #[error("{0}")]
    Unchecked(Error),
}

/// Imports `description` into a spec (to be written at `out`) that `remcall check` accepts.
pub fn import(description: &Path, out: &Path, options: &Options) -> Result<Imported, ImportError> {
    let mut options = options.clone();
    let mut round = 0;
    loop {
        let imported = remcall_openapi::import(description, &options)?;
        let diagnostics = match crate::check_text(out, &imported.spec) {
            Ok(()) => return Ok(imported),
            Err(Error::Invalid(diagnostics)) => diagnostics,
            Err(other) => return Err(ImportError::Unchecked(other)),
        };
        round += 1;
        let refused = refused_items(&imported.spec, &diagnostics);
        let new: Vec<Refused> = refused
            .into_iter()
            .filter(|r| !options.refused.contains(r))
            .collect();
        if round > ROUNDS || new.is_empty() {
            return Err(ImportError::Unchecked(Error::Invalid(diagnostics)));
        }
        options.refused.extend(new);
    }
}

/// The methods and types the errors among `diagnostics` fall in, each once with its first
/// error's message; an error outside every item gives nothing for it. An error says which key
/// it is about when its check named one (`methods.get_user.returns`); only one that does not
/// (a value the spec's model itself refuses) is placed by its line in the emitted spec.
fn refused_items(spec: &str, diagnostics: &[Diagnostic]) -> Vec<Refused> {
    let mut by_line: Option<Vec<Item>> = None;
    let mut out: Vec<Refused> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for diagnostic in diagnostics.iter().filter(|d| !d.warning) {
        let item = match diagnostic.key_path.as_deref().and_then(item_of_key) {
            Some(item) => Some(item),
            None => {
                let items = by_line.get_or_insert_with(|| items_by_line(spec));
                item_at_line(items, diagnostic.line)
            }
        };
        let Some((is_type, name)) = item else {
            continue;
        };
        // Each item once, with its first error.
        if !seen.insert((is_type, name.clone())) {
            continue;
        }
        let reason = diagnostic.message.clone();
        out.push(if is_type {
            Refused::Type { name, reason }
        } else {
            Refused::Method { name, reason }
        });
    }
    out
}

/// The item a key path is in: `types.<name>…` or `methods.<name>…` (true for a type).
fn item_of_key(key_path: &str) -> Option<(bool, String)> {
    let mut segments = key_path.splitn(3, '.');
    match (segments.next()?, segments.next()?) {
        ("types", name) => Some((true, name.to_owned())),
        ("methods", name) => Some((false, name.to_owned())),
        _ => None,
    }
}

/// An item of the emitted spec by its lines: (first line, the line after it, a type, name).
type Item = (usize, usize, bool, String);

/// Each item of `types:` and `methods:` as its lines: the emitter writes both in block style,
/// an item's key two spaces in; an item runs to the next item or top-level key.
fn items_by_line(spec: &str) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    let mut section = None;
    for (index, line) in spec.lines().enumerate() {
        let number = index + 1;
        let top_level = !line.starts_with([' ', '#', '-']) && !line.is_empty();
        let item = section.and_then(|is_type| {
            let key = line.strip_prefix("  ")?;
            if key.starts_with([' ', '#', '-']) {
                return None;
            }
            let (name, _) = key.split_once(':')?;
            Some((is_type, name.trim_matches(['"', '\'']).to_owned()))
        });
        if (top_level || item.is_some())
            && let Some(last) = items.last_mut().filter(|last| last.1 == usize::MAX)
        {
            last.1 = number;
        }
        if top_level {
            section = match line {
                "types:" => Some(true),
                "methods:" => Some(false),
                _ => None,
            };
        } else if let Some((is_type, name)) = item {
            items.push((number, usize::MAX, is_type, name));
        }
    }
    items
}

/// The item `line` is in: the last starting at or before it, if the line is still within it.
fn item_at_line(items: &[Item], line: usize) -> Option<(bool, String)> {
    let at = items.partition_point(|(start, ..)| *start <= line);
    let (_, end, is_type, name) = &items[at.checked_sub(1)?];
    (line < *end).then(|| (*is_type, name.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_laid_to_the_item_it_is_in() {
        let spec = "client: C\n\ntypes:\n  A:\n    fields:\n      x: Nope\n  B:\n    fields: {}\n\nmethods:\n  get_a:\n    request: GET /a\n  get_b:\n    request: GET /b\n";
        let at = |line: usize| Diagnostic {
            file: "s.yaml".into(),
            line,
            column: 1,
            message: format!("line {line}"),
            help: None,
            source_line: None,
            warning: false,
            key_path: None,
        };
        let refused = refused_items(spec, &[at(6), at(12), at(1), at(5)]);
        assert_eq!(
            refused,
            [
                Refused::Type {
                    name: "A".into(),
                    reason: "line 6".into()
                },
                Refused::Method {
                    name: "get_a".into(),
                    reason: "line 12".into()
                },
            ]
        );
        // A check that names its key is believed over the line: here line 1, outside every item.
        let keyed = at(1).about("methods.get_b.returns.events.run.created");
        let refused = refused_items(spec, &[keyed, at(1).about("types.B.fields")]);
        assert_eq!(
            refused,
            [
                Refused::Method {
                    name: "get_b".into(),
                    reason: "line 1".into()
                },
                Refused::Type {
                    name: "B".into(),
                    reason: "line 1".into()
                },
            ]
        );
    }
}

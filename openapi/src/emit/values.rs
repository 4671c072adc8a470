//! The YAML values the spec's pieces are written as: a type, a JSON value, a doc's text, a
//! list of strings, a mapping of pairs.

use serde_json::Value;
use serde_yaml::{Mapping, Value as Yaml};

use crate::doc_text::for_rustdoc;
use crate::ty::Ty;

/// `doc:` with the text, when there is one.
pub(super) fn put_doc(out: &mut Mapping, doc: Option<&str>) {
    if let Some(doc) = doc {
        out.insert("doc".into(), doc_value(doc));
    }
}

/// A doc's text: its HTML written as Markdown rustdoc reads without a warning and with no code
/// that runs; every line-break class a line break, control and format characters other than
/// tabs gone (the emitter would escape them; they only make the text harder to read).
pub(super) fn doc_value(doc: &str) -> Yaml {
    doc_text(doc).into()
}

pub(super) fn doc_text(doc: &str) -> String {
    let lines = crate::escape::line_breaks_as_newlines(doc);
    let cleaned: String = for_rustdoc(&crate::markdown::from_html(&lines))
        .chars()
        .filter(|c| *c == '\n' || *c == '\t' || !crate::escape::is_unsafe(*c))
        .collect();
    let lines: Vec<&str> = cleaned.trim().lines().map(str::trim_end).collect();
    lines.join("\n")
}

/// A type expression.
pub(super) fn ty(ty: &Ty) -> Yaml {
    ty.to_string().into()
}

/// A JSON value (an enum value, a constant) as the same YAML value.
pub(super) fn json(value: &Value) -> Yaml {
    match value {
        Value::String(text) => text.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.into(),
            (_, Some(u), _) => u.into(),
            (_, _, Some(f)) => f.into(),
            _ => n.to_string().into(),
        },
        other => other.to_string().into(),
    }
}

pub(super) fn strings<'a>(items: impl Iterator<Item = &'a String>) -> Yaml {
    Yaml::Sequence(items.map(|s| s.as_str().into()).collect())
}

pub(super) fn pairs<K: Into<Yaml>>(entries: impl IntoIterator<Item = (K, Yaml)>) -> Yaml {
    let mut out = Mapping::new();
    for (key, value) in entries {
        out.insert(key.into(), value);
    }
    out.into()
}

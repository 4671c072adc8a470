//! Reading one spec file's text: YAML syntax with the parser's positions, unknown keys against
//! the format's schema where each stands, then the model's types at the key path serde was at.

use std::path::Path;

use super::{Loader, Source};
use crate::diagnostic::{Diagnostic, Pos, did_you_mean};
use crate::spec::model::SpecFile;
use crate::spec::spans::SpanIndex;
use crate::spec::{indentation, keys, shape};

impl Loader {
    /// Parses one file's text: YAML syntax (positions from the parser), unknown keys (against
    /// the format's schema, each where it stands), then types (positions from the key path
    /// serde was at).
    pub(in crate::spec) fn parse(&mut self, path: &Path, text: &str) -> Option<SpecFile> {
        self.parse_text(path, text, true)
    }

    pub(super) fn parse_text(&mut self, path: &Path, text: &str, quoted: bool) -> Option<SpecFile> {
        // A UTF-8 byte-order mark is legal in YAML but trips some parsers.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // Deep flow nesting costs the YAML scanner quadratic time before it refuses it: found
        // here in one pass, as the importer does for a description.
        let deep = remcall_openapi::nesting::check_flow_nesting(text).err();
        let spans = match deep {
            Some(deep) => Err((
                Pos {
                    line: deep.line,
                    column: deep.column,
                },
                deep.to_string(),
            )),
            None => SpanIndex::build(text),
        };
        self.sources.push(Source {
            path: path.to_path_buf(),
            spans: SpanIndex::default(),
            text: if quoted {
                text.to_owned()
            } else {
                String::new()
            },
        });
        let source = self.sources.len() - 1;
        let spans = match spans {
            Ok(spans) => spans,
            Err((pos, message)) => {
                let d = match indentation::explain(text, pos, &message) {
                    Some(e) => self.sources[source]
                        .diagnostic(e.pos, e.message)
                        .help(e.help),
                    None => {
                        let help = syntax_help(text, pos, &message);
                        self.sources[source]
                            .diagnostic(pos, message)
                            .maybe_help(help)
                    }
                };
                self.diagnostics.push(d);
                return None;
            }
        };
        self.sources[source].spans = spans;
        if text.trim().is_empty() {
            self.diagnostics.push(Diagnostic::new(
                path,
                Pos { line: 1, column: 1 },
                "the file is empty: a spec needs at least `client:` and `methods:`",
            ));
            return None;
        }
        let value = self.yaml_value(source, text)?;
        if !value.is_mapping() {
            // Not a spec at all (a key file, an environment dump): say so without quoting it.
            self.diagnostics.push(
                Diagnostic::new(
                    path,
                    Pos { line: 1, column: 1 },
                    "this is not a spec: a spec is a YAML mapping of `client:`, `methods:` and the like",
                ),
            );
            return None;
        }
        self.read_model(source, &value)
    }

    /// The text as a YAML value, for a text the span index read: a refusal here is the second
    /// parser's, with its position.
    fn yaml_value(&mut self, source: usize, text: &str) -> Option<serde_yaml::Value> {
        match serde_yaml::from_str::<serde_yaml::Value>(text) {
            Ok(value) => Some(value),
            Err(e) => {
                // The span index's parser accepted what this one refuses: its message is all
                // there is.
                let message = e.to_string();
                // The reader's errors (a control character) carry a byte offset and a location
                // of 1:1; the parser's carry a real location.
                let pos = crate::spec::spans::reader_position(text, &message)
                    .or(e.location().map(|l| Pos {
                        line: l.line(),
                        column: l.column(),
                    }))
                    .unwrap_or(Pos { line: 1, column: 1 });
                let d = self.sources[source].diagnostic(pos, message);
                self.diagnostics.push(d);
                None
            }
        }
    }

    /// The spec model read from `value` (of source `source`): unknown keys are refused with
    /// the keys allowed there, a value of the wrong shape with what the key takes.
    fn read_model(&mut self, source: usize, value: &serde_yaml::Value) -> Option<SpecFile> {
        let unknown = keys::unknown_keys(value, &self.schema);
        if !unknown.is_empty() {
            for key in unknown {
                let s = &self.sources[source];
                let d = s
                    .diagnostic(s.spans.key(&key.path), format!("unknown key `{}`", key.key))
                    .help(
                        did_you_mean(&key.key, key.allowed.iter().map(String::as_str))
                            .unwrap_or_else(|| format!("allowed here: {}", key.allowed.join(", "))),
                    );
                self.diagnostics.push(d);
            }
            return None;
        }
        match serde_path_to_error::deserialize::<_, SpecFile>(value) {
            Ok(file) => Some(file),
            Err(e) => {
                let at = key_path(e.path());
                let s = &self.sources[source];
                // serde names the Rust type it wanted (`struct Bearer`); the user wrote YAML.
                let inner = remcall_profile::suggest::in_yaml_words(&e.inner().to_string());
                let message = if at.is_empty() {
                    inner
                } else {
                    format!("`{at}`: {inner}")
                };
                // serde quotes the value it refused: one line of it, and not much of that.
                let mut message: String = message.lines().next().unwrap_or_default().to_owned();
                if message.chars().count() > 200 {
                    message = message.chars().take(200).collect::<String>() + "…";
                }
                // `tags: HashMap<String, i64>` inside `{ … }`: the comma split the type, and its
                // second half became a key of its own.
                let split_type = at
                    .rsplit('.')
                    .next()
                    .is_some_and(|last| last.ends_with('>') || last.ends_with(')'));
                let help = if split_type {
                    Some("a type with a comma inside `{ … }` must be quoted: `tags: \"HashMap<String, i64>\"`".to_owned())
                } else if message.contains("invalid type") {
                    value_at(value, &at).and_then(|written| shape::help(&self.schema, &at, written))
                } else {
                    None
                };
                self.diagnostics
                    .push(s.diagnostic(s.spans.value(&at), message).maybe_help(help));
                None
            }
        }
    }
}

/// What to do about a YAML syntax error, where it is a spec's usual mistake: a `{placeholder}`
/// inside a flow mapping (`get: { request: GET /orders/{id} }`) opens a mapping of its own.
fn syntax_help(text: &str, pos: Pos, message: &str) -> Option<String> {
    let line = text.lines().nth(pos.line.saturating_sub(1))?;
    let at = line.chars().nth(pos.column.saturating_sub(1))?;
    (message.contains("flow mapping") && at == '{').then(|| {
        "a `{` in a value inside `{ … }` opens a mapping: quote the value (`request: \"GET /orders/{id}\"`), or write the entry in block style".to_owned()
    })
}

/// `message` with each `"…"` or `` `…` `` that quotes `text` written `…`: an error about a
/// file that may not be a spec names none of what it holds.
pub(super) fn without_quotes_of(message: &str, text: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = rest[open..].chars().next().unwrap_or('"');
        let Some(length) = rest[open + 1..].find(quote) else {
            break;
        };
        let quoted = &rest[open + 1..open + 1 + length];
        out.push_str(&rest[..=open]);
        out.push_str(if !quoted.is_empty() && text.contains(quoted) {
            "…"
        } else {
            quoted
        });
        out.push(quote);
        rest = &rest[open + length + 2..];
    }
    out.push_str(rest);
    out
}

/// The value at a dotted path of a parsed file.
fn value_at<'a>(value: &'a serde_yaml::Value, path: &str) -> Option<&'a serde_yaml::Value> {
    path.split('.')
        .filter(|s| !s.is_empty())
        .try_fold(value, |value, segment| match value {
            serde_yaml::Value::Mapping(map) => map.get(segment),
            serde_yaml::Value::Sequence(items) => items.get(segment.parse::<usize>().ok()?),
            serde_yaml::Value::Tagged(tagged) => value_at(&tagged.value, segment),
            _ => None,
        })
}

/// A serde path as the span index names it: `methods.get.path.id`, `base_url.1`.
fn key_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        let part = match segment {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } => key.clone(),
            Segment::Enum { variant } => variant.clone(),
            Segment::Unknown => continue,
        };
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(&part);
    }
    out
}

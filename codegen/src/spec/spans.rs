//! Where each key and value of a YAML file sits, so semantic errors can point at their line.
//!
//! serde gives positions for syntax and type errors only; this index, built from the parser's
//! marked events, maps a key path such as `methods.get_user.request` to its line and column.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser};

use crate::diagnostic::Pos;

/// Positions of the keys and values of one YAML document, by dotted key path.
#[derive(Debug, Default)]
pub struct SpanIndex {
    keys: HashMap<String, Pos>,
    values: HashMap<String, Pos>,
}

enum Frame {
    Map { key: Option<String> },
    Seq { index: usize },
}

impl SpanIndex {
    /// Indexes `text`, or says where its YAML is broken and how.
    pub fn build(text: &str) -> Result<SpanIndex, (Pos, String)> {
        let mut index = SpanIndex::default();
        let mut frames: Vec<Frame> = Vec::new();
        for event in Parser::new_from_str(text) {
            let (event, span) = event.map_err(|e| {
                let mark = e.marker();
                let pos = reader_position(text, e.info()).unwrap_or(Pos {
                    line: mark.line(),
                    column: mark.col() + 1,
                });
                (pos, e.info().to_owned())
            })?;
            let pos = Pos {
                line: span.start.line(),
                column: span.start.col() + 1,
            };
            match event {
                Event::Scalar(value, ..) => {
                    if let Some(Frame::Map { key: key @ None }) = frames.last_mut() {
                        *key = Some(value.into_owned());
                        index.keys.insert(path(&frames), pos);
                    } else {
                        index.values.insert(path(&frames), pos);
                        advance(&mut frames);
                    }
                }
                Event::Alias(_) => {
                    index.values.insert(path(&frames), pos);
                    advance(&mut frames);
                }
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    if let Some(Frame::Map { key: key @ None }) = frames.last_mut() {
                        // A complex key: give it a name that no real key has.
                        *key = Some("?".to_owned());
                    }
                    index.values.insert(path(&frames), pos);
                    frames.push(if matches!(event, Event::MappingStart(..)) {
                        Frame::Map { key: None }
                    } else {
                        Frame::Seq { index: 0 }
                    });
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    frames.pop();
                    advance(&mut frames);
                }
                _ => {}
            }
        }
        Ok(index)
    }

    /// The position of the value at `path` (e.g. `methods.get_user.request`), else of its key,
    /// else of the nearest enclosing entry that exists.
    pub fn value(&self, path: &str) -> Pos {
        self.lookup(path, true)
    }

    /// Whether the file writes the key `path` itself.
    pub fn has_key(&self, path: &str) -> bool {
        self.keys.contains_key(path)
    }

    /// The position of the key at `path`, else of the nearest enclosing entry.
    pub fn key(&self, path: &str) -> Pos {
        self.lookup(path, false)
    }

    fn lookup(&self, path: &str, value_first: bool) -> Pos {
        let mut path = path;
        let mut value_first = value_first;
        loop {
            let (first, second) = if value_first {
                (&self.values, &self.keys)
            } else {
                (&self.keys, &self.values)
            };
            if let Some(pos) = first.get(path).or_else(|| second.get(path)) {
                return *pos;
            }
            // A missing entry points at the key of the nearest entry that encloses it.
            value_first = false;
            match path.rfind('.') {
                Some(dot) => path = &path[..dot],
                None => {
                    return self
                        .values
                        .get("")
                        .copied()
                        .unwrap_or(Pos { line: 1, column: 1 });
                }
            }
        }
    }
}

fn path(frames: &[Frame]) -> String {
    let mut out = String::new();
    for frame in frames {
        let part = match frame {
            Frame::Map { key: Some(key) } => key.clone(),
            Frame::Map { key: None } => continue,
            Frame::Seq { index } => index.to_string(),
        };
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(&part);
    }
    out
}

fn advance(frames: &mut [Frame]) {
    match frames.last_mut() {
        Some(Frame::Map { key }) => *key = None,
        Some(Frame::Seq { index }) => *index += 1,
        None => {}
    }
}

/// Where the YAML reader's own errors point: they say `at position N` (a byte offset, 0-based:
/// a control character) and no line of their own; `None` when the message names none.
pub(super) fn reader_position(text: &str, message: &str) -> Option<Pos> {
    let (_, rest) = message.rsplit_once("at position ")?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let offset = rest[..digits].parse::<usize>().ok()?.min(text.len());
    let mut end = offset;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    Some(Pos {
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_and_values_by_path() {
        let text = "client: X\nmethods:\n  get:\n    request: GET /a\n    path: { id: i64 }\ninclude: [a.yaml, b.yaml]\n";
        let index = SpanIndex::build(text).unwrap();
        assert_eq!(index.value("client"), Pos { line: 1, column: 9 });
        assert_eq!(index.key("methods.get"), Pos { line: 3, column: 3 });
        assert_eq!(
            index.value("methods.get.request"),
            Pos {
                line: 4,
                column: 14
            }
        );
        assert_eq!(
            index.value("methods.get.path.id"),
            Pos {
                line: 5,
                column: 17
            }
        );
        assert_eq!(
            index.value("include.1"),
            Pos {
                line: 6,
                column: 19
            }
        );
        // Missing paths fall back to the nearest enclosing entry.
        assert_eq!(
            index.value("methods.get.query.x"),
            Pos { line: 3, column: 3 }
        );
    }
}

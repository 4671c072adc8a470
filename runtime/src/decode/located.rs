//! Where a body does not fit its type: the JSON path (`$.items[3].tags[0]`) and, when the
//! failure is in a field of a spec struct, that struct and field (`Contents.content`).
//!
//! Nothing of this runs on the happy path. A body that fails to decode is decoded once more
//! through `serde_path_to_error`, which tracks the path; the record reader notes the innermost
//! struct field whose value failed (only when it fails: a `map_err`), and a union clears the note
//! of an alternative it tried and dropped.

use super::context::{self, Switch};
use std::fmt::Write as _;

use serde::de::DeserializeOwned;

/// True while [`locate`] runs on this thread.
pub(crate) fn locating() -> bool {
    context::is_on(Switch::Locating)
}

/// Where `body` does not fit `T` and what is wrong there, or `None` when it does fit:
/// "`Contents.content` (at `$.content`): null, where the description says a string".
pub(crate) fn locate<T: DeserializeOwned>(body: &[u8]) -> Option<String> {
    context::forget_failed_field();
    // Read again from the body's JSON value, as lax mode reads it (`lax.rs`): one more way of
    // reading every type, not two, compiled into each client. A body that is not JSON at all
    // has its place in the parser's own error.
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let decoded = {
        let _locating = context::set(Switch::Locating, true);
        serde_path_to_error::deserialize::<_, T>(&value)
    };
    let error = match decoded {
        Ok(_) => return None,
        Err(error) => error,
    };
    let path = json_path(error.path());
    let field = context::take_failed_field();
    let inner = error.into_inner();
    let what = inner.to_string();
    let position = format!(" at line {} column {}", inner.line(), inner.column());
    let what = reworded(what.strip_suffix(&position).unwrap_or(&what));
    // A union's alternatives say where in the union's value they failed (`@.brand`): in the
    // body, that is below the union's own place.
    let what = what.replace("`@", &format!("`{path}"));
    Some(match field {
        Some((name, field)) => format!("`{name}.{field}` (at `{path}`): {what}"),
        None => format!("at `{path}`: {what}"),
    })
}

/// serde's "invalid type: null, expected a string" as the user reads it: what came, and what
/// the description says.
fn reworded(what: &str) -> String {
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some((came, expected)) = what
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_once(", expected "))
        {
            return format!("{came}, where the description says {expected}");
        }
    }
    what.to_owned()
}

/// `path` (a JSONPath) and then member `key`.
pub(crate) fn child_path(path: &str, key: &str) -> String {
    let mut out = path.to_owned();
    push_key(&mut out, key);
    out
}

/// The most characters of a member key a path shows: a key is the server's choice, and a path
/// is logged, kept in drift memory and put into errors.
const KEY_CHARS: usize = 128;

/// The most bytes of a path shown, for the same reason (a deep path of short keys).
const PATH_BYTES: usize = 1024;

/// Adds member `key` to a JSONPath: `.name` for a plain word, else `['…']`, escaped. A key of
/// more than [`KEY_CHARS`] characters is shown by its start and `…`.
fn push_key(out: &mut String, key: &str) {
    if let Some((cut, _)) = key.char_indices().nth(KEY_CHARS) {
        out.push('[');
        out.push_str(&string_literal(&format!("{}…", &key[..cut])));
        out.push(']');
        return;
    }
    let plain = !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        let _ = write!(out, ".{key}");
        return;
    }
    out.push('[');
    out.push_str(&string_literal(key));
    out.push(']');
}

/// `text` as a JSONPath string literal, single-quoted: a quote and a backslash escaped, and
/// anything but printable ASCII as `\uXXXX` (the text may be a server's), a character above
/// U+FFFF as its UTF-16 surrogate pair, as RFC 9535 reads it.
pub(crate) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if !c.is_ascii_graphic() && c != ' ' => {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A JSONPath (RFC 9535) of `path`: `$`, `.name` for a key that is a plain word, `['…']` for
/// any other, `[3]` for a position. A key is the server's text: anything but printable ASCII in
/// it is written as `\uXXXX`, so it cannot break a log line or repaint a terminal. A path longer
/// than [`PATH_BYTES`] ends in `…` where it was cut.
pub(crate) fn json_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::from("$");
    for segment in path.iter() {
        if out.len() > PATH_BYTES {
            out.push('…');
            break;
        }
        match segment {
            Segment::Seq { index } => {
                let _ = write!(out, "[{index}]");
            }
            Segment::Map { key } | Segment::Enum { variant: key } => push_key(&mut out, key),
            Segment::Unknown => out.push_str(".?"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde::{Deserialize, Deserializer};

    use super::super::union::{Fits, read, untagged};
    use super::*;

    #[derive(Debug, Deserialize, serde::Serialize)]
    #[allow(dead_code)]
    struct Owner {
        id: u64,
    }

    #[derive(Debug, Deserialize, serde::Serialize)]
    #[allow(dead_code)]
    struct Pet {
        owner: Owner,
    }

    /// A `Pet` or a name; `Outer` is a `Holder` of a `Thing` one level down, or a flag.
    #[derive(Debug, serde::Serialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Thing {
        Pet(Pet),
        Name(String),
    }

    #[derive(Debug, Deserialize, serde::Serialize)]
    #[allow(dead_code)]
    struct Holder {
        thing: Thing,
    }

    #[derive(Debug, serde::Serialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Outer {
        Holder(Holder),
        Flag(bool),
    }

    impl<'de> Deserialize<'de> for Thing {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            untagged(
                deserializer,
                "Thing",
                &[
                    ("Pet", Fits::OBJECT, |v| read(v, Thing::Pet)),
                    ("Name", Fits::STRING, |v| read(v, Thing::Name)),
                ],
                None,
            )
        }
    }

    impl<'de> Deserialize<'de> for Outer {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            untagged(
                deserializer,
                "Outer",
                &[
                    ("Holder", Fits::OBJECT, |v| read(v, Outer::Holder)),
                    ("Flag", Fits::BOOL, |v| read(v, Outer::Flag)),
                ],
                None,
            )
        }
    }

    #[test]
    fn a_union_names_each_alternative_it_tried_with_its_path_in_the_body() {
        let located = locate::<Vec<Thing>>(br#"[{"owner": {"id": 1}}, {"owner": {"id": "x"}}]"#);
        assert_eq!(
            located.unwrap(),
            "at `$[1]`: no alternative of `Thing` matches (`Pet`: at `$[1].owner.id`: invalid \
             type: string \"x\", expected u64; `Name`: expected a string, found an object)"
        );
        // A union in an alternative of a union: each path is where it is in the body.
        let located = locate::<HashMap<String, Outer>>(br#"{"a": {"thing": {"owner": {}}}}"#);
        assert_eq!(
            located.unwrap(),
            "at `$.a`: no alternative of `Outer` matches (`Holder`: at `$.a.thing`: no \
             alternative of `Thing` matches (`Pet`: at `$.a.thing.owner`: missing field `id`; \
             `Name`: expected a string, found an object); `Flag`: expected a boolean, found an \
             object)"
        );
        // Decoding as usual (not locating) says what it said before, without paths.
        let plain = serde_json::from_slice::<Thing>(br#"{"owner": {"id": "x"}}"#).unwrap_err();
        assert!(!plain.to_string().contains("at `"), "{plain}");
    }

    #[test]
    fn a_path_runs_through_maps_and_lists_and_escapes_odd_keys() {
        let body = br#"{"plain": [1, 2], "a'b\n\u2028c": [3, "four"]}"#;
        let located = locate::<HashMap<String, Vec<u32>>>(body).unwrap();
        assert_eq!(
            located,
            r#"at `$['a\'b\u000a\u2028c'][1]`: string "four", where the description says u32"#
        );
        assert_eq!(
            locate::<HashMap<String, Vec<u32>>>(br#"{"plain": [1]}"#),
            None
        );
        let located = locate::<Vec<HashMap<String, bool>>>(br#"[{}, {"on": 1}]"#).unwrap();
        assert_eq!(
            located,
            "at `$[1].on`: integer `1`, where the description says a boolean"
        );
    }

    #[test]
    fn a_character_above_the_basic_plane_is_a_surrogate_pair_and_a_long_key_is_cut() {
        // RFC 9535 reads `\ud83d\ude00` as 😀; `\u1f600` would be another name (`ὠ0`).
        assert_eq!(string_literal("a😀"), r"'a\ud83d\ude00'");
        let key = "k".repeat(10_000);
        let body = format!(r#"{{"{key}": "x"}}"#);
        let located = locate::<HashMap<String, u32>>(body.as_bytes()).unwrap();
        assert!(located.len() < 400, "{located}");
        assert!(located.contains(r"kkk\u2026']`"), "{located}");
    }
}

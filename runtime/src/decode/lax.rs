//! `decode: lax`: where an answer does not fit its type, keep going with the nearest value, and
//! say so. A required field that is `null` or missing takes its type's default (empty text, 0,
//! false, an empty list or map, an empty struct filled the same way); a JSON value of another
//! kind where text is declared is kept as its JSON text. Each repair is drift: the call's
//! pipeline counts it per method and logs it once per method and path.
//!
//! Nothing of this runs on the happy path, nor in strict mode. A body that fails to decode while
//! the pipeline has lax mode on (a thread-local flag around the synchronous decode) is read into
//! a JSON value, and the mismatch `serde_path_to_error` finds is repaired in place, one at a
//! time, at most [`MAX_REPAIRS`] times: the work stays a small multiple of the body's size.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Repairs tried on one body before the decoding gives up: an answer whose every field lies is
/// not one to keep going with.
pub(crate) const MAX_REPAIRS: usize = 32;

pub(crate) use super::context::Drift;
use super::context::{self, Switch};

/// Runs `decode` with lax mode on, returning its result and the repairs it made (the call's
/// pipeline enters it through [`super::answer`]).
pub(super) fn decoding<R>(decode: impl FnOnce() -> R) -> (R, Vec<Drift>) {
    context::take_repairs();
    let lax = context::set(Switch::Lax, true);
    let result = decode();
    drop(lax);
    (result, context::take_repairs())
}

/// Whether lax mode is on for this thread's decode.
pub(crate) fn on() -> bool {
    context::is_on(Switch::Lax)
}

/// Runs `decode` with lax mode off, then puts it back as it was. A stream that declares error
/// events reads each item strictly first, so that a repair never turns the server's error
/// into an item.
pub(crate) fn strictly<R>(decode: impl FnOnce() -> R) -> R {
    let _strict = context::set(Switch::Lax, false);
    decode()
}

/// When lax mode is on: `body` as a `T` after the repairs it needs, or `None` when lax mode is
/// off or the body is beyond repair.
pub(crate) fn repaired<T: DeserializeOwned>(body: &[u8]) -> Option<T> {
    if !on() {
        return None;
    }
    let mut value: Value = serde_json::from_slice(body).ok()?;
    let mut repairs = Vec::new();
    for _ in 0..=MAX_REPAIRS {
        context::forget_failed_field();
        let error = match serde_path_to_error::deserialize::<_, T>(&value) {
            Ok(decoded) => {
                context::add_repairs(repairs);
                return Some(decoded);
            }
            Err(error) => error,
        };
        if repairs.len() == MAX_REPAIRS {
            return None;
        }
        let pointer = pointer(error.path());
        let path = super::located::json_path(error.path());
        let field = context::take_failed_field().map(|(name, field)| format!("{name}.{field}"));
        let message = error.into_inner().to_string();
        let (came, declared, missing) = repair(&mut value, &pointer, &message)?;
        let path = match missing {
            Some(key) => super::located::child_path(&path, &key),
            None => path,
        };
        // A missing field is given null first, then its type's default: one repair.
        if let Some(missing) = repairs
            .last_mut()
            .filter(|last: &&mut Drift| last.came == "missing" && last.path == path)
        {
            missing.declared = declared;
            continue;
        }
        repairs.push(Drift {
            path,
            field,
            declared,
            came,
            undeclared: None,
        });
    }
    None
}

/// What came, what is declared, and the key of a missing field (whose place is one below the
/// object the error is at).
type Repair = (&'static str, String, Option<String>);

/// Repairs the mismatch `message` says of the value at `pointer`, or `None` when it is not one
/// lax mode repairs.
fn repair(value: &mut Value, pointer: &str, message: &str) -> Option<Repair> {
    if let Some(rest) = message.strip_prefix("missing field `") {
        let name = rest.split('`').next()?;
        let object = value.pointer_mut(pointer)?.as_object_mut()?;
        // Null first: the next round gives it its type's default, which it then knows.
        object.insert(name.to_owned(), Value::Null);
        return Some(("missing", "a value".to_owned(), Some(name.to_owned())));
    }
    let (came, expected) = message
        .strip_prefix("invalid type: ")?
        .split_once(", expected ")?;
    let node = value.pointer_mut(pointer)?;
    if came == "null" {
        *node = default_of(expected)?;
        return Some(("null", expected.to_owned(), None));
    }
    if expected == "a string" && !node.is_string() {
        let kind = kind_of(node);
        *node = Value::String(node.to_string());
        return Some((kind, expected.to_owned(), None));
    }
    None
}

/// The default of what serde says it expected: empty text, 0, false, an empty list, map or
/// struct.
fn default_of(expected: &str) -> Option<Value> {
    let integer = |name: &str| {
        name.len() > 1
            && (name.starts_with('i') || name.starts_with('u'))
            && name[1..].chars().all(|c| c.is_ascii_digit())
    };
    Some(match expected {
        "a string" | "a character" => Value::String(String::new()),
        "a boolean" => Value::Bool(false),
        "a sequence" => Value::Array(Vec::new()),
        "a map" => Value::Object(serde_json::Map::new()),
        "f32" | "f64" => Value::from(0.0),
        name if integer(name) => Value::from(0),
        name if name.starts_with("struct ") => Value::Object(serde_json::Map::new()),
        _ => return None,
    })
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON pointer (RFC 6901) of `path`.
fn pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        out.push('/');
        match segment {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                out.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            Segment::Unknown => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        on: bool,
        n: u32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        text: String,
        list: Vec<u8>,
        map: HashMap<String, String>,
        inner: Inner,
        ratio: f64,
        maybe: Option<String>,
    }

    fn lax<T: DeserializeOwned>(body: &str) -> (Option<T>, Vec<Drift>) {
        decoding(|| repaired::<T>(body.as_bytes()))
    }

    #[test]
    fn each_null_or_missing_kind_takes_its_default_and_text_keeps_other_json() {
        let body =
            r#"{"text": {"a": [1]}, "list": null, "map": null, "inner": null, "ratio": null}"#;
        let (outer, drift) = lax::<Outer>(body);
        let outer = outer.expect("repaired");
        assert_eq!(outer.text, r#"{"a":[1]}"#);
        assert!(outer.list.is_empty() && outer.map.is_empty());
        assert_eq!(outer.inner, Inner { on: false, n: 0 });
        assert_eq!(outer.ratio, 0.0);
        assert_eq!(outer.maybe, None, "an absent Option is no drift");
        let places: Vec<(&str, &str)> = drift.iter().map(|d| (d.path.as_str(), d.came)).collect();
        // In key order: the repairs are made on a JSON value, whose keys are sorted.
        assert_eq!(
            places,
            [
                ("$.inner", "null"),
                ("$.inner.on", "missing"),
                ("$.inner.n", "missing"),
                ("$.list", "null"),
                ("$.map", "null"),
                ("$.ratio", "null"),
                ("$.text", "an object"),
            ]
        );
        assert_eq!(drift[2].declared, "u32");
    }

    #[test]
    fn strict_mode_and_what_lax_does_not_repair_stay_errors() {
        assert_eq!(
            repaired::<Inner>(br#"{"on": null, "n": 1}"#),
            None,
            "lax is off"
        );
        let (wrong_kind, _) = lax::<Inner>(r#"{"on": "yes", "n": 1}"#);
        assert_eq!(
            wrong_kind, None,
            "text where a boolean is declared is not guessed at"
        );
        let (not_json, _) = lax::<Inner>("<html>");
        assert_eq!(not_json, None);
    }

    #[test]
    fn repairs_are_bounded() {
        let many: String = (0..100)
            .map(|i| format!("\"f{i}\": null"))
            .collect::<Vec<_>>()
            .join(",");
        let body = format!("{{{many}}}");
        let (map, drift) = lax::<HashMap<String, String>>(&body);
        assert_eq!(map, None, "100 repairs needed, {MAX_REPAIRS} allowed");
        assert!(drift.is_empty(), "a body given up on reports none");
    }
}

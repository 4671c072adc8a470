//! Keys no type declares. JSON Schema leaves an object open by silence, and descriptions lag
//! behind their servers: a struct reads the keys it declares and skips the rest, so a value the
//! server added is dropped without a word. While the call's pipeline decodes an answer
//! ([`noticing`]), each key a struct skips is noted with the JSON type its value had, and an
//! object that shares no key with its struct (a 422 in a shape of the server's own, read as
//! the declared `{detail}`) is noted as such: drift, counted per method, logged once per place,
//! and added to the schema by `Observer::drift_overlay()` so that the next import keeps it.
//!
//! Nothing here runs on the happy path: a struct reaches this file only for a key it does not
//! declare, and outside the pipeline's scope (a user's own `serde_json::from_str`) nothing is
//! noted.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::context::{self, Drift, Switch};

/// What an object that shares no key with its struct is noted as having come.
pub(crate) const STRANGER: &str = "an object with none of them";

/// Notes kept of one answer: a server that adds a hundred keys is heard by its first few, and
/// the work per key stays small.
const MAX_NOTED: usize = 32;

/// How many of the keys an object that shares none with its struct had the error names.
pub(crate) const STRANGERS_NAMED: usize = 4;

/// The error of strict decoding for an object that had keys (the first few `keys`), none of
/// them one of `owner`'s `fields`: each name escaped (no line break or control character from
/// the server reaches a log) and cut.
pub(crate) fn shares_no_key(owner: &str, fields: &[&str], keys: &[String]) -> String {
    use fmt::Write;
    let mut out = format!("an object that shares no key with `{owner}`: it had ");
    for (i, key) in keys.iter().enumerate() {
        let _ = write!(out, "{}`", if i == 0 { "" } else { ", " });
        let _ = crate::error::write_escaped(&mut out, &crate::error::cut(key, 64));
        out.push('`');
    }
    if keys.len() == STRANGERS_NAMED {
        out.push_str(", …");
    }
    out.push_str("; it declares ");
    for (i, field) in fields.iter().take(8).enumerate() {
        let _ = write!(out, "{}`{field}`", if i == 0 { "" } else { ", " });
    }
    if fields.len() > 8 {
        out.push_str(", …");
    }
    out
}

/// Runs `decode` noticing undeclared keys; its result and what was noticed.
pub(super) fn noticing<R>(decode: impl FnOnce() -> R) -> (R, Vec<Drift>) {
    let noticing = context::set(Switch::Noticing, true);
    let mark = mark();
    let result = decode();
    drop(noticing);
    (result, take_since(mark))
}

/// Notes the key `key` of a `owner` struct, whose value had the JSON type `came`, when the
/// pipeline is noticing; the position of the notes this struct's keys start from, for
/// [`stranger`].
pub(crate) fn key(owner: &'static str, key: &str, came: &'static str) -> Option<usize> {
    if !context::is_on(Switch::Noticing) {
        return None;
    }
    context::with_undeclared(|noted| {
        let at = noted.len();
        let is_this = |n: &Drift| {
            let field = n.field.as_deref().unwrap_or_default();
            n.undeclared.is_some()
                && field.strip_prefix(owner).and_then(|f| f.strip_prefix('.')) == Some(key)
        };
        // A key noted before (the same struct again, or the body read again) starts this
        // struct's notes where it stands.
        if let Some(known) = noted.iter().position(is_this) {
            return Some(known);
        }
        if noted.len() < MAX_NOTED {
            noted.push(Drift {
                path: format!("`{owner}`"),
                field: Some(format!("{owner}.{key}")),
                declared: format!("no `{key}` in `{owner}`"),
                came: "an undeclared key",
                undeclared: Some(came),
            });
        }
        Some(at)
    })
}

/// Notes an object that had keys, none of them one of `owner`'s `fields`: the keys it had are
/// those noted for `owner` from position `from` on.
pub(crate) fn stranger(owner: &'static str, fields: &[&str], from: usize) {
    context::with_undeclared(|noted| {
        if noted.len() >= MAX_NOTED {
            return;
        }
        let prefix = format!("{owner}.");
        let keys: Vec<String> = (noted.iter().skip(from))
            .filter_map(|n| n.field.as_deref()?.strip_prefix(&prefix))
            .map(|key| format!("`{key}`"))
            .collect();
        let fields: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
        let stranger = Drift {
            path: format!("an object of {}", keys.join(", ")),
            field: None,
            declared: format!("`{owner}`'s fields, {}", fields.join(", ")),
            came: STRANGER,
            undeclared: None,
        };
        // A body read again (to say where it failed, or to repair it under lax) meets the same
        // object again: one note.
        if !noted
            .iter()
            .any(|n| n.came == STRANGER && n.declared == stranger.declared)
        {
            noted.push(stranger);
        }
    })
}

/// Where the notes stand now: a union trying an alternative takes it first, so that the notes
/// of an alternative that did not read the value can be taken back ([`take_since`]).
pub(crate) fn mark() -> usize {
    context::with_undeclared(|noted| noted.len())
}

/// The notes made since `mark`, taken out.
pub(crate) fn take_since(mark: usize) -> Vec<Drift> {
    context::with_undeclared(|noted| {
        let mark = mark.min(noted.len());
        noted.split_off(mark)
    })
}

/// Puts back notes taken with [`take_since`]: those of the alternative a union chose.
pub(crate) fn restore(notes: Vec<Drift>) {
    context::with_undeclared(|noted| noted.extend(notes));
}

/// The JSON type of a value, read and thrown away.
pub(crate) struct Kind(pub(crate) &'static str);

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Kind, D::Error> {
        deserializer.deserialize_any(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Kind, E> {
        Ok(Kind("boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Kind, E> {
        Ok(Kind("integer"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Kind, E> {
        Ok(Kind("integer"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Kind, E> {
        Ok(Kind("number"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Kind, E> {
        Ok(Kind("string"))
    }

    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind("null"))
    }

    fn visit_none<E>(self) -> Result<Kind, E> {
        Ok(Kind("null"))
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Kind, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Kind("array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Kind("object"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_the_pipeline_nothing_is_noted_and_inside_each_key_once() {
        assert_eq!(key("Thing", "extra", "string"), None);
        let ((), noted) = noticing(|| {
            key("Thing", "extra", "string");
            key("Thing", "extra", "string");
            key("Thing", "other", "object");
        });
        let fields: Vec<_> = noted.iter().filter_map(|n| n.field.clone()).collect();
        assert_eq!(fields, ["Thing.extra", "Thing.other"]);
        assert_eq!(mark(), 0, "the notes are taken out with the result");
    }

    #[test]
    fn an_object_with_none_of_its_structs_fields_is_noted_once_however_often_it_is_read() {
        let ((), noted) = noticing(|| {
            for _ in 0..3 {
                let from = key("Problem", "exception_message", "string").unwrap();
                stranger("Problem", &["detail"], from);
            }
        });
        assert_eq!(noted.len(), 2, "{noted:?}");
        assert_eq!(noted[1].declared, "`Problem`'s fields, `detail`");
        assert_eq!(noted[1].path, "an object of `exception_message`");
    }

    #[test]
    fn a_server_adding_many_keys_is_noted_by_its_first_few() {
        let ((), noted) = noticing(|| {
            for i in 0..1000 {
                key("Thing", &format!("k{i}"), "integer");
            }
        });
        assert_eq!(noted.len(), MAX_NOTED);
    }
}

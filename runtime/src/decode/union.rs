//! Reading a union (`one_of:`) whose alternatives serde cannot tell apart by itself, with an
//! error that says what was tried. serde's own untagged enums answer "data did not match any
//! variant", which leaves the caller to guess; these name each alternative and why it did not
//! fit, or the tag value that no alternative has.
//!
//! The value is read once into a `serde_json::Value` and each alternative is tried on it. A tagged
//! union's tag stays in the value, so an alternative that declares the tag field reads it. A union
//! nested in an alternative is handed its part of the value, not a copy ([`Owned`]).
//!
//! An answer is untrusted, so the work and the error text are bounded. An alternative whose
//! [`Fits`] rules the value out (another JSON kind, a required key missing) is never read, so a
//! recursive union whose alternatives differ in a required key reads in one pass. What is still
//! read and thrown away is charged to a budget shared by every union in one answer: sixteen times
//! the answer's size in values, and then the decoding stops with an error, so no answer can make
//! the alternatives retry each other exponentially. Each alternative's error is cut to its first
//! line and a few dozen words, so a nested failure cannot grow the message with the depth.

use super::context::{self, Drift};
use std::fmt::Write;

use serde::de::{Deserializer, Error as _};
use serde_json::Value;

use super::owned::{Owned, take_value};
use crate::error::cut;

/// One alternative of a tagged union: its tag value and how to read it from the value.
pub type Alternative<'a, T> = (&'a str, fn(Owned) -> Result<T, serde_json::Error>);

/// An alternative the value's shape does not rule out: its place in the union, its name, and
/// how to read it.
type Viable<'a, T> = (usize, &'a str, fn(Owned) -> Result<T, serde_json::Error>);

/// One alternative of an untagged union: its name (for errors), what it can read, and how.
pub type Candidate<'a, T> = (&'a str, Fits, fn(Owned) -> Result<T, serde_json::Error>);

/// What an alternative can read, told from a value's JSON kind and keys without reading it: the
/// generator writes it from the alternative's type (an object with these required keys, an
/// array, a string, ...), [`Fits::ANY`] when the type does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fits {
    kinds: u8,
    required: &'static [&'static str],
    /// Every key an object of the alternative declares, or every value a string enum knows:
    /// how well the alternative fits a value it may read ([`Fits::score`]).
    declared: &'static [&'static str],
    /// Fields of an object of the alternative that hold one value (a tag a description did not
    /// call a discriminator: `type: enum [map]`), and that value.
    tags: &'static [(&'static str, &'static str)],
}

const KIND_NAMES: [&str; 6] = [
    "null",
    "a boolean",
    "a number",
    "a string",
    "an array",
    "an object",
];

impl Fits {
    /// `null`.
    pub const NULL: Fits = Fits::kinds(1);
    /// `true` or `false`.
    pub const BOOL: Fits = Fits::kinds(1 << 1);
    /// A number.
    pub const NUMBER: Fits = Fits::kinds(1 << 2);
    /// A string.
    pub const STRING: Fits = Fits::kinds(1 << 3);
    /// An array.
    pub const ARRAY: Fits = Fits::kinds(1 << 4);
    /// An object.
    pub const OBJECT: Fits = Fits::kinds(1 << 5);
    /// Any value: the type does not say.
    pub const ANY: Fits = Fits::kinds(0b11_1111);

    const fn kinds(kinds: u8) -> Fits {
        Fits {
            kinds,
            required: &[],
            declared: &[],
            tags: &[],
        }
    }

    /// This, or also what `other` fits (an `Option` adds [`Fits::NULL`]).
    pub const fn or(self, other: Fits) -> Fits {
        Fits {
            kinds: self.kinds | other.kinds,
            required: if self.required.is_empty() {
                other.required
            } else {
                self.required
            },
            declared: if self.declared.is_empty() {
                other.declared
            } else {
                self.declared
            },
            tags: if self.tags.is_empty() {
                other.tags
            } else {
                self.tags
            },
        }
    }

    /// An object of this alternative needs these keys.
    pub const fn requiring(self, keys: &'static [&'static str]) -> Fits {
        Fits {
            required: keys,
            ..self
        }
    }

    /// An object of this alternative declares these keys (a string enum: knows these values).
    pub const fn declaring(self, keys: &'static [&'static str]) -> Fits {
        Fits {
            declared: keys,
            ..self
        }
    }

    /// An object of this alternative holds these values in these fields.
    pub const fn tagged(self, tags: &'static [(&'static str, &'static str)]) -> Fits {
        Fits { tags, ..self }
    }

    /// How well the alternative fits a value it may read: the object's keys it declares (a
    /// field holding the one value the alternative's tag field allows counts above any number
    /// of keys; another value in it puts the alternative last), or 1 for a string its enum
    /// knows. Of the alternatives that may read a value, the best fitting is tried first, so
    /// `{text}` and `{text, language}` each read as the alternative that keeps all of it,
    /// whatever the order the union lists them in.
    fn score(&self, value: &Value) -> usize {
        match value {
            Value::Object(object) => {
                let mut tagged = 0;
                for (field, tag) in self.tags {
                    match object.get(*field) {
                        Some(Value::String(found)) if found == tag => tagged += 1,
                        Some(_) => return 0,
                        None => {}
                    }
                }
                let declared = object
                    .keys()
                    .filter(|key| self.declared.contains(&key.as_str()))
                    .count();
                tagged * (object.len() + 1) + declared
            }
            Value::String(text) => usize::from(self.declared.contains(&text.as_str())),
            _ => 0,
        }
    }

    /// Why the alternative cannot read `value`, or nothing when it may.
    fn misfit(&self, value: &Value) -> Option<String> {
        let kind = match value {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Number(_) => 2,
            Value::String(_) => 3,
            Value::Array(_) => 4,
            Value::Object(_) => 5,
        };
        if self.kinds & (1 << kind) == 0 {
            let expected: Vec<&str> = (0..KIND_NAMES.len())
                .filter(|k| self.kinds & (1 << k) != 0)
                .map(|k| KIND_NAMES[k])
                .collect();
            return Some(format!(
                "expected {}, found {}",
                expected.join(" or "),
                KIND_NAMES[kind]
            ));
        }
        let object = value.as_object()?;
        let missing = self
            .required
            .iter()
            .find(|key| !object.contains_key(**key))?;
        Some(format!("missing field `{missing}`"))
    }
}

/// Reads one alternative `A` of a union from its value, as `wrap` makes it the union. Only
/// while a failed body is read again to say where (`located.rs`), the reading
/// tracks its path, and an error inside the value says where in it: "at `@.owner.id`: …"
/// (`@` is the union's own value; a union inside it has its paths moved down to its place, and
/// `locate` puts the outermost union's place for `@`).
pub fn read<A: serde::de::DeserializeOwned, T>(
    value: Owned,
    wrap: fn(A) -> T,
) -> Result<T, serde_json::Error> {
    if !super::located::locating() {
        return A::deserialize(value).map(wrap);
    }
    match serde_path_to_error::deserialize::<_, A>(value) {
        Ok(read) => Ok(wrap(read)),
        Err(error) => {
            let path = super::located::json_path(error.path());
            let inner = error.into_inner();
            match path.strip_prefix('$') {
                Some("") | None => Err(inner),
                Some(rest) => {
                    let inner = inner.to_string().replace("`@", &format!("`@{rest}"));
                    Err(serde_json::Error::custom(format!("at `@{rest}`: {inner}")))
                }
            }
        }
    }
}

/// The first alternative that reads the value; with none, an error naming each alternative and
/// why it did not fit, or `other`'s answer (an open union keeps what it does not know).
pub fn untagged<'de, T: serde::Serialize, D: Deserializer<'de>>(
    deserializer: D,
    union: &str,
    alternatives: &[Candidate<'_, T>],
    other: Option<fn(Value) -> T>,
) -> Result<T, D::Error> {
    let mut value = take_value(deserializer)?;
    // The outermost union of an answer opens the budget and closes it when it is done, however
    // it ends; the unions inside it share that budget.
    let _budget = context::open_budget(WASTE_FACTOR * count_values(&value) + 1024);
    let mut tried = Tried::default();
    let mut viable = Vec::new();
    let mut scores = Vec::new();
    for (position, (name, fits, read)) in alternatives.iter().enumerate() {
        match fits.misfit(&value) {
            Some(why) => tried.add(position, name, &why),
            None => {
                viable.push((position, *name, *read));
                scores.push(fits.score(&value));
            }
        }
    }
    // The best fitting first; among equals, the order the union lists them in.
    if viable.len() > 1 {
        let mut order: Vec<usize> = (0..viable.len()).collect();
        order.sort_by_key(|i| std::cmp::Reverse(scores[*i]));
        scores = order.iter().map(|i| scores[*i]).collect();
        viable = order.into_iter().map(|i| viable[i]).collect();
    }
    // Only alternatives that may fail after reading part of the value waste work.
    let size = if viable.len() > 1 {
        count_values(&value)
    } else {
        0
    };
    let tied = scores
        .iter()
        .take_while(|score| **score == scores[0])
        .count();
    if tied > 1
        && value.is_object()
        && let Some(found) = best_of_alike(&value, size, &viable[..tied])
    {
        return Ok(found);
    }
    for (try_number, (position, name, read)) in viable.iter().enumerate() {
        if context::waste_left() == Some(0) {
            return Err(D::Error::custom(format!(
                "`{union}`: decoding stopped, its alternatives were read and thrown away over \
                 more than {WASTE_FACTOR} times the answer; an untagged union this ambiguous \
                 needs a `tag:`"
            )));
        }
        // The last try may have the value itself; the others, and an open union, read a copy.
        let last = try_number + 1 == viable.len() && other.is_none();
        let attempt = if last {
            std::mem::take(&mut value)
        } else {
            value.clone()
        };
        let noted = super::undeclared::mark();
        match read(Owned(attempt)) {
            Ok(found) => return Ok(found),
            Err(e) => {
                context::charge(size);
                // The keys an alternative that did not read the value skipped were not lost.
                drop(super::undeclared::take_since(noted));
                tried.add(*position, name, &e.to_string());
                // A field of a dropped alternative is not where the body went wrong.
                context::forget_failed_field();
            }
        }
    }
    match other {
        Some(keep) => Ok(keep(value)),
        None => Err(D::Error::custom(format!(
            "no alternative of `{union}` matches ({})",
            tried.finish()
        ))),
    }
}

/// Of alternatives the value's keys cannot tell apart (they differ deeper down): the first that
/// writes the whole value back, else the one that writes back the most of it. Another is read
/// only when the one before lost something, and only while the budget holds twice the value:
/// telling alike alternatives apart never stops a decoding that would succeed.
fn best_of_alike<T: serde::Serialize>(
    value: &Value,
    size: u64,
    alike: &[Viable<'_, T>],
) -> Option<T> {
    // The keys each alternative skipped are noted as it reads; only the chosen one's stay.
    let noted = super::undeclared::mark();
    let mut best: Option<(u64, T, Vec<Drift>)> = None;
    for (try_number, (_, _, read)) in alike.iter().enumerate() {
        if try_number > 0 && context::waste_left().is_some_and(|left| left < 2 * size) {
            break;
        }
        let read = read(Owned(value.clone()));
        let skipped = super::undeclared::take_since(noted);
        let Ok(found) = read else {
            context::charge(size);
            context::forget_failed_field();
            continue;
        };
        let Ok(again) = serde_json::to_value(&found) else {
            context::charge(size);
            continue;
        };
        let kept = kept_values(value, &again);
        if kept == size {
            super::undeclared::restore(skipped);
            return Some(found);
        }
        // Kept or not, one of the reads that lost something is work thrown away.
        context::charge(size);
        if best.as_ref().is_none_or(|(most, _, _)| kept > *most) {
            best = Some((kept, found, skipped));
        }
    }
    best.map(|(_, found, skipped)| {
        super::undeclared::restore(skipped);
        found
    })
}

/// How many times its size in values one answer may be read and thrown away by its unions.
const WASTE_FACTOR: u64 = 16;

/// How many of the values in `sent` come back in `back` (numbers compare by value; a `null`
/// that does not come back is lost: of alternatives alike, the one whose `Nullable` field
/// writes it back is the one a PATCH that clears a field needs); `count_values(sent)` when
/// nothing was lost.
fn kept_values(sent: &Value, back: &Value) -> u64 {
    let mut kept = 0;
    let mut pending = vec![(sent, back)];
    while let Some((sent, back)) = pending.pop() {
        match (sent, back) {
            (Value::Object(a), Value::Object(b)) => {
                kept += 1;
                for (key, value) in a {
                    if let Some(there) = b.get(key) {
                        pending.push((value, there));
                    }
                }
            }
            (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
                kept += 1;
                pending.extend(a.iter().zip(b));
            }
            (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => kept += 1,
            (a, b) if a == b => kept += count_values(a),
            _ => {}
        }
    }
    kept
}

/// The values in `value`, itself included; a loop rather than recursion, whatever the depth.
fn count_values(value: &Value) -> u64 {
    let mut count = 0;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        count += 1;
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(fields) => pending.extend(fields.values()),
            _ => {}
        }
    }
    count
}

/// The alternatives tried and why each did not fit, bounded: a few alternatives in the spec's
/// order, each the first line of its error cut to a few dozen words, then how many more there
/// were.
#[derive(Default)]
struct Tried {
    reasons: Vec<(usize, String)>,
}

impl Tried {
    const SHOWN: usize = 6;
    const REASON_CHARS: usize = 160;

    fn add(&mut self, position: usize, name: &str, why: &str) {
        let first_line = why.lines().next().unwrap_or_default();
        self.reasons.push((
            position,
            format!("`{name}`: {}", cut(first_line, Self::REASON_CHARS)),
        ));
    }

    fn finish(mut self) -> String {
        self.reasons.sort_by_key(|(position, _)| *position);
        let more = self.reasons.len().saturating_sub(Self::SHOWN);
        let shown: Vec<String> = self
            .reasons
            .into_iter()
            .take(Self::SHOWN)
            .map(|(_, reason)| reason)
            .collect();
        let mut text = shown.join("; ");
        if more > 0 {
            let _ = write!(text, "; and {more} more");
        }
        text
    }
}

/// The alternative whose tag value (`alternatives[i].0`, the value of the field `tag`) the value
/// carries; an error when the field is missing, or when its value is unknown and the union is not
/// open.
pub fn tagged<'de, T, D: Deserializer<'de>>(
    deserializer: D,
    union: &str,
    tag: &str,
    alternatives: &[Alternative<'_, T>],
    other: Option<fn(Value) -> T>,
) -> Result<T, D::Error> {
    let value = take_value(deserializer)?;
    let Some(found) = value.get(tag) else {
        return match other {
            Some(keep) => Ok(keep(value)),
            None => Err(D::Error::custom(format!(
                "`{union}` needs its tag field `{tag}`, and the value has none"
            ))),
        };
    };
    // A tag is a string on the wire; a number or a boolean is matched by its text.
    let text = match found {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match alternatives.iter().find(|(name, _)| *name == text) {
        Some((_, read)) => {
            // The alternative's own object carries the tag, declared by its struct or not: no
            // undeclared key, and no object that "shares no key" for it.
            let before = super::context::replace_variant_tag(Some(tag.to_owned()));
            let read = read(Owned(value));
            super::context::replace_variant_tag(before);
            read
        }
        .map_err(|e| {
            D::Error::custom(format!(
                "`{union}` ({tag}: {text}): {}",
                cut(&e.to_string(), Tried::REASON_CHARS * Tried::SHOWN)
            ))
        }),
        None => match other {
            Some(keep) => Ok(keep(value)),
            None => {
                let known: Vec<&str> = alternatives.iter().map(|(name, _)| *name).collect();
                let mut shown = String::new();
                let _ = crate::error::write_escaped(&mut shown, &cut(&text, Tried::REASON_CHARS));
                Err(D::Error::custom(format!(
                    "`{union}`: unknown `{tag}` value `{shown}`, expected one of {}",
                    known.join(", ")
                )))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
    struct Card {
        number: String,
    }

    #[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
    struct Bank {
        iban: String,
    }

    #[derive(Debug, PartialEq, serde::Serialize)]
    #[serde(untagged)]
    enum Source {
        Card(Card),
        Bank(Bank),
        Other(Value),
    }

    fn read(value: Value, open: bool) -> Result<Source, serde_json::Error> {
        untagged(
            value,
            "Source",
            &[
                ("Card", Fits::OBJECT.requiring(&["number"]), |v| {
                    Card::deserialize(v).map(Source::Card)
                }),
                // Read to find out: the error is serde's.
                ("Bank", Fits::ANY, |v| {
                    Bank::deserialize(v).map(Source::Bank)
                }),
            ],
            open.then_some(Source::Other as fn(Value) -> Source),
        )
    }

    #[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
    struct Short {
        text: String,
    }

    #[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
    struct Long {
        text: String,
        language: Option<String>,
    }

    #[derive(Debug, PartialEq, serde::Serialize)]
    #[serde(untagged)]
    enum Said {
        Short(Short),
        Long(Long),
    }

    fn said(value: Value, short: Fits, long: Fits) -> Said {
        untagged(
            value,
            "Said",
            &[
                ("Short", short, |v| Short::deserialize(v).map(Said::Short)),
                ("Long", long, |v| Long::deserialize(v).map(Said::Long)),
            ],
            None,
        )
        .unwrap()
    }

    #[test]
    fn untagged_tries_the_alternative_that_declares_the_most_keys_first() {
        let short = Fits::OBJECT.requiring(&["text"]).declaring(&["text"]);
        let long = Fits::OBJECT
            .requiring(&["text"])
            .declaring(&["text", "language"]);
        // Both read `{text, language}`; the first listed would drop the language.
        assert!(matches!(
            said(json!({ "text": "hi", "language": "en" }), short, long),
            Said::Long(Long {
                language: Some(_),
                ..
            })
        ));
        // Equal fits keep the union's order.
        assert!(matches!(
            said(json!({ "text": "hi" }), short, long),
            Said::Short(_)
        ));
        // A field holding an alternative's one tag value outranks any count of keys, and
        // another value in it puts the alternative last.
        let short_tagged = short.tagged(&[("kind", "short")]);
        let long_tagged = long.tagged(&[("kind", "long")]);
        assert!(matches!(
            said(
                json!({ "text": "hi", "kind": "short", "language": "x" }),
                short_tagged,
                long_tagged
            ),
            Said::Short(_)
        ));
        assert!(matches!(
            said(
                json!({ "text": "hi", "kind": "long" }),
                short_tagged,
                long_tagged
            ),
            Said::Long(_)
        ));
    }

    #[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
    struct Plain {
        cells: Vec<Short>,
    }

    #[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
    struct Rich {
        cells: Vec<Long>,
    }

    #[derive(Debug, PartialEq, serde::Serialize)]
    #[serde(untagged)]
    enum Board {
        Plain(Plain),
        Rich(Rich),
    }

    #[test]
    fn alternatives_alike_at_the_top_are_told_apart_by_what_they_write_back() {
        let read = |value: Value| {
            untagged(
                value,
                "Board",
                &[
                    ("Plain", Fits::OBJECT.declaring(&["cells"]), |v| {
                        Plain::deserialize(v).map(Board::Plain)
                    }),
                    ("Rich", Fits::OBJECT.declaring(&["cells"]), |v| {
                        Rich::deserialize(v).map(Board::Rich)
                    }),
                ],
                None,
            )
            .unwrap()
        };
        let rich = json!({ "cells": [{ "text": "a", "language": "en" }] });
        assert!(matches!(read(rich), Board::Rich(_)));
        assert!(matches!(
            read(json!({ "cells": [{ "text": "a" }] })),
            Board::Plain(_)
        ));
    }

    #[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
    struct Listed {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        allow: Option<Vec<String>>,
    }

    #[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
    struct Filtered {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        allow: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "crate::Nullable::is_absent")]
        filter: crate::Nullable<Vec<String>>,
    }

    #[derive(Debug, PartialEq, serde::Serialize)]
    #[serde(untagged)]
    enum Metadata {
        Listed(Listed),
        Filtered(Filtered),
    }

    #[test]
    fn of_alternatives_alike_the_one_that_writes_a_sent_null_back_is_taken() {
        let read = |value: Value| {
            untagged(
                value,
                "Metadata",
                &[
                    ("Listed", Fits::OBJECT.declaring(&["allow"]), |v| {
                        Listed::deserialize(v).map(Metadata::Listed)
                    }),
                    ("Filtered", Fits::OBJECT.declaring(&["allow"]), |v| {
                        Filtered::deserialize(v).map(Metadata::Filtered)
                    }),
                ],
                None,
            )
            .unwrap()
        };
        // `filter: null` clears the filter: read as `Listed`, the null would not be sent.
        let clear = json!({ "allow": ["a"], "filter": null });
        let read_back = read(clear.clone());
        assert!(matches!(read_back, Metadata::Filtered(_)), "{read_back:?}");
        assert_eq!(serde_json::to_value(&read_back).unwrap(), clear);
        assert!(matches!(
            read(json!({ "allow": ["a"] })),
            Metadata::Listed(_)
        ));
    }

    #[test]
    fn untagged_takes_the_first_that_fits_and_names_all_it_tried() {
        assert_eq!(
            read(json!({ "iban": "DE00" }), false).unwrap(),
            Source::Bank(Bank {
                iban: "DE00".into()
            })
        );
        let error = read(json!({ "id": 1 }), false).unwrap_err().to_string();
        assert_eq!(
            error,
            "no alternative of `Source` matches (`Card`: missing field `number`; `Bank`: missing field `iban`)"
        );
        assert_eq!(
            read(json!({ "id": 1 }), true).unwrap(),
            Source::Other(json!({ "id": 1 }))
        );
        assert_eq!(
            read(json!([4242]), false).unwrap_err().to_string(),
            "no alternative of `Source` matches (`Card`: expected an object, found an array; \
             `Bank`: invalid type: integer `4242`, expected a string)"
        );
    }

    /// The recursive filter shape of imported APIs: `Expr` is `All { of: [Expr], all: true }` or
    /// `Any { of: [Expr], any: true }`, nested. Each alternative counts its reads.
    #[allow(dead_code)]
    mod filters {
        use std::cell::Cell;

        use super::*;

        thread_local! {
            pub static READS: Cell<u64> = const { Cell::new(0) };
        }

        #[derive(Debug, Deserialize, serde::Serialize)]
        pub struct All {
            pub of: Vec<Expr>,
            pub all: bool,
        }

        #[derive(Debug, Deserialize, serde::Serialize)]
        pub struct Any {
            pub of: Vec<Expr>,
            pub any: bool,
        }

        /// Alternatives whose required keys are the same, told apart by a value's type only.
        #[derive(Debug, Deserialize, serde::Serialize)]
        pub struct Count {
            pub of: Vec<Expr>,
            pub value: i64,
        }

        #[derive(Debug, Deserialize, serde::Serialize)]
        pub struct Name {
            pub of: Vec<Expr>,
            pub value: String,
        }

        #[derive(Debug, serde::Serialize)]
        #[serde(untagged)]
        pub enum Expr {
            All(All),
            Any(Any),
            Count(Count),
            Name(Name),
        }

        fn counted<T>(read: Result<T, serde_json::Error>) -> Result<T, serde_json::Error> {
            READS.set(READS.get() + 1);
            read
        }

        impl<'de> Deserialize<'de> for Expr {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                untagged(
                    deserializer,
                    "Expr",
                    &[
                        ("All", Fits::OBJECT.requiring(&["of", "all"]), |v| {
                            counted(All::deserialize(v).map(Expr::All))
                        }),
                        ("Any", Fits::OBJECT.requiring(&["of", "any"]), |v| {
                            counted(Any::deserialize(v).map(Expr::Any))
                        }),
                        ("Count", Fits::OBJECT.requiring(&["of", "value"]), |v| {
                            counted(Count::deserialize(v).map(Expr::Count))
                        }),
                        ("Name", Fits::OBJECT.requiring(&["of", "value"]), |v| {
                            counted(Name::deserialize(v).map(Expr::Name))
                        }),
                    ],
                    None,
                )
            }
        }

        /// `depth` nested values: each `{"of": [inner], key: leaf}`, the innermost `innermost`.
        pub fn nested(depth: usize, key: &str, leaf: &str, innermost: &str) -> String {
            let mut text = innermost.to_owned();
            for _ in 0..depth {
                text = format!(r#"{{"of": [{text}], "{key}": {leaf}}}"#);
            }
            text
        }
    }

    #[test]
    fn a_recursive_union_told_apart_by_its_keys_reads_each_value_once() {
        use filters::*;
        let innermost = r#"{"of": [], "any": true}"#;
        for depth in [10, 40] {
            READS.set(0);
            let text = nested(depth, "any", "true", innermost);
            let mut expr: Expr = serde_json::from_str(&text).unwrap();
            READS.with(|reads| assert_eq!(reads.get(), depth as u64 + 1));
            for _ in 0..depth {
                let Expr::Any(any) = expr else {
                    panic!("{expr:?}")
                };
                expr = any.of.into_iter().next().unwrap();
            }
        }
    }

    #[test]
    fn an_answer_that_would_retry_alternatives_exponentially_stops_with_a_short_error() {
        use filters::*;
        // `Count` reads the whole inner value before it meets `value` (keys are read in order),
        // then `Name` reads it again: unbounded, 2^depth reads.
        let text = nested(30, "value", r#""x""#, r#"{"of": [], "value": "x"}"#);
        READS.set(0);
        let error = serde_json::from_str::<Expr>(&text).unwrap_err().to_string();
        let reads = READS.get();
        assert!(reads < 20_000, "{reads} reads");
        assert!(error.contains("decoding stopped"), "{error}");
        assert!(error.len() < 2_000, "{} bytes: {error}", error.len());
        // The budget was the answer's: the next answer starts afresh.
        let small = nested(3, "value", r#""x""#, r#"{"of": [], "value": "x"}"#);
        assert!(serde_json::from_str::<Expr>(&small).is_ok());
    }

    #[test]
    fn a_deep_failure_gives_a_bounded_error() {
        use filters::*;
        // Every level fits `All` by its keys; the innermost value fits nothing.
        let text = nested(40, "all", "true", r#"{"of": [], "all": "yes"}"#);
        let error = serde_json::from_str::<Expr>(&text).unwrap_err().to_string();
        assert!(
            error.starts_with("no alternative of `Expr` matches (`All`: "),
            "{error}"
        );
        assert!(error.len() < 1_200, "{} bytes: {error}", error.len());
    }

    fn read_tagged(value: Value) -> Result<Source, serde_json::Error> {
        tagged(
            value,
            "Source",
            "object",
            &[
                ("card", |v| Card::deserialize(v).map(Source::Card)),
                ("bank_account", |v| Bank::deserialize(v).map(Source::Bank)),
            ],
            None,
        )
    }

    #[test]
    fn tagged_dispatches_on_the_tag_and_says_what_is_wrong() {
        assert_eq!(
            read_tagged(json!({ "object": "card", "number": "4242" })).unwrap(),
            Source::Card(Card {
                number: "4242".into()
            })
        );
        for (value, expected) in [
            (
                json!({ "number": "4242" }),
                "`Source` needs its tag field `object`, and the value has none",
            ),
            (
                json!({ "object": "wallet\n" }),
                "`Source`: unknown `object` value `wallet\\n`, expected one of card, bank_account",
            ),
            (
                json!({ "object": "card" }),
                "`Source` (object: card): missing field `number`",
            ),
        ] {
            assert_eq!(read_tagged(value).unwrap_err().to_string(), expected);
        }
    }
}

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

use serde::de::{Deserializer, Error as _};
use serde_json::Value;

use super::owned::{Owned, take_value};
use crate::error::cut;
use tried::Tried;

mod tried;

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
        let order = best_first(&scores);
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
    // Arrays too: `Vec<A>` and `Vec<B>` both read `[{..}]` and differ only in what they keep.
    if tied > 1
        && (value.is_object() || value.is_array())
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

/// The positions of `scores`, the highest first, equals in their order. Apart from
/// [`untagged`] so that the sort is compiled once, not once per union (a closure in a generic
/// function is as generic as the function: 624 copies of the sort were 8 % of a large client's
/// code).
fn best_first(scores: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by_key(|i| std::cmp::Reverse(scores[*i]));
    order
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

/// The alternative whose tag value (`alternatives[i].0`, the value of the field `tag`) the value
/// carries; an error when the field is missing, or when its value is unknown and the union is not
/// open.
pub fn tagged<'de, T, D: Deserializer<'de>>(
    deserializer: D,
    union: &'static str,
    tag: &str,
    alternatives: &[Alternative<'_, T>],
    other: Option<fn(Value) -> T>,
) -> Result<T, D::Error> {
    let value = take_value(deserializer)?;
    dispatch(value, union, tag, None, alternatives, other).map_err(D::Error::custom)
}

/// An adjacently tagged union's value, `{"<tag>": "<value>", "<content>": <the alternative>}`:
/// the alternative the tag names reads what `content` holds (`null` when the key is missing, so
/// that an alternative holding nothing reads). A key beside the two is no alternative's: noted
/// as undeclared, as a struct's is.
pub fn adjacent<'de, T, D: Deserializer<'de>>(
    deserializer: D,
    union: &'static str,
    (tag, content): (&str, &str),
    alternatives: &[Alternative<'_, T>],
    other: Option<fn(Value) -> T>,
) -> Result<T, D::Error> {
    let value = take_value(deserializer)?;
    dispatch(value, union, tag, Some(content), alternatives, other).map_err(D::Error::custom)
}

/// [`tagged`] and [`adjacent`], once the value is read: not generic over the deserializer, so
/// compiled once per union type rather than once per union and reader.
fn dispatch<T>(
    mut value: Value,
    union: &'static str,
    tag: &str,
    content: Option<&str>,
    alternatives: &[Alternative<'_, T>],
    other: Option<fn(Value) -> T>,
) -> Result<T, String> {
    let Some(found) = value.get(tag) else {
        return match other {
            Some(keep) => Ok(keep(value)),
            None => Err(format!(
                "`{union}` needs its tag field `{tag}`, and the value has none"
            )),
        };
    };
    // A tag is a string on the wire; a number or a boolean is matched by its text.
    let text = match found {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match alternatives.iter().find(|(name, _)| *name == text) {
        Some((_, read)) => match content {
            Some(content) => {
                let object = value.as_object_mut();
                let held = object.and_then(|object| {
                    for (key, beside) in object.iter() {
                        if key != tag && key != content {
                            super::undeclared::key(union, key, kind_of(beside));
                        }
                    }
                    object.remove(content)
                });
                read(Owned(held.unwrap_or(Value::Null)))
            }
            None => {
                // The alternative's own object carries the tag, declared by its struct or
                // not: no undeclared key, and no object that "shares no key" for it.
                let before = super::context::replace_variant_tag(Some(tag.to_owned()));
                let read = read(Owned(value));
                super::context::replace_variant_tag(before);
                read
            }
        }
        .map_err(|e| {
            format!(
                "`{union}` ({tag}: {text}): {}",
                cut(&e.to_string(), Tried::REASON_CHARS * Tried::SHOWN)
            )
        }),
        None => match other {
            Some(keep) => Ok(keep(value)),
            None => {
                let known: Vec<&str> = alternatives.iter().map(|(name, _)| *name).collect();
                let mut shown = String::new();
                let _ = crate::error::write_escaped(&mut shown, &cut(&text, Tried::REASON_CHARS));
                Err(format!(
                    "`{union}`: unknown `{tag}` value `{shown}`, expected one of {}",
                    known.join(", ")
                ))
            }
        },
    }
}

/// A value's JSON type, as an undeclared key's is noted.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests;

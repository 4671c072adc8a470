//! Reading and writing the structs a spec declares, from a table of wire names.
//!
//! serde's derive writes, for every struct, a field enum with its own visitor, a map visitor
//! with one local, one arm and one missing-field check per field, a sequence visitor, and a
//! writer generic over the serializer; a large imported client has thousands of structs, and
//! rustc spends most of its time checking that code. Here the loops, the key lookup and the
//! errors are written once: a struct only says its wire names, how to read field `i` and build
//! itself from what was read, and the list of its fields to write, each as a
//! `&dyn erased_serde::Serialize` so that one `write` per serializer serves every struct.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{SerializeMap, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::undeclared;
use crate::wire::nullable::Nullable;

/// A struct read by [`read`]: what generated code implements instead of deriving `Deserialize`.
pub trait Record<'de>: Sized {
    /// What was read so far: a tuple with one `Option` per field (`None` until its key comes),
    /// and the map of other keys last when the struct keeps them.
    type Slots;
    /// The struct's name, for errors.
    const NAME: &'static str;
    /// The fields' wire names; [`Record::read`] is given a position in this list.
    const FIELDS: &'static [&'static str];
    /// Whether keys that are not fields are kept ([`Record::read_other`]) rather than skipped.
    const KEEPS_OTHERS: bool = false;

    /// Nothing read yet.
    fn slots() -> Self::Slots;

    /// Reads the value of field `index` into its slot with [`slot`]; `Ok(false)` when it already
    /// had one (a duplicate key).
    fn read<A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        map: &mut A,
    ) -> Result<bool, A::Error>;

    /// Reads the value of a key that is not a field, when [`Record::KEEPS_OTHERS`].
    fn read_other<A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        key: String,
        map: &mut A,
    ) -> Result<(), A::Error> {
        let _ = (slots, key);
        map.next_value::<IgnoredAny>().map(drop)
    }

    /// The struct, or why it cannot be made: a required field that never came, or keys left
    /// for a flattened union that none of its alternatives reads.
    fn finish(slots: Self::Slots) -> Result<Self, Unfinished>;
}

/// Why [`Record::finish`] could not make the struct.
#[derive(Debug)]
pub enum Unfinished {
    /// The wire name of a required field that never came.
    Missing(&'static str),
    /// The union flattened into the struct (`all_of:` with a union part) does not read the keys
    /// the struct's own fields left: its error.
    Flattened(String),
}

impl From<&'static str> for Unfinished {
    fn from(missing: &'static str) -> Unfinished {
        Unfinished::Missing(missing)
    }
}

/// Reads `T` from a map (a JSON object).
pub fn read<'de, T: Record<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_map(RecordVisitor(PhantomData))
}

/// Reads one field's value into `slot`; `false`, reading nothing, when it is already filled.
pub fn slot<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    slot: &mut Option<T>,
    map: &mut A,
) -> Result<bool, A::Error> {
    if slot.is_some() {
        return Ok(false);
    }
    *slot = Some(map.next_value()?);
    Ok(true)
}

/// Reads the value of a key that is not a field into the struct's other keys.
pub fn other<'de, V: Deserialize<'de>, A: MapAccess<'de>>(
    others: &mut BTreeMap<String, V>,
    key: String,
    map: &mut A,
) -> Result<(), A::Error> {
    let value = map.next_value()?;
    others.insert(key, value);
    Ok(())
}

/// A field to write: its wire name, and its value or `None` when it is left out (an optional
/// field without a value).
pub type FieldOut<'a> = (&'static str, Option<&'a dyn erased_serde::Serialize>);

/// Writes a struct's fields (a JSON object).
pub fn write<S: Serializer>(
    serializer: S,
    name: &'static str,
    fields: &[FieldOut<'_>],
) -> Result<S::Ok, S::Error> {
    let count = fields.iter().filter(|(_, value)| value.is_some()).count();
    let mut out = serializer.serialize_struct(name, count)?;
    for (wire, value) in fields {
        match value {
            Some(value) => out.serialize_field(wire, value)?,
            None => out.skip_field(wire)?,
        }
    }
    out.end()
}

/// Writes a struct's fields and then its other keys, in one object.
pub fn write_with_others<S: Serializer, V: Serialize>(
    serializer: S,
    fields: &[FieldOut<'_>],
    others: &BTreeMap<String, V>,
) -> Result<S::Ok, S::Error> {
    let mut out = serializer.serialize_map(None)?;
    for (wire, value) in fields {
        if let Some(value) = value {
            out.serialize_entry(wire, value)?;
        }
    }
    for (key, value) in others {
        out.serialize_entry(key, value)?;
    }
    out.end()
}

/// The union flattened into a struct (`all_of:` with a union part), read from the keys the
/// struct's own fields did not take.
pub fn flattened<T: serde::de::DeserializeOwned>(
    rest: serde_json::Map<String, serde_json::Value>,
) -> Result<T, Unfinished> {
    T::deserialize(serde_json::Value::Object(rest))
        .map_err(|error| Unfinished::Flattened(error.to_string()))
}

/// Writes a struct's fields and then the keys of the union flattened into it, in one object.
/// The union's value must be an object: an alternative that is not one cannot share an object
/// with fields.
pub fn write_flattened<S: Serializer, U: Serialize>(
    serializer: S,
    name: &'static str,
    fields: &[FieldOut<'_>],
    union: &U,
) -> Result<S::Ok, S::Error> {
    use serde::ser::Error as _;
    let entries = match serde_json::to_value(union).map_err(S::Error::custom)? {
        serde_json::Value::Object(entries) => entries,
        other => {
            return Err(S::Error::custom(format_args!(
                "{name}: its flattened union holds a {}, not an object",
                json_kind(&other)
            )));
        }
    };
    let mut out = serializer.serialize_map(None)?;
    for (wire, value) in fields {
        if let Some(value) = value {
            out.serialize_entry(wire, value)?;
        }
    }
    for (key, value) in &entries {
        out.serialize_entry(key, value)?;
    }
    out.end()
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// An optional field's value to write, `None` when it has none (and is left out).
pub trait Optional {
    /// The value, unless it is absent.
    fn present(&self) -> Option<&dyn erased_serde::Serialize>;
}

impl<T: Serialize> Optional for Option<T> {
    fn present(&self) -> Option<&dyn erased_serde::Serialize> {
        self.as_ref()
            .map(|value| value as &dyn erased_serde::Serialize)
    }
}

impl<T: Serialize> Optional for Nullable<T> {
    fn present(&self) -> Option<&dyn erased_serde::Serialize> {
        (!self.is_absent()).then_some(self as &dyn erased_serde::Serialize)
    }
}

struct RecordVisitor<T>(PhantomData<fn() -> T>);

impl<'de, T: Record<'de>> Visitor<'de> for RecordVisitor<T> {
    type Value = T;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "struct {}", T::NAME)
    }

    // Generic over the struct and over the reader (each way of reading JSON): kept to the
    // loop that must call the reader, so each struct's copies are small; what depends on the
    // struct alone is in `finish`, what depends on neither in `Keys`.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut slots = T::slots();
        let seed = KeySeed {
            fields: T::FIELDS,
            keep_others: T::KEEPS_OTHERS,
        };
        let mut keys = Keys::new();
        while let Some(key) = map.next_key_seed(seed)? {
            match key {
                Key::Field(index) => {
                    keys.any_field = true;
                    match T::read(&mut slots, index, &mut map) {
                        Ok(true) => {}
                        Ok(false) => return Err(de::Error::duplicate_field(T::FIELDS[index])),
                        Err(error) => {
                            super::context::note_failed_field(T::NAME, T::FIELDS[index]);
                            return Err(error);
                        }
                    }
                }
                Key::Other(key) => T::read_other(&mut slots, key, &mut map)?,
                Key::Undeclared(key) if keys.is_tag(&key) => {
                    map.next_value::<IgnoredAny>()?;
                }
                Key::Undeclared(key) => {
                    let came = map.next_value::<undeclared::Kind>()?.0;
                    keys.undeclared(T::NAME, key, came);
                }
            }
        }
        finish::<T>(slots, &keys).map_err(de::Error::custom)
    }
}

/// What the keys of one object said, beside the fields read: whether one was a field, the
/// variant's tag to skip, where this struct's notes of undeclared keys start, and the first few
/// of those keys (for the error of an object that shares none).
struct Keys {
    any_field: bool,
    tag: Option<String>,
    undeclared_from: Option<usize>,
    strangers: Vec<String>,
}

impl Keys {
    fn new() -> Keys {
        Keys {
            any_field: false,
            tag: super::context::take_variant_tag(),
            undeclared_from: None,
            strangers: Vec::new(),
        }
    }

    fn is_tag(&self, key: &str) -> bool {
        self.tag.as_deref() == Some(key)
    }

    fn undeclared(&mut self, owner: &'static str, key: Cow<'_, str>, came: &'static str) {
        let at = undeclared::key(owner, &key, came);
        self.undeclared_from = self.undeclared_from.or(at);
        if self.strangers.len() < undeclared::STRANGERS_NAMED {
            self.strangers.push(key.into_owned());
        }
    }
}

/// The struct from what was read, or the error's text: an object none of whose keys is a
/// field (strict), a required field that never came, a flattened union that does not read.
fn finish<'de, T: Record<'de>>(slots: T::Slots, keys: &Keys) -> Result<T, String> {
    if !keys.strangers.is_empty() && !keys.any_field && !T::FIELDS.is_empty() {
        // Strict is strict about shape: an object that has keys, none of them the struct's,
        // is not one of it (25 empty items from a list of another shape were no error).
        // Lax keeps what it can, and the drift says so.
        if !super::context::is_on(super::context::Switch::Lax) {
            return Err(undeclared::shares_no_key(
                T::NAME,
                T::FIELDS,
                &keys.strangers,
            ));
        }
        if let Some(from) = keys.undeclared_from {
            undeclared::stranger(T::NAME, T::FIELDS, from);
        }
    }
    T::finish(slots).map_err(|unfinished| match unfinished {
        Unfinished::Missing(missing) => {
            super::context::note_failed_field(T::NAME, missing);
            // serde's own words for it (`de::Error::missing_field`).
            format!("missing field `{missing}`")
        }
        Unfinished::Flattened(why) => format!("{}: {why}", T::NAME),
    })
}

/// A key: a field's position, another key the struct keeps, or one it does not declare
/// (borrowed from the input when it can be, so a skipped key costs no allocation).
enum Key<'de> {
    Field(usize),
    Other(String),
    Undeclared(Cow<'de, str>),
}

#[derive(Clone, Copy)]
struct KeySeed {
    fields: &'static [&'static str],
    keep_others: bool,
}

impl KeySeed {
    fn position(self, name: &str) -> Option<usize> {
        self.fields.iter().position(|field| *field == name)
    }

    fn key<'de>(self, name: Cow<'de, str>) -> Key<'de> {
        match self.position(&name) {
            Some(index) => Key::Field(index),
            None if self.keep_others => Key::Other(name.into_owned()),
            None => Key::Undeclared(name),
        }
    }
}

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key<'de>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a field name")
    }

    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Key<'de>, E> {
        Ok(self.key(Cow::Borrowed(name)))
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Key<'de>, E> {
        // Only a key that is not a field needs its own copy.
        Ok(match self.position(name) {
            Some(index) => Key::Field(index),
            None => self.key(Cow::Owned(name.to_owned())),
        })
    }

    fn visit_string<E: de::Error>(self, name: String) -> Result<Key<'de>, E> {
        Ok(self.key(Cow::Owned(name)))
    }

    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<Key<'de>, E> {
        Ok(self.key(String::from_utf8_lossy(name).into_owned().into()))
    }
}

#[cfg(test)]
mod tests;

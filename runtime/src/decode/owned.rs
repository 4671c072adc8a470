//! A JSON value read by moving its parts out, so that a union nested in it is handed its own
//! value rather than a copy.
//!
//! serde gives a type's `Deserialize` only a deserializer, never the value behind it, so a union
//! read from a `&Value` (to try its alternatives in turn) must copy the value to look at it, and
//! each union nested in it copies its part again: a chain of `depth` unions costs depth² copies.
//! Reading an alternative through [`Owned`] instead passes each part on by value, and a union
//! asks for its value under [`HANDOVER`]: `Owned` leaves the value in a slot of this thread and
//! the union takes it from there, without a copy. Any other deserializer ignores the name, and
//! the union reads its value as any type would, once, at the outermost union.

use super::context;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde_json::{Map, Value};

/// The newtype name under which a union asks for its value.
pub(crate) const HANDOVER: &str = "$remcall::union::value";

/// A JSON value as a deserializer that passes its parts on by value.
#[derive(Debug)]
pub struct Owned(pub(crate) Value);

/// The union's side of [`HANDOVER`]: its value, read once whatever the deserializer.
pub(crate) fn take_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    deserializer.deserialize_newtype_struct(HANDOVER, Handover)
}

struct Handover;

impl<'de> Visitor<'de> for Handover {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    /// [`Owned`] answers the handover with a unit and the value in the slot.
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(context::take_handed_over().unwrap_or(Value::Null))
    }

    /// Any other deserializer: read the value as it comes.
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Value, D::Error> {
        serde::Deserialize::deserialize(deserializer)
    }
}

impl<'de> Deserializer<'de> for Owned {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            // The number's own reader: a `Value`'s would bring its every branch (arrays,
            // objects) into each type's code, to read a number.
            Value::Number(number) => number.deserialize_any(visitor),
            Value::String(text) => visitor.visit_string(text),
            Value::Array(items) => {
                let count = items.len();
                let mut seq = Items(items.into_iter());
                let read = visitor.visit_seq(&mut seq)?;
                match seq.0.len() {
                    0 => Ok(read),
                    _ => Err(de::Error::invalid_length(count, &"fewer elements in array")),
                }
            }
            Value::Object(fields) => visitor.visit_map(Fields {
                fields: fields.into_iter(),
                value: None,
            }),
        }
    }

    /// A map's reader (every struct's) takes only an object: any other value is refused as its
    /// visitor's own methods refuse it, without a path per kind of value compiled for each.
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(fields) => visitor.visit_map(Fields {
                fields: fields.into_iter(),
                value: None,
            }),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if name == HANDOVER {
            context::hand_over(self.0);
            return visitor.visit_unit();
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // serde's externally tagged enums (a user's type): serde_json's own reading.
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct struct identifier
    }
}

/// What a visitor that takes none of `value`'s kind is told it got, as serde's default methods
/// say it.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(number) => match (number.as_u64(), number.as_i64(), number.as_f64()) {
            (Some(unsigned), _, _) => Unexpected::Unsigned(unsigned),
            (None, Some(signed), _) => Unexpected::Signed(signed),
            (None, None, float) => Unexpected::Float(float.unwrap_or_default()),
        },
        Value::String(text) => Unexpected::Str(text),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

struct Items(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Items {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        self.0
            .next()
            .map(|item| seed.deserialize(Owned(item)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Fields {
    fields: <Map<String, Value> as IntoIterator>::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Fields {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.fields.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(Key(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let value = self.value.take().unwrap_or(Value::Null);
        seed.deserialize(Owned(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}

/// An object's key: text, or a number or `true`/`false` when the map's key type asks for one
/// (`HashMap<i64, _>`), as serde_json reads keys.
struct Key(String);

macro_rules! parsed_key {
    ($($method:ident => $visit:ident: $ty:ty),* $(,)?) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            match self.0.parse::<$ty>() {
                Ok(parsed) => visitor.$visit(parsed),
                Err(_) => visitor.visit_string(self.0),
            }
        })*
    };
}

impl<'de> Deserializer<'de> for Key {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_string(self.0)
    }

    parsed_key! {
        deserialize_bool => visit_bool: bool,
        deserialize_i8 => visit_i64: i64,
        deserialize_i16 => visit_i64: i64,
        deserialize_i32 => visit_i64: i64,
        deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u64: u64,
        deserialize_u16 => visit_u64: u64,
        deserialize_u32 => visit_u64: u64,
        deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
        deserialize_f32 => visit_f64: f64,
        deserialize_f64 => visit_f64: f64,
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf option unit unit_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_map_refuses_what_is_no_object_in_serde_jsons_words() {
        for value in [
            json!(null),
            json!(true),
            json!(7),
            json!(-7),
            json!(1.5),
            json!("x"),
            json!([1]),
        ] {
            let ours = HashMap::<String, u32>::deserialize(Owned(value.clone())).unwrap_err();
            let theirs = serde_json::from_value::<HashMap<String, u32>>(value).unwrap_err();
            assert_eq!(ours.to_string(), theirs.to_string());
        }
        let read = HashMap::<String, u32>::deserialize(Owned(json!({"a": 1}))).unwrap();
        assert_eq!(read, HashMap::from([("a".to_owned(), 1)]));
    }

    #[test]
    fn a_number_reads_as_each_kind_of_number() {
        assert_eq!(u64::deserialize(Owned(json!(7))).unwrap(), 7);
        assert_eq!(i64::deserialize(Owned(json!(-7))).unwrap(), -7);
        assert_eq!(f64::deserialize(Owned(json!(1.5))).unwrap(), 1.5);
        assert!(u8::deserialize(Owned(json!(-1))).is_err());
    }
}

//! Writing a tagged union's alternative whose struct does not declare the tag: the union writes
//! the tag as the object's first key, then the struct's own fields, in one object. What serde's
//! internally tagged enums do, for the structs `serde_struct!` writes (a struct, or a map when it
//! keeps undeclared keys). And an adjacently tagged union's, the tag beside the alternative.

use serde::ser::{Error as _, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};

/// Writes `alternative` with `tag: value` first; an alternative that is not an object is an error
/// naming the union (the spec's check makes every such alternative a struct).
pub fn write_tagged<S: Serializer, T: Serialize + ?Sized>(
    serializer: S,
    union: &'static str,
    tag: &'static str,
    value: &'static str,
    alternative: &T,
) -> Result<S::Ok, S::Error> {
    alternative.serialize(TagFirst {
        inner: serializer,
        union,
        tag,
        value,
    })
}

/// Writes an adjacently tagged union's `alternative` as `{"<tag>": "<value>", "<content>": ..}`:
/// the alternative, whatever its kind, under a key of its own.
pub fn write_adjacent<S: Serializer, T: Serialize + ?Sized>(
    serializer: S,
    (tag, content): (&'static str, &'static str),
    value: &'static str,
    alternative: &T,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(2))?;
    map.serialize_entry(tag, value)?;
    map.serialize_entry(content, alternative)?;
    map.end()
}

/// A serializer that opens the object with the tag and hands the rest to `inner`.
struct TagFirst<S> {
    inner: S,
    union: &'static str,
    tag: &'static str,
    value: &'static str,
}

impl<S: Serializer> TagFirst<S> {
    fn not_an_object(&self, found: &str) -> S::Error {
        S::Error::custom(format_args!(
            "`{}`: the alternative tagged {:?} holds {found}, not an object, so the tag has no place",
            self.union, self.value
        ))
    }
}

/// The methods of a value that is not an object: each an error.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*) -> $ok:ty = $found:literal;)*) => {
        $(
            fn $method(self $(, _: $arg)*) -> Result<$ok, S::Error> {
                Err(self.not_an_object($found))
            }
        )*
    };
}

impl<S: Serializer> Serializer for TagFirst<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = S::SerializeMap;
    type SerializeStruct = S::SerializeStruct;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    refuse! {
        serialize_bool(bool) -> S::Ok = "a boolean";
        serialize_i8(i8) -> S::Ok = "a number";
        serialize_i16(i16) -> S::Ok = "a number";
        serialize_i32(i32) -> S::Ok = "a number";
        serialize_i64(i64) -> S::Ok = "a number";
        serialize_i128(i128) -> S::Ok = "a number";
        serialize_u8(u8) -> S::Ok = "a number";
        serialize_u16(u16) -> S::Ok = "a number";
        serialize_u32(u32) -> S::Ok = "a number";
        serialize_u64(u64) -> S::Ok = "a number";
        serialize_u128(u128) -> S::Ok = "a number";
        serialize_f32(f32) -> S::Ok = "a number";
        serialize_f64(f64) -> S::Ok = "a number";
        serialize_char(char) -> S::Ok = "a string";
        serialize_str(&str) -> S::Ok = "a string";
        serialize_bytes(&[u8]) -> S::Ok = "bytes";
        serialize_none() -> S::Ok = "null";
        serialize_unit() -> S::Ok = "null";
        serialize_unit_struct(&'static str) -> S::Ok = "null";
        serialize_unit_variant(&'static str, u32, &'static str) -> S::Ok = "a string";
        serialize_seq(Option<usize>) -> Self::SerializeSeq = "an array";
        serialize_tuple(usize) -> Self::SerializeTuple = "an array";
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct = "an array";
        serialize_tuple_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeTupleVariant = "an array";
        serialize_struct_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeStructVariant = "an enum";
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(self.not_an_object("an enum"))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<S::SerializeMap, S::Error> {
        let mut map = self.inner.serialize_map(len.map(|len| len + 1))?;
        map.serialize_entry(self.tag, self.value)?;
        Ok(map)
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<S::SerializeStruct, S::Error> {
        let mut object = self.inner.serialize_struct(name, len + 1)?;
        object.serialize_field(self.tag, self.value)?;
        Ok(object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    struct Creating {
        instance: &'static str,
    }

    impl Serialize for Creating {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut object = serializer.serialize_struct("Creating", 1)?;
            object.serialize_field("instance", self.instance)?;
            object.end()
        }
    }

    fn tagged<T: Serialize>(alternative: &T) -> Result<String, serde_json::Error> {
        let mut out = Vec::new();
        write_tagged(
            &mut serde_json::Serializer::new(&mut out),
            "DiskState",
            "state",
            "creating",
            alternative,
        )?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn the_tag_comes_first_then_the_fields() {
        assert_eq!(
            tagged(&Creating { instance: "i-1" }).unwrap(),
            r#"{"state":"creating","instance":"i-1"}"#
        );
        let map: BTreeMap<&str, u8> = [("size", 3)].into();
        assert_eq!(tagged(&map).unwrap(), r#"{"state":"creating","size":3}"#);
    }

    #[test]
    fn a_value_that_is_not_an_object_is_an_error_naming_the_union() {
        let error = tagged(&[1, 2]).unwrap_err().to_string();
        assert!(
            error.contains("`DiskState`") && error.contains("an array"),
            "{error}"
        );
        assert!(
            tagged(&"text")
                .unwrap_err()
                .to_string()
                .contains("a string")
        );
    }
}

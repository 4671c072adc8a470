//! The short forms a spec may write and how they are read: a bare type for a field, parameter,
//! body or result (`id: i64`); one name or a list; an enum value with or without its wire
//! form; a status key (`404`, `4xx`); a fallback or profile by name or inline. Each has its own
//! `Deserialize` and its JSON Schema.

use std::fmt;

use remcall_profile::Profile;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor, value::MapAccessDeserializer};

use super::{
    AlternativeDef, BodyDef, EnumValueDef, ErrorDef, ErrorEventsDef, FallbackDef, FieldDef,
    OneOrMany, ParamDef, ProfileRef, ReturnsDef, ReturnsEncoding, StatusKey, WireValue,
};

/// A value written either as a bare type expression (`id: i64`) or as a map with more detail
/// (`id: { type: i64, doc: .. }`); the map form is `T`'s own derived, strict form.
#[derive(Debug, Default, Clone)]
pub struct Shorthand<T>(pub T);

impl<T> std::ops::Deref for Shorthand<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Builds the detailed form from a bare type expression.
pub trait FromType {
    /// The value for `name: <ty>`.
    fn from_type(ty: String) -> Self;
}

impl FromType for FieldDef {
    fn from_type(ty: String) -> Self {
        FieldDef {
            ty,
            ..Default::default()
        }
    }
}

impl FromType for AlternativeDef {
    fn from_type(ty: String) -> Self {
        AlternativeDef {
            ty,
            ..Default::default()
        }
    }
}

impl FromType for ReturnsDef {
    fn from_type(ty: String) -> Self {
        ReturnsDef {
            ty,
            ..Default::default()
        }
    }
}

impl FromType for ErrorDef {
    fn from_type(ty: String) -> Self {
        ErrorDef {
            ty,
            encoding: ReturnsEncoding::Json,
        }
    }
}

impl FromType for ErrorEventsDef {
    fn from_type(ty: String) -> Self {
        ErrorEventsDef { ty, event: None }
    }
}

impl FromType for ParamDef {
    fn from_type(ty: String) -> Self {
        ParamDef {
            ty,
            ..Default::default()
        }
    }
}

impl FromType for BodyDef {
    fn from_type(ty: String) -> Self {
        BodyDef {
            ty,
            ..Default::default()
        }
    }
}

impl<'de, T: FromType + Deserialize<'de>> Deserialize<'de> for Shorthand<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: FromType + Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Shorthand<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a type such as `String`, or a map with `type:`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Shorthand<T>, E> {
                Ok(Shorthand(T::from_type(v.to_owned())))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Shorthand<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Shorthand)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a URL or a list of URLs")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OneOrMany, E> {
                Ok(OneOrMany(vec![v.to_owned()]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMany, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<String>()? {
                    items.push(item);
                }
                Ok(OneOrMany(items))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for EnumValueDef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Detailed {
            value: WireValue,
            name: Option<String>,
            doc: Option<String>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EnumValueDef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, an integer, or a map with `value:`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<EnumValueDef, E> {
                Ok(bare(WireValue::Str(v.to_owned())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<EnumValueDef, E> {
                Ok(bare(WireValue::Int(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<EnumValueDef, E> {
                i64::try_from(v)
                    .map(|v| bare(WireValue::Int(v)))
                    .map_err(|_| E::custom(format!("{v} is past the largest 64-bit integer")))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<EnumValueDef, A::Error> {
                let d = Detailed::deserialize(MapAccessDeserializer::new(map))?;
                Ok(EnumValueDef {
                    value: d.value,
                    name: d.name,
                    doc: d.doc,
                })
            }
        }
        fn bare(value: WireValue) -> EnumValueDef {
            EnumValueDef {
                value,
                name: None,
                doc: None,
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for WireValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = WireValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<WireValue, E> {
                Ok(WireValue::Str(v.to_owned()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<WireValue, E> {
                Ok(WireValue::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<WireValue, E> {
                i64::try_from(v)
                    .map(WireValue::Int)
                    .map_err(|_| E::custom(format!("{v} is past the largest 64-bit integer")))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for StatusKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = StatusKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a status (404), a class (4XX) or `default`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StatusKey, E> {
                Ok(StatusKey(v.to_owned()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<StatusKey, E> {
                Ok(StatusKey(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<StatusKey, E> {
                Ok(StatusKey(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for FallbackDef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = FallbackDef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true, false or the Rust path of a fallback type")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<FallbackDef, E> {
                Ok(FallbackDef::Enabled(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FallbackDef, E> {
                Ok(FallbackDef::Path(v.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for ProfileRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ProfileRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a profile name from `configs:`, or an inline profile")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ProfileRef, E> {
                Ok(ProfileRef::Named(v.to_owned()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ProfileRef, A::Error> {
                Profile::deserialize(MapAccessDeserializer::new(map))
                    .map(|p| ProfileRef::Inline(Box::new(p)))
            }
        }
        d.deserialize_any(V)
    }
}

// JSON Schema of the forms the hand-written deserializers above accept.

impl<T: JsonSchema> JsonSchema for Shorthand<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("{}OrType", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let detailed = generator.subschema_for::<T>();
        json_schema!({ "anyOf": [{ "type": "string", "description": "A Rust type expression." }, detailed] })
    }
}

impl JsonSchema for EnumValueDef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EnumValue".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "An enum value as on the wire, or `{ value, name, doc }`.",
            "anyOf": [
                { "type": "string" },
                { "type": "integer" },
                {
                    "type": "object",
                    "properties": {
                        "value": { "description": "The value on the wire.", "type": ["string", "integer"] },
                        "name": { "description": "The Rust variant name.", "type": "string" },
                        "doc": { "description": "Rustdoc.", "type": "string" }
                    },
                    "required": ["value"],
                    "additionalProperties": false
                }
            ]
        })
    }
}

impl JsonSchema for StatusKey {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StatusKey".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A status (404), a class (4XX) or `default`.",
            "type": "string"
        })
    }
}

impl JsonSchema for OneOrMany {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BaseUrls".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [{ "type": "string" }, { "type": "array", "items": { "type": "string" } }] })
    }
}

impl JsonSchema for FallbackDef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Fallback".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "true, false, or the Rust path of a default fallback type.",
            "anyOf": [{ "type": "boolean" }, { "type": "string" }]
        })
    }
}

impl JsonSchema for ProfileRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MethodConfig".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let inline = generator.subschema_for::<Profile>();
        json_schema!({
            "description": "A profile name from `configs:`, or an inline override of the client's profile.",
            "anyOf": [{ "type": "string" }, inline]
        })
    }
}

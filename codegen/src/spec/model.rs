//! The YAML model of a spec file: what `serde` reads, unknown keys refused.

use std::fmt;

use indexmap::IndexMap;
use remcall_profile::Profile;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor, value::MapAccessDeserializer};

/// One spec file: a client, or an include file holding only `configs:`, `types:` and `include:`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// PascalCase name of the generated client type.
    pub client: Option<String>,
    /// Rustdoc of the client.
    pub doc: Option<String>,
    /// Default endpoint(s).
    pub base_url: Option<OneOrMany>,
    /// Prefix of every method path.
    pub base_path: Option<String>,
    /// The client's profile name (`config:`).
    #[serde(rename = "config")]
    pub profile: Option<String>,
    /// `true`, `false` or the Rust path of a default fallback type.
    pub fallback: Option<FallbackDef>,
    /// Files whose `configs:` and `types:` are merged, relative to this file.
    #[serde(default)]
    pub include: Vec<String>,
    /// Wire naming of generated types.
    pub serde: Option<SerdeOptions>,
    /// Named profiles (`configs:`).
    #[serde(default, rename = "configs")]
    pub profiles: IndexMap<String, Profile>,
    /// Generated types.
    #[serde(default)]
    pub types: IndexMap<String, TypeDef>,
    /// Client methods.
    #[serde(default)]
    pub methods: IndexMap<String, MethodDef>,
}

/// `serde:` options.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SerdeOptions {
    /// A serde `rename_all` rule applied to every struct's fields.
    pub rename_all: Option<String>,
}

/// A string or a list of strings.
#[derive(Debug, Clone)]
pub struct OneOrMany(pub Vec<String>);

/// The `fallback:` setting.
#[derive(Debug, Clone, PartialEq)]
pub enum FallbackDef {
    /// `true`: generate the trait; `false`: none.
    Enabled(bool),
    /// The Rust path of a type implementing the trait and `Default`, used by default.
    Path(String),
}

/// A `types:` entry: a struct (`fields:`) or an enum (`enum:`).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeDef {
    /// Rustdoc.
    pub doc: Option<String>,
    /// Generic parameters, e.g. `[T]`.
    #[serde(default)]
    pub generics: Vec<String>,
    /// Struct fields.
    pub fields: Option<IndexMap<String, Shorthand<FieldDef>>>,
    /// Enum variants, as on the wire.
    #[serde(rename = "enum")]
    pub variants: Option<Vec<String>>,
}

/// A struct field: `name: Type` or `name: { type: Type, doc: .., rename: .. }`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldDef {
    /// The Rust type expression.
    #[serde(rename = "type")]
    pub ty: String,
    /// Rustdoc.
    pub doc: Option<String>,
    /// The name on the wire.
    pub rename: Option<String>,
}

/// A parameter: `name: Type` or `name: { type: Type, doc: .., name: WireName }`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParamDef {
    /// The Rust type expression.
    #[serde(rename = "type")]
    pub ty: String,
    /// Rustdoc.
    pub doc: Option<String>,
    /// The name on the wire (query key or header name).
    pub name: Option<String>,
}

/// A request body: `Type` or `{ type: Type, as: json | form | bytes }`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodyDef {
    /// The Rust type expression.
    #[serde(rename = "type")]
    pub ty: String,
    /// The encoding.
    #[serde(rename = "as", default)]
    pub encoding: BodyEncoding,
    /// Rustdoc of the argument.
    pub doc: Option<String>,
}

/// How a body is encoded.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BodyEncoding {
    /// `application/json`.
    #[default]
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
}

/// What a 404 means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotFound {
    /// `Ok(None)`.
    None,
    /// An error, as any other status.
    Error,
}

/// A `methods:` entry.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MethodDef {
    /// Rustdoc.
    pub doc: Option<String>,
    /// `VERB /path/{param}`.
    pub request: String,
    /// Path parameters.
    #[serde(default)]
    pub path: IndexMap<String, Shorthand<ParamDef>>,
    /// Query parameters.
    #[serde(default)]
    pub query: IndexMap<String, Shorthand<ParamDef>>,
    /// Header parameters.
    #[serde(default)]
    pub headers: IndexMap<String, Shorthand<ParamDef>>,
    /// The request body.
    pub body: Option<Shorthand<BodyDef>>,
    /// The return type (none: `()`).
    pub returns: Option<String>,
    /// Retries are safe even for POST/PATCH.
    pub idempotent: Option<bool>,
    /// What a 404 means.
    pub not_found: Option<NotFound>,
    /// A profile name, or an inline override of the client's profile (`config:`).
    #[serde(rename = "config")]
    pub profile: Option<ProfileRef>,
    /// `false`: no fallback for this method.
    pub fallback: Option<bool>,
}

/// A method's `config:`.
#[derive(Debug)]
pub enum ProfileRef {
    /// A profile from `configs:`.
    Named(String),
    /// An inline override of the client's profile.
    Inline(Box<Profile>),
}

/// A value written either as a bare type expression (`id: i64`) or as a map with more detail
/// (`id: { type: i64, doc: .. }`); the map form is `T`'s own derived, strict form.
#[derive(Debug, Default)]
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

/// The JSON Schema (draft 2020-12) of a spec file, derived from this model.
pub fn schema() -> Schema {
    schemars::schema_for!(SpecFile)
}

//! The YAML model of a spec file: what `serde` reads, unknown keys refused.

use indexmap::IndexMap;
use remcall_profile::Profile;
use schemars::{JsonSchema, Schema};
use serde::Deserialize;

mod forms;
mod paging;
mod webhooks;

pub use forms::Shorthand;
pub use paging::{CursorDef, PaginateDef};
pub use webhooks::{DigestEncoding, EventDef, SchemeName, SignatureDef, WebhooksDef};

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
    /// Client methods; with `openapi:`, entries without `request:` overlay imported methods.
    #[serde(default)]
    pub methods: IndexMap<String, MethodDef>,
    /// Methods and types from an OpenAPI description.
    pub openapi: Option<OpenApiDef>,
    /// Also generate `<Client>Stub`, a stub server of this API for tests (the runtime's `stub`
    /// feature; see docs/testing.md).
    pub stubs: Option<bool>,
    /// How methods take their optional parameters (a method's own `call:` wins); by default,
    /// `named` for a method with more than two.
    pub call: Option<CallStyle>,
    /// The deliveries the API sends back (webhooks, callbacks): a typed receiver, `webhooks::`
    /// (the runtime's `webhooks` feature; see docs/webhooks.md).
    pub webhooks: Option<WebhooksDef>,
}

/// How a method takes its optional parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CallStyle {
    /// Every parameter is an argument, an optional one an `Option` (`None` leaves it out).
    Positional,
    /// Required parameters are arguments; optional ones are set by name on the call it returns
    /// (`.state(Open).per_page(50)`), which is awaited.
    Named,
}

/// `openapi:`: a description whose operations become the client's methods.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenApiDef {
    /// The description (Swagger 2.0, OpenAPI 3.0, 3.1 or 3.2; JSON or YAML), relative to this spec.
    pub file: String,
    /// Only operations with one of these tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Only these operations (operationId or method name).
    #[serde(default)]
    pub operations: Vec<String>,
    /// What `format: date-time` and `format: date` strings become: `text` (`String`, the
    /// default) or `chrono` (`chrono::DateTime<chrono::Utc>`, `chrono::NaiveDate`; the crate
    /// needs `chrono` with its `serde` feature).
    #[serde(default)]
    pub dates: DatesDef,
    /// OpenAPI Overlay 1.0 documents applied to the description, in order, before it is read
    /// (fixes to a description you do not own), relative to this spec.
    #[serde(default)]
    pub overlays: Vec<String>,
}

/// `openapi: { dates: .. }`.
#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DatesDef {
    /// `String`, as the server sent it.
    #[default]
    Text,
    /// `chrono::DateTime<chrono::Utc>` and `chrono::NaiveDate`.
    Chrono,
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

/// A `types:` entry: a struct (`fields:` and/or `all_of:`), an enum (`enum:`) or a union
/// (`one_of:`).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeDef {
    /// Rustdoc.
    pub doc: Option<String>,
    /// Generic parameters of a struct, e.g. `[T]`.
    #[serde(default)]
    pub generics: Vec<String>,
    /// Struct fields.
    pub fields: Option<IndexMap<String, Shorthand<FieldDef>>>,
    /// Struct types whose fields this struct holds too, before its own (OpenAPI's `allOf`).
    pub all_of: Option<Vec<String>>,
    /// The type of the values of keys a struct does not declare, kept in a map field
    /// `additional_properties` (OpenAPI's `additionalProperties`).
    pub additional_properties: Option<String>,
    /// Enum values as on the wire: strings, or integers, each optionally `{ value, name, doc }`.
    #[serde(rename = "enum")]
    pub variants: Option<Vec<EnumValueDef>>,
    /// The alternatives of a union (OpenAPI's `oneOf`/`anyOf`): types, each optionally
    /// `{ type, name, doc }`.
    pub one_of: Option<Vec<Shorthand<AlternativeDef>>>,
    /// A union's discriminator: the wire name of the field whose value says which alternative a
    /// value is (each alternative must be a struct declaring it). Without it, the first
    /// alternative that reads the value is taken.
    pub tag: Option<String>,
    /// A tagged union's tag values, each naming its alternative's type (adjacently tagged: or
    /// its variant's name); an alternative not listed is tagged with its type's name.
    pub mapping: Option<IndexMap<String, String>>,
    /// An adjacently tagged union's content field: a value is `{<tag>: "card", <content>: ..}`,
    /// the alternative (any type, not only a struct) under this key beside the tag.
    pub content: Option<String>,
    /// An enum or union that keeps a value it does not know (`Other(..)`) instead of failing, so
    /// a server that adds one does not break this client.
    pub open: Option<bool>,
}

/// An enum value: `active`, `2`, or `{ value: "+1", name: PlusOne, doc: .. }`.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumValueDef {
    /// The value on the wire.
    pub value: WireValue,
    /// The Rust variant name (default: from the value).
    pub name: Option<String>,
    /// Rustdoc.
    pub doc: Option<String>,
}

/// A value on the wire: a string or an integer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireValue {
    /// A string.
    Str(String),
    /// An integer.
    Int(i64),
}

/// A union alternative: `Card` or `{ type: Card, name: CardSource, doc: .. }`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AlternativeDef {
    /// The Rust type expression.
    #[serde(rename = "type")]
    pub ty: String,
    /// The Rust variant name (default: from the type).
    pub name: Option<String>,
    /// Rustdoc.
    pub doc: Option<String>,
}

/// A struct field: `name: Type` or `name: { type: Type, doc: .., rename: .., required: .. }`.
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
    /// An `Option` field that is always sent, `null` when `None` (required and nullable).
    pub required: Option<bool>,
    /// The field's one value (OpenAPI's `const`): always written, and read only when the wire
    /// holds it. A string for a `String`, an integer for an integer type, or a boolean.
    #[serde(rename = "const")]
    pub constant: Option<ConstValue>,
}

/// A constant: a string, an integer or a boolean.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ConstValue {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
}

/// A parameter: `name: Type` or `name: { type: Type, doc: .., name: WireName, style: .. }`.
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
    /// How a query object is written: `form` (the default) or `deep_object` (`name[field]=v`).
    pub style: Option<QueryStyle>,
    /// `false`: a query list (or object) is one comma-separated value, `name=a,b`; `true` (the
    /// default): one pair per value, and an object's fields as parameters of their own.
    pub explode: Option<bool>,
}

/// OpenAPI's query `style`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueryStyle {
    /// `name=v` pairs.
    Form,
    /// `name[field]=v` pairs, nested likewise.
    DeepObject,
}

/// A request body: `Type` or `{ type: Type, as: json | form | multipart | text | bytes }`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodyDef {
    /// The Rust type expression.
    #[serde(rename = "type")]
    pub ty: String,
    /// The encoding.
    #[serde(rename = "as", default)]
    pub encoding: BodyEncoding,
    /// The `Content-Type` sent instead of the encoding's (`application/merge-patch+json`).
    pub content_type: Option<String>,
    /// Rustdoc of the argument.
    pub doc: Option<String>,
    /// Send it with a GET or HEAD too, as some APIs want (a search with its query in the body).
    /// HTTP gives such a body no meaning and some proxies drop it, so it is refused unless this
    /// says so; an imported description that declares one sets it.
    #[serde(default)]
    pub allow_on_get: bool,
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
    /// `multipart/form-data`: a struct of the spec, each field a part (`File` fields are files).
    Multipart,
    /// `text/plain; charset=utf-8`: a `String`.
    Text,
    /// `application/octet-stream`: a `bytes::Bytes`.
    Bytes,
}

/// A method's return: `Type` or `{ type: Type, as: json | text | bytes | stream | events |
/// lines }`.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReturnsDef {
    /// The Rust type expression; with `events:`, the name of the enum generated for them.
    /// Left out only in a `methods:` entry that changes an imported method (`returns: { end:
    /// "[DONE]" }`): the imported type is kept.
    #[serde(rename = "type", default)]
    pub ty: String,
    /// How the body is read.
    #[serde(rename = "as", default)]
    pub encoding: ReturnsEncoding,
    /// `as: events`: the data that ends the stream (`[DONE]`).
    pub end: Option<String>,
    /// `as: events`: each SSE `event:` name's data type (`message` is an event without a
    /// name); `type` names the enum generated for them, which keeps other events as they came.
    pub events: Option<IndexMap<String, String>>,
    /// `as: events | lines`: how the server reports a failure inside the stream. A type: an
    /// item that does not read as `type` but reads as this one (an object with a key it
    /// declares) is the server's error; `{ type, event: error }`: every event of that `event:`
    /// name is too. One ends the stream with an `ErrorKind::ErrorEvent` error whose `detail`
    /// is the decoded error.
    pub error: Option<Shorthand<ErrorEventsDef>>,
}

/// A declared error body: `ApiError`, or `{ type: String, as: text }`.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorDef {
    /// The body's type.
    #[serde(rename = "type")]
    pub ty: String,
    /// How the body is read: `json` (the default; a `bytes::Bytes` body is the raw bytes),
    /// `text` or `bytes`.
    #[serde(rename = "as", default)]
    pub encoding: ReturnsEncoding,
}

/// A stream's error events: `StreamError`, or `{ type: StreamError, event: error }`.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorEventsDef {
    /// The error's type.
    #[serde(rename = "type")]
    pub ty: String,
    /// The `event:` name of an error event (events only).
    pub event: Option<String>,
}

/// How a response body is read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReturnsEncoding {
    /// JSON (a `bytes::Bytes` return is the raw body).
    #[default]
    Json,
    /// UTF-8 text: a `String`.
    Text,
    /// The raw body: a `bytes::Bytes`.
    Bytes,
    /// The body as a stream of chunks (`remcall::ByteStream`), for downloads larger than
    /// `max_response_bytes`: a `bytes::Bytes`.
    Stream,
    /// Server-Sent Events (`text/event-stream`) whose data is the type: `remcall::Events<T>`.
    Events,
    /// JSON Lines (NDJSON), one value of the type a line: `remcall::Lines<T>`.
    Lines,
}

/// A status key of `responses:` or `errors:`: `200`, `4XX`, `default`, as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StatusKey(pub String);

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
    /// `VERB /path/{param}` (none: an overlay of a method imported with `openapi:`).
    pub request: Option<String>,
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
    /// The return type (none: `()`), or `{ type, as: json | text | bytes | stream }`.
    pub returns: Option<Shorthand<ReturnsDef>>,
    /// Several success shapes by status (`200: Customer`, `202: Job`, `204: ()`), read into a
    /// generated enum; instead of `returns:`.
    pub responses: Option<IndexMap<StatusKey, String>>,
    /// Error bodies by status (`404`), class (`4XX`) or `default`, read into a generated enum
    /// that the caller and the fallback find in `Error::detail`: a type (JSON; `bytes::Bytes`
    /// is the raw body), or `{ type: String, as: text }`.
    pub errors: Option<IndexMap<StatusKey, Shorthand<ErrorDef>>>,
    /// Response headers returned next to the body, typed: `etag: { type: Option<String>, name:
    /// ETag }`.
    #[serde(default)]
    pub response_headers: IndexMap<String, Shorthand<ParamDef>>,
    /// The method's pages as a stream of items: a `<method>_stream` method.
    pub paginate: Option<PaginateDef>,
    /// Retries are safe even for POST/PATCH.
    pub idempotent: Option<bool>,
    /// A POST that only reads (a search sent with a body): retried as an idempotent method,
    /// and its answers may be kept (`cache:`) as a GET's are, for failures. `idempotent: true`
    /// alone allows retries, never a kept answer.
    pub safe: Option<bool>,
    /// A header (`Idempotency-Key`) given a new UUID per call, the same on every attempt: the
    /// server applies a retried call once, so the method is retried as an idempotent one.
    pub idempotency_key: Option<String>,
    /// What a 404 means.
    pub not_found: Option<NotFound>,
    /// A profile name, or an inline override of the client's profile (`config:`).
    #[serde(rename = "config")]
    pub profile: Option<ProfileRef>,
    /// `false`: no fallback for this method.
    pub fallback: Option<bool>,
    /// Keys of the JSON body the method sets itself, whatever the caller's body holds (`{
    /// stream: true }`): how the two methods of an operation that answers JSON or a stream
    /// each set its stream flag.
    pub body_sets: Option<IndexMap<String, serde_json::Value>>,
    /// With `openapi:`, in an entry without `request:`: the imported method's name in the client.
    pub rename: Option<String>,
    /// How it takes its optional parameters: `positional` or `named` (default: the client's
    /// `call:`, else `named` when it has more than two).
    pub call: Option<CallStyle>,
}

/// A method's `config:`.
#[derive(Debug, Clone)]
pub enum ProfileRef {
    /// A profile from `configs:`.
    Named(String),
    /// An inline override of the client's profile.
    Inline(Box<Profile>),
}

/// The JSON Schema (draft 2020-12) of a spec file, derived from this model.
pub fn schema() -> Schema {
    schemars::schema_for!(SpecFile)
}

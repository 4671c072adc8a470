//! The checked model: what validation leaves once a spec has no problem. Types are parsed,
//! verbs are an enum, profiles are resolved (includes and `extends` applied), path placeholders
//! are in template order. Lowering it into the render-ready form cannot fail.

use remcall_profile::Profile;

pub use crate::spec::model::{BodyEncoding, ConstValue, ReturnsEncoding};
use crate::types::Ty;

mod webhooks;
pub use webhooks::{Event, Signature, Webhooks};

/// One client.
#[derive(Debug)]
pub struct Client {
    /// The client's type name, PascalCase.
    pub name: String,
    /// Its rustdoc.
    pub doc: Option<String>,
    /// Default endpoints (`${VAR}` kept for run time).
    pub base_urls: Vec<String>,
    /// Prefix of every method path (empty or starting with `/`).
    pub base_path: String,
    /// The client's profile, resolved.
    pub profile: Profile,
    /// Rust paths of the spec's interceptors, in order.
    pub interceptors: Vec<String>,
    /// Whether a fallback trait is generated, and the default fallback type.
    pub fallback: Fallback,
    /// A serde `rename_all` rule for every struct's fields.
    pub rename_all: Option<String>,
    /// Types, in spec order (includes' after the spec's own).
    pub types: Vec<TypeDecl>,
    /// Methods, in spec order.
    pub methods: Vec<Method>,
    /// What builds but is likely not what the author means.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
    /// Generate the stub of the API too.
    pub stubs: bool,
    /// The deliveries the API sends back.
    pub webhooks: Option<Webhooks>,
}

/// The spec's `fallback:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fallback {
    /// No fallback trait.
    None,
    /// A fallback trait; `remcall::NoFallback` by default.
    Trait,
    /// A fallback trait, with this type (a plain Rust path) as the default.
    Default(String),
}

/// A declared type.
#[derive(Debug)]
pub struct TypeDecl {
    /// The name as in the spec (a PascalCase identifier).
    pub name: String,
    /// Its rustdoc.
    pub doc: Option<String>,
    /// Generic parameters.
    pub generics: Vec<String>,
    /// A struct or an enum.
    pub shape: Shape,
}

/// What a declared type is.
#[derive(Debug)]
pub enum Shape {
    /// A struct.
    Struct(Struct),
    /// An enum of wire values.
    Enum(Enum),
    /// A union of types.
    Union(Union),
}

/// A struct: its `all_of:` parts' fields first, then its own, each once.
#[derive(Debug)]
pub struct Struct {
    /// The fields.
    pub fields: Vec<Field>,
    /// The type of the values of undeclared keys, kept in a map.
    pub additional: Option<Ty>,
    /// A union `all_of:` part, read from the keys the fields leave.
    pub flatten: Option<Flattened>,
}

/// A union flattened into a struct: its field's Rust name and its type.
#[derive(Debug, Clone)]
pub struct Flattened {
    /// The field's Rust name (the union's, snake_case, unique among the fields).
    pub rust: String,
    /// The union.
    pub ty: Ty,
}

/// A struct field.
#[derive(Debug, Clone)]
pub struct Field {
    /// The key as in the spec.
    pub key: String,
    /// The Rust name (unique in its struct: a name two keys case to gets a suffix).
    pub rust: String,
    /// Its type.
    pub ty: Ty,
    /// Its rustdoc.
    pub doc: Option<String>,
    /// An explicit wire name.
    pub rename: Option<String>,
    /// An `Option` always sent (`null` when `None`).
    pub required: bool,
    /// A constant field: the marker type holding its value, and the value.
    pub constant: Option<(String, ConstValue)>,
}

impl Field {
    /// Its wire name: the explicit `rename`, else the spec's `rename_all` rule applied here
    /// (serde's own rule panics on some non-ASCII names, and a visible name reads better), else
    /// the key as written.
    pub fn wire_name(&self, rename_all: Option<&str>) -> String {
        match (&self.rename, rename_all) {
            (Some(wire), _) => wire.clone(),
            (None, Some(rule)) => crate::names::apply_rename_rule(rule, &self.key),
            (None, None) => self.key.clone(),
        }
    }
}

/// An enum: its values all strings or all integers.
#[derive(Debug)]
pub struct Enum {
    /// The values, in spec order.
    pub values: Vec<EnumValue>,
    /// The values are integers.
    pub integer: bool,
    /// An unknown value is kept (`Other(..)`) rather than refused.
    pub open: bool,
}

/// An enum value.
#[derive(Debug, Clone)]
pub struct EnumValue {
    /// The Rust variant name (unique in its enum).
    pub variant: String,
    /// The value on the wire, as text (an integer's digits).
    pub wire: String,
    /// Its rustdoc.
    pub doc: Option<String>,
}

/// A union.
#[derive(Debug)]
pub struct Union {
    /// The alternatives, in spec order.
    pub alternatives: Vec<Alternative>,
    /// The wire name of the tag field, for a tagged union.
    pub tag: Option<String>,
    /// The wire name of the content field, for an adjacently tagged union (`tag` beside it).
    pub content: Option<String>,
    /// A value no alternative reads is kept (`Other(serde_json::Value)`) rather than refused.
    pub open: bool,
}

/// A union alternative.
#[derive(Debug, Clone)]
pub struct Alternative {
    /// The Rust variant name (unique in its union).
    pub variant: String,
    /// Its type.
    pub ty: Ty,
    /// Its tag values (tagged unions; several when `mapping:` gives it more than one).
    pub tags: Vec<String>,
    /// A tagged union's alternative that does not declare the tag field: the union writes its
    /// one tag value beside the alternative's fields.
    pub writes_tag: bool,
    /// Its rustdoc.
    pub doc: Option<String>,
}

/// An HTTP verb a method may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// `GET`.
    Get,
    /// `HEAD`.
    Head,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `PATCH`.
    Patch,
    /// `DELETE`.
    Delete,
    /// `OPTIONS`.
    Options,
    /// `QUERY` (OpenAPI 3.2; an HTTP draft): a safe, idempotent request with a body, a search
    /// too large or too structured for a URL.
    Query,
}

impl Verb {
    /// Every verb, in the order the help text lists them.
    pub const ALL: [Verb; 8] = [
        Verb::Get,
        Verb::Head,
        Verb::Post,
        Verb::Put,
        Verb::Patch,
        Verb::Delete,
        Verb::Options,
        Verb::Query,
    ];

    /// The verb as written on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "GET",
            Verb::Head => "HEAD",
            Verb::Post => "POST",
            Verb::Put => "PUT",
            Verb::Patch => "PATCH",
            Verb::Delete => "DELETE",
            Verb::Options => "OPTIONS",
            Verb::Query => "QUERY",
        }
    }

    /// The verb written `text`, exactly.
    pub fn parse(text: &str) -> Option<Verb> {
        Verb::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// True for the verbs HTTP defines as idempotent, which are retried without being told.
    pub fn is_idempotent(self) -> bool {
        matches!(
            self,
            Verb::Get | Verb::Head | Verb::Options | Verb::Put | Verb::Delete | Verb::Query
        )
    }

    /// True for the verbs HTTP defines as safe (RFC 9110 §9.2.1): they only read.
    pub fn is_safe(self) -> bool {
        matches!(self, Verb::Get | Verb::Head | Verb::Options | Verb::Query)
    }

    /// True for the verbs whose requests carry no body here (a DELETE may: Kubernetes'
    /// `DeleteOptions`).
    pub fn has_no_body(self) -> bool {
        matches!(self, Verb::Get | Verb::Head)
    }
}

/// A client method.
#[derive(Debug)]
pub struct Method {
    /// The name as in the spec.
    pub name: String,
    /// Its rustdoc.
    pub doc: Option<String>,
    /// The verb.
    pub verb: Verb,
    /// The path template below the base path.
    pub path: String,
    /// Path parameters, in template order.
    pub path_params: Vec<Param>,
    /// Query parameters, in spec order.
    pub query: Vec<Param>,
    /// Header parameters, in spec order.
    pub headers: Vec<Param>,
    /// The body.
    pub body: Option<Body>,
    /// The return type (`()` when none).
    pub returns: Ty,
    /// How the response body is read.
    pub returns_as: ReturnsEncoding,
    /// Server-Sent Events or JSON Lines: how the stream's items read (`returns` is the item).
    pub streamed: Option<Streamed>,
    /// Several success shapes by status, in spec order (empty: `returns`).
    pub responses: Vec<(u16, Ty)>,
    /// Declared error bodies, in spec order.
    pub errors: Vec<ErrorBody>,
    /// Declared response headers.
    pub response_headers: Vec<Param>,
    /// How its pages are read, when it is paginated.
    pub paginate: Option<Pagination>,
    /// A 404 is `Ok(None)`.
    pub not_found_none: bool,
    /// Retries are safe.
    pub idempotent: bool,
    /// It only reads (GET, HEAD, OPTIONS, QUERY, or a POST marked `safe: true`): its answers
    /// may be kept (`cache:`).
    pub reads: bool,
    /// The header carrying a per-call idempotency key.
    pub idempotency_key: Option<String>,
    /// The method's own profile, layered over the client's (empty when none).
    pub profile: Profile,
    /// Failures this method's fallback may answer go to it.
    pub fallback: bool,
    /// Its optional query and header parameters are set by name on the call it returns.
    pub named: bool,
}

/// A streamed result: JSON Lines, or Server-Sent Events with their declared end and, when the
/// spec maps event names to types, one case per name.
#[derive(Debug, Clone)]
pub struct Streamed {
    /// JSON Lines, not events.
    pub lines: bool,
    /// The data that ends the stream.
    pub end: Option<String>,
    /// The events by name, in spec order; empty: every event's data is `returns`.
    pub events: Vec<EventCase>,
    /// How the server reports a failure inside the stream.
    pub error: Option<ErrorEvents>,
}

/// A stream's declared error events (`returns: { error: .. }`).
#[derive(Debug, Clone)]
pub struct ErrorEvents {
    /// The error's type.
    pub ty: Ty,
    /// The `event:` name of an error event.
    pub event: Option<String>,
}

/// An event name of `returns: { events: .. }`, its variant and its data's type.
#[derive(Debug, Clone)]
pub struct EventCase {
    /// The SSE `event:` name.
    pub name: String,
    /// Its variant in the generated enum.
    pub variant: String,
    /// Its data's type.
    pub ty: Ty,
}

/// A paginated method's pages: the item type, where the items are and where the next page is,
/// every path in wire names.
#[derive(Debug, Clone)]
pub struct Pagination {
    /// The type of one item.
    pub item: Ty,
    /// The path of the list in a page (empty: the page is the list).
    pub items: Vec<String>,
    /// Where the next page is.
    pub next: NextPage,
    /// The page parameters are fields of the JSON body (a `POST …/filter {limit, offset}`).
    pub in_body: bool,
}

/// Where a paginated method's next page is.
#[derive(Debug, Clone)]
pub enum NextPage {
    /// The last item's `field` as query parameter `param`, while `has_more`.
    ItemCursor {
        /// The query parameter's wire name.
        param: String,
        /// The cursor's path in an item.
        field: Vec<String>,
        /// The path of the page's "more" flag.
        has_more: Option<Vec<String>>,
    },
    /// The page's `field` as query parameter `param`.
    BodyCursor {
        /// The query parameter's wire name.
        param: String,
        /// The cursor's path in the page.
        field: Vec<String>,
    },
    /// The URL in the page's `field`.
    BodyUrl {
        /// Its path in the page.
        field: Vec<String>,
    },
    /// The `Link` header entry of this `rel`.
    LinkHeader {
        /// The relation.
        rel: String,
    },
    /// The URL in the response header `header`.
    HeaderUrl {
        /// The header's name.
        header: String,
    },
    /// An offset in query parameter `param`, moved on by each page's items.
    Offset {
        /// The query parameter's wire name.
        param: String,
        /// The page size's query parameter, wire name.
        limit: Option<String>,
        /// The total's path in the page.
        total: Option<Vec<String>>,
    },
    /// A page number in query parameter `param`.
    PageNumber {
        /// The query parameter's wire name.
        param: String,
        /// The first page's number.
        first: u64,
        /// The page size's query parameter, wire name.
        limit: Option<String>,
        /// The page count's path in the page.
        total_pages: Option<Vec<String>>,
        /// The item count's path in the page.
        total: Option<Vec<String>>,
        /// The page's own number's path in the page.
        current: Option<Vec<String>>,
    },
}

/// A declared error body: the statuses it covers, its type, how it is read.
#[derive(Debug, Clone)]
pub struct ErrorBody {
    /// The statuses.
    pub matched: StatusMatch,
    /// The body's type.
    pub ty: Ty,
    /// `Json`, `Text` (a `String`) or `Bytes` (a `bytes::Bytes`, the body as it came).
    pub read: ReturnsEncoding,
}

/// The statuses an `errors:` entry covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusMatch {
    /// One status.
    Exact(u16),
    /// A class: 4 for `4XX`, 5 for `5XX`.
    Class(u16),
    /// Every other error status.
    Default,
}

/// A path, query or header parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// The key as in the spec.
    pub key: String,
    /// The name on the wire (the placeholder, query key or header name).
    pub wire: String,
    /// Its type.
    pub ty: Ty,
    /// What it is, for the method's rustdoc.
    pub doc: Option<String>,
    /// How a query parameter is written.
    pub style: QueryWriting,
}

/// How a query parameter is written on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryWriting {
    /// One pair per value (a list repeats its key).
    Pairs,
    /// An object's fields as parameters of their own.
    Object,
    /// `name[field]=v`.
    Deep,
    /// `name=a,b,c`.
    Comma,
}

/// A request body.
#[derive(Debug)]
pub struct Body {
    /// Its type.
    pub ty: Ty,
    /// How it is encoded.
    pub encoding: BodyEncoding,
    /// A content type sent instead of the encoding's.
    pub content_type: Option<String>,
    /// What it is, for the method's rustdoc.
    pub doc: Option<String>,
    /// Keys the method sets in it (`body_sets:`), each with its value as JSON text.
    pub sets: Vec<(String, String)>,
}

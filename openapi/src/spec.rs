//! The spec an import writes, as plain data: its types, methods, profile and summary, which
//! `emit/` writes as YAML. The walk that fills it is `walk.rs`.

use indexmap::IndexMap;
use serde_json::Value;

use crate::Summary;
use crate::document::Place;
use crate::ty::{Encoding, Ty};

/// A client spec.
#[derive(Debug, Default)]
pub(crate) struct Spec {
    pub(crate) client: String,
    pub(crate) doc: Option<String>,
    /// Written through `vars`: the description's text escaped, its variables placeholders.
    pub(crate) base_url: Option<String>,
    /// The path every method's route is under, for a server without a host.
    pub(crate) base_path: Option<String>,
    pub(crate) profile: Profile,
    pub(crate) types: IndexMap<String, TypeOut>,
    pub(crate) methods: Vec<MethodOut>,
    pub(crate) summary: Summary,
    /// The overlays applied to the description, in order, relative to it.
    pub(crate) overlays: Vec<String>,
    /// The deliveries the API sends back.
    pub(crate) webhooks: Webhooks,
}

/// `webhooks:`: the scheme the description says, and the events.
#[derive(Debug, Default)]
pub(crate) struct Webhooks {
    /// `standard_webhooks`, `stripe` or `github`, when its declared headers say.
    pub(crate) signature: Option<&'static str>,
    pub(crate) events: Vec<EventOut>,
}

/// One event a receiver gets.
#[derive(Debug, Clone)]
pub(crate) struct EventOut {
    /// The spec key: a snake_case word.
    pub(crate) name: String,
    pub(crate) doc: Option<String>,
    /// The payload's type (JSON), none when it has no body the receiver reads.
    pub(crate) payload: Option<Ty>,
    /// A path of its own.
    pub(crate) path: Option<String>,
    /// Headers of one value that name it.
    pub(crate) headers: Vec<(String, String)>,
    /// Required payload properties of one value that name it.
    pub(crate) fields: Vec<(String, Value)>,
    /// The 2xx it is answered with, when not 200.
    pub(crate) answer: Option<u16>,
}

/// The client's profile: credentials, secret headers and query parameters, each from an
/// environment variable.
#[derive(Debug, Default, Clone)]
pub(crate) struct Profile {
    pub(crate) auth: Option<Auth>,
    /// Header name and the `${VAR}` of its secret value.
    pub(crate) headers: Vec<(String, String)>,
    /// Query parameter name and the `${VAR}` of its secret value.
    pub(crate) query: Vec<(String, String)>,
    /// Cookie name and the `${VAR}` of its secret value.
    pub(crate) cookies: Vec<(String, String)>,
    /// Query parameters a method always sends, as written (a path key's `?beta=true`).
    pub(crate) fixed_query: Vec<(String, String)>,
    /// Headers a method always sends, as written (the `Accept` that chooses a twin's answer).
    pub(crate) fixed_headers: Vec<(String, String)>,
}

impl Profile {
    /// True when it holds no credentials.
    pub(crate) fn is_empty(&self) -> bool {
        self.auth.is_none()
            && self.headers.is_empty()
            && self.query.is_empty()
            && self.cookies.is_empty()
            && self.fixed_query.is_empty()
            && self.fixed_headers.is_empty()
    }
}

/// Credentials, each secret a `${VAR}`.
#[derive(Debug, Clone)]
pub(crate) enum Auth {
    Bearer(String),
    Basic(String, String),
    OAuth2 {
        token_url: String,
        client_id: String,
        client_secret: String,
        scopes: Vec<String>,
    },
}

/// A type of the spec.
#[derive(Debug, Clone)]
pub(crate) enum TypeOut {
    Struct(StructOut),
    Enum(EnumOut),
    Union(UnionOut),
}

#[derive(Debug, Clone, Default)]
pub(crate) struct StructOut {
    pub(crate) doc: Option<String>,
    pub(crate) all_of: Vec<String>,
    pub(crate) fields: Vec<FieldOut>,
    pub(crate) additional: Option<Ty>,
}

#[derive(Debug, Clone)]
pub(crate) struct FieldOut {
    /// The spec key: a snake_case word.
    pub(crate) key: String,
    /// The name on the wire, when it is not the key.
    pub(crate) rename: Option<String>,
    pub(crate) ty: Ty,
    pub(crate) doc: Option<String>,
    /// An `Option` that is required on the wire (nullable).
    pub(crate) required_null: bool,
    /// Optional, and its schema allows `null`: in a type that is sent it is `Nullable`, so
    /// that `null` can be sent apart from absent (`settle_nulls`).
    pub(crate) optional_null: bool,
    /// A constant value (a string, an integer or a boolean).
    pub(crate) constant: Option<Value>,
}

impl FieldOut {
    /// The name on the wire.
    pub(crate) fn wire(&self) -> &str {
        self.rename.as_deref().unwrap_or(&self.key)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct EnumOut {
    pub(crate) doc: Option<String>,
    /// Strings, or integers, each with a variant name and a doc when the description gives them.
    pub(crate) values: Vec<EnumValue>,
}

/// An enum value, with its variant name and its doc when the description gives them (a `const`
/// alternative's `title` and `description`, `x-enum-varnames`, …).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EnumValue {
    pub(crate) value: Value,
    pub(crate) name: Option<String>,
    pub(crate) doc: Option<String>,
}

impl EnumValue {
    /// A value the description names and documents nowhere.
    pub(crate) fn bare(value: Value) -> EnumValue {
        EnumValue {
            value,
            name: None,
            doc: None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct UnionOut {
    pub(crate) doc: Option<String>,
    pub(crate) alternatives: Vec<Ty>,
    pub(crate) tag: Option<String>,
    /// Tag value → alternative type name (adjacently tagged: its variant's name).
    pub(crate) mapping: Vec<(String, String)>,
    /// The content key of an adjacently tagged union (`tag` beside it).
    pub(crate) content: Option<String>,
    /// An adjacently tagged union's variant names, one an alternative, in order.
    pub(crate) variants: Vec<String>,
}

/// A method.
#[derive(Debug, Default, Clone)]
pub(crate) struct MethodOut {
    pub(crate) name: String,
    pub(crate) doc: Option<String>,
    /// The verb and the route, with its placeholders under their parameters' keys.
    pub(crate) request: Request,
    pub(crate) path: Vec<ParamOut>,
    pub(crate) query: Vec<ParamOut>,
    pub(crate) headers: Vec<ParamOut>,
    pub(crate) body: Option<BodyOut>,
    pub(crate) returns: Option<(Ty, Encoding)>,
    pub(crate) responses: Vec<(u16, Ty)>,
    pub(crate) errors: Vec<(crate::status::StatusKey, Ty, crate::ty::Encoding)>,
    pub(crate) idempotency_key: Option<String>,
    pub(crate) paginate: Option<Paginate>,
    /// What the description says of its pages, for [`Builder::paginate_methods`]: a `Link`
    /// response header, dropshot's pagination extension.
    pub(crate) pages_hint: PagesHint,
    /// The method says less than the operation: a parameter, body or result left out or
    /// untyped.
    pub(crate) lost: bool,
    /// Credentials of its own, when the operation asks for other schemes than the client's.
    pub(crate) profile: Option<Profile>,
    /// Its answer is a stream of events or lines (instead of `returns`).
    pub(crate) stream: Option<StreamOut>,
    /// It answers JSON or a stream: the stream, for a second method.
    pub(crate) stream_twin: Option<StreamOut>,
    /// It is that second method: its operation is counted once, by the first.
    pub(crate) is_twin: bool,
    /// The boolean body property that chooses the stream, when the operation answers JSON or
    /// a stream.
    pub(crate) stream_flag: Option<String>,
    /// Keys the method sets in its body itself (`body_sets:`): a twin's stream flag.
    pub(crate) body_sets: Vec<(String, bool)>,
    /// A POST that only reads (`safe: true`): a search whose pages are fields of its body.
    pub(crate) safe: bool,
}

/// A method's request line: `VERB /path/{param}`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Request {
    pub(crate) verb: Verb,
    pub(crate) path: String,
}

impl std::fmt::Display for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.verb.upper(), self.path)
    }
}

/// The HTTP methods remcall sends, as a path item's keys name them (`query` is OpenAPI 3.2's).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    #[default]
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Query,
}

impl Verb {
    /// Every verb, in the order a path item's operations are read.
    pub(crate) const ALL: [Verb; 8] = [
        Verb::Get,
        Verb::Put,
        Verb::Post,
        Verb::Delete,
        Verb::Options,
        Verb::Head,
        Verb::Patch,
        Verb::Query,
    ];

    /// Its key in a path item: `get`, `post`, …
    pub(crate) fn key(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::Put => "put",
            Verb::Post => "post",
            Verb::Delete => "delete",
            Verb::Options => "options",
            Verb::Head => "head",
            Verb::Patch => "patch",
            Verb::Query => "query",
        }
    }

    /// As a request line writes it: `GET`, `POST`, …
    pub(crate) fn upper(self) -> &'static str {
        match self {
            Verb::Get => "GET",
            Verb::Put => "PUT",
            Verb::Post => "POST",
            Verb::Delete => "DELETE",
            Verb::Options => "OPTIONS",
            Verb::Head => "HEAD",
            Verb::Patch => "PATCH",
            Verb::Query => "QUERY",
        }
    }

    /// Whether sending it again changes nothing more: what a pager may send once per page.
    pub(crate) fn repeatable(self) -> bool {
        !matches!(self, Verb::Post | Verb::Patch)
    }

    /// The verb a key names, in any case (`additionalOperations` keys are wire names).
    pub(crate) fn from_key(key: &str) -> Option<Verb> {
        Verb::ALL
            .into_iter()
            .find(|verb| verb.key().eq_ignore_ascii_case(key))
    }
}

/// A streamed answer: JSON Lines or Server-Sent Events, the item's type (or the events' by
/// name) and the data that ends it.
#[derive(Debug, Clone)]
pub(crate) struct StreamOut {
    pub(crate) kind: StreamKind,
    /// The media type the description declares it in (`application/x-ndjson`).
    pub(crate) media: String,
    pub(crate) item: Ty,
    pub(crate) end: Option<String>,
    pub(crate) events: Vec<(String, Ty)>,
    /// How the server reports a failure inside the stream: the error's type, and the `event:`
    /// name of an error event.
    pub(crate) error: Option<(Ty, Option<String>)>,
}

/// What a streamed answer is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum StreamKind {
    /// Server-Sent Events (`text/event-stream`).
    Events,
    /// JSON Lines (`application/jsonl`, NDJSON, JSON text sequences).
    Lines,
}

impl StreamKind {
    /// The spec's word for it (`as: events | lines`), which is also the twin method's suffix.
    pub(crate) fn word(self) -> &'static str {
        match self {
            StreamKind::Events => "events",
            StreamKind::Lines => "lines",
        }
    }
}

/// How an imported method's pages are read.
#[derive(Debug, Clone)]
pub(crate) enum Paginate {
    /// `paginate: { link_header: next }`: the page is the list.
    LinkHeader,
    /// `paginate: { items, next_url_header }` (no `items`: the page is the list).
    HeaderUrl {
        items: Option<String>,
        header: String,
    },
    /// `paginate: { items, next_url }`.
    NextUrl { items: String, next: String },
    /// `paginate: { items, cursor: { param, from } }`.
    Cursor {
        items: String,
        param: String,
        from: String,
    },
    /// `paginate: { items, cursor: { param, from_item, has_more } }`.
    ItemCursor {
        items: String,
        param: String,
        field: String,
        has_more: String,
    },
    /// `paginate: { items, offset: { param, limit, total } }` (no `items`: the page is the
    /// list).
    Offset {
        items: Option<String>,
        param: String,
        limit: Option<String>,
        total: Option<String>,
    },
    /// `paginate: { items, page_number: { param, first, limit, total_pages } }` (no `items`:
    /// the page is the list).
    PageNumber {
        items: Option<String>,
        param: String,
        first: Option<u64>,
        limit: Option<String>,
        total_pages: Option<String>,
        total: Option<String>,
        current: Option<String>,
    },
}

/// What an operation's description says of its pages.
#[derive(Debug, Default, Clone)]
pub(crate) struct PagesHint {
    pub(crate) link_header: bool,
    /// A response header that holds the next page's URL (`Next-Page`, `X-Next-Link`), its name
    /// as declared.
    pub(crate) next_url_header: Option<String>,
    pub(crate) dropshot: bool,
}

/// How a parameter's list or object is written on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Repeated keys (a query list), or the value as it is.
    Exploded,
    /// A comma-separated list.
    Comma,
    /// `name[key]=value`.
    Deep,
}

#[derive(Debug, Clone)]
pub(crate) struct ParamOut {
    pub(crate) key: String,
    pub(crate) ty: Ty,
    /// The wire name, when it is not the key (query and headers).
    pub(crate) wire: Option<String>,
    pub(crate) doc: Option<String>,
    /// How a list or object goes on the wire.
    pub(crate) style: Style,
    /// Where the description declares it (the operation, for a placeholder it does not).
    pub(crate) place: Place,
    /// Its schema's integer `default`, else its `minimum`: a page number's first page.
    pub(crate) least: Option<i64>,
}

#[derive(Debug, Clone)]
pub(crate) struct BodyOut {
    pub(crate) ty: Ty,
    pub(crate) encoding: Encoding,
    pub(crate) content_type: Option<String>,
    pub(crate) doc: Option<String>,
    /// Sent with a GET or HEAD, as the description has it.
    pub(crate) on_get: bool,
}

//! The render-ready form itself: what the template reads of a client, its types and its
//! methods, every name and Rust type already written out.

use remcall_profile::Profile;

use super::{Locals, Param, StubIr};

/// One generated module. Text is plain (the template quotes and escapes it); Rust types are
/// written out as generated code names them.
#[derive(Debug)]
pub struct Client {
    /// `UserClient`.
    pub name: String,
    /// `UserClientBuilder`.
    pub builder: String,
    /// `UserClientFallback`, when the spec has a fallback.
    pub fallback_trait: Option<String>,
    /// The spec's default fallback type, a plain Rust path (none: `remcall::NoFallback`).
    pub default_fallback: Option<String>,
    /// Rustdoc lines of the client, each with its leading space.
    pub doc: Vec<String>,
    /// Default endpoints.
    pub base_urls: Vec<String>,
    /// The base path.
    pub base_path: String,
    /// The client's resolved profile.
    pub profile: ProfileYaml,
    /// The static holding its `ClientSpec`: `CLIENT_SPEC`, unless a method's static has the name.
    pub spec_static: String,
    /// Rust paths of the spec's interceptors, built with `Default`, in order.
    pub interceptors: Vec<String>,
    /// Generated types.
    pub types: Vec<TypeDecl>,
    /// The marker types of constant fields: (name, rustdoc line, `Const` variant written out).
    pub constants: Vec<(String, String, String)>,
    /// Methods.
    pub methods: Vec<Method>,
    /// The error enums several methods declare alike (each method's own name an alias).
    pub error_enums: Vec<ErrorEnum>,
    /// Some method reads its answer with the runtime's `decode` functions (not every one
    /// streams).
    pub uses_decode: bool,
    /// The stub of the API, with `stubs: true`.
    pub stubs: Option<StubIr>,
    /// The receiver of the deliveries the API sends back, with `webhooks:`.
    pub webhooks: Option<super::Webhooks>,
}

/// A profile as the YAML the runtime reads, for a raw string literal: `r#"…"#` with enough `#`s.
#[derive(Debug)]
pub struct ProfileYaml {
    /// The YAML; empty for a profile that sets nothing.
    pub text: String,
    /// The `#`s that delimit it.
    pub hashes: String,
}

impl ProfileYaml {
    /// The profile as YAML (multi-line, so it reads as YAML in the generated file).
    pub(super) fn of(profile: Profile) -> ProfileYaml {
        let mut profile = profile;
        profile.extends = None;
        // Interceptors are Rust types: the generated builder instantiates them, the runtime never
        // parses them.
        profile.interceptors = None;
        let text = if profile == Profile::default() {
            String::new()
        } else {
            format!("\n{}", profile.to_yaml_string())
        };
        let mut hashes = String::from("#");
        while text.contains(&format!("\"{hashes}")) {
            hashes.push('#');
        }
        ProfileYaml { text, hashes }
    }
}

/// A generated struct, enum or union (an enum of types).
#[derive(Debug)]
pub struct TypeDecl {
    /// Rust name.
    pub name: String,
    /// The generic parameters as written after the name, `<T>` (or nothing).
    pub params: String,
    /// Rustdoc lines.
    pub doc: Vec<String>,
    /// Struct fields (empty for enums and unions).
    pub fields: Vec<Field>,
    /// A struct's map of undeclared keys: the type of its values.
    pub additional: Option<String>,
    /// Enum values (wire: the value as text) or union alternatives (wire: the Rust type).
    pub variants: Vec<Variant>,
    /// An enum of wire values.
    pub is_enum: bool,
    /// Its values are integers.
    pub is_integer: bool,
    /// A union.
    pub is_union: bool,
    /// A tagged union's tag field (wire name).
    pub tag: Option<String>,
    /// An adjacently tagged union's content field (wire name).
    pub content: Option<String>,
    /// Keeps what it does not know in `Other(..)`.
    pub open: bool,
    /// The enum is `Copy`.
    pub copy: bool,
    /// A multipart body somewhere: its parts (wire name, field, a file part), in field order.
    pub multipart: Vec<(String, String, bool)>,
    /// A struct every field of which has a default (an `Option`, a `Nullable`, a constant, the
    /// map of other keys): it derives `Default`.
    pub default: bool,
    /// A struct with required fields and others: `new(..)` takes the required ones (each as
    /// `impl Into<..>`; at most seven), the others start absent.
    pub constructor: Vec<Field>,
}

impl TypeDecl {
    /// The fields read and written by their own keys: all but a flattened union.
    pub fn keyed_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|field| !field.flatten)
    }

    /// The union flattened into the struct, if one is.
    pub fn flattened(&self) -> Option<&Field> {
        self.fields.iter().find(|field| field.flatten)
    }
}

/// An enum value or a union alternative.
#[derive(Debug)]
pub struct Variant {
    /// Rust name.
    pub name: String,
    /// An enum value as on the wire (an integer's digits), or an alternative's Rust type.
    pub wire: String,
    /// A tagged union alternative's tag values.
    pub tags: Vec<String>,
    /// A tagged union alternative without the tag field: the union writes its tag.
    pub writes_tag: bool,
    /// An untagged union alternative: what it can read, as a `Fits` expression.
    pub fits: String,
    /// Rustdoc lines.
    pub doc: Vec<String>,
    /// A union alternative the union has a `From` of (no other alternative has its type).
    pub from: bool,
    /// A tagged union's alternative that holds its tag alone (its struct declares nothing):
    /// a plain variant, `DiskState::Creating`.
    pub plain: bool,
}

/// A struct field.
#[derive(Debug, Clone)]
pub struct Field {
    /// Rust name.
    pub name: String,
    /// Rust type.
    pub ty: String,
    /// Rustdoc lines.
    pub doc: Vec<String>,
    /// The wire name, when it differs from the Rust name.
    pub rename: Option<String>,
    /// The wire name.
    pub wire: String,
    /// Absent on the wire reads as its type's default (`None`, `Nullable::Absent`) rather than
    /// an error.
    pub defaulted: bool,
    /// `Option<_>`: skipped when `None`, defaulted when absent (unless `required: true`).
    pub optional: bool,
    /// `Nullable<_>`: skipped when absent, defaulted when absent.
    pub nullable: bool,
    /// A constant field: its marker type, which has one value.
    pub constant: bool,
    /// The union an `all_of:` part flattens into the struct: no key of its own, it reads the
    /// keys the other fields leave (last among the fields).
    pub flatten: bool,
}

impl Field {
    /// How `serde_struct!` writes and reads it: `required` (written always, must come),
    /// `optional` (left out when absent, absent when missing) or `nullable` (written always, `None`
    /// when missing).
    pub fn mode(&self) -> &'static str {
        if self.optional || self.nullable {
            "optional"
        } else if self.defaulted {
            "nullable"
        } else {
            "required"
        }
    }
}

/// A client method.
#[derive(Debug)]
pub struct Method {
    /// Rust name.
    pub name: String,
    /// A rustdoc link to it, `[`UserClient::get_user`]` (code without a link for a raw name,
    /// which rustdoc cannot resolve).
    pub link: String,
    /// The same from inside the client: `[`Self::get_user`]`.
    pub self_link: String,
    /// The static holding its `MethodSpec`.
    pub spec_const: String,
    /// Name as in the spec.
    pub spec_name: String,
    /// Rustdoc lines.
    pub doc: Vec<String>,
    /// The HTTP verb, e.g. `GET`.
    pub verb: &'static str,
    /// The path template.
    pub path: String,
    /// Retries are safe.
    pub idempotent: bool,
    /// It only reads: its answers may be kept.
    pub reads: bool,
    /// 404 → `None`.
    pub not_found_none: bool,
    /// The method's own profile.
    pub profile: ProfileYaml,
    /// Arguments in the generated API's order.
    pub params: Vec<Param>,
    /// Names of the generated body's locals.
    pub locals: Locals,
    /// Return type.
    pub returns: String,
    /// The decoder: a path (`decode::json_or_none`, `GetUserResponse::decode`) or a closure.
    pub decode: String,
    /// The enum of several success shapes.
    pub responses: Option<ResponseEnum>,
    /// The enum of declared error bodies.
    pub errors: Option<ErrorEnum>,
    /// The struct of declared response headers.
    pub headers: Option<HeadersStruct>,
    /// The pages of a paginated method.
    pub paging: Option<PagingIr>,
    /// The body comes as a stream (`call_stream`, no fallback).
    pub stream: bool,
    /// Server-Sent Events or JSON Lines, typed.
    pub streamed: Option<StreamedIr>,
    /// A content type sent instead of the body's encoding's.
    pub content_type: Option<String>,
    /// The header given a new idempotency key per call.
    pub idempotency_key: Option<String>,
    /// The method calls the fallback on eligible errors.
    pub fallback: bool,
    /// The async method's name: the method's, or `<method>_with` for a named one.
    pub call_fn: String,
    /// The async method's (and the fallback's, and `_stream`'s) arguments: every parameter, or
    /// for a named method the required ones and the options struct. (name, type)
    pub args: Vec<(String, String)>,
    /// Its optional parameters set by name on a call it returns.
    pub named: Option<NamedCall>,
    /// The one JSON value it answers with, when it does (not `()`, not several shapes, not a
    /// stream or text), without the `Option` of `not_found: none`: what its stub's `returns`
    /// takes.
    pub json_value: Option<String>,
    /// The answer it reads as text (`Some(true)`) or as bytes (`Some(false)`), when it reads one
    /// body that is not JSON: what its stub's `returns` takes then.
    pub raw_answer: Option<bool>,
}

/// A named method's options struct and the call its method returns.
#[derive(Debug)]
pub struct NamedCall {
    /// `ListIssuesOptions`.
    pub options: String,
    /// `ListIssuesCall`.
    pub call: String,
    /// The required parameters: (name, type borrowed for `'a`).
    pub required: Vec<(String, String)>,
    /// The optional ones.
    pub fields: Vec<OptionField>,
}

/// An optional parameter: a field of the options struct and its setter on the call.
#[derive(Debug)]
pub struct OptionField {
    /// The field.
    pub name: String,
    /// Its setter: the field's name, unless the call has a method of that name.
    pub setter: String,
    /// The field's type, `Option<T>`.
    pub ty: String,
    /// What the setter takes, as the runtime's setter macro reads it: `T`, or `into T` for a
    /// `String` or `Vec` (a `&str` or a slice will do).
    pub takes: String,
    /// Rustdoc lines.
    pub doc: Vec<String>,
}

/// A paginated method's `<method>_stream` and the static saying how its pages read.
#[derive(Debug)]
pub struct PagingIr {
    /// `list_charges_stream`.
    pub stream: String,
    /// `LIST_CHARGES_PAGING`.
    pub static_name: String,
    /// The item type.
    pub item: String,
    /// The items' path in a page, wire names.
    pub items: Vec<String>,
    /// The `NextPage` variant, written out (`ItemCursor { param: "..", .. }`).
    pub next: String,
    /// The page parameters are fields of the JSON body, not query parameters.
    pub in_body: bool,
}

/// A method's success shapes by status.
#[derive(Debug)]
pub struct ResponseEnum {
    /// Its rustdoc (one line, with its leading space).
    pub doc: String,
    /// `CreateCustomerResponse`.
    pub name: String,
    /// (variant, status, payload type or none for `()`, the payload's decoder path).
    pub variants: Vec<(String, u16, Option<String>, &'static str)>,
    /// The statuses, for the error on another one: `200 or 201`.
    pub expected: String,
}

/// How a method's stream of events or lines is opened and read.
#[derive(Debug)]
pub struct StreamedIr {
    /// The runtime's call: `call_events` or `call_lines`.
    pub call: &'static str,
    /// The `static` of how its items read (`COMPLETE_STREAM`), beside the method's spec.
    pub static_name: String,
    /// That static's runtime type: `EventsSpec` or `LinesSpec`.
    pub spec_type: &'static str,
    /// The decoder of one event's data or one line: a runtime function's path, or the events
    /// enum's `from_event`.
    pub decoder: String,
    /// JSON Lines, not events.
    pub lines: bool,
    /// The type of an event's data or a line.
    pub item: String,
    /// The data that ends an event stream, when the method declares one.
    pub end: Option<String>,
    /// The error events the method declares.
    pub error: Option<ErrorEventsIr>,
    /// The enum of the events by name, when the spec maps them.
    pub cases: Option<EventEnum>,
}

/// A stream's declared error events.
#[derive(Debug, Clone)]
pub struct ErrorEventsIr {
    /// The runtime's `ErrorEvents` expression the call passes.
    pub expr: String,
    /// The error's type.
    pub ty: String,
    /// The `event:` name of an error event.
    pub event: Option<String>,
}

/// The enum of a method's events by name.
#[derive(Debug)]
pub struct EventEnum {
    /// Its rustdoc (one line, with its leading space).
    pub doc: String,
    /// `RunEvent`.
    pub name: String,
    /// (variant, event name, data type, `json` or `text`).
    pub variants: Vec<(String, String, String, &'static str)>,
    /// The variant of the events it does not map.
    pub open: String,
}

/// A method's declared error bodies.
#[derive(Debug)]
pub struct ErrorEnum {
    /// Its rustdoc (one line, with its leading space).
    pub doc: String,
    /// `GetUserError`.
    pub name: String,
    /// One variant per declared status.
    pub variants: Vec<ErrorVariant>,
    /// A `default` entry covers every other status.
    pub has_default: bool,
    /// The enum other methods declare alike, which this name is an alias of
    /// (`pub type GetUserError = ApiErrorByStatus;`).
    pub shared: Option<String>,
}

/// A declared error body's variant.
#[derive(Debug, Clone)]
pub struct ErrorVariant {
    /// `NotFound`, `ClientError`, `Other`.
    pub name: String,
    /// The statuses it matches: `404`, `400..=499`, `_`.
    pub pattern: String,
    /// The key as written in the spec: `404`, `4XX`, `default`.
    pub written: String,
    /// The body's type.
    pub payload: String,
    /// The status a stub answers it with: its own, its class's first, 500 for `default`.
    pub answer: u16,
    /// How the body is read.
    pub read: ErrorRead,
}

impl ErrorVariant {
    /// The expression, over `body: &[u8]`, that gives `Option<Self>`: the variant, when its
    /// body reads.
    pub fn decode(&self) -> String {
        let name = &self.name;
        match self.read {
            ErrorRead::Json => {
                format!("remcall::serde_json::from_slice(body).ok().map(Self::{name})")
            }
            ErrorRead::Text => {
                format!("Some(Self::{name}(String::from_utf8_lossy(body).into_owned()))")
            }
            ErrorRead::Bytes => {
                format!("Some(Self::{name}(remcall::bytes::Bytes::copy_from_slice(body)))")
            }
        }
    }

    /// The media type a stub answers the body in (`None`: JSON).
    pub fn media_type(&self) -> Option<&'static str> {
        match self.read {
            ErrorRead::Json => None,
            ErrorRead::Text => Some("text/plain; charset=utf-8"),
            ErrorRead::Bytes => Some("application/octet-stream"),
        }
    }
}

/// How a declared error body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ErrorRead {
    /// As JSON.
    Json,
    /// As UTF-8 text (a `String`; bytes that are not UTF-8 are replaced, never refused).
    Text,
    /// As it came (a `bytes::Bytes`).
    Bytes,
}

/// A method's declared response headers.
#[derive(Debug)]
pub struct HeadersStruct {
    /// Its rustdoc (one line, with its leading space).
    pub doc: String,
    /// `GetUserHeaders`.
    pub name: String,
    /// (field, header name, type).
    pub fields: Vec<(String, String, String)>,
    /// The body's type and decoder, for the struct's `decode` of body and headers together.
    pub body: String,
    pub body_decode: String,
}

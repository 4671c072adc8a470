//! The render-ready form of a checked spec: names cased, types written out, each argument's
//! borrowed form decided, profiles written as the YAML the runtime reads. Values only: the Rust
//! syntax around them is the template's.

use remcall_profile::Profile;

use crate::checked::{self, BodyEncoding, Fallback, QueryWriting, Shape};
use crate::names;
use crate::types::Ty;

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
}

/// A profile as the YAML the runtime reads, for a raw string literal: `r#"…"#` with enough `#`s.
#[derive(Debug)]
pub struct ProfileYaml {
    /// The YAML; empty for a profile that sets nothing.
    pub text: String,
    /// The `#`s that delimit it.
    pub hashes: String,
}

/// A generated struct, enum or union (an enum of types).
#[derive(Debug)]
pub struct TypeDecl {
    /// Rust name.
    pub name: String,
    /// Generic parameters.
    pub generics: Vec<String>,
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
    /// Keeps what it does not know in `Other(..)`.
    pub open: bool,
    /// The enum is `Copy`.
    pub copy: bool,
    /// A multipart body somewhere: its parts (wire name, field, a file part), in field order.
    pub multipart: Vec<(String, String, bool)>,
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
    /// Rustdoc lines.
    pub doc: Vec<String>,
}

/// A struct field.
#[derive(Debug)]
pub struct Field {
    /// Rust name.
    pub name: String,
    /// Rust type.
    pub ty: String,
    /// Rustdoc lines.
    pub doc: Vec<String>,
    /// The wire name, when it differs from the Rust name.
    pub rename: Option<String>,
    /// `Option<_>`: skipped when `None`, defaulted when absent (unless `required: true`).
    pub optional: bool,
    /// `Nullable<_>`: skipped when absent, defaulted when absent.
    pub nullable: bool,
}

/// A client method.
#[derive(Debug)]
pub struct Method {
    /// Rust name.
    pub name: String,
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
    /// A content type sent instead of the body's encoding's.
    pub content_type: Option<String>,
    /// The header given a new idempotency key per call.
    pub idempotency_key: Option<String>,
    /// The method calls the fallback on eligible errors.
    pub fallback: bool,
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

/// A method's declared error bodies.
#[derive(Debug)]
pub struct ErrorEnum {
    /// Its rustdoc (one line, with its leading space).
    pub doc: String,
    /// `GetUserError`.
    pub name: String,
    /// (variant, match pattern `404` / `400..=499` / `_`, as written in the spec, payload type).
    pub variants: Vec<(String, String, String, String)>,
    /// A `default` entry covers every other status.
    pub has_default: bool,
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
}

/// A method argument and how it enters the request.
#[derive(Debug)]
pub struct Param {
    /// Rust name.
    pub name: String,
    /// Argument type (borrowed form).
    pub ty: String,
    /// The request builder method that takes it: `path`, `query` (or `query_object`,
    /// `query_deep`, `query_csv`), `header`, `json`, `form`, `multipart`, `text` or `bytes`.
    pub call: &'static str,
    /// The wire name, for path, query and header parameters.
    pub wire: Option<String>,
}

/// The names of a generated method's locals: plain, unless a parameter has the name already.
#[derive(Debug)]
pub struct Locals {
    /// The request being built.
    pub request: String,
    /// The fallback closure.
    pub fallback: String,
    /// The error a fallback is given.
    pub cause: String,
}

impl Locals {
    fn avoiding(params: &[Param]) -> Locals {
        let mut taken: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        let mut unique = |base: &str| {
            let mut name = base.to_owned();
            while taken.contains(&name) {
                name.push('_');
            }
            taken.push(name.clone());
            name
        };
        Locals {
            request: unique("request"),
            fallback: unique("fallback"),
            cause: unique("cause"),
        }
    }
}

fn doc_lines(doc: Option<&String>) -> Vec<String> {
    doc.map(|d| {
        // A lone carriage return is a line break too (`lines()` knows only `\n` and `\r\n`).
        d.replace('\r', "\n")
            .trim()
            .lines()
            .map(|l| format!(" {}", l.trim_end()))
            .collect()
    })
    .unwrap_or_default()
}

/// The profile as YAML (multi-line, so it reads as YAML in the generated file).
fn profile_yaml(profile: Profile) -> ProfileYaml {
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

/// The render-ready form of a checked spec.
pub(crate) fn lower(client: &checked::Client) -> Client {
    let name = client.name.clone();
    let (fallback_trait, default_fallback) = match &client.fallback {
        Fallback::None => (None, None),
        Fallback::Trait => (Some(format!("{name}Fallback")), None),
        Fallback::Default(path) => (Some(format!("{name}Fallback")), Some(path.clone())),
    };
    let copy_types: std::collections::HashSet<&str> = client
        .types
        .iter()
        .filter(|t| is_copy_type(&t.shape))
        .map(|t| t.name.as_str())
        .collect();
    let is_copy = |name: &str| copy_types.contains(name);
    let cycles = Containment::of(&client.types);
    let multipart_bodies: std::collections::HashSet<&str> = client
        .methods
        .iter()
        .filter_map(|m| m.body.as_ref())
        .filter(|b| b.encoding == BodyEncoding::Multipart)
        .filter_map(|b| b.ty.bare())
        .collect();
    let types = client
        .types
        .iter()
        .map(|decl| {
            let mut lowered = lower_type(decl, &cycles, client.rename_all.as_deref());
            if multipart_bodies.contains(decl.name.as_str())
                && let Shape::Struct(s) = &decl.shape
            {
                lowered.multipart = s
                    .fields
                    .iter()
                    .zip(&lowered.fields)
                    .map(|(field, out)| {
                        let wire = out
                            .rename
                            .clone()
                            .unwrap_or_else(|| out.name.trim_start_matches("r#").to_owned());
                        (wire, out.name.clone(), field.ty.is_file())
                    })
                    .collect();
            }
            lowered
        })
        .collect();
    let methods: Vec<Method> = client
        .methods
        .iter()
        .map(|method| lower_method(method, &is_copy, fallback_trait.is_some()))
        .collect();

    let mut doc = doc_lines(client.doc.as_ref());
    if doc.is_empty() {
        doc.push(format!(" The `{name}` HTTP client."));
    }
    let mut spec_static = "CLIENT_SPEC".to_owned();
    while methods.iter().any(|m| m.spec_const == spec_static) {
        spec_static.push('_');
    }
    let mut constants: Vec<(String, String, String)> = Vec::new();
    for decl in &client.types {
        let Shape::Struct(s) = &decl.shape else {
            continue;
        };
        for field in &s.fields {
            if let Some((marker, value)) = &field.constant
                && !constants.iter().any(|(m, _, _)| m == marker)
            {
                let (shown, written) = match value {
                    checked::ConstValue::Str(text) => {
                        (format!("{text:?}"), format!("Str({text:?})"))
                    }
                    checked::ConstValue::Int(n) => (n.to_string(), format!("Int({n})")),
                    checked::ConstValue::Bool(b) => (b.to_string(), format!("Bool({b})")),
                };
                let doc = format!(
                    " `{}` is always `{shown}`: written so, read only so.",
                    field.key
                );
                constants.push((marker.clone(), doc, written));
            }
        }
    }
    Client {
        constants,
        builder: format!("{name}Builder"),
        fallback_trait,
        default_fallback,
        doc,
        base_urls: client.base_urls.clone(),
        base_path: client.base_path.clone(),
        interceptors: client.interceptors.clone(),
        profile: profile_yaml(client.profile.clone()),
        spec_static,
        types,
        methods,
        name,
    }
}

/// Closed string enums and integer enums are `Copy`; an open string enum holds a `String`.
fn is_copy_type(shape: &Shape) -> bool {
    matches!(shape, Shape::Enum(e) if e.integer || !e.open)
}

fn lower_type(
    decl: &checked::TypeDecl,
    cycles: &Containment,
    rename_all: Option<&str>,
) -> TypeDecl {
    let type_name = &decl.name;
    let mut doc = doc_lines(decl.doc.as_ref());
    if doc.is_empty() {
        doc = vec![format!(" The `{type_name}` type of the API.")];
    }
    let mut out = TypeDecl {
        name: names::pascal(type_name),
        generics: decl.generics.clone(),
        doc,
        fields: Vec::new(),
        additional: None,
        variants: Vec::new(),
        is_enum: false,
        is_integer: false,
        is_union: false,
        tag: None,
        open: false,
        copy: is_copy_type(&decl.shape),
        multipart: Vec::new(),
    };
    match &decl.shape {
        Shape::Enum(e) => {
            out.is_enum = true;
            out.is_integer = e.integer;
            out.open = e.open;
            out.variants = e
                .values
                .iter()
                .map(|v| {
                    let mut doc = doc_lines(v.doc.as_ref());
                    if doc.is_empty() && v.wire.is_empty() {
                        doc = vec![" The empty string.".to_owned()];
                    } else if doc.is_empty() {
                        doc = vec![format!(" `{}`", v.wire)];
                    }
                    Variant {
                        name: v.variant.clone(),
                        wire: v.wire.clone(),
                        tags: Vec::new(),
                        doc,
                    }
                })
                .collect();
        }
        Shape::Struct(s) => {
            out.fields = s
                .fields
                .iter()
                .map(|field| lower_field(field, cycles, type_name, rename_all))
                .collect();
            out.additional = s.additional.as_ref().map(Ty::render);
        }
        Shape::Union(u) => {
            out.is_union = true;
            out.open = u.open;
            out.tag = u.tag.clone();
            out.variants = u
                .alternatives
                .iter()
                .map(|a| {
                    let ty = cycles.box_recursion(&a.ty, type_name);
                    let mut doc = doc_lines(a.doc.as_ref());
                    if doc.is_empty() {
                        doc = vec![format!(" `{}`.", a.ty.render())];
                    }
                    Variant {
                        name: a.variant.clone(),
                        wire: ty.render(),
                        tags: a.tags.clone(),
                        doc,
                    }
                })
                .collect();
        }
    }
    out
}

fn lower_field(
    field: &checked::Field,
    cycles: &Containment,
    owner: &str,
    rename_all: Option<&str>,
) -> Field {
    let ty = cycles.box_recursion(&field.ty, owner);
    let rust = field.rust.clone();
    let bare = rust.trim_start_matches("r#");
    // The wire name is the explicit `rename`, else the spec's `rename_all` rule applied here
    // (serde's own rule panics on some non-ASCII names, and a visible name reads better), else
    // the key as written.
    let wire = match (&field.rename, rename_all) {
        (Some(wire), _) => wire.clone(),
        (None, Some(rule)) => names::apply_rename_rule(rule, &field.key),
        (None, None) => field.key.clone(),
    };
    let mut doc = doc_lines(field.doc.as_ref());
    if doc.is_empty() {
        doc = vec![format!(" `{}`.", field.key)];
    }
    Field {
        name: rust.clone(),
        ty: match &field.constant {
            Some((marker, _)) => marker.clone(),
            None => ty.render(),
        },
        doc,
        rename: (wire != bare).then_some(wire),
        optional: ty.inner("Option").is_some() && !field.required,
        nullable: ty.inner("Nullable").is_some(),
    }
}

fn lower_method(
    method: &checked::Method,
    is_copy: &dyn Fn(&str) -> bool,
    has_trait: bool,
) -> Method {
    let param = |p: &checked::Param, call: &'static str| Param {
        name: names::snake(&p.key),
        ty: p.ty.argument(is_copy),
        call,
        wire: Some(p.wire.clone()),
    };
    let query_call = |p: &checked::Param| match p.style {
        QueryWriting::Pairs => "query",
        QueryWriting::Object => "query_object",
        QueryWriting::Deep => "query_deep",
        QueryWriting::Comma => "query_csv",
    };
    // Path parameters in template order, then query, headers, body.
    let mut params: Vec<Param> = method
        .path_params
        .iter()
        .map(|p| param(p, "path"))
        .chain(method.query.iter().map(|p| param(p, query_call(p))))
        .chain(method.headers.iter().map(|p| param(p, "header")))
        .collect();
    if let Some(body) = &method.body {
        let call = match body.encoding {
            BodyEncoding::Json if body.ty.is_bytes() => "bytes",
            BodyEncoding::Json => "json",
            BodyEncoding::Form => "form",
            BodyEncoding::Multipart => "multipart",
            BodyEncoding::Text => "text",
            BodyEncoding::Bytes => "bytes",
        };
        params.push(Param {
            name: "body".to_owned(),
            ty: body.ty.argument(is_copy),
            call,
            wire: None,
        });
    }
    let base = names::pascal(&method.name);
    let responses = (!method.responses.is_empty()).then(|| response_enum(method, &base));
    let errors = (!method.errors.is_empty()).then(|| error_enum(method, &base));
    let headers = (!method.response_headers.is_empty()).then(|| HeadersStruct {
        doc: format!(" The response headers of `{}`.", method.name),
        name: format!("{base}Headers"),
        fields: method
            .response_headers
            .iter()
            .map(|p| (names::snake(&p.key), p.wire.clone(), p.ty.render()))
            .collect(),
    });
    let (body_type, decode) = match &responses {
        Some(responses) => (
            responses.name.clone(),
            format!("{}::decode", responses.name),
        ),
        None => {
            let returns = &method.returns;
            let optional = |ty: &Ty| format!("Option<{}>", ty.render());
            let kind = if returns.is_unit() {
                "unit"
            } else if returns.is_bytes() {
                "bytes"
            } else if method.returns_as == checked::ReturnsEncoding::Text {
                "text"
            } else {
                "json"
            };
            if method.not_found_none {
                (optional(returns), format!("decode::{kind}_or_none"))
            } else {
                (returns.render(), format!("decode::{kind}"))
            }
        }
    };
    let stream = method.returns_as == checked::ReturnsEncoding::Stream;
    let (body_type, decode) = if stream {
        ("remcall::ByteStream".to_owned(), String::new())
    } else {
        (body_type, decode)
    };
    let (returns, decode) = match &headers {
        Some(h) => (
            format!("remcall::WithHeaders<{body_type}, {}>", h.name),
            format!(
                "|response| decode::with_headers(response, {}::read, {decode})",
                h.name
            ),
        ),
        None => (body_type, decode),
    };
    let verb = method.verb.as_str();
    let mut doc = doc_lines(method.doc.as_ref());
    if !doc.is_empty() {
        doc.push(String::new());
    }
    doc.push(format!(" `{verb} {}`", method.path));
    // Arguments have no rustdoc of their own: the documented ones are listed on the method.
    let documented: Vec<(String, &String)> = method
        .path_params
        .iter()
        .chain(&method.query)
        .chain(&method.headers)
        .filter_map(|p| Some((names::snake(&p.key), p.doc.as_ref()?)))
        .chain(
            method
                .body
                .iter()
                .filter_map(|b| Some(("body".to_owned(), b.doc.as_ref()?))),
        )
        .collect();
    if !documented.is_empty() {
        doc.push(String::new());
        doc.push(" # Arguments".to_owned());
        doc.push(String::new());
        for (name, text) in documented {
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            doc.push(format!(" - `{}`: {text}", name.trim_start_matches("r#")));
        }
    }
    Method {
        name: names::snake(&method.name),
        spec_const: names::shouty(&method.name),
        spec_name: method.name.clone(),
        doc,
        verb,
        path: method.path.clone(),
        idempotent: method.idempotent,
        not_found_none: method.not_found_none,
        profile: profile_yaml(method.profile.clone()),
        locals: Locals::avoiding(&params),
        params,
        returns,
        decode,
        responses,
        errors,
        headers,
        paging: method.paginate.as_ref().map(|p| paging(method, p)),
        stream,
        content_type: method.body.as_ref().and_then(|b| b.content_type.clone()),
        idempotency_key: method.idempotency_key.clone(),
        // A fallback answers a call; a stream is handed over as it comes.
        fallback: has_trait && method.fallback && !stream,
    }
}

/// A paginated method's stream and paging static.
fn paging(method: &checked::Method, p: &checked::Pagination) -> PagingIr {
    use checked::NextPage;
    let list = |path: &[String]| {
        let items: Vec<String> = path.iter().map(|s| format!("{s:?}")).collect();
        format!("&[{}]", items.join(", "))
    };
    let next = match &p.next {
        NextPage::ItemCursor {
            param,
            field,
            has_more,
        } => format!(
            "ItemCursor {{ param: {param:?}, field: {}, has_more: {} }}",
            list(field),
            has_more
                .as_ref()
                .map_or("None".to_owned(), |h| format!("Some({})", list(h)))
        ),
        NextPage::BodyCursor { param, field } => {
            format!("BodyCursor {{ param: {param:?}, field: {} }}", list(field))
        }
        NextPage::BodyUrl { field } => format!("BodyUrl {{ field: {} }}", list(field)),
        NextPage::LinkHeader { rel } => format!("LinkHeader {{ rel: {rel:?} }}"),
    };
    PagingIr {
        stream: names::snake(&format!("{}_stream", method.name)),
        static_name: format!("{}_PAGING", names::shouty(&method.name)),
        item: p.item.render(),
        items: p.items.iter().map(|s| format!("{s:?}")).collect(),
        next,
    }
}

/// The enum of a method's success shapes: one variant per status, named by its reason phrase.
fn response_enum(method: &checked::Method, base: &str) -> ResponseEnum {
    let variants = method
        .responses
        .iter()
        .map(|(status, ty)| {
            let (payload, decoder) = if ty.is_unit() {
                (None, "unit")
            } else if ty.is_bytes() {
                (Some(ty.render()), "bytes")
            } else {
                (Some(ty.render()), "json")
            };
            (names::status_variant(*status), *status, payload, decoder)
        })
        .collect();
    let statuses: Vec<String> = method
        .responses
        .iter()
        .map(|(s, _)| s.to_string())
        .collect();
    ResponseEnum {
        doc: format!(" The answers of `{}`, by status.", method.name),
        name: format!("{base}Response"),
        variants,
        expected: match statuses.as_slice() {
            [one] => one.clone(),
            [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
            [] => String::new(),
        },
    }
}

/// The enum of a method's declared error bodies, matched exact statuses first, then classes,
/// then `default`.
fn error_enum(method: &checked::Method, base: &str) -> ErrorEnum {
    use checked::StatusMatch;
    let mut entries: Vec<&(StatusMatch, Ty)> = method.errors.iter().collect();
    entries.sort_by_key(|(matched, _)| match matched {
        StatusMatch::Exact(_) => 0,
        StatusMatch::Class(_) => 1,
        StatusMatch::Default => 2,
    });
    let variants = entries
        .iter()
        .map(|(matched, ty)| {
            let (variant, pattern, written) = match matched {
                StatusMatch::Exact(code) => (
                    names::status_variant(*code),
                    code.to_string(),
                    code.to_string(),
                ),
                StatusMatch::Class(4) => (
                    "ClientError".to_owned(),
                    "400..=499".to_owned(),
                    "4XX".to_owned(),
                ),
                StatusMatch::Class(class) => (
                    "ServerError".to_owned(),
                    format!("{class}00..={class}99"),
                    format!("{class}XX"),
                ),
                StatusMatch::Default => ("Other".to_owned(), "_".to_owned(), "default".to_owned()),
            };
            (variant, pattern, written, ty.render())
        })
        .collect();
    ErrorEnum {
        doc: format!(
            " The error bodies of `{}`, by status: `error.detail::<{base}Error>()`.",
            method.name
        ),
        name: format!("{base}Error"),
        has_default: method
            .errors
            .iter()
            .any(|(m, _)| *m == StatusMatch::Default),
        variants,
    }
}

/// Which struct types contain which others by value (not behind a `Vec`, map or `Box`): a struct
/// that contains itself, directly or through others, has infinite size unless boxed.
struct Containment {
    edges: std::collections::HashMap<String, Vec<String>>,
}

/// Containers that hold their items on the heap already.
const INDIRECT: &[&str] = &["Vec", "HashMap", "BTreeMap", "Box"];

impl Containment {
    fn of(types: &[checked::TypeDecl]) -> Containment {
        let names: std::collections::HashSet<&str> =
            types.iter().map(|t| t.name.as_str()).collect();
        let declared = |name: &String| names.contains(name.as_str());
        let mut edges = std::collections::HashMap::new();
        for decl in types {
            let mut contained = Vec::new();
            match &decl.shape {
                Shape::Struct(s) => {
                    for field in &s.fields {
                        by_value(&field.ty, &mut contained);
                    }
                }
                Shape::Union(u) => {
                    for alternative in &u.alternatives {
                        by_value(&alternative.ty, &mut contained);
                    }
                }
                Shape::Enum(_) => {}
            }
            contained.retain(declared);
            edges.insert(decl.name.clone(), contained);
        }
        Containment { edges }
    }

    /// True when `from` contains `to` by value, through any chain of fields.
    fn reaches(&self, from: &str, to: &str) -> bool {
        let mut stack = vec![from.to_owned()];
        let mut seen = std::collections::HashSet::new();
        while let Some(name) = stack.pop() {
            if name == to {
                return true;
            }
            if seen.insert(name.clone()) {
                stack.extend(self.edges.get(&name).into_iter().flatten().cloned());
            }
        }
        false
    }

    /// `ty` (a field of `owner`) with every by-value occurrence of a type that leads back to
    /// `owner` boxed: `Option<Node>` in `Node` becomes `Option<Box<Node>>`.
    fn box_recursion(&self, ty: &Ty, owner: &str) -> Ty {
        match ty {
            Ty::Path { segments, .. }
                if segments.len() == 1 && INDIRECT.contains(&segments[0].as_str()) =>
            {
                ty.clone()
            }
            Ty::Path { segments, args }
                if args.is_empty()
                    && segments.len() == 1
                    && self.edges.contains_key(&segments[0])
                    && self.reaches(&segments[0], owner) =>
            {
                Ty::Path {
                    segments: vec!["Box".to_owned()],
                    args: vec![ty.clone()],
                }
            }
            Ty::Path { segments, args } => Ty::Path {
                segments: segments.clone(),
                args: args.iter().map(|a| self.box_recursion(a, owner)).collect(),
            },
            Ty::Tuple(items) => {
                Ty::Tuple(items.iter().map(|i| self.box_recursion(i, owner)).collect())
            }
        }
    }
}

/// The bare type names `ty` holds by value.
fn by_value(ty: &Ty, out: &mut Vec<String>) {
    match ty {
        Ty::Path { segments, .. }
            if segments.len() == 1 && INDIRECT.contains(&segments[0].as_str()) => {}
        Ty::Path { segments, args } => {
            if segments.len() == 1 {
                out.push(segments[0].clone());
            }
            args.iter().for_each(|a| by_value(a, out));
        }
        Ty::Tuple(items) => items.iter().for_each(|i| by_value(i, out)),
    }
}

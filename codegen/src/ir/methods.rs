//! A method in render-ready form: its arguments and their borrowed forms, its request
//! building, its result, paging, response and error enums.

use crate::checked::{self, BodyEncoding, QueryWriting};
use crate::names;
use crate::types::Ty;

use std::collections::HashSet;

use super::docs::repeats;
use super::{
    ErrorEnum, ErrorVariant, HeadersStruct, Locals, Method, NamedCall, OptionField, PagingIr,
    Param, ParamCall, ResponseEnum, StreamedIr, TypeDecl, comment_text, item_doc, profile_yaml,
};
use super::{ErrorEventsIr, EventEnum};

/// A method of the spec as the template writes it.
pub(super) fn lower_method(
    method: &checked::Method,
    is_copy: &dyn Fn(&str) -> bool,
    keys_of: &dyn Fn(&Ty) -> Vec<String>,
    has_trait: bool,
    client: &str,
) -> Method {
    let params = arguments(method, is_copy);
    let base = names::pascal(&method.name);
    let responses = (!method.responses.is_empty()).then(|| response_enum(method, &base));
    let errors = (!method.errors.is_empty()).then(|| error_enum(method, &base));
    let mut headers = (!method.response_headers.is_empty()).then(|| headers_struct(method, &base));
    let stream = method.returns_as == checked::ReturnsEncoding::Stream;
    let streamed = method
        .streamed
        .as_ref()
        .map(|s| streamed(method, s, keys_of));
    let one_body = responses.is_none() && headers.is_none() && streamed.is_none();
    let json_value = one_body.then(|| json_value(method)).flatten();
    let (returns, decode) = match &streamed {
        Some(streamed) => streamed.returns(),
        None => result(method, responses.as_ref(), headers.as_mut()),
    };
    let verb = method.verb.as_str();
    let doc = method_doc(method, verb);
    let locals = Locals::avoiding(&params);
    let named = method.named.then(|| named_call(&params, &base));
    let args = params
        .iter()
        .filter(|p| !p.named)
        .map(|p| (p.name.clone(), p.ty.clone()))
        .collect();
    let call_fn = match named {
        Some(_) => names::snake(&format!("{}_with", method.name)),
        None => names::snake(&method.name),
    };
    let name = names::snake(&method.name);
    let link = |owner: &str| match name.strip_prefix("r#") {
        Some(bare) => format!("`{owner}::{bare}`"),
        None => format!("[`{owner}::{name}`]"),
    };
    Method {
        link: link(client),
        self_link: link("Self"),
        name,
        spec_const: names::shouty(&method.name),
        spec_name: method.name.clone(),
        doc,
        verb,
        path: method.path.clone(),
        idempotent: method.idempotent,
        not_found_none: method.not_found_none,
        profile: profile_yaml(method.profile.clone()),
        locals,
        params,
        call_fn,
        args,
        named,
        json_value,
        returns,
        decode,
        responses,
        errors,
        headers,
        paging: method.paginate.as_ref().map(|p| paging(method, p)),
        stream,
        streamed,
        content_type: method.body.as_ref().and_then(|b| b.content_type.clone()),
        idempotency_key: method.idempotency_key.clone(),
        // A fallback answers a call; a stream is handed over as it comes.
        fallback: has_trait && method.fallback && !stream,
    }
}

/// The type of the one JSON value a method answers with, what its stub's `returns` takes: `None`
/// for an answer that is no JSON document (nothing, bytes, text, a byte stream).
fn json_value(method: &checked::Method) -> Option<String> {
    let json = !method.returns.is_unit()
        && !method.returns.is_bytes()
        && !matches!(
            method.returns_as,
            checked::ReturnsEncoding::Text | checked::ReturnsEncoding::Stream
        );
    json.then(|| method.returns.render())
}

/// The struct of a method's typed response headers (its body is filled in later).
fn headers_struct(method: &checked::Method, base: &str) -> HeadersStruct {
    HeadersStruct {
        doc: format!(" The response headers of `{}`.", method.name),
        name: format!("{base}Headers"),
        fields: method
            .response_headers
            .iter()
            .map(|p| (names::snake(&p.key), p.wire.clone(), p.ty.render()))
            .collect(),
        body: String::new(),
        body_decode: String::new(),
    }
}

impl StreamedIr {
    /// The method's result type, and no decoder: the stream decodes each item.
    fn returns(&self) -> (String, String) {
        let wrapper = if self.lines { "Lines" } else { "Events" };
        (format!("remcall::{wrapper}<{}>", self.item), String::new())
    }
}

/// A stream's call and decoder, and the enum of its events by name when the spec maps them.
fn streamed(
    method: &checked::Method,
    streamed: &checked::Streamed,
    keys_of: &dyn Fn(&Ty) -> Vec<String>,
) -> StreamedIr {
    let text = method.returns.bare() == Some("String");
    let how = |ty: &Ty| {
        if ty.bare() == Some("String") {
            "text"
        } else {
            "json"
        }
    };
    let cases = (!streamed.events.is_empty()).then(|| {
        let name = method.returns.render();
        let variants: Vec<_> = streamed
            .events
            .iter()
            .map(|case| {
                (
                    case.variant.clone(),
                    case.name.clone(),
                    case.ty.render(),
                    how(&case.ty),
                )
            })
            .collect();
        let taken: Vec<String> = variants.iter().map(|v| v.0.clone()).collect();
        EventEnum {
            doc: format!(" The events of `{}`, by their `event:` name.", method.name),
            open: names::unique_among("Other", "", &taken),
            name,
            variants,
        }
    });
    let decoder = match (&cases, streamed.lines, text) {
        (Some(cases), _, _) => format!("{}::from_event", cases.name),
        (None, true, true) => "remcall::__codegen::line_text".to_owned(),
        (None, true, false) => "remcall::__codegen::line_json".to_owned(),
        (None, false, true) => "remcall::__codegen::event_text".to_owned(),
        (None, false, false) => "remcall::__codegen::event_json".to_owned(),
    };
    StreamedIr {
        call: if streamed.lines {
            "call_lines"
        } else {
            "call_events"
        },
        decoder,
        lines: streamed.lines,
        item: method.returns.render(),
        end: streamed.end.clone(),
        error: streamed
            .error
            .as_ref()
            .map(|error| error_events(error, keys_of)),
        cases,
    }
}

/// The runtime's `ErrorEvents` for a stream's declared error events: their type, `event:` name
/// and declared keys, the text Debug-quoted (Rust literals).
fn error_events(
    error: &checked::ErrorEvents,
    keys_of: &dyn Fn(&Ty) -> Vec<String>,
) -> ErrorEventsIr {
    let keys: Vec<String> = keys_of(&error.ty)
        .iter()
        .map(|key| format!("{key:?}"))
        .collect();
    let event = match &error.event {
        Some(event) => format!("Some({event:?})"),
        None => "None".to_owned(),
    };
    ErrorEventsIr {
        expr: format!(
            "remcall::__codegen::ErrorEvents::of::<{}>({event}, &[{}])",
            error.ty.render(),
            keys.join(", ")
        ),
        ty: error.ty.render(),
        event: error.event.clone(),
    }
}

/// The method's arguments: path parameters in template order, then query, headers, body.
fn arguments(method: &checked::Method, is_copy: &dyn Fn(&str) -> bool) -> Vec<Param> {
    let param = |p: &checked::Param, call: ParamCall| Param {
        name: names::snake(&p.key),
        ty: p.ty.argument(is_copy),
        owned: p.ty.render(),
        call,
        value: p.ty.inner("Option").unwrap_or(&p.ty).clone(),
        // A header's name as it goes out (HTTP/1.1 and 2 send them lowercase): the runtime
        // uses a lowercase `&'static str` in place, where any other is parsed and copied on
        // every call.
        wire: Some(if call == ParamCall::Header {
            p.wire.to_ascii_lowercase()
        } else {
            p.wire.clone()
        }),
        doc: p
            .doc
            .as_ref()
            .filter(|d| !repeats(d, &p.key))
            .map(|d| one_line_doc(d))
            .into_iter()
            .collect(),
        named: method.named && call != ParamCall::Path && p.ty.inner("Option").is_some(),
        sets: None,
    };
    let query_call = |p: &checked::Param| match p.style {
        QueryWriting::Pairs => ParamCall::Query,
        QueryWriting::Object => ParamCall::QueryObject,
        QueryWriting::Deep => ParamCall::QueryDeep,
        QueryWriting::Comma => ParamCall::QueryCsv,
    };
    // Path parameters in template order, then query, headers, body.
    let mut params: Vec<Param> = method
        .path_params
        .iter()
        .map(|p| param(p, ParamCall::Path))
        .chain(method.query.iter().map(|p| param(p, query_call(p))))
        .chain(method.headers.iter().map(|p| param(p, ParamCall::Header)))
        .collect();
    if let Some(body) = &method.body {
        let call = match body.encoding {
            BodyEncoding::Json if body.ty.is_bytes() => ParamCall::Bytes,
            BodyEncoding::Json => ParamCall::Json,
            BodyEncoding::Form => ParamCall::Form,
            BodyEncoding::Multipart => ParamCall::Multipart,
            BodyEncoding::Text => ParamCall::Text,
            BodyEncoding::Bytes => ParamCall::Bytes,
        };
        params.push(Param {
            name: "body".to_owned(),
            ty: body.ty.argument(is_copy),
            owned: body.ty.render(),
            call,
            value: body.ty.clone(),
            wire: None,
            doc: Vec::new(),
            named: false,
            sets: (call == ParamCall::Json && !body.sets.is_empty()).then(|| {
                // Debug-quoted: a key and its JSON text, as Rust literals.
                let sets: Vec<String> = body
                    .sets
                    .iter()
                    .map(|(key, json)| format!("({key:?}, {json:?})"))
                    .collect();
                format!("&[{}]", sets.join(", "))
            }),
        });
    }
    params
}

/// A doc text as one line, with its leading space.
fn one_line_doc(text: &str) -> String {
    format!(
        " {}",
        comment_text(&text.split_whitespace().collect::<Vec<_>>().join(" "))
    )
}

/// What a call's own methods are named: an optional parameter's setter of the name gets a `_`.
const CALL_OWN: &[&str] = &["send", "stream", "into_future"];

/// A named method's options struct and call, named after the method (made unique later).
fn named_call(params: &[Param], base: &str) -> NamedCall {
    let fields = params
        .iter()
        .filter(|p| p.named)
        .map(|p| {
            let inner = p.value.render();
            let into = p.value.bare() == Some("String") || p.value.inner("Vec").is_some();
            let mut doc = p.doc.clone();
            if doc.is_empty() {
                let place = if p.call == ParamCall::Header {
                    "header"
                } else {
                    "query parameter"
                };
                // The wire name only where it says more than the field's own name.
                let wire = p.wire.as_deref().unwrap_or_default();
                if wire == p.name.trim_start_matches("r#") {
                    doc.push(format!(" A {place}."));
                } else {
                    doc.push(format!(" Sent as the `{}` {place}.", comment_text(wire)));
                }
            }
            OptionField {
                name: p.name.clone(),
                setter: if CALL_OWN.contains(&p.name.as_str()) {
                    format!("{}_", p.name)
                } else {
                    p.name.clone()
                },
                ty: p.owned.clone(),
                takes: if into { format!("into {inner}") } else { inner },
                doc,
            }
        })
        .collect();
    NamedCall {
        options: format!("{base}Options"),
        call: format!("{base}Call"),
        // The call holds them as long as it lives: one lifetime for all.
        required: params
            .iter()
            .filter(|p| !p.named)
            .map(|p| (p.name.clone(), p.ty.replace('&', "&'a ")))
            .collect(),
        fields,
    }
}

/// Gives every named method's options struct and call a name no other item of the module has
/// (a declared `ListUsersCall`, say): a `_` until it is free.
pub(super) fn name_calls(methods: &mut [Method], types: &[TypeDecl], client: &str) {
    let mut taken: HashSet<String> = types.iter().map(|t| t.name.clone()).collect();
    taken.insert(client.to_owned());
    for method in methods.iter() {
        let generated = [
            method.responses.as_ref().map(|r| &r.name),
            method.errors.as_ref().map(|e| &e.name),
            method.headers.as_ref().map(|h| &h.name),
        ];
        taken.extend(generated.into_iter().flatten().cloned());
    }
    for named in methods.iter_mut().filter_map(|m| m.named.as_mut()) {
        for name in [&mut named.options, &mut named.call] {
            while !taken.insert(name.clone()) {
                name.push('_');
            }
        }
    }
}

/// The method's result type and the decoder that reads it: a response enum's, the declared
/// body's (`None` for a 404 with `not_found: none`), nothing for a stream; with declared response
/// headers, both together through the headers struct, which learns the body's type and decoder.
fn result(
    method: &checked::Method,
    responses: Option<&ResponseEnum>,
    headers: Option<&mut HeadersStruct>,
) -> (String, String) {
    let (body_type, decode) = match responses {
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
    match headers {
        Some(h) => {
            let returns = format!("remcall::WithHeaders<{body_type}, {}>", h.name);
            let named = format!("{}::decode", h.name);
            h.body = body_type;
            h.body_decode = decode;
            (returns, named)
        }
        None => (body_type, decode),
    }
}

/// The method's rustdoc: its own, its request line, and its documented arguments.
fn method_doc(method: &checked::Method, verb: &str) -> Vec<String> {
    let mut doc = item_doc(method.doc.as_ref(), &method.name);
    if !doc.is_empty() {
        doc.push(String::new());
    }
    doc.push(format!(" `{verb} {}`", comment_text(&method.path)));
    // Arguments have no rustdoc of their own: the documented ones are listed on the method.
    let documented: Vec<(String, &String)> = method
        .path_params
        .iter()
        .chain(&method.query)
        .chain(&method.headers)
        .filter_map(|p| {
            let doc = p.doc.as_ref().filter(|d| !repeats(d, &p.key))?;
            Some((names::snake(&p.key), doc))
        })
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
            doc.push(format!(
                " - `{}`:{}",
                name.trim_start_matches("r#"),
                one_line_doc(text)
            ));
        }
    }
    doc
}

/// A paginated method's stream and paging static.
fn paging(method: &checked::Method, p: &checked::Pagination) -> PagingIr {
    use checked::NextPage;
    let list = |path: &[String]| {
        let items: Vec<String> = path.iter().map(|s| format!("{s:?}")).collect();
        format!("&[{}]", items.join(", "))
    };
    let maybe = |path: &Option<Vec<String>>| {
        path.as_ref()
            .map_or("None".to_owned(), |p| format!("Some({})", list(p)))
    };
    let next = match &p.next {
        NextPage::ItemCursor {
            param,
            field,
            has_more,
        } => format!(
            "ItemCursor {{ param: {param:?}, field: {}, has_more: {} }}",
            list(field),
            maybe(has_more)
        ),
        NextPage::BodyCursor { param, field } => {
            format!("BodyCursor {{ param: {param:?}, field: {} }}", list(field))
        }
        NextPage::BodyUrl { field } => format!("BodyUrl {{ field: {} }}", list(field)),
        NextPage::LinkHeader { rel } => format!("LinkHeader {{ rel: {rel:?} }}"),
        NextPage::HeaderUrl { header } => format!("HeaderUrl {{ header: {header:?} }}"),
        NextPage::Offset {
            param,
            limit,
            total,
        } => format!(
            "Offset {{ param: {param:?}, limit: {limit:?}, total: {} }}",
            maybe(total)
        ),
        NextPage::PageNumber {
            param,
            first,
            limit,
            total_pages,
            current,
        } => format!(
            "PageNumber {{ param: {param:?}, first: {first}, limit: {limit:?}, total_pages: {}, current: {} }}",
            maybe(total_pages),
            maybe(current)
        ),
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
            let (name, pattern, written, answer) = match matched {
                StatusMatch::Exact(code) => (
                    names::status_variant(*code),
                    code.to_string(),
                    code.to_string(),
                    *code,
                ),
                StatusMatch::Class(4) => (
                    "ClientError".to_owned(),
                    "400..=499".to_owned(),
                    "4XX".to_owned(),
                    400,
                ),
                StatusMatch::Class(class) => (
                    "ServerError".to_owned(),
                    format!("{class}00..={class}99"),
                    format!("{class}XX"),
                    *class * 100,
                ),
                StatusMatch::Default => (
                    "Other".to_owned(),
                    "_".to_owned(),
                    "default".to_owned(),
                    500,
                ),
            };
            ErrorVariant {
                name,
                pattern,
                written,
                payload: ty.render(),
                answer,
            }
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

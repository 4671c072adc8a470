//! What a method answers: its result type and decoder, and the response enum, error enum and
//! headers struct it names.

use crate::checked;
use crate::names;
use crate::types::Ty;

use super::super::{ErrorEnum, ErrorRead, ErrorVariant, HeadersStruct, ResponseEnum};
use crate::spec::model::ReturnsEncoding;

/// The method's result type and the decoder that reads it: a response enum's, the declared
/// body's (`None` for a 404 with `not_found: none`), nothing for a stream; with declared response
/// headers, both together through the headers struct, which learns the body's type and decoder.
pub(super) fn result(
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

/// The enum of a method's success shapes: one variant per status, named by its reason phrase.
pub(super) fn response_enum(method: &checked::Method, base: &str) -> ResponseEnum {
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
pub(super) fn error_enum(method: &checked::Method, base: &str) -> ErrorEnum {
    use checked::StatusMatch;
    let mut entries: Vec<&checked::ErrorBody> = method.errors.iter().collect();
    entries.sort_by_key(|error| match error.matched {
        StatusMatch::Exact(_) => 0,
        StatusMatch::Class(_) => 1,
        StatusMatch::Default => 2,
    });
    let variants = entries
        .iter()
        .map(|error| {
            let (name, pattern, written, answer) = match error.matched {
                StatusMatch::Exact(code) => (
                    names::status_variant(code),
                    code.to_string(),
                    code.to_string(),
                    code,
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
                    class * 100,
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
                payload: error.ty.render(),
                answer,
                read: match error.read {
                    ReturnsEncoding::Text => ErrorRead::Text,
                    ReturnsEncoding::Bytes => ErrorRead::Bytes,
                    _ => ErrorRead::Json,
                },
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
            .any(|error| error.matched == StatusMatch::Default),
        variants,
        shared: None,
    }
}

/// The struct of a method's typed response headers (its body is filled in later).
pub(super) fn headers_struct(method: &checked::Method, base: &str) -> HeadersStruct {
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

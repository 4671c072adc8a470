//! A method's arguments: their types, borrowed forms and wire names, and a named method's
//! options struct and call.

use std::collections::HashSet;

use crate::checked::{self, BodyEncoding, QueryWriting};
use crate::names;

use super::super::docs::{comment_text, repeats};
use super::super::{Method, NamedCall, OptionField, Param, ParamCall, TypeDecl};

/// The method's arguments: path parameters in template order, then query, headers, body.
pub(super) fn arguments(method: &checked::Method, is_copy: &dyn Fn(&str) -> bool) -> Vec<Param> {
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
pub(super) fn one_line_doc(text: &str) -> String {
    format!(
        " {}",
        comment_text(&text.split_whitespace().collect::<Vec<_>>().join(" "))
    )
}

/// What a call's own methods are named: an optional parameter's setter of the name gets a `_`.
const CALL_OWN: &[&str] = &["send", "stream", "into_future"];

/// A named method's options struct and call, named after the method (made unique later).
pub(super) fn named_call(params: &[Param], base: &str) -> NamedCall {
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
                // The wire name only where it says more than the field's own name; otherwise
                // nothing: "A query parameter." on every field told a reader nothing.
                let wire = p.wire.as_deref().unwrap_or_default();
                if wire != p.name.trim_start_matches("r#") {
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
/// (a declared `ListUsersCall`, say): a `_` until it is free. Returns the names the module's
/// types, methods' types and calls take.
pub(in crate::ir) fn name_calls(
    methods: &mut [Method],
    types: &[TypeDecl],
    client: &str,
) -> HashSet<String> {
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
    taken
}

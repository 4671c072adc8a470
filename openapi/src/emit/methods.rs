//! A method's entry of the spec: its request, parameters, body, answers, pages and stream.

use serde_yaml::{Mapping, Value as Yaml};

use super::profile::profile;
use super::values::{pairs, put_doc, ty};
use crate::spec::{BodyOut, MethodOut, Paginate, ParamOut, Style};
use crate::ty::Encoding;

pub(super) fn method_value(method: &MethodOut) -> Yaml {
    let mut out = Mapping::new();
    put_doc(&mut out, method.doc.as_deref());
    out.insert("request".into(), method.request.to_string().into());
    for (section, params) in [
        ("path", &method.path),
        ("query", &method.query),
        ("headers", &method.headers),
    ] {
        if params.is_empty() {
            continue;
        }
        let mut listed = Mapping::new();
        for param in params {
            listed.insert(param.key.as_str().into(), param_value(param));
        }
        out.insert(section.into(), listed.into());
    }
    if let Some(body) = &method.body {
        out.insert("body".into(), body_value(body));
    }
    if !method.body_sets.is_empty() {
        let sets = method
            .body_sets
            .iter()
            .map(|(key, value)| (key.as_str(), Yaml::from(*value)));
        out.insert("body_sets".into(), pairs(sets));
    }
    if let Some(stream) = &method.stream {
        out.insert("returns".into(), stream_value(&method.name, stream));
    }
    match &method.returns {
        Some((returned, Encoding::Json)) => {
            out.insert("returns".into(), ty(returned));
        }
        Some((returned, encoding)) => {
            let returns = pairs([("type", ty(returned)), ("as", encoding.word().into())]);
            out.insert("returns".into(), returns);
        }
        None => {}
    }
    if !method.responses.is_empty() {
        let mut responses = Mapping::new();
        for (status, returned) in &method.responses {
            responses.insert(u64::from(*status).into(), ty(returned));
        }
        out.insert("responses".into(), responses.into());
    }
    if !method.errors.is_empty() {
        let mut errors = Mapping::new();
        for (status, error, encoding) in &method.errors {
            let value = match encoding {
                Encoding::Text => pairs([("type", ty(error)), ("as", encoding.word().into())]),
                _ => ty(error),
            };
            errors.insert(status.spec_key().into(), value);
        }
        out.insert("errors".into(), errors.into());
    }
    if let Some(own) = &method.profile {
        out.insert("config".into(), profile(own));
    }
    if let Some(header) = &method.idempotency_key {
        out.insert("idempotency_key".into(), header.as_str().into());
    }
    if method.safe {
        out.insert("safe".into(), true.into());
    }
    if let Some(paginate) = &method.paginate {
        out.insert("paginate".into(), paginate_value(paginate));
    }
    out.into()
}

/// A method's `paginate:` entry.
fn paginate_value(paginate: &Paginate) -> Yaml {
    let text = |s: &String| Yaml::from(s.as_str());
    match paginate {
        Paginate::LinkHeader => pairs([("link_header", "next".into())]),
        Paginate::HeaderUrl { items, header } => {
            with_items(items.as_ref(), "next_url_header", text(header))
        }
        Paginate::NextUrl { items, next } => {
            pairs([("items", text(items)), ("next_url", text(next))])
        }
        Paginate::Cursor { items, param, from } => {
            let cursor = pairs([("param", text(param)), ("from", text(from))]);
            with_items(Some(items), "cursor", cursor)
        }
        Paginate::ItemCursor {
            items,
            param,
            field,
            has_more,
        } => {
            let cursor = pairs([
                ("param", text(param)),
                ("from_item", text(field)),
                ("has_more", text(has_more)),
            ]);
            with_items(Some(items), "cursor", cursor)
        }
        Paginate::Offset {
            items,
            param,
            limit,
            total,
        } => {
            let offset = present([
                ("param", Some(text(param))),
                ("limit", limit.as_ref().map(text)),
                ("total", total.as_ref().map(text)),
            ]);
            with_items(items.as_ref(), "offset", offset)
        }
        Paginate::PageNumber {
            items,
            param,
            first,
            limit,
            total_pages,
            total,
            current,
        } => {
            let page = present([
                ("param", Some(text(param))),
                ("first", first.map(Yaml::from)),
                ("limit", limit.as_ref().map(text)),
                ("total_pages", total_pages.as_ref().map(text)),
                ("total", total.as_ref().map(text)),
                ("current", current.as_ref().map(text)),
            ]);
            with_items(items.as_ref(), "page_number", page)
        }
    }
}

/// `{ items, <key>: inner }`, without `items` when the page is the list.
fn with_items(items: Option<&String>, key: &str, inner: Yaml) -> Yaml {
    let mut out = Mapping::new();
    if let Some(items) = items {
        out.insert("items".into(), items.as_str().into());
    }
    out.insert(key.into(), inner);
    Yaml::Mapping(out)
}

/// A mapping of the entries that have a value, in order.
fn present<const N: usize>(entries: [(&str, Option<Yaml>); N]) -> Yaml {
    pairs(
        entries
            .into_iter()
            .filter_map(|(key, value)| Some((key, value?))),
    )
}

fn param_value(param: &ParamOut) -> Yaml {
    let plain = param.wire.is_none() && param.doc.is_none() && param.style == Style::Exploded;
    if plain {
        return ty(&param.ty);
    }
    let mut out = Mapping::new();
    out.insert("type".into(), ty(&param.ty));
    if let Some(wire) = &param.wire {
        out.insert("name".into(), wire.as_str().into());
    }
    match param.style {
        Style::Deep => out.insert("style".into(), "deep_object".into()),
        Style::Comma => out.insert("explode".into(), false.into()),
        Style::Exploded => None,
    };
    put_doc(&mut out, param.doc.as_deref());
    out.into()
}

fn body_value(body: &BodyOut) -> Yaml {
    if body.encoding == Encoding::Json
        && body.content_type.is_none()
        && body.doc.is_none()
        && !body.on_get
    {
        return ty(&body.ty);
    }
    let mut out = Mapping::new();
    out.insert("type".into(), ty(&body.ty));
    if body.encoding != Encoding::Json {
        out.insert("as".into(), body.encoding.word().into());
    }
    if let Some(content_type) = &body.content_type {
        out.insert("content_type".into(), content_type.as_str().into());
    }
    if body.on_get {
        out.insert("allow_on_get".into(), true.into());
    }
    put_doc(&mut out, body.doc.as_deref());
    out.into()
}

/// A mapping of `entries`, in their order.
/// `returns: { type, as: events | lines, end, events }`; events by name generate the enum
/// `<Method>Event`.
fn stream_value(method: &str, stream: &crate::spec::StreamOut) -> Yaml {
    let how = stream.kind.word();
    let mut out = Mapping::new();
    if stream.events.is_empty() {
        out.insert("type".into(), ty(&stream.item));
    } else {
        out.insert("type".into(), crate::names::events_enum(method).into());
    }
    out.insert("as".into(), how.into());
    if let Some(end) = &stream.end {
        out.insert("end".into(), end.as_str().into());
    }
    if !stream.events.is_empty() {
        let mut events = Mapping::new();
        for (name, data) in &stream.events {
            events.insert(name.as_str().into(), ty(data));
        }
        out.insert("events".into(), events.into());
    }
    match &stream.error {
        Some((error, Some(event))) => {
            let error = pairs([("type", ty(error)), ("event", event.as_str().into())]);
            out.insert("error".into(), error);
        }
        Some((error, None)) => {
            out.insert("error".into(), ty(error));
        }
        None => {}
    }
    out.into()
}

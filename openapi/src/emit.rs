//! The spec as YAML: block style, keys in a fixed order, every scalar quoted unless it is plainly
//! a word, so the same description always gives the same bytes and the output reads like a spec
//! written by hand.

use crate::doc_text::for_rustdoc;
use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use crate::names;
use crate::spec::{Auth, BodyOut, FieldOut, MethodOut, Paginate, ParamOut, Profile, Spec, TypeOut};
use crate::ty::{Encoding, Ty};

/// The spec's text.
pub(crate) fn yaml(spec: &Spec, source: &Path) -> String {
    let mut out = String::new();
    let name = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "# Imported from {} by `remcall import`.",
        one_line(&name)
    );
    let _ = writeln!(out, "# {}.", spec.summary);
    for (operation, reason) in &spec.summary.skipped {
        let _ = writeln!(
            out,
            "# skipped {}: {}",
            one_line(operation),
            one_line(reason)
        );
    }
    for note in &spec.summary.notes {
        let _ = writeln!(out, "# note: {}", one_line(&note.to_string()));
    }
    let _ = writeln!(out, "client: {}", scalar(&spec.client));
    if let Some(doc) = &spec.doc {
        write_doc(&mut out, 0, doc);
    }
    if let Some(url) = &spec.base_url {
        let _ = writeln!(out, "base_url: {}", scalar(url));
    }
    let profile = &spec.profile;
    if !profile.is_empty() {
        out.push_str("config: main\nconfigs:\n  main:\n");
        write_profile(&mut out, 4, profile);
    }
    if !spec.types.is_empty() {
        out.push_str("\ntypes:\n");
        for (name, ty) in &spec.types {
            write_type(&mut out, name, ty);
        }
    }
    out.push_str("\nmethods:");
    if spec.methods.is_empty() {
        out.push_str(" {}\n");
    } else {
        out.push('\n');
        for method in &spec.methods {
            write_method(&mut out, method);
        }
    }
    out
}

/// A profile's credentials, `indent` spaces in.
fn write_profile(out: &mut String, indent: usize, profile: &Profile) {
    let pad = " ".repeat(indent);
    match &profile.auth {
        Some(Auth::Bearer(token)) => {
            let _ = writeln!(
                out,
                "{pad}auth: {{ bearer: {{ token: {} }} }}",
                scalar(token)
            );
        }
        Some(Auth::Basic(user, password)) => {
            let _ = writeln!(
                out,
                "{pad}auth: {{ basic: {{ username: {}, password: {} }} }}",
                scalar(user),
                scalar(password)
            );
        }
        Some(Auth::OAuth2 {
            token_url,
            client_id,
            client_secret,
            scopes,
        }) => {
            let _ = writeln!(out, "{pad}auth:\n{pad}  oauth2:");
            let _ = writeln!(out, "{pad}    token_url: {}", scalar(token_url));
            let _ = writeln!(out, "{pad}    client_id: {}", scalar(client_id));
            let _ = writeln!(out, "{pad}    client_secret: {}", scalar(client_secret));
            if !scopes.is_empty() {
                let listed: Vec<String> = scopes.iter().map(|s| scalar(s)).collect();
                let _ = writeln!(out, "{pad}    scopes: [{}]", listed.join(", "));
            }
        }
        None => {}
    }
    for (key, secrets) in [("headers", &profile.headers), ("query", &profile.query)] {
        if secrets.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{pad}{key}:");
        for (name, value) in secrets {
            let _ = writeln!(
                out,
                "{pad}  {}: {{ value: {}, secret: true }}",
                scalar(name),
                scalar(value)
            );
        }
    }
}

fn write_type(out: &mut String, name: &str, definition: &TypeOut) {
    let _ = writeln!(out, "  {name}:");
    match definition {
        TypeOut::Struct(s) => {
            if let Some(doc) = &s.doc {
                write_doc(out, 4, doc);
            }
            if !s.all_of.is_empty() {
                let _ = writeln!(out, "    all_of: [{}]", s.all_of.join(", "));
            }
            if s.fields.is_empty() {
                out.push_str("    fields: {}\n");
            } else {
                out.push_str("    fields:\n");
                for field in &s.fields {
                    write_field(out, field);
                }
            }
            if let Some(values) = &s.additional {
                let _ = writeln!(out, "    additional_properties: {}", ty(values));
            }
        }
        TypeOut::Enum(e) => {
            if let Some(doc) = &e.doc {
                write_doc(out, 4, doc);
            }
            let values = variant_names(&e.values);
            if values
                .iter()
                .all(|(_, name, doc)| name.is_none() && doc.is_none())
            {
                let values: Vec<String> = values.iter().map(|(v, _, _)| json_scalar(v)).collect();
                let _ = writeln!(out, "    enum: [{}]", values.join(", "));
            } else {
                out.push_str("    enum:\n");
                for (value, name, doc) in &values {
                    let _ = write!(out, "      - {{ value: {}", json_scalar(value));
                    if let Some(name) = name {
                        let _ = write!(out, ", name: {name}");
                    }
                    if let Some(doc) = doc {
                        let _ = write!(
                            out,
                            ", doc: {}",
                            serde_json::to_string(&one_line(&for_rustdoc(
                                &crate::markdown::from_html(doc)
                            )))
                            .unwrap_or_default()
                        );
                    }
                    out.push_str(" }\n");
                }
            }
            // A server that adds a value must not break the client.
            out.push_str("    open: true\n");
        }
        TypeOut::Union(u) => {
            if let Some(doc) = &u.doc {
                write_doc(out, 4, doc);
            }
            let alternatives: Vec<String> = u.alternatives.iter().map(ty).collect();
            let _ = writeln!(out, "    one_of: [{}]", alternatives.join(", "));
            if let Some(tag) = &u.tag {
                let _ = writeln!(out, "    tag: {}", scalar(tag));
                if !u.mapping.is_empty() {
                    out.push_str("    mapping:\n");
                    for (value, ty) in &u.mapping {
                        let _ = writeln!(out, "      {}: {}", scalar(value), scalar(ty));
                    }
                }
            }
        }
    }
}

/// One struct field: `key: type` when that is all it says, else a map of what it says.
fn write_field(out: &mut String, field: &FieldOut) {
    let plain = field.doc.is_none()
        && field.rename.is_none()
        && !field.required_null
        && field.constant.is_none();
    if plain {
        let _ = writeln!(out, "      {}: {}", field.key, ty(&field.ty));
        return;
    }
    let _ = writeln!(out, "      {}:", field.key);
    let _ = writeln!(out, "        type: {}", ty(&field.ty));
    if let Some(rename) = &field.rename {
        let _ = writeln!(out, "        rename: {}", scalar(rename));
    }
    if field.required_null {
        out.push_str("        required: true\n");
    }
    if let Some(constant) = &field.constant {
        let _ = writeln!(out, "        const: {}", json_scalar(constant));
    }
    if let Some(doc) = &field.doc {
        write_doc(out, 8, doc);
    }
}

fn write_method(out: &mut String, method: &MethodOut) {
    let _ = writeln!(out, "  {}:", method.name);
    if let Some(doc) = &method.doc {
        write_doc(out, 4, doc);
    }
    let _ = writeln!(out, "    request: {}", scalar(&method.request));
    for (section, params) in [
        ("path", &method.path),
        ("query", &method.query),
        ("headers", &method.headers),
    ] {
        if params.is_empty() {
            continue;
        }
        let _ = writeln!(out, "    {section}:");
        for param in params {
            write_param(out, param);
        }
    }
    if let Some(body) = &method.body {
        write_body(out, body);
    }
    match &method.returns {
        Some((returned, Encoding::Json)) => {
            let _ = writeln!(out, "    returns: {}", ty(returned));
        }
        Some((returned, encoding)) => {
            let _ = writeln!(
                out,
                "    returns: {{ type: {}, as: {} }}",
                ty(returned),
                encoding.word()
            );
        }
        None => {}
    }
    if !method.responses.is_empty() {
        out.push_str("    responses:\n");
        for (status, returned) in &method.responses {
            let _ = writeln!(out, "      {status}: {}", ty(returned));
        }
    }
    if !method.errors.is_empty() {
        out.push_str("    errors:\n");
        for (status, error) in &method.errors {
            let _ = writeln!(out, "      {}: {}", scalar(status), ty(error));
        }
    }
    if let Some(profile) = &method.profile {
        out.push_str("    config:\n");
        write_profile(out, 6, profile);
    }
    if let Some(header) = &method.idempotency_key {
        let _ = writeln!(out, "    idempotency_key: {}", scalar(header));
    }
    match &method.paginate {
        Some(Paginate::LinkHeader) => out.push_str("    paginate: { link_header: next }\n"),
        Some(Paginate::NextUrl { items, next }) => {
            let _ = writeln!(out, "    paginate: {{ items: {items}, next_url: {next} }}");
        }
        Some(Paginate::Cursor { items, param, from }) => {
            let _ = writeln!(
                out,
                "    paginate: {{ items: {items}, cursor: {{ param: {param}, from: {from} }} }}"
            );
        }
        Some(Paginate::ItemCursor {
            items,
            param,
            field,
            has_more,
        }) => {
            let _ = writeln!(
                out,
                "    paginate: {{ items: {items}, cursor: {{ param: {param}, from_item: {field}, has_more: {has_more} }} }}"
            );
        }
        Some(Paginate::Offset {
            items,
            param,
            limit,
            total,
        }) => {
            let keys = [("limit", limit.as_ref()), ("total", total.as_ref())];
            let _ = writeln!(
                out,
                "    paginate: {{ {}offset: {{ param: {param}{} }} }}",
                items_key(items),
                optional_keys(&keys)
            );
        }
        Some(Paginate::PageNumber {
            items,
            param,
            first,
            limit,
            total_pages,
            current,
        }) => {
            let first = first.map(|n| n.to_string());
            let keys = [
                ("first", first.as_ref()),
                ("limit", limit.as_ref()),
                ("total_pages", total_pages.as_ref()),
                ("current", current.as_ref()),
            ];
            let _ = writeln!(
                out,
                "    paginate: {{ {}page_number: {{ param: {param}{} }} }}",
                items_key(items),
                optional_keys(&keys)
            );
        }
        None => {}
    }
}

/// `items: <path>, `, or nothing when the page is the list.
fn items_key(items: &str) -> String {
    if items.is_empty() {
        String::new()
    } else {
        format!("items: {items}, ")
    }
}

/// `, key: value` for each key that has a value.
fn optional_keys(keys: &[(&str, Option<&String>)]) -> String {
    keys.iter()
        .filter_map(|(key, value)| Some(format!(", {key}: {}", (*value)?)))
        .collect()
}

fn write_param(out: &mut String, param: &ParamOut) {
    let plain = param.wire.is_none() && param.doc.is_none() && !param.deep && !param.comma;
    if plain {
        let _ = writeln!(out, "      {}: {}", param.key, ty(&param.ty));
        return;
    }
    let _ = writeln!(out, "      {}:", param.key);
    let _ = writeln!(out, "        type: {}", ty(&param.ty));
    if let Some(wire) = &param.wire {
        let _ = writeln!(out, "        name: {}", scalar(wire));
    }
    if param.deep {
        out.push_str("        style: deep_object\n");
    } else if param.comma {
        out.push_str("        explode: false\n");
    }
    if let Some(doc) = &param.doc {
        write_doc(out, 8, doc);
    }
}

fn write_body(out: &mut String, body: &BodyOut) {
    if body.encoding == Encoding::Json
        && body.content_type.is_none()
        && body.doc.is_none()
        && !body.on_get
    {
        let _ = writeln!(out, "    body: {}", ty(&body.ty));
        return;
    }
    out.push_str("    body:\n");
    let _ = writeln!(out, "      type: {}", ty(&body.ty));
    if body.encoding != Encoding::Json {
        let _ = writeln!(out, "      as: {}", body.encoding.word());
    }
    if let Some(content_type) = &body.content_type {
        let _ = writeln!(out, "      content_type: {}", scalar(content_type));
    }
    if body.on_get {
        out.push_str("      allow_on_get: true\n");
    }
    if let Some(doc) = &body.doc {
        write_doc(out, 6, doc);
    }
}

/// `doc: |-` and the text, indented, its HTML written as Markdown rustdoc reads without a
/// warning; control characters other than line breaks and tabs go.
fn write_doc(out: &mut String, indent: usize, doc: &str) {
    let pad = " ".repeat(indent);
    let lines = doc.replace("\r\n", "\n").replace('\r', "\n");
    let cleaned: String = for_rustdoc(&crate::markdown::from_html(&lines))
        .chars()
        .filter(|c| !c.is_control() || *c == '\n')
        .map(|c| {
            if c == '\u{2028}' || c == '\u{2029}' {
                '\n'
            } else {
                c
            }
        })
        .collect();
    let lines: Vec<&str> = cleaned.trim().lines().map(str::trim_end).collect();
    if lines.len() == 1 {
        let _ = writeln!(out, "{pad}doc: {}", scalar(lines[0]));
        return;
    }
    let _ = writeln!(out, "{pad}doc: |-");
    for line in lines {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{pad}  {line}");
        }
    }
}

/// A string as a YAML scalar: plain when it is plainly a word or a type, else JSON-quoted
/// (which YAML reads as a double-quoted string).
pub(crate) fn scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '/')
        && text.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '<' | '>' | ' ' | ':')
        })
        && !text.contains(": ")
        && !text.ends_with(':')
        && !text.ends_with(' ')
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | "~"
        );
    if plain {
        text.to_owned()
    } else {
        serde_json::to_string(text).unwrap_or_default()
    }
}

/// An enum's values, with a variant name written where the generator's own would not do. The
/// generator names a value [`names::variant`] of it, made unique in order; an open enum keeps
/// unknown values in `Other`, so a value that would take that name is `OtherValue` here. The
/// same functions run here as there, so the names written are the ones it would check.
fn variant_names(values: &[crate::spec::EnumValue]) -> Vec<crate::spec::EnumValue> {
    let mut taken: Vec<String> = Vec::new();
    values
        .iter()
        .enumerate()
        .map(|(i, (value, name, doc))| {
            let wire = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let derived = names::unique_among(&names::variant(&wire, i), "", &taken);
            let mut chosen = match name {
                Some(name) => names::unique_among(name, "", &taken),
                None => derived.clone(),
            };
            if chosen == "Other" {
                chosen = names::unique_among("OtherValue", "", &taken);
            }
            taken.push(chosen.clone());
            let written = (name.is_some() || chosen != derived).then_some(chosen);
            (value.clone(), written, doc.clone())
        })
        .collect()
}

/// A type expression as a YAML scalar.
fn ty(ty: &Ty) -> String {
    scalar(&ty.to_string())
}

fn json_scalar(value: &Value) -> String {
    match value {
        Value::String(text) => serde_json::to_string(text).unwrap_or_default(),
        other => other.to_string(),
    }
}

fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

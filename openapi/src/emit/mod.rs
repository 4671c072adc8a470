//! The spec as YAML, written by construction: the spec is laid out as a YAML value tree (keys in
//! a fixed order) and the YAML emitter writes it, so every scalar a description supplied is
//! quoted and escaped as YAML needs and no text of a description can become a key, a comment
//! or a second document. The only text written by hand is the header of comments, each line
//! through [`crate::escape::one_line`], which leaves no line break of any kind in it.

use std::path::Path;

use serde_json::Value;
use serde_yaml::{Mapping, Value as Yaml};

use crate::escape::one_line;
use crate::names;
use crate::spec::{EnumValue, FieldOut, Spec, TypeOut};

mod methods;
mod profile;
mod values;
mod webhooks;

use methods::method_value;
use profile::profile;
use values::{doc_text, doc_value, json, pairs, put_doc, strings, ty};
use webhooks::webhooks_value;

/// The spec's text.
pub(crate) fn yaml(spec: &Spec, source: &Path) -> String {
    let name = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = format!("# Imported from {} by `remcall import`.\n", one_line(&name));
    if !spec.overlays.is_empty() {
        let overlays: Vec<String> = spec.overlays.iter().map(|o| one_line(o)).collect();
        out.push_str(&format!(
            "# With the overlays {}, applied in this order.\n",
            overlays.join(", ")
        ));
    }
    out.push_str(&format!("# {}.\n", spec.summary));
    for (operation, reason) in &spec.summary.skipped {
        out.push_str(&format!(
            "# skipped {}: {}\n",
            one_line(operation),
            one_line(reason)
        ));
    }
    for note in &spec.summary.notes {
        // A note's Display escapes what it quotes of the description.
        out.push_str(&format!("# note: {note}\n"));
    }

    let mut head = Mapping::new();
    head.insert("client".into(), spec.client.as_str().into());
    if let Some(doc) = &spec.doc {
        head.insert("doc".into(), doc_value(doc));
    }
    if let Some(url) = &spec.base_url {
        head.insert("base_url".into(), url.as_str().into());
    }
    if let Some(path) = &spec.base_path {
        head.insert("base_path".into(), path.as_str().into());
    }
    if !spec.profile.is_empty() {
        head.insert("config".into(), "main".into());
        let mut configs = Mapping::new();
        configs.insert("main".into(), profile(&spec.profile));
        head.insert("configs".into(), configs.into());
    }
    out.push_str(&emitted(head));

    if !spec.types.is_empty() {
        let mut types = Mapping::new();
        for (name, definition) in &spec.types {
            types.insert(name.as_str().into(), type_value(definition));
        }
        out.push('\n');
        out.push_str(&emitted(section("types", types)));
    }
    let mut methods = Mapping::new();
    for method in &spec.methods {
        methods.insert(method.name.as_str().into(), method_value(method));
    }
    out.push('\n');
    out.push_str(&emitted(section("methods", methods)));
    if !spec.webhooks.events.is_empty() {
        out.push('\n');
        out.push_str(&emitted(section(
            "webhooks",
            webhooks_value(&spec.webhooks),
        )));
    }
    out
}

/// A mapping's YAML text. The emitter cannot fail on a tree of strings, numbers, booleans,
/// sequences and mappings with string or number keys.
fn emitted(mapping: Mapping) -> String {
    serde_yaml::to_string(&Yaml::Mapping(mapping)).unwrap_or_default()
}

fn section(key: &str, value: Mapping) -> Mapping {
    let mut outer = Mapping::new();
    outer.insert(key.into(), value.into());
    outer
}

fn type_value(definition: &TypeOut) -> Yaml {
    let mut out = Mapping::new();
    match definition {
        TypeOut::Struct(s) => {
            put_doc(&mut out, s.doc.as_deref());
            if !s.all_of.is_empty() {
                out.insert("all_of".into(), strings(s.all_of.iter()));
            }
            let mut fields = Mapping::new();
            for field in &s.fields {
                fields.insert(field.key.as_str().into(), field_value(field));
            }
            out.insert("fields".into(), fields.into());
            if let Some(values) = &s.additional {
                out.insert("additional_properties".into(), ty(values));
            }
        }
        TypeOut::Enum(e) => {
            put_doc(&mut out, e.doc.as_deref());
            let values = variant_names(&e.values);
            let plain = values.iter().all(|v| v.name.is_none() && v.doc.is_none());
            let listed = values.iter().map(|EnumValue { value, name, doc }| {
                if plain {
                    return json(value);
                }
                let mut entry = Mapping::new();
                entry.insert("value".into(), json(value));
                if let Some(name) = name {
                    entry.insert("name".into(), name.as_str().into());
                }
                if let Some(doc) = doc {
                    // One line: a value's doc is a line of the enum's table.
                    let text = doc_text(doc).replace('\n', " ");
                    entry.insert("doc".into(), text.into());
                }
                entry.into()
            });
            out.insert("enum".into(), Yaml::Sequence(listed.collect()));
            // A server that adds a value must not break the client.
            out.insert("open".into(), true.into());
        }
        TypeOut::Union(u) => {
            put_doc(&mut out, u.doc.as_deref());
            let alternatives = u.alternatives.iter().enumerate().map(|(i, alternative)| {
                // An adjacently tagged union's alternatives are named: two may be one type.
                match u.variants.get(i) {
                    Some(variant) => {
                        pairs([("type", ty(alternative)), ("name", variant.as_str().into())])
                    }
                    None => ty(alternative),
                }
            });
            out.insert("one_of".into(), Yaml::Sequence(alternatives.collect()));
            if let Some(tag) = &u.tag {
                out.insert("tag".into(), tag.as_str().into());
                if let Some(content) = &u.content {
                    out.insert("content".into(), content.as_str().into());
                }
                if !u.mapping.is_empty() {
                    let mut mapping = Mapping::new();
                    for (value, ty) in &u.mapping {
                        mapping.insert(value.as_str().into(), ty.as_str().into());
                    }
                    out.insert("mapping".into(), mapping.into());
                }
            }
        }
    }
    out.into()
}

/// One struct field: its type alone when that is all it says, else a map of what it says.
fn field_value(field: &FieldOut) -> Yaml {
    let plain = field.doc.is_none()
        && field.rename.is_none()
        && !field.required_null
        && field.constant.is_none();
    if plain {
        return ty(&field.ty);
    }
    let mut out = Mapping::new();
    out.insert("type".into(), ty(&field.ty));
    if let Some(rename) = &field.rename {
        out.insert("rename".into(), rename.as_str().into());
    }
    if field.required_null {
        out.insert("required".into(), true.into());
    }
    if let Some(constant) = &field.constant {
        out.insert("const".into(), json(constant));
    }
    put_doc(&mut out, field.doc.as_deref());
    out.into()
}

/// An enum's values, with a variant name written where the generator's own would not do. The
/// generator names a value [`names::variant`] of it, made unique in order; an open enum keeps
/// unknown values in `Other`, so a value that would take that name is `OtherValue` here. The
/// same functions run here as there, so the names written are the ones it would check.
fn variant_names(values: &[EnumValue]) -> Vec<EnumValue> {
    let mut taken = names::Taken::default();
    values
        .iter()
        .enumerate()
        .map(|(i, EnumValue { value, name, doc })| {
            let wire = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let derived = taken.first_free(&names::variant(&wire, i), "");
            let mut chosen = match name {
                Some(name) => taken.first_free(name, ""),
                None => derived.clone(),
            };
            if chosen == "Other" {
                chosen = taken.first_free("OtherValue", "");
            }
            taken.insert(&chosen);
            let written = (name.is_some() || chosen != derived).then_some(chosen);
            EnumValue {
                value: value.clone(),
                name: written,
                doc: doc.clone(),
            }
        })
        .collect()
}

//! The render-ready form of a checked spec: names cased, types written out, each argument's
//! borrowed form decided, profiles written as the YAML the runtime reads. Values only: the Rust
//! syntax around them is the template's.

use crate::checked::{self, BodyEncoding, Fallback, Shape};

mod containment;
mod docs;
mod fits;
mod methods;
mod model;
mod params;
mod stubs;
mod tag_only;
mod types;
mod webhooks;

use containment::Containment;
pub(crate) use docs::comment_text;
use docs::doc_lines;
use methods::{lower_method, name_calls, name_statics_apart, share_error_enums};
pub use model::*;
pub use params::{Locals, Param, ParamCall};
pub use stubs::StubIr;
use types::{is_copy_type, lower_type};
pub use webhooks::Webhooks;

/// The client's types in render-ready form; a multipart body's struct knows its parts.
fn lower_types(client: &checked::Client, cycles: &Containment) -> Vec<TypeDecl> {
    let multipart_bodies: std::collections::HashSet<&str> = client
        .methods
        .iter()
        .filter_map(|m| m.body.as_ref())
        .filter(|b| b.encoding == BodyEncoding::Multipart)
        .filter_map(|b| b.ty.bare())
        .collect();
    let unneeded = tag_only::unneeded(client);
    client
        .types
        .iter()
        .filter(|decl| !unneeded.contains(&decl.name))
        .map(|decl| {
            let mut lowered = lower_type(decl, &client.types, cycles, client.rename_all.as_deref());
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
        .collect()
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
    let types = lower_types(client, &cycles);
    // The keys an error type declares: how a stream tells the server's error from an item.
    let keys_of = |ty: &crate::types::Ty| {
        fits::declared_keys(ty, &client.types, client.rename_all.as_deref())
    };
    let mut methods: Vec<Method> = client
        .methods
        .iter()
        .map(|method| lower_method(method, &is_copy, &keys_of, fallback_trait.is_some(), &name))
        .collect();
    let mut taken = name_calls(&mut methods, &types, &name);
    taken.extend([format!("{name}Builder"), format!("{name}Stub")]);
    taken.extend(fallback_trait.iter().cloned());
    let error_enums = share_error_enums(&mut methods, &mut taken);
    name_statics_apart(&mut methods);

    let mut doc = doc_lines(client.doc.as_ref());
    if doc.is_empty() {
        doc.push(format!(" The `{name}` HTTP client."));
    }
    let mut spec_static = "CLIENT_SPEC".to_owned();
    while methods.iter().any(|m| m.spec_const == spec_static) {
        spec_static.push('_');
    }
    let constants = constants(client);
    Client {
        constants,
        builder: format!("{name}Builder"),
        fallback_trait,
        default_fallback,
        doc,
        base_urls: client.base_urls.clone(),
        base_path: client.base_path.clone(),
        interceptors: client.interceptors.clone(),
        profile: ProfileYaml::of(client.profile.clone()),
        spec_static,
        stubs: client.stubs.then(|| stubs::lower(&name, &methods, &types)),
        webhooks: client
            .webhooks
            .as_ref()
            .map(|w| webhooks::lower(w, &client.types)),
        types,
        uses_decode: methods.iter().any(|m| {
            m.decode.starts_with("decode::") || m.responses.is_some() || m.headers.is_some()
        }),
        methods,
        error_enums,
        name,
    }
}

/// The marker types of constant fields, one per distinct value: (name, rustdoc, the runtime's
/// `Const` it writes and reads).
fn constants(client: &checked::Client) -> Vec<(String, String, String)> {
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
                    " `{}` is always `{}`: written so, read only so.",
                    comment_text(&field.key),
                    comment_text(&shown)
                );
                constants.push((marker.clone(), doc, written));
            }
        }
    }
    constants
}

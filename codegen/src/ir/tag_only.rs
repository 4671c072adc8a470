//! The structs that only stand for a tagged union's tag-only alternatives: the union reads and
//! writes such an alternative as a plain variant (`DiskState::Creating`, `types.rs`), so a
//! struct no other place of the client names is not generated at all.

use std::collections::HashSet;

use crate::checked::{self, Shape};
use crate::types::Ty;

use super::types::tag_only;

/// The names of the structs only tag-only alternatives name.
pub(super) fn unneeded(client: &checked::Client) -> HashSet<String> {
    let mut plain = HashSet::new();
    let mut named: HashSet<String> = HashSet::new();
    let mut name = |ty: &Ty| {
        let mut found = Vec::new();
        ty.bare_names(&mut found);
        named.extend(found);
    };
    for decl in &client.types {
        match &decl.shape {
            Shape::Struct(s) => {
                s.fields.iter().for_each(|f| name(&f.ty));
                s.additional.iter().for_each(&mut name);
                s.flatten.iter().for_each(|f| name(&f.ty));
            }
            Shape::Union(u) => {
                for alternative in &u.alternatives {
                    match u
                        .tag
                        .is_some()
                        .then(|| tag_only(&alternative.ty, &client.types))
                    {
                        Some(Some(decl)) => {
                            plain.insert(decl.name.clone());
                        }
                        _ => name(&alternative.ty),
                    }
                }
            }
            Shape::Enum(_) => {}
        }
    }
    for method in &client.methods {
        method_types(method, &mut name);
    }
    for event in client.webhooks.iter().flat_map(|w| &w.events) {
        event.payload.iter().for_each(&mut name);
    }
    plain.retain(|decl| !named.contains(decl));
    plain
}

/// Every type a method names: parameters, body, answers, errors, stream events, pages.
fn method_types(method: &checked::Method, name: &mut impl FnMut(&Ty)) {
    let params = method
        .path_params
        .iter()
        .chain(&method.query)
        .chain(&method.headers)
        .chain(&method.response_headers);
    params.for_each(|p| name(&p.ty));
    method.body.iter().for_each(|b| name(&b.ty));
    name(&method.returns);
    method.responses.iter().for_each(|(_, ty)| name(ty));
    method.errors.iter().for_each(|e| name(&e.ty));
    if let Some(streamed) = &method.streamed {
        streamed.events.iter().for_each(|e| name(&e.ty));
        streamed.error.iter().for_each(|e| name(&e.ty));
    }
    method.paginate.iter().for_each(|p| name(&p.item));
}

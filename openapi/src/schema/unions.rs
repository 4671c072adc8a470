//! Unions: a `oneOf` or `anyOf` typed as a union of its alternatives (or the one type they all
//! are), whether it admits `null`, what names its inline alternatives, and the union a schema
//! declares beside its own fields.

use serde_json::Value;

use super::shape::{
    const_alternatives, doc, has_properties, is_null_schema, is_nullable,
    without_constraint_alternatives,
};
use crate::document::Place;
use crate::names;
use crate::spec::{TypeOut, UnionOut};
use crate::ty::Ty;
use crate::walk::Builder;

impl Builder<'_> {
    /// The type of a `oneOf` or `anyOf`: a union of its alternatives, or the one alternative
    /// that is not `null` (nullable then); `None` when the schema has neither.
    pub(super) fn alternatives_ty(
        &mut self,
        at: &Place,
        schema: &Value,
        hint: &str,
        depth: usize,
    ) -> Option<Ty> {
        for key in ["oneOf", "anyOf"] {
            if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
                let real: Vec<(usize, &Value)> = alternatives
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| !is_null_schema(a))
                    .collect();
                return Some(match real.as_slice() {
                    [] => self.fallback(),
                    [(i, only)] if schema.get("discriminator").is_none() => {
                        let place = at.child(key).child(&i.to_string());
                        let ty = self.ty_at_depth(&place, only, hint, depth + 1);
                        if real.len() < alternatives.len() {
                            ty.nullable()
                        } else {
                            ty
                        }
                    }
                    _ => {
                        let name = self.inline_name(at, schema, hint);
                        let union = self.union(at, schema, key, &name, depth);
                        // Alternatives that are one Rust type (a uuid or a name: both
                        // `String`) are that type, not a union of one.
                        if let [only] = union.alternatives.as_slice()
                            && union.tag.is_none()
                        {
                            let only = only.clone();
                            return Some(if self.union_admits_null(at, schema) {
                                only.nullable()
                            } else {
                                only
                            });
                        }
                        self.spec.types.insert(name.clone(), TypeOut::Union(union));
                        if self.union_admits_null(at, schema) {
                            Ty::Named(name).nullable()
                        } else {
                            Ty::Named(name)
                        }
                    }
                });
            }
        }
        None
    }

    /// A union of the alternatives under `key` (`oneOf`/`anyOf`), tagged when a discriminator
    /// says so.
    pub(super) fn union(
        &mut self,
        at: &Place,
        schema: &Value,
        key: &str,
        name: &str,
        depth: usize,
    ) -> UnionOut {
        self.taken_types.insert(name);
        if let Some(adjacent) = self.adjacent(at, schema, key) {
            let typed = self.adjacent_types(name, &adjacent, depth);
            return UnionOut {
                doc: doc(schema),
                alternatives: typed.alternatives,
                tag: Some(adjacent.tag),
                mapping: typed.mapping,
                content: Some(adjacent.content),
                variants: typed.variants,
            };
        }
        let mut alternatives = Vec::new();
        for (i, alternative) in schema[key].as_array().into_iter().flatten().enumerate() {
            if is_null_schema(alternative) {
                continue;
            }
            let place = at.child(key).child(&i.to_string());
            let hint = alternative_hint(name, schema[key].as_array().map_or(&[], Vec::as_slice), i);
            // A union's alternatives are values; null is the union's own concern.
            let ty = self
                .ty_at_depth(&place, alternative, &hint, depth + 1)
                .required()
                .clone();
            if !alternatives.contains(&ty) {
                alternatives.push(ty);
            }
        }
        let mut tag = None;
        let mut mapping = Vec::new();
        if let Some(discriminator) = schema.get("discriminator") {
            tag = discriminator
                .get("propertyName")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let entries = discriminator
                .get("mapping")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            for (value, reference) in entries {
                let Some(reference) = reference.as_str() else {
                    continue;
                };
                let ty = if reference.contains('#') || reference.contains('/') {
                    match self.docs.target(at, reference) {
                        Ok(target) => self.named_type(&target, depth + 1),
                        Err(error) => {
                            self.unresolved(error, "the mapping's value is left out");
                            continue;
                        }
                    }
                } else {
                    match self.schema_names.get(reference) {
                        Some(name) => Ty::Named(name.clone()),
                        None => continue,
                    }
                };
                if let Some(ty) = ty.required().named()
                    && alternatives.iter().any(|a| a.named() == Some(ty))
                {
                    mapping.push((value.clone(), ty.to_owned()));
                }
            }
        }
        UnionOut {
            doc: doc(schema),
            alternatives,
            tag,
            mapping,
            content: None,
            variants: Vec::new(),
        }
    }

    /// True for a union one of whose alternatives is `null` or may be null itself (a nullable
    /// schema by `$ref`): the union's uses may be null then, as its alternatives are values.
    pub(super) fn union_admits_null(&mut self, at: &Place, schema: &Value) -> bool {
        let alternatives: Vec<Value> = ["oneOf", "anyOf"]
            .iter()
            .filter_map(|key| schema.get(*key).and_then(Value::as_array))
            .flatten()
            .cloned()
            .collect();
        alternatives.iter().any(|alternative| {
            is_null_schema(alternative)
                || is_nullable(alternative)
                || alternative
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|reference| self.docs.target(at, reference).ok())
                    .and_then(|target| self.docs.resolve(&target))
                    .is_some_and(|(_, target)| is_nullable(&target) || is_null_schema(&target))
        })
    }
}

/// The name of an inline union alternative's type: its `title`, else the union's name and the
/// one value a required property of it holds (`Part` with `type: enum [image]` → `PartImage`),
/// else the union's name and the first property it requires (or else declares) that no other
/// alternative has (`{content}`, `{tool_calls}` → `MessageBodyContent`,
/// `MessageBodyToolCalls`), numbered
/// (`PartVariant1`) only when nothing names it.
fn alternative_hint(union: &str, alternatives: &[Value], i: usize) -> String {
    let alternative = &alternatives[i];
    if let Some(title) = alternative.get("title").and_then(Value::as_str) {
        let name = names::type_name(title);
        if !name.is_empty() {
            return name;
        }
    }
    let required: Vec<&str> = alternative
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = alternative.get("properties").and_then(Value::as_object);
    let single = required.iter().find_map(|key| {
        let property = properties?.get(*key)?;
        match property.get("enum").and_then(Value::as_array) {
            Some(values) if values.len() == 1 => values[0].as_str(),
            _ => property.get("const").and_then(Value::as_str),
        }
    });
    let declared = properties
        .into_iter()
        .flat_map(|p| p.keys().map(String::as_str));
    let own = || {
        required.iter().copied().chain(declared).find(|key| {
            alternatives.iter().enumerate().all(|(j, other)| {
                j == i || other.get("properties").and_then(|p| p.get(*key)).is_none()
            })
        })
    };
    match single.or_else(own).map(names::type_name) {
        Some(value) if !value.is_empty() => format!("{union}{value}"),
        _ => format!("{union}Variant{i}"),
    }
}

/// True for a schema that is a union: a `oneOf` or `anyOf` of more than one alternative that is
/// not `null`, not constraints on the schema's own properties, not an enum of constants.
pub(super) fn is_union(schema: &Value) -> bool {
    without_constraint_alternatives(schema).is_none()
        && const_alternatives(schema).is_none()
        && ["oneOf", "anyOf"].iter().any(|key| {
            schema
                .get(*key)
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().filter(|x| !is_null_schema(x)).count() > 1)
        })
}

/// The union of a schema that declares properties (or `allOf` parts) beside a `oneOf`/`anyOf`:
/// the union alone, to flatten into the struct the rest makes; `None` for any other schema.
pub(super) fn union_beside_fields(schema: &Value) -> Option<Value> {
    if !(has_properties(schema) || schema.get("allOf").is_some()) || !is_union(schema) {
        return None;
    }
    let mut union = serde_json::Map::new();
    for key in ["oneOf", "anyOf", "discriminator"] {
        if let Some(value) = schema.get(key) {
            union.insert(key.to_owned(), value.clone());
        }
    }
    Some(Value::Object(union))
}

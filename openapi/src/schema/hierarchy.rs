//! A discriminator on a base schema: the inheritance that Java and TypeSpec emitters write. A
//! base `Pet` declares its fields and `discriminator: { propertyName: kind }`; children `Cat`
//! and `Dog` each `allOf` it and add their own. Where the description uses `Pet`, the value is
//! one of its children, told apart by `kind`: typed as the base alone, a `Cat` would lose every
//! field of its own. So the uses are a union of the children, tagged (`Pet`), and the base's own
//! fields are a struct of their own (`PetBase`) that each child takes as an `all_of:` part; the
//! base is a variant itself only where the mapping names it.

use std::collections::HashMap;

use serde_json::Value;

use super::shape::{doc, is_nullable};
use crate::document::Place;
use crate::names;
use crate::spec::{TypeOut, UnionOut};
use crate::ty::Ty;
use crate::walk::Builder;

/// Where a description keeps its named schemas: OpenAPI 3's and Swagger 2.0's.
const SCHEMA_HOMES: [&[&str]; 2] = [&["components", "schemas"], &["definitions"]];

impl Builder<'_> {
    /// The tag and the children (each with its tag value) of the base schema at `target`: a
    /// discriminator beside the schema's own fields rather than a union's, and at least one
    /// child that is not the base; `None` for any other schema.
    pub(super) fn children_of_base(
        &mut self,
        target: &Place,
        schema: &Value,
    ) -> Option<(String, Vec<(String, Place)>)> {
        let discriminator = schema.get("discriminator")?;
        if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() {
            return None;
        }
        // Swagger 2.0 names the property alone; OpenAPI 3 in `propertyName`, beside a mapping.
        let tag = match discriminator {
            Value::String(tag) => tag.clone(),
            other => other.get("propertyName")?.as_str()?.to_owned(),
        };
        let mut children: Vec<(String, Place)> = Vec::new();
        let mapping = discriminator.get("mapping").and_then(Value::as_object);
        for (value, reference) in mapping.into_iter().flatten() {
            let Some(reference) = reference.as_str() else {
                continue;
            };
            let place = if reference.contains('#') || reference.contains('/') {
                self.docs.target(target, reference).ok()
            } else {
                self.named_schema(reference)
            };
            if let Some(place) = place {
                children.push((value.clone(), place));
            }
        }
        // A child the mapping leaves out is named by its schema's name (OpenAPI's implicit
        // mapping; Swagger 2.0 has no other).
        let implicit = self
            .children_index()
            .get(target)
            .cloned()
            .unwrap_or_default();
        for (name, place) in implicit {
            if !children.iter().any(|(_, known)| *known == place) {
                children.push((name, place));
            }
        }
        children
            .iter()
            .any(|(_, child)| child != target)
            .then_some((tag, children))
    }

    /// The uses of a base schema (see the module's text): a union of its children tagged by
    /// `tag`, defined now, and the base's own fields a struct to be defined with the others.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hierarchy(
        &mut self,
        target: &Place,
        found: Place,
        schema: &Value,
        original: String,
        tag: String,
        children: Vec<(String, Place)>,
        depth: usize,
    ) -> Ty {
        let type_name = names::type_name(&original);
        let union_name = names::unique(&type_name, "", &mut self.taken_types);
        let base_name = names::unique(&format!("{type_name}Base"), "", &mut self.taken_types);
        let ty = if is_nullable(schema) {
            Ty::Named(union_name.clone()).nullable()
        } else {
            Ty::Named(union_name.clone())
        };
        self.named.insert(target.clone(), ty.clone());
        self.bases.insert(target.clone(), base_name.clone());
        self.schema_names
            .insert(original.clone(), base_name.clone());
        self.pending.push((found, base_name.clone()));
        let mut alternatives: Vec<Ty> = Vec::new();
        let mut mapping = Vec::new();
        for (value, child) in children {
            let alternative = if child == *target {
                Ty::Named(base_name.clone())
            } else {
                self.named_type(&child, depth + 1).required().clone()
            };
            let Some(alternative_name) = alternative.named().map(str::to_owned) else {
                continue;
            };
            if !alternatives.contains(&alternative) {
                alternatives.push(alternative);
            }
            if !mapping.iter().any(|(known, _)| *known == value) {
                mapping.push((value, alternative_name));
            }
        }
        self.note(
            target,
            false,
            format!(
                "`{original}` names its children by `{tag}`: where it is used, the value is one of them (`{union_name}`); its own fields are `{base_name}`"
            ),
        );
        let union = UnionOut {
            doc: doc(schema),
            alternatives,
            tag: Some(tag),
            mapping,
            content: None,
            variants: Vec::new(),
        };
        self.spec.types.insert(union_name, TypeOut::Union(union));
        ty
    }

    /// The struct of a base schema's own fields, for a child's `allOf` part that names the
    /// base at `target`; `None` when the schema there is no base.
    pub(super) fn base_part(&self, target: &Place) -> Option<&str> {
        self.bases.get(target).map(String::as_str)
    }

    /// The place of the named schema `name` (a mapping's bare name).
    fn named_schema(&mut self, name: &str) -> Option<Place> {
        let top = self.docs.top();
        SCHEMA_HOMES.iter().find_map(|home| {
            let place = home
                .iter()
                .fold(top.clone(), |place, key| place.child(key))
                .child(name);
            self.docs.resolve(&place).map(|_| place)
        })
    }

    /// The named schemas of the description's own file by the schemas their `allOf` parts
    /// name, read once: linear in the description.
    fn children_index(&mut self) -> &HashMap<Place, Vec<(String, Place)>> {
        if self.children.is_none() {
            let top = self.docs.top();
            let root = self.docs.root_value().clone();
            let mut index: HashMap<Place, Vec<(String, Place)>> = HashMap::new();
            for home in SCHEMA_HOMES {
                let mut place = top.clone();
                let mut value = Some(&root);
                for key in home {
                    place = place.child(key);
                    value = value.and_then(|v| v.get(key));
                }
                for (name, schema) in value.and_then(Value::as_object).into_iter().flatten() {
                    let child = place.child(name);
                    let parts = schema.get("allOf").and_then(Value::as_array);
                    for (i, part) in parts.into_iter().flatten().enumerate() {
                        let Some(reference) = part.get("$ref").and_then(Value::as_str) else {
                            continue;
                        };
                        let from = child.child("allOf").child(&i.to_string());
                        if let Ok(parent) = self.docs.target(&from, reference) {
                            index
                                .entry(parent)
                                .or_default()
                                .push((name.clone(), child.clone()));
                        }
                    }
                }
            }
            self.children = Some(index);
        }
        self.children.get_or_insert_with(HashMap::new)
    }
}

//! An adjacently tagged `oneOf`: each alternative an object of the same two keys, both
//! required, one holding a single string that names the alternative (`kind: enum [credit]`),
//! the other its value (`value: integer`), and nothing else. In the spec that is a union with
//! `tag:` and `content:`, its alternatives the values' types, rather than one struct of a tag and
//! a value per alternative.

use serde_json::Value;

use super::shape::is_null_schema;
use crate::document::Place;
use crate::names;
use crate::ty::Ty;
use crate::walk::Builder;

/// The two keys of an adjacently tagged union, and each alternative's tag value with the place
/// and schema of its value.
pub(super) struct Adjacent {
    pub(super) tag: String,
    pub(super) content: String,
    pub(super) branches: Vec<(String, Place, Value)>,
}

/// The union's alternatives as the spec writes them: the values' types, each with its variant
/// name and its tag value.
pub(super) struct Typed {
    pub(super) alternatives: Vec<Ty>,
    pub(super) variants: Vec<String>,
    pub(super) mapping: Vec<(String, String)>,
}

impl Builder<'_> {
    /// The adjacent shape of the alternatives under `key`, when every one has it; `None` for
    /// any other union (a `null` alternative, a third key, a key that may be missing, two
    /// alternatives with one tag value, a discriminator naming another key).
    pub(super) fn adjacent(&mut self, at: &Place, schema: &Value, key: &str) -> Option<Adjacent> {
        let alternatives = schema.get(key)?.as_array()?;
        if alternatives.len() < 2 || alternatives.iter().any(is_null_schema) {
            return None;
        }
        let mut keys: Option<(String, String)> = None;
        let mut branches: Vec<(String, Place, Value)> = Vec::new();
        // Tag values seen: a set, so a description of many alternatives is read in linear work.
        let mut values = std::collections::HashSet::new();
        for (i, alternative) in alternatives.iter().enumerate() {
            let place = at.child(key).child(&i.to_string());
            let (place, alternative) = self.docs.follow(&place, alternative).ok()?;
            let (tag, value, content) = two_keys(&alternative)?;
            match &keys {
                None => keys = Some((tag, content.clone())),
                Some((first_tag, first_content))
                    if *first_tag == tag && *first_content == content => {}
                Some(_) => return None,
            }
            if !values.insert(value.clone()) {
                return None;
            }
            let content_place = place.child("properties").child(&content);
            let content_schema = alternative["properties"][&content].clone();
            branches.push((value, content_place, content_schema));
        }
        let (tag, content) = keys?;
        let named = schema
            .get("discriminator")
            .and_then(|d| d.get("propertyName"))
            .and_then(Value::as_str);
        if named.is_some_and(|named| named != tag) {
            return None;
        }
        Some(Adjacent {
            tag,
            content,
            branches,
        })
    }

    /// Each branch's value typed (an inline one named after the union and its tag value,
    /// `AdjustmentRefund`), with a variant name of its tag value.
    pub(super) fn adjacent_types(
        &mut self,
        union: &str,
        adjacent: &Adjacent,
        depth: usize,
    ) -> Typed {
        let mut taken = names::Taken::default();
        let mut typed = Typed {
            alternatives: Vec::new(),
            variants: Vec::new(),
            mapping: Vec::new(),
        };
        for (i, (value, place, schema)) in adjacent.branches.iter().enumerate() {
            let variant = taken.first_free(&names::variant(value, i), "");
            taken.insert(&variant);
            let hint = format!("{union}{variant}");
            let ty = self.ty_at_depth(place, schema, &hint, depth + 1);
            typed.alternatives.push(ty);
            typed.mapping.push((value.clone(), variant.clone()));
            typed.variants.push(variant);
        }
        typed
    }
}

/// `(tag key, tag value, content key)` of an object schema of exactly two properties, both
/// required, one a single string (an enum of one, or a `const`), the other anything; no
/// composition, no other keys allowed.
fn two_keys(schema: &Value) -> Option<(String, String, String)> {
    if schema.get("type").is_some_and(|t| t != "object") {
        return None;
    }
    if ["allOf", "oneOf", "anyOf"]
        .iter()
        .any(|k| schema.get(*k).is_some())
    {
        return None;
    }
    // Keys beside the two are allowed by default; only a schema that keeps them (a map of
    // them) says they matter. A struct drops an undeclared key as drift, and so does the union.
    if schema
        .get("additionalProperties")
        .is_some_and(|a| a != &Value::Bool(false))
    {
        return None;
    }
    let properties = schema.get("properties")?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let [(a, a_schema), (b, b_schema)] = properties.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if !required.contains(&a.as_str()) || !required.contains(&b.as_str()) {
        return None;
    }
    match (single_string(a_schema), single_string(b_schema)) {
        (Some(value), None) => Some((a.clone(), value, b.clone())),
        (None, Some(value)) => Some((b.clone(), value, a.clone())),
        _ => None,
    }
}

/// The one string a property allows (`enum: [credit]`, `const: credit`).
fn single_string(schema: &Value) -> Option<String> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return match values.as_slice() {
            [Value::String(one)] => Some(one.clone()),
            _ => None,
        };
    }
    schema.get("const")?.as_str().map(str::to_owned)
}

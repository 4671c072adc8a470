//! An inline schema that is a copy of a schema the description names. Generators write a named
//! schema out again where they inline it (utoipa writes `Vec<Collection>`'s items as the whole of
//! `Collection`); as a type of its own, the copy is `ApiVecItem` beside an identical
//! `Collection`. A copy is the named type when its JSON is the same as that of exactly one
//! schema of the description's own components: the same text, not merely the same shape, so two
//! schemas that happen to agree in a field or two are not taken for one.

use std::collections::HashMap;

use serde_json::Value;

use crate::document::Place;
use crate::walk::Builder;

/// Named schemas by the sorted names of their properties: the candidates a copy is compared
/// with in full.
type Components = HashMap<String, Vec<(Place, Value)>>;

/// A copy needs at least this many properties: a smaller object says too little to be told
/// from another that only looks like it.
const MIN_PROPERTIES: usize = 2;

impl Builder<'_> {
    /// The named schema `schema` (met at `at`) is a copy of, when it is one of exactly one.
    pub(crate) fn copied_component(&mut self, at: &Place, schema: &Value) -> Option<Place> {
        let key = fingerprint(schema)?;
        let top = self.docs.top();
        let root = self.docs.root_value();
        let components = self
            .components
            .get_or_insert_with(|| components(root, &top));
        let mut equal = components
            .get(&key)?
            .iter()
            .filter(|(place, value)| place != at && value == schema);
        let (place, _) = equal.next()?;
        if equal.next().is_some() {
            return None;
        }
        Some(place.clone())
    }
}

/// The sorted property names of an object schema with enough of them.
fn fingerprint(schema: &Value) -> Option<String> {
    let properties = schema.get("properties")?.as_object()?;
    if properties.len() < MIN_PROPERTIES {
        return None;
    }
    let mut keys: Vec<&str> = properties.keys().map(String::as_str).collect();
    keys.sort_unstable();
    Some(keys.join("\u{0}"))
}

/// The object schemas of the description's own file: `components/schemas` (3.x) and
/// `definitions` (2.0).
fn components(root: &Value, top: &Place) -> Components {
    let mut out = Components::new();
    for path in [&["components", "schemas"][..], &["definitions"][..]] {
        let mut place = top.clone();
        let mut value = Some(root);
        for key in path {
            place = place.child(key);
            value = value.and_then(|v| v.get(key));
        }
        let Some(schemas) = value.and_then(Value::as_object) else {
            continue;
        };
        for (name, schema) in schemas {
            if let Some(key) = fingerprint(schema) {
                out.entry(key)
                    .or_default()
                    .push((place.child(name), schema.clone()));
            }
        }
    }
    out
}

//! OpenAPI Overlay 1.0: the standard way to fix a description you do not own. An overlay is a
//! list of actions, each a `target` (an RFC 9535 JSONPath) and an `update` merged into every
//! node it selects, or `remove: true`. They are applied in order to the description's top
//! document before anything is read of it.
//!
//! `update` into an object merges: its properties replace the node's of the same name, an
//! object into an object merging in turn; into an array it is appended (each item of an array
//! update); anything else is replaced. A target that selects nothing is a note, located at the
//! action in the overlay, since an overlay written for one version of a description goes stale
//! silently otherwise. What an action may cost is bounded ([`bounds`]).

mod bounds;

use serde_json::{Map, Value};
use serde_json_path::JsonPath;

/// Something said of an overlay: the JSON pointer in it, and what.
pub(crate) type OverlayNote = (String, String);

/// Applies `overlay` to `document`, returning its notes; an overlay that is not one, or a
/// target that is not a JSONPath, is an error, located the same way. The JSON pointers of the
/// nodes it updated or removed go into `touched`.
pub(crate) fn apply(
    document: &mut Value,
    overlay: &Value,
    touched: &mut Vec<String>,
) -> Result<Vec<OverlayNote>, OverlayNote> {
    let at = Pointer(String::new());
    let version = overlay.get("overlay").and_then(Value::as_str);
    if !version.is_some_and(|v| v.starts_with("1.0")) {
        return Err((
            at.child("overlay").0,
            "not an Overlay 1.0 document: `overlay: 1.0.0` is missing".to_owned(),
        ));
    }
    let Some(actions) = overlay.get("actions").and_then(Value::as_array) else {
        return Err((
            at.child("actions").0,
            "an overlay needs its `actions:` list".to_owned(),
        ));
    };
    let mut notes = Vec::new();
    let mut budget = bounds::Budget::of(document);
    for (index, action) in actions.iter().enumerate() {
        let here = at.child("actions").child(&index.to_string());
        let Some(target) = action.get("target").and_then(Value::as_str) else {
            return Err((
                here.0,
                "an action needs its `target:`, a JSONPath".to_owned(),
            ));
        };
        let pointers =
            selected(document, target, &budget).map_err(|why| (here.child("target").0, why))?;
        touched.extend(pointers.iter().cloned());
        if pointers.is_empty() {
            notes.push((
                here.child("target").0,
                "the target selects nothing: the action does nothing".to_owned(),
            ));
            continue;
        }
        if action.get("remove").and_then(Value::as_bool) == Some(true) {
            // The last first, so that removing an item does not move the ones still to go.
            for pointer in pointers.iter().rev() {
                if !remove(document, pointer) {
                    notes.push((
                        here.child("remove").0,
                        "the document itself cannot be removed".to_owned(),
                    ));
                }
            }
        } else if let Some(update) = action.get("update") {
            budget
                .grow(update, pointers.len())
                .map_err(|why| (here.child("update").0, why))?;
            for pointer in &pointers {
                if let Some(node) = document.pointer_mut(pointer) {
                    merge(node, update);
                }
            }
        } else {
            notes.push((
                here.0,
                "the action has neither `update:` nor `remove: true`".to_owned(),
            ));
        }
    }
    Ok(notes)
}

/// The JSON pointers of the nodes `target` selects in `document`, within the budget.
fn selected(
    document: &Value,
    target: &str,
    budget: &bounds::Budget,
) -> Result<Vec<String>, String> {
    budget.admit(target)?;
    let path = JsonPath::parse(target).map_err(|e| format!("the target is not a JSONPath: {e}"))?;
    let pointers: Vec<String> = path
        .query_located(document)
        .locations()
        .map(|location| location.to_json_pointer())
        .collect();
    budget.select(pointers.len())?;
    Ok(pointers)
}

/// A JSON pointer into the overlay, built a key at a time.
struct Pointer(String);

impl Pointer {
    fn child(&self, key: &str) -> Pointer {
        Pointer(format!(
            "{}/{}",
            self.0,
            key.replace('~', "~0").replace('/', "~1")
        ))
    }
}

/// Merges `update` into `node`: an object's properties in turn, an array's items appended,
/// anything else replaced.
fn merge(node: &mut Value, update: &Value) {
    match (node, update) {
        (Value::Object(node), Value::Object(update)) => merge_object(node, update),
        (Value::Array(items), Value::Array(more)) => items.extend(more.iter().cloned()),
        (Value::Array(items), one) => items.push(one.clone()),
        (node, update) => *node = update.clone(),
    }
}

fn merge_object(node: &mut Map<String, Value>, update: &Map<String, Value>) {
    for (key, value) in update {
        match (node.get_mut(key), value) {
            (Some(Value::Object(inner)), Value::Object(more)) => merge_object(inner, more),
            _ => {
                node.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Removes the node at `pointer` from its object or array; false for the document itself.
fn remove(document: &mut Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    match document.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.remove(&key);
        }
        Some(Value::Array(items)) => {
            if let Ok(index) = key.parse::<usize>()
                && index < items.len()
            {
                items.remove(index);
            }
        }
        _ => {}
    }
    true
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn overlay(actions: Value) -> Value {
        json!({ "overlay": "1.0.0", "info": { "title": "t", "version": "1" }, "actions": actions })
    }

    fn described() -> Value {
        json!({
            "openapi": "3.1.0",
            "info": { "title": "Pets", "version": "1" },
            "paths": {
                "/foo": { "get": { "description": "old", "parameters": [
                    { "name": "filter", "in": "query" },
                    { "name": "dummy", "in": "query" }
                ] } },
                "/bar": { "get": { "description": "old" } }
            }
        })
    }

    /// The specification's "structured overlay": one update of the root, merged level by level.
    #[test]
    fn a_structured_overlay_merges_into_the_root() {
        let mut document = described();
        let fix = overlay(json!([{ "target": "$", "update": {
            "info": { "x-overlay-applied": "structured-overlay" },
            "paths": { "/": { "summary": "The root resource" }, "/foo": { "get": { "x-rate-limit": 100 } } }
        } }]));
        assert!(
            apply(&mut document, &fix, &mut Vec::new())
                .unwrap()
                .is_empty()
        );
        assert_eq!(document["info"]["title"], "Pets");
        assert_eq!(document["info"]["x-overlay-applied"], "structured-overlay");
        assert_eq!(document["paths"]["/"]["summary"], "The root resource");
        assert_eq!(document["paths"]["/foo"]["get"]["x-rate-limit"], 100);
        assert_eq!(
            document["paths"]["/foo"]["get"]["description"], "old",
            "merged, not replaced"
        );
    }

    /// The specification's "targeted overlay", its wildcard and filter targets, an array
    /// appended to and a filtered item removed.
    #[test]
    fn targeted_wildcard_array_and_remove_actions_apply_in_order() {
        let mut document = described();
        let fix = overlay(json!([
            { "target": "$.paths['/foo'].get", "update": { "description": "This is the new description" } },
            { "target": "$.paths['/bar']", "update": { "post": { "description": "a child object", "x-safe": false } } },
            { "target": "$.paths.*.get", "update": { "x-safe": true } },
            { "target": "$.paths.*.get.parameters[?@.name == 'filter' && @.in == 'query']",
              "update": { "schema": { "$ref": "#/components/schemas/filterSchema" } } },
            { "target": "$.paths.*.get.parameters", "update": { "name": "newParam", "in": "query" } },
            { "target": "$.paths.*.get.parameters[?@.name == 'dummy']", "remove": true }
        ]));
        assert!(
            apply(&mut document, &fix, &mut Vec::new())
                .unwrap()
                .is_empty()
        );
        let foo = &document["paths"]["/foo"]["get"];
        assert_eq!(foo["description"], "This is the new description");
        assert_eq!(foo["x-safe"], true);
        assert_eq!(document["paths"]["/bar"]["get"]["x-safe"], true);
        assert_eq!(document["paths"]["/bar"]["post"]["x-safe"], false);
        let names: Vec<&str> = foo["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["filter", "newParam"]);
        assert_eq!(
            foo["parameters"][0]["schema"]["$ref"],
            "#/components/schemas/filterSchema"
        );
    }

    #[test]
    fn a_target_that_selects_nothing_is_a_located_note_and_a_bad_one_an_error() {
        let mut document = described();
        let fix = overlay(json!([
            { "target": "$.paths['/gone'].get", "update": { "x": 1 } },
            { "target": "$.paths['/foo'].get", "update": { "x": 1 } }
        ]));
        let notes = apply(&mut document, &fix, &mut Vec::new()).unwrap();
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].0, "/actions/0/target");
        assert!(notes[0].1.contains("selects nothing"), "{}", notes[0].1);
        assert_eq!(document["paths"]["/foo"]["get"]["x"], 1);
        let broken = overlay(json!([{ "target": "paths.foo", "remove": true }]));
        let error = apply(&mut document, &broken, &mut Vec::new()).unwrap_err();
        assert_eq!(error.0, "/actions/0/target");
        assert!(error.1.contains("not a JSONPath"), "{}", error.1);
        let unversioned = json!({ "actions": [] });
        assert!(apply(&mut document, &unversioned, &mut Vec::new()).is_err());
    }

    /// `$..*` with an update doubles the document each time: the action that would pass four
    /// times its size (at least 4 MiB) is refused, by its place, before it is applied.
    #[test]
    fn an_overlay_that_doubles_the_document_stops_at_its_bound() {
        let mut document = described();
        let padding = "x".repeat(1024);
        let doubling = json!({ "target": "$..*", "update": { "p": padding } });
        let fix = overlay(Value::Array(vec![doubling; 40]));
        let (at, why) = apply(&mut document, &fix, &mut Vec::new()).unwrap_err();
        assert!(at.starts_with("/actions/"), "{at}");
        assert!(at.ends_with("/update") || at.ends_with("/target"), "{at}");
        assert!(why.contains("MiB") || why.contains("nodes"), "{why}");
        assert!(serde_json::to_vec(&document).unwrap().len() < 64 << 20);
        let deep = overlay(
            json!([{ "target": format!("$[?{}@.a{}]", "(".repeat(10_000), ")".repeat(10_000)), "remove": true }]),
        );
        let (at, why) = apply(&mut described(), &deep, &mut Vec::new()).unwrap_err();
        assert_eq!(at, "/actions/0/target");
        assert!(why.contains("bytes long"), "{why}");
        let nested = overlay(
            json!([{ "target": format!("$[?{}@.a{}]", "(".repeat(500), ")".repeat(500)), "remove": true }]),
        );
        assert!(
            apply(&mut described(), &nested, &mut Vec::new())
                .unwrap_err()
                .1
                .contains("deep")
        );
    }
}

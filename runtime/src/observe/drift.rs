//! Drift: what `decode: lax` repaired and the keys no type declares (`decode/undeclared.rs`),
//! remembered per method (each place once, list positions folded: `$.users[*].name`), logged
//! once, and turned into an OpenAPI Overlay 1.0 document that makes the description say what
//! the server sends: a field that came null or missing made nullable (and no longer required), a
//! field that came as another kind than text widened to a `oneOf` of both, a key the schema did
//! not declare added to its properties with the type its value had. The user reviews it, commits it, re-imports, and strict decoding passes.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use serde_json::{Value, json};

use crate::decode::lax::Drift;
use crate::decode::located::string_literal as literal;

/// Places drift was seen at, at most [`DriftLog::REMEMBERED`] of them in at most
/// [`DriftLog::BYTES`]: a server that drifts everywhere, or names a new map key in every answer,
/// is logged that much and counted on, and the memory a client keeps for it stays flat.
#[derive(Debug, Default)]
pub(crate) struct DriftLog {
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    places: BTreeMap<String, Drift>,
    bytes: usize,
}

impl DriftLog {
    const REMEMBERED: usize = 256;
    const BYTES: usize = 64 << 10;

    /// Remembers `drift`; true the first time its place is seen (to log it once). A struct
    /// field is one place wherever it sits (`User.name`, under whatever map key or position);
    /// anything else is its path with list positions folded.
    pub(crate) fn first(&self, drift: &Drift) -> bool {
        // The same place may drift in two ways (null once, a list another time): both count.
        let place = match &drift.field {
            Some(field) => format!("{field} {}", drift.came),
            None => format!("{} {}", folded(&drift.path), drift.came),
        };
        let size = place.len() + drift.path.len() + drift.declared.len();
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.places.len() >= Self::REMEMBERED
            || seen.bytes + size > Self::BYTES
            || seen.places.contains_key(&place)
        {
            return false;
        }
        seen.bytes += size;
        seen.places.insert(place, drift.clone());
        true
    }

    /// Every place remembered, with what was seen there.
    pub(crate) fn seen(&self) -> Vec<Drift> {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.places.values().cloned().collect()
    }
}

/// `$.users[3].name` → `$.users[*].name`: one place, whichever item drifted.
fn folded(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut digits = false;
    for c in path.chars() {
        match c {
            '[' => {
                digits = true;
                out.push('[');
            }
            c if digits && c.is_ascii_digit() => {}
            ']' if digits => {
                out.push_str("*]");
                digits = false;
            }
            c => {
                if digits {
                    digits = false;
                }
                out.push(c);
            }
        }
    }
    out
}

/// An Overlay 1.0 document (JSON) of the drift `seen`, each entry a method's name and its
/// repairs. Drift outside a struct field (a list's item, a map's value) names no schema and is
/// left out.
pub(crate) fn overlay(client: &str, seen: &[(&str, Vec<Drift>)]) -> String {
    let mut actions: Vec<Value> = Vec::new();
    let mut done: Vec<(String, &'static str)> = Vec::new();
    // Null once and missing another time: one `nullable`, and the `required` entry removed too.
    let mut nullable: Vec<String> = Vec::new();
    for (method, drift) in seen {
        for repair in drift {
            let Some((schema, field)) = repair.field.as_deref().and_then(|f| f.split_once('.'))
            else {
                continue;
            };
            let key = format!("{schema}.{field}");
            if done.iter().any(|(k, c)| *k == key && *c == repair.came) {
                continue;
            }
            done.push((key.clone(), repair.came));
            if let Some(kind) = repair.undeclared {
                // A key the schema does not declare: declared, with the type its value had
                // (a `null` says nothing of it: any value).
                let why = format!(
                    "`{method}` got it (JSON type {kind}); the description did not declare it"
                );
                let mut property = json!({ "description": why });
                if kind != "null" {
                    property["type"] = json!(kind);
                }
                if kind == "array" {
                    property["items"] = json!({});
                }
                let target = format!("$..{}", selector(schema));
                actions.push(
                    json!({ "target": target, "update": { "properties": { field: property } } }),
                );
                continue;
            }
            let property = format!("$..{}.properties{}", selector(schema), selector(field));
            let came = if repair.came == "missing" {
                "nothing"
            } else {
                repair.came
            };
            let why = format!(
                "`{method}` got {came} at `{}`, where the description says {}",
                repair.path, repair.declared
            );
            match repair.came {
                "null" | "missing" => {
                    if !nullable.contains(&key) {
                        nullable.push(key);
                        actions.push(json!({ "target": property, "description": why, "update": { "nullable": true } }));
                    }
                    if repair.came == "missing" {
                        let required =
                            format!("$..{}.required[?@ == {}]", selector(schema), literal(field));
                        actions.push(json!({ "target": required, "remove": true }));
                    }
                }
                came => {
                    let other = match came {
                        "an array" => json!({ "type": "array", "items": {} }),
                        "an object" => json!({ "type": "object" }),
                        "a number" => json!({ "type": "number" }),
                        "a boolean" => json!({ "type": "boolean" }),
                        _ => continue,
                    };
                    actions.push(json!({ "target": format!("{property}.type"), "remove": true }));
                    actions.push(json!({ "target": property, "description": why, "update": { "oneOf": [{ "type": "string" }, other] } }));
                }
            }
        }
    }
    let document = json!({
        "overlay": "1.0.0",
        "info": { "title": format!("What {client}'s server sends (remcall drift)"), "version": "1.0.0" },
        "actions": actions,
    });
    serde_json::to_string_pretty(&document).unwrap_or_default()
}

/// A name selector: `['name']`.
fn selector(name: &str) -> String {
    format!("[{}]", literal(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_positions_fold_into_one_place() {
        assert_eq!(folded("$.users[12].tags[0]"), "$.users[*].tags[*]");
        assert_eq!(folded("$['a[1]'].b"), "$['a[*]'].b");
    }

    fn drift(path: &str, field: Option<&str>, came: &'static str) -> Drift {
        Drift {
            path: path.to_owned(),
            field: field.map(str::to_owned),
            declared: "a string".to_owned(),
            came,
            undeclared: None,
        }
    }

    #[test]
    fn a_field_null_once_and_missing_another_time_is_nullable_and_not_required() {
        let seen = [
            drift("$.a", Some("Thing.a"), "null"),
            drift("$.a", Some("Thing.a"), "missing"),
        ];
        let overlay = overlay("C", &[("get", seen.to_vec())]);
        assert_eq!(overlay.matches("\"nullable\"").count(), 1, "{overlay}");
        assert_eq!(overlay.matches("required[?@").count(), 1, "{overlay}");
    }

    #[test]
    fn a_struct_field_is_one_place_under_any_map_key_and_the_log_is_bounded() {
        let log = DriftLog::default();
        assert!(log.first(&drift("$.k1.a", Some("Thing.a"), "null")));
        assert!(!log.first(&drift("$.k2.a", Some("Thing.a"), "null")));
        assert!(log.first(&drift("$.k2.a", Some("Thing.a"), "missing")));
        let long = "x".repeat(1000);
        let remembered = (0..10_000)
            .filter(|i| log.first(&drift(&format!("$.{long}{i}"), None, "null")))
            .count();
        assert!(remembered < DriftLog::REMEMBERED, "{remembered}");
        let seen = log.seen();
        let bytes: usize = seen.iter().map(|d| d.path.len()).sum();
        assert!(bytes <= DriftLog::BYTES, "{bytes}");
    }
}

//! Drift: what `decode: lax` repaired, remembered per method (each place once, list positions
//! folded: `$.users[*].name`), logged once, and turned into an OpenAPI Overlay 1.0 document that
//! makes the description say what the server sends: a field that came null or missing made
//! nullable (and no longer required), a field that came as another kind than text widened to a
//! `oneOf` of both. The user reviews it, commits it, re-imports, and strict decoding passes.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use serde_json::{Value, json};

use crate::wire::lax::Drift;
use crate::wire::located::string_literal as literal;

/// Places drift was seen at, at most [`DriftLog::REMEMBERED`]: a server that drifts everywhere
/// is logged that much and counted on.
#[derive(Debug, Default)]
pub(crate) struct DriftLog {
    seen: Mutex<BTreeMap<String, Drift>>,
}

impl DriftLog {
    const REMEMBERED: usize = 256;

    /// Remembers `drift`; true the first time its place is seen (to log it once).
    pub(crate) fn first(&self, drift: &Drift) -> bool {
        // The same place may drift in two ways (null once, a list another time): both count.
        let place = format!("{} {}", folded(&drift.path), drift.came);
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.len() >= Self::REMEMBERED || seen.contains_key(&place) {
            return false;
        }
        seen.insert(place, drift.clone());
        true
    }

    /// Every place remembered, with what was seen there.
    pub(crate) fn seen(&self) -> Vec<Drift> {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.values().cloned().collect()
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
    for (method, drift) in seen {
        for repair in drift {
            let Some((schema, field)) = repair.field.as_deref().and_then(|f| f.split_once('.'))
            else {
                continue;
            };
            let kind = if matches!(repair.came, "null" | "missing") {
                "nullable"
            } else {
                repair.came
            };
            let key = format!("{schema}.{field}");
            if done.iter().any(|(k, c)| *k == key && *c == kind) {
                continue;
            }
            done.push((key, kind));
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
                    actions.push(json!({ "target": property, "description": why, "update": { "nullable": true } }));
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
}

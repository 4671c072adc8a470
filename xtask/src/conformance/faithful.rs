//! Faithfulness checked apart from the importer, reading the description itself.

use serde_json::Value;

use super::description::Description;
use super::routes::{placeholders_blank, placeholders_named};

/// Checks, apart from the importer, what it promises: every operation of the description has a
/// method with its verb and route, each declared path, query and header parameter (but those
/// the client sets itself, an idempotency key, cookies), a body where it takes one, and a
/// result where a 2xx response has a body. Returns (faithful, operations, what is missing); an
/// operation whose parts sit in other files is not counted.
pub(super) fn faithfulness(spec: &Value, description: &Description) -> (usize, usize, Vec<String>) {
    const OWN: &[&str] = &["authorization", "content-type", "content-length"];
    const VERBS: &[&str] = &[
        "get", "put", "post", "delete", "options", "head", "patch", "query",
    ];
    let methods: Vec<&Value> = spec
        .get("methods")
        .and_then(Value::as_object)
        .map(|m| m.values().collect())
        .unwrap_or_default();
    let method_for = |verb: &str, route: &str| {
        let same = |exact: bool| {
            methods.iter().copied().find(|m| {
                let request = m.get("request").and_then(Value::as_str).unwrap_or_default();
                request.split_once(' ').is_some_and(|(v, r)| {
                    v.eq_ignore_ascii_case(verb)
                        && if exact {
                            placeholders_named(r) == placeholders_named(route)
                        } else {
                            placeholders_blank(r) == placeholders_blank(route)
                        }
                })
            })
        };
        same(true).or_else(|| same(false))
    };
    let names_in = |method: &Value, section: &str| -> Vec<String> {
        method
            .get(section)
            .and_then(Value::as_object)
            .map(|params| {
                params
                    .iter()
                    .map(|(key, def)| {
                        def.get("name")
                            .and_then(Value::as_str)
                            .unwrap_or(key)
                            .to_ascii_lowercase()
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (mut faithful, mut operations, mut missing) = (0, 0, Vec::new());
    let paths = description.root.get("paths").and_then(Value::as_object);
    for (route, item) in paths.into_iter().flatten() {
        let Some(item) = description.deref(item) else {
            continue;
        };
        for verb in VERBS {
            let Some(operation) = item.get(*verb) else {
                continue;
            };
            let Some(operation) = description.deref(operation) else {
                continue;
            };
            let label = format!("{} {route}", verb.to_ascii_uppercase());
            let mut lacks = Vec::new();
            let mut resolved = true;
            let mut takes_body = operation.get("requestBody").is_some();
            let Some(method) = method_for(verb, route) else {
                operations += 1;
                missing.push(format!("{label}: no method"));
                continue;
            };
            let mut parameters = Vec::new();
            for list in [item.get("parameters"), operation.get("parameters")] {
                for parameter in list.and_then(Value::as_array).into_iter().flatten() {
                    match description.deref(parameter) {
                        Some(parameter) => parameter_list_add(&mut parameters, parameter),
                        None => resolved = false,
                    }
                }
            }
            for parameter in &parameters {
                let text = |key: &str| parameter.get(key).and_then(Value::as_str).unwrap_or("");
                let wire = text("name").to_ascii_lowercase();
                let present = match text("in") {
                    // The method was found by its route: every placeholder is there.
                    "path" => true,
                    "query" => names_in(method, "query").contains(&wire),
                    "header" if OWN.contains(&wire.as_str()) => true,
                    "header" if wire == "idempotency-key" => {
                        method.get("idempotency_key").is_some()
                            || names_in(method, "headers").contains(&wire)
                    }
                    "header" => names_in(method, "headers").contains(&wire),
                    "body" | "formData" => {
                        takes_body = true;
                        true
                    }
                    _ => true,
                };
                if !present {
                    lacks.push(format!("{} parameter `{}`", text("in"), text("name")));
                }
            }
            if takes_body && method.get("body").is_none() {
                lacks.push("its body".to_owned());
            }
            let responses = operation.get("responses").and_then(Value::as_object);
            let returns_body = responses.into_iter().flatten().any(|(status, response)| {
                // 204 and 205 have no body in HTTP, whatever is declared for them.
                let success = status.starts_with('2') && !matches!(status.as_str(), "204" | "205");
                let response = description.deref(response);
                success
                    && response.is_some_and(|r| {
                        r.get("schema").is_some()
                            || r.get("content")
                                .and_then(Value::as_object)
                                .is_some_and(|c| c.values().any(|m| m.get("schema").is_some()))
                    })
            });
            if returns_body && method.get("returns").is_none() && method.get("responses").is_none()
            {
                lacks.push("its result".to_owned());
            }
            if !resolved {
                continue;
            }
            operations += 1;
            if lacks.is_empty() {
                faithful += 1;
            } else {
                missing.push(format!("{label}: the method lacks {}", lacks.join(", ")));
            }
        }
    }
    (faithful, operations, missing)
}

/// Adds an operation's parameter, replacing the path item's of the same name and place.
fn parameter_list_add(parameters: &mut Vec<Value>, parameter: &Value) {
    let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
    parameters.retain(|p| key(p) != key(parameter));
    parameters.push(parameter.clone());
}

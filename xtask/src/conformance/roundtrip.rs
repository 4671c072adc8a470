//! The round trip: for every method of an imported client with a JSON body or a JSON 2xx answer,
//! instances of that schema — the description's own examples, then instances made from the
//! schema that take each `oneOf`/`anyOf` branch, each enum value, every optional property, and
//! an extra key where `additionalProperties` allows one — are decoded with the generated type
//! and encoded back by a program built beside the client. What comes back must be what went
//! in: absent and `null` are equal, and so are `1` and `1.0`; nothing else. A difference is a
//! value the generated type drops, reported with its JSON path.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::description::{Description, json_kind};

/// How many instances are made from a schema beside its examples: enough to take each branch
/// of a union of up to this many alternatives.
const VARIATIONS: usize = 6;

/// One instance to send through a type: the method, `body` or `returns`, the type, the value.
pub(super) struct Instance {
    pub(super) method: String,
    pub(super) role: &'static str,
    pub(super) ty: String,
    pub(super) value: Value,
    /// One of the description's own examples, rather than made from the schema.
    pub(super) example: bool,
}

/// The instances of every method's JSON body and JSON answer.
pub(super) fn instances(spec: &Value, description: &Description) -> Vec<Instance> {
    let mut out = Vec::new();
    let methods = spec.get("methods").and_then(Value::as_object);
    for (name, method) in methods.into_iter().flatten() {
        let request = method
            .get("request")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (verb, route) = request.split_once(' ').unwrap_or(("GET", "/"));
        let Some((_, _, operation)) = description.operation(&verb.to_ascii_lowercase(), route)
        else {
            continue;
        };
        let json_type = |def: Option<&Value>| -> Option<String> {
            let def = def?;
            let ty = match def {
                Value::String(ty) => ty.clone(),
                other => {
                    if other.get("as").is_some() {
                        return None;
                    }
                    other.get("type")?.as_str()?.to_owned()
                }
            };
            let opaque = ty == "String" || ty.contains("Bytes") || ty == "File" || ty == "()";
            (!opaque).then_some(ty)
        };
        let mut add = |role: &'static str, ty: String, schema: &Value, examples: Vec<Value>| {
            let mut seen = BTreeSet::new();
            let made = (0..VARIATIONS).filter_map(|k| Maker { description, k }.make(schema, 0));
            // A vendor's example that its own schema rules out (a required key missing, a key
            // a closed object does not declare) is the description contradicting itself, not a
            // value it allows.
            let examples = examples
                .into_iter()
                .filter(|example| allowed(description, example, schema, 0))
                .take(3)
                .map(|value| (value, true));
            for (value, example) in examples.chain(made.map(|value| (value, false))) {
                if seen.insert(value.to_string()) {
                    out.push(Instance {
                        method: name.clone(),
                        role,
                        ty: ty.clone(),
                        value,
                        example,
                    });
                }
            }
        };
        if let Some(ty) = json_type(method.get("body"))
            && let Some((schema, examples)) = body_schema(description, operation)
        {
            add("body", ty, &schema, examples);
        }
        if method.get("not_found").is_none()
            && let Some(ty) = json_type(method.get("returns"))
            && let Some((schema, examples)) = answer_schema(description, operation)
        {
            add("returns", ty, &schema, examples);
        }
    }
    out
}

/// The JSON request body's schema and its examples.
fn body_schema(description: &Description, operation: &Value) -> Option<(Value, Vec<Value>)> {
    if description.swagger2 {
        let parameter = operation
            .get("parameters")?
            .as_array()?
            .iter()
            .filter_map(|p| description.deref(p))
            .find(|p| p.get("in").and_then(Value::as_str) == Some("body"))?;
        return Some((parameter.get("schema")?.clone(), Vec::new()));
    }
    let body = description.deref(operation.get("requestBody")?)?;
    media_schema(description, body.get("content")?)
}

/// The first 2xx answer's JSON schema and its examples.
fn answer_schema(description: &Description, operation: &Value) -> Option<(Value, Vec<Value>)> {
    let responses = operation.get("responses")?.as_object()?;
    let (_, response) = responses
        .iter()
        .filter(|(code, _)| code.starts_with('2') && code.as_str() != "204")
        .min_by_key(|(code, _)| code.as_str())?;
    let response = description.deref(response)?;
    if description.swagger2 {
        let examples = response
            .get("examples")
            .and_then(Value::as_object)
            .and_then(|e| e.iter().find(|(media, _)| media.contains("json")))
            .map(|(_, example)| vec![example.clone()])
            .unwrap_or_default();
        return Some((response.get("schema")?.clone(), examples));
    }
    media_schema(description, response.get("content")?)
}

fn media_schema(description: &Description, content: &Value) -> Option<(Value, Vec<Value>)> {
    let (_, media) = content
        .as_object()?
        .iter()
        .find(|(media, _)| media.contains("json") && !media.contains("jsonl"))?;
    let mut examples: Vec<Value> = media.get("example").cloned().into_iter().collect();
    for example in media
        .get("examples")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|examples| examples.values())
    {
        if let Some(value) = description.deref(example).and_then(|e| e.get("value")) {
            examples.push(value.clone());
        }
    }
    Some((media.get("schema")?.clone(), examples))
}

/// Makes the `k`th instance of a schema: branch `k` of each union, value `k` of each enum,
/// every property (optional ones too, save on the first instance), `null` for a nullable value
/// on the second, an extra key where other keys are allowed.
struct Maker<'a> {
    description: &'a Description,
    k: usize,
}

impl Maker<'_> {
    fn make(&self, schema: &Value, depth: usize) -> Option<Value> {
        self.make_requiring(schema, depth, &[])
    }

    /// [`Maker::make`], with properties that a schema around this one requires (an `allOf`
    /// part may require what another part declares).
    fn make_requiring(&self, schema: &Value, depth: usize, also: &[String]) -> Option<Value> {
        if depth > 8 {
            return None;
        }
        // A base schema whose discriminator names its children is, where it is used, one of
        // them, its tag saying which (as a part of a child's `allOf`, it is the base's fields).
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let children = self.description.children(reference);
            if !children.is_empty() {
                let (tag, child) = &children[self.k % children.len()];
                let mut value = self.make_requiring(&json!({ "$ref": child }), depth + 1, also)?;
                let base = self.description.deref(schema)?;
                let field = match base.get("discriminator") {
                    Some(Value::String(field)) => Some(field.as_str()),
                    Some(d) => d.get("propertyName").and_then(Value::as_str),
                    None => None,
                };
                if let (Some(field), Value::Object(fields)) = (field, &mut value) {
                    fields.insert(field.to_owned(), json!(tag));
                }
                return Some(value);
            }
        }
        self.make_base(schema, depth, also)
    }

    /// [`Maker::make_requiring`] of a schema as it stands, a base taken as its own fields.
    fn make_base(&self, schema: &Value, depth: usize, also: &[String]) -> Option<Value> {
        if depth > 8 {
            return None;
        }
        // Every spelling of "or null": `nullable: true` (beside a `$ref` too, the OpenAPI 3.0
        // generators' way), a type list with `null`, an alternative that is only null
        // (`{type: null}`, or 3.0's `{nullable: true}`).
        let written_nullable = may_be_null(schema);
        let schema = self.description.deref(schema)?;
        // A constant the schema's own type rules out (`type: number, const: "1"`) is no
        // instance of it: the description contradicts itself, and the type says more.
        if let Some(value) = schema
            .get("const")
            .filter(|value| schema.get("type").is_none() || fits_kind(value, json_kind(schema)))
        {
            return Some(value.clone());
        }
        let nullable = written_nullable || may_be_null(schema);
        if nullable && self.k == 1 && depth > 0 {
            return Some(Value::Null);
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            // A value the schema's own type rules out (`type: string, enum: [true, local]`, a
            // YAML `on` turned boolean) is no instance of it, as with `const`.
            let typed =
                |v: &&Value| schema.get("type").is_none() || fits_kind(v, json_kind(schema));
            let values: Vec<&Value> = values
                .iter()
                .filter(|v| !v.is_null())
                .filter(typed)
                .collect();
            return values
                .get(self.k % values.len().max(1))
                .map(|v| (*v).clone());
        }
        // What constraint-only alternatives (below) require of the object, the k-th's.
        let mut also = also.to_vec();
        for key in ["oneOf", "anyOf"] {
            // Alternatives that only constrain a schema that says its own type (a `pattern`
            // each, or `required: [id]` in one and `required: [email]` in another) are no
            // shapes of their own: the type makes the instance, with what one of them requires.
            let constrains = |a: &Value| {
                [
                    "type",
                    "$ref",
                    "properties",
                    "items",
                    "enum",
                    "const",
                    "allOf",
                    "oneOf",
                    "anyOf",
                ]
                .iter()
                .all(|k| a.get(*k).is_none())
            };
            let Some(alternatives) = schema.get(key).and_then(Value::as_array) else {
                continue;
            };
            if schema.get("type").is_some() && alternatives.iter().all(constrains) {
                if let Some(required) = alternatives
                    .get(self.k % alternatives.len().max(1))
                    .and_then(|chosen| chosen.get("required"))
                    .and_then(Value::as_array)
                {
                    also.extend(required.iter().filter_map(Value::as_str).map(str::to_owned));
                }
            } else {
                let also = also.as_slice();
                let real: Vec<&Value> = alternatives.iter().filter(|a| !only_null(a)).collect();
                if real.is_empty() {
                    return Some(Value::Null);
                }
                let chosen = real[self.k % real.len()];
                let mut value = self.make_requiring(chosen, depth + 1, also)?;
                // A discriminator's field holds the value that names the branch taken.
                if let Some(discriminator) = schema.get("discriminator")
                    && let Some(field) = discriminator.get("propertyName").and_then(Value::as_str)
                    && let Some(reference) = chosen.get("$ref").and_then(Value::as_str)
                    && let Value::Object(fields) = &mut value
                {
                    let mapped = discriminator
                        .get("mapping")
                        .and_then(Value::as_object)
                        .and_then(|m| m.iter().find(|(_, to)| to.as_str() == Some(reference)))
                        .map(|(tag, _)| tag.clone());
                    let named = reference.rsplit('/').next().unwrap_or_default().to_owned();
                    fields.insert(field.to_owned(), json!(mapped.unwrap_or(named)));
                }
                // Properties beside the alternatives are the object's too; where both say
                // one, the branch's value stands (`type: enum [A, MX]` beside a branch whose
                // `type` is `MX` alone: the branch's holds for both).
                return Some(match (value, self.object(schema, depth, also)) {
                    (Value::Object(mut fields), Some(Value::Object(own))) => {
                        for (key, value) in own {
                            fields.entry(key).or_insert(value);
                        }
                        Value::Object(fields)
                    }
                    (value, _) => value,
                });
            }
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            // Every part's `required` holds for the whole, whichever part declares the property.
            let mut required: Vec<String> = also.to_vec();
            for part in std::iter::once(schema).chain(parts.iter()) {
                let part = self.description.deref(part).unwrap_or(part);
                required.extend(
                    part.get("required")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_owned),
                );
            }
            let mut merged = Map::new();
            for part in parts {
                match self.make_base(part, depth + 1, &required)? {
                    Value::Object(fields) => merge_part(&mut merged, fields),
                    other if parts.len() == 1 => return Some(other),
                    _ => {}
                }
            }
            if let Some(Value::Object(own)) = self.object(schema, depth, &required) {
                merged.extend(own);
            }
            return Some(Value::Object(merged));
        }
        Some(match json_kind(schema) {
            "string" => match schema.get("format").and_then(Value::as_str) {
                Some("date-time") => json!("2024-01-02T03:04:05Z"),
                Some("date") => json!("2024-01-02"),
                Some("uuid") => json!("3fa85f64-5717-4562-b3fc-2c963f66afa6"),
                Some("byte") => json!("aGVsbG8="),
                _ => json!(format!("text-{}", self.k)),
            },
            "integer" => json!(schema.get("minimum").and_then(Value::as_i64).unwrap_or(2)),
            "number" => json!(1.5),
            "boolean" => json!(self.k.is_multiple_of(2)),
            "array" => match schema.get("items") {
                Some(items) => Value::Array(self.make(items, depth + 1).into_iter().collect()),
                None => json!([]),
            },
            _ => self.object(schema, depth, &also)?,
        })
    }

    /// An object of the schema's properties (all of them past the first instance, which has
    /// the required ones), and an extra key where `additionalProperties` allows one.
    fn object(&self, schema: &Value, depth: usize, also: &[String]) -> Option<Value> {
        let mut required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        required.extend(also.iter().map(String::as_str));
        let mut object = Map::new();
        for (name, property) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let one_way = self
                .description
                .deref(property)
                .is_some_and(|p| p.get("writeOnly") == Some(&Value::Bool(true)));
            if (self.k > 0 || required.contains(&name.as_str())) && !one_way {
                match self.make(property, depth + 1) {
                    Some(value) => {
                        object.insert(name.clone(), value);
                    }
                    None if required.contains(&name.as_str()) => return None,
                    None => {}
                }
            }
        }
        // A key the schema requires without declaring it (JSON Schema allows it) is in every
        // valid instance: any value, here a text (not where the object is closed, nor where
        // parts or alternatives may declare it).
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        let composed = ["allOf", "oneOf", "anyOf"]
            .iter()
            .any(|k| schema.get(*k).is_some());
        if !closed && !composed {
            let declared = schema.get("properties").and_then(Value::as_object);
            for key in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if declared.is_none_or(|p| !p.contains_key(key)) && !also.iter().any(|a| a == key) {
                    object.insert(key.to_owned(), json!("required, not declared"));
                }
            }
        }
        match schema.get("additionalProperties") {
            Some(Value::Bool(true)) => {
                object.insert("extra-key".into(), json!({ "kept": [1, "two"] }));
            }
            Some(values @ Value::Object(_)) if self.k > 0 => {
                if let Some(value) = self.make(values, depth + 1) {
                    object.insert("extra-key".into(), value);
                }
            }
            _ => {}
        }
        Some(Value::Object(object))
    }
}

/// An `allOf` part's object into the parts' so far. An instance is each part's at once: where
/// two parts say a key, objects merge key by key, a value made from a schema that says nothing
/// (`ipv4: {}` beside `ipv4: array`, made as `{}`) gives way to the other's, and otherwise the
/// later part's value stands (a part that narrows a property comes after the one it narrows).
fn merge_part(merged: &mut Map<String, Value>, part: Map<String, Value>) {
    for (key, value) in part {
        let Some(there) = merged.get_mut(&key) else {
            merged.insert(key, value);
            continue;
        };
        match (there, value) {
            (_, Value::Object(more)) if more.is_empty() => {}
            (Value::Object(there), Value::Object(more)) if !there.is_empty() => {
                merge_part(there, more);
            }
            (there, value) => *there = value,
        }
    }
}

/// Whether the schema allows `value`, as far as the kinds, required and undeclared keys, enums
/// and compositions tell (formats and patterns are not looked at).
fn allowed(description: &Description, value: &Value, schema: &Value, depth: usize) -> bool {
    let Some(schema) = description.deref(schema) else {
        return true;
    };
    if depth > 16 {
        return true;
    }
    if value.is_null() {
        return true;
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && !values.contains(value)
    {
        return false;
    }
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array)
        && !parts
            .iter()
            .all(|p| allowed(description, value, p, depth + 1))
    {
        return false;
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array)
            && !alternatives
                .iter()
                .any(|a| allowed(description, value, a, depth + 1))
        {
            return false;
        }
    }
    if schema.get("type").is_some() && !fits_kind(value, json_kind(schema)) {
        return false;
    }
    match value {
        Value::Array(items) => schema.get("items").is_none_or(|item| {
            items
                .iter()
                .all(|v| allowed(description, v, item, depth + 1))
        }),
        Value::Object(fields) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let required = schema.get("required").and_then(Value::as_array);
            let has_required = required
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .all(|key| fields.contains_key(key));
            let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
            let declared = |key: &String| properties.is_some_and(|p| p.contains_key(key));
            has_required
                && (!closed || fields.keys().all(declared))
                && fields.iter().all(|(key, v)| {
                    properties
                        .and_then(|p| p.get(key))
                        .is_none_or(|p| allowed(description, v, p, depth + 1))
                })
        }
        _ => true,
    }
}

/// True when `value` is of the JSON type `kind` names.
fn fits_kind(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => value.is_object(),
    }
}

/// The program that decodes each instance with its type and prints what it encodes back (or
/// why it did not decode), a line each, in order.
pub(super) fn program(instances: &[Instance]) -> String {
    let mut types: Vec<&str> = instances.iter().map(|i| i.ty.as_str()).collect();
    types.sort();
    types.dedup();
    let mut out = String::from(
        "//! Generated by `cargo xtask conformance --round-trip`: each instance decoded with its generated type and encoded back.\n#![allow(unused, clippy::all)]\nmod api;\nuse api::*;\nuse std::collections::HashMap;\nuse remcall::serde_json::{self, Value};\n\nfn again<T: remcall::serde::de::DeserializeOwned + remcall::serde::Serialize>(value: Value) -> String {\n    match serde_json::from_value::<T>(value) {\n        Ok(read) => match serde_json::to_string(&read) { Ok(text) => text, Err(e) => format!(\"!encode: {e}\") },\n        Err(e) => format!(\"!decode: {e}\").replace('\\n', \" \"),\n    }\n}\n\nfn main() {\n    let text = std::fs::read_to_string(\"instances.json\").unwrap_or_default();\n    let instances: Vec<(usize, Value)> = serde_json::from_str(&text).unwrap_or_default();\n    for (ty, value) in instances {\n        let line = match ty {\n",
    );
    for (i, ty) in types.iter().enumerate() {
        let rust = ty
            .replace("serde_json::", "remcall::serde_json::")
            .replace("bytes::Bytes", "remcall::bytes::Bytes");
        out.push_str(&format!("            {i} => again::<{rust}>(value),\n"));
    }
    out.push_str("            _ => String::from(\"!type\"),\n        };\n        println!(\"{line}\");\n    }\n}\n");
    out
}

/// The instances as the program reads them: the position of each one's type among the sorted
/// types, and the value.
pub(super) fn input(instances: &[Instance]) -> Value {
    let mut types: Vec<&str> = instances.iter().map(|i| i.ty.as_str()).collect();
    types.sort();
    types.dedup();
    Value::Array(
        instances
            .iter()
            .map(|i| {
                let position = types.iter().position(|t| *t == i.ty).unwrap_or(usize::MAX);
                json!([position, i.value])
            })
            .collect(),
    )
}

/// Whether a schema allows `null`, however it says so.
fn may_be_null(schema: &Value) -> bool {
    schema.get("nullable") == Some(&Value::Bool(true))
        || schema
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.iter().any(|t| t == "null"))
        || ["anyOf", "oneOf"].iter().any(|key| {
            schema
                .get(*key)
                .and_then(Value::as_array)
                .is_some_and(|alternatives| alternatives.iter().any(only_null))
        })
}

/// An alternative that is only `null`: `{type: null}`, or 3.0's `{nullable: true}` alone.
fn only_null(alternative: &Value) -> bool {
    alternative.get("type").and_then(Value::as_str) == Some("null")
        || alternative.as_object().is_some_and(|keys| {
            keys.get("nullable") == Some(&Value::Bool(true))
                && keys
                    .keys()
                    .all(|k| matches!(k.as_str(), "nullable" | "description" | "title"))
        })
}

/// Where `back` differs from `sent` (numbers by value; absent and `null` equal, save in a body
/// the client sends when `nulls`: there a `null` not written back is a value lost — a PATCH
/// that cannot clear a field): the first JSON path that lost or changed a value, or `None`
/// when the round trip kept everything.
pub(super) fn difference(sent: &Value, back: &Value, path: &str, nulls: bool) -> Option<String> {
    match (sent, back) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                if nulls && value.is_null() && !b.contains_key(key) {
                    return Some(format!("{path}.{key} (null not sent)"));
                }
                let there = b.get(key).unwrap_or(&Value::Null);
                if let Some(at) = difference(value, there, &format!("{path}.{key}"), nulls) {
                    return Some(at);
                }
            }
            b.iter()
                .find(|(key, value)| !a.contains_key(*key) && !value.is_null())
                .map(|(key, _)| format!("{path}.{key} (added)"))
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| difference(x, y, &format!("{path}[{i}]"), nulls)),
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        (a, b) if a == b => None,
        _ => Some(path.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_and_null_are_equal_and_numbers_compare_by_value() {
        let sent = json!({ "a": 1, "b": null, "c": [{ "d": 2.0 }] });
        assert_eq!(
            difference(&sent, &json!({ "a": 1.0, "c": [{ "d": 2 }] }), "$", false),
            None
        );
        assert_eq!(
            difference(&sent, &json!({ "a": 1, "c": [{}] }), "$", false).as_deref(),
            Some("$.c[0].d")
        );
        assert_eq!(
            difference(
                &json!({ "a": "x" }),
                &json!({ "a": "x", "e": 1 }),
                "$",
                false
            )
            .as_deref(),
            Some("$.e (added)")
        );
    }

    #[test]
    fn in_a_body_sent_a_null_not_written_back_is_lost() {
        let sent = json!({ "a": 1, "b": null });
        assert_eq!(
            difference(&sent, &json!({ "a": 1 }), "$", true).as_deref(),
            Some("$.b (null not sent)")
        );
        assert_eq!(
            difference(&sent, &json!({ "a": 1, "b": null }), "$", true),
            None
        );
    }

    #[test]
    fn an_example_its_own_schema_rules_out_is_no_instance() {
        let description = Description::new(json!({ "openapi": "3.1.0", "paths": {} }));
        let schema = json!({
            "type": "object", "required": ["ok", "team_ids"], "additionalProperties": false,
            "properties": { "ok": { "type": "boolean" }, "team_ids": { "type": "array" } },
        });
        let given = json!({ "ok": true, "team_ids": ["T1"] });
        assert!(allowed(&description, &given, &schema, 0));
        // The vendor's example: a key the closed object does not declare, a required one missing.
        let vendors = json!({ "ok": true, "teams": ["T1"] });
        assert!(!allowed(&description, &vendors, &schema, 0));
    }

    #[test]
    fn each_branch_of_a_union_is_made_in_turn() {
        let description = Description::new(json!({ "openapi": "3.1.0", "paths": {} }));
        let schema = json!({ "oneOf": [
            { "type": "object", "required": ["a"], "properties": { "a": { "type": "string" } } },
            { "type": "object", "required": ["b"], "properties": { "b": { "type": "integer" } },
              "additionalProperties": true },
        ] });
        let made: Vec<Value> = (0..2)
            .filter_map(|k| {
                Maker {
                    description: &description,
                    k,
                }
                .make(&schema, 0)
            })
            .collect();
        assert_eq!(made[0], json!({ "a": "text-0" }));
        assert_eq!(
            made[1],
            json!({ "b": 2, "extra-key": { "kept": [1, "two"] } })
        );
    }

    #[test]
    fn alternatives_that_only_require_keys_make_an_object_with_one_s_keys() {
        let description = Description::new(json!({ "openapi": "3.1.0", "paths": {} }));
        let text = json!({ "type": "string" });
        let schema = json!({
            "type": "object",
            "properties": { "name": text, "id": text, "email": text },
            "anyOf": [{ "required": ["name", "id"] }, { "required": ["name", "email"] }],
        });
        let made = |k| {
            Maker {
                description: &description,
                k,
            }
            .make(&schema, 0)
        };
        assert_eq!(made(0), Some(json!({ "name": "text-0", "id": "text-0" })));
        assert_eq!(
            made(3).map(|v| v.as_object().map(|o| o.contains_key("email"))),
            Some(Some(true))
        );
    }

    #[test]
    fn an_enum_value_its_type_rules_out_is_never_made() {
        let description = Description::new(json!({ "openapi": "3.1.0", "paths": {} }));
        // `on`/`off` read as booleans by a YAML 1.1 tool, left in a string enum.
        let schema = json!({ "type": "string", "enum": [true, "local", false] });
        let made: Vec<Value> = (0..4)
            .filter_map(|k| {
                Maker {
                    description: &description,
                    k,
                }
                .make(&schema, 0)
            })
            .collect();
        assert!(made.iter().all(|v| v == "local"), "{made:?}");
    }

    #[test]
    fn all_of_parts_that_say_one_key_merge_and_an_empty_schema_gives_way() {
        let description = Description::new(json!({ "openapi": "3.1.0", "paths": {} }));
        let schema = json!({ "allOf": [
            { "type": "object", "required": ["acl"], "properties": { "acl": {
                "type": "object", "required": ["ips", "on"],
                "properties": { "ips": { "type": "array", "items": { "type": "string" } },
                                "on": { "type": "boolean" } } } } },
            { "type": "object", "properties": { "acl": { "properties": { "ips": {} } } } },
        ] });
        let made = Maker {
            description: &description,
            k: 0,
        }
        .make(&schema, 0);
        assert_eq!(
            made,
            Some(json!({ "acl": { "ips": ["text-0"], "on": true } }))
        );
    }

    #[test]
    fn a_property_beside_the_branches_takes_the_branch_s_value() {
        let description = Description::new(json!({ "openapi": "3.1.0", "paths": {} }));
        let kind = |values: &[&str]| json!({ "type": "string", "enum": values });
        let schema = json!({
            "required": ["type"],
            "properties": { "type": kind(&["A", "CNAME", "MX"]) },
            "anyOf": [
                { "type": "object", "required": ["type"], "properties": { "type": kind(&["A"]) } },
                { "type": "object", "required": ["type", "priority"],
                  "properties": { "type": kind(&["MX"]), "priority": { "type": "integer" } } },
            ],
        });
        let made = Maker {
            description: &description,
            k: 1,
        }
        .make(&schema, 0);
        // The outer enum alone would say `CNAME` here, an instance of no branch.
        assert_eq!(made, Some(json!({ "type": "MX", "priority": 2 })));
    }
}

//! What a schema says of itself, read without following anything: its type, whether it may be
//! null, whether it defines a type of its own, its doc, and the alternatives and `allOf` parts
//! that only constrain or annotate it.

use serde_json::Value;

use crate::names;
use crate::spec::EnumValue;

/// A `oneOf` (or `anyOf`) whose alternatives are all `const`s of one kind, as Discord writes its
/// enums: the values, each with the alternative's title as its name and its description.
pub(crate) fn const_alternatives(schema: &Value) -> Option<Vec<EnumValue>> {
    let alternatives = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let real: Vec<&Value> = alternatives.iter().filter(|a| !is_null_schema(a)).collect();
    let values: Vec<&Value> = real.iter().filter_map(|a| a.get("const")).collect();
    let consistent = values.iter().all(|v| v.is_string()) || values.iter().all(|v| v.is_i64());
    if real.is_empty() || values.len() != real.len() || !consistent {
        return None;
    }
    let mut names: Vec<String> = Vec::new();
    Some(
        real.iter()
            .map(|alternative| {
                let name = alternative
                    .get("title")
                    .and_then(Value::as_str)
                    .map(names::type_name)
                    .filter(|n| !names.contains(n));
                if let Some(name) = &name {
                    names.push(name.clone());
                }
                let doc = alternative
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| d.trim().to_owned())
                    .filter(|d| !d.is_empty());
                EnumValue {
                    value: alternative["const"].clone(),
                    name,
                    doc,
                }
            })
            .collect(),
    )
}

/// True for a schema that defines a type of its own: an object with properties, an enum, a
/// union, a composition.
pub(crate) fn defines_type(schema: &Value) -> bool {
    if let Some(plain) = without_constraint_alternatives(schema) {
        return defines_type(&plain);
    }
    if const_alternatives(schema).is_some() {
        return true;
    }
    let enum_values = schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|v| v.iter().filter(|v| !v.is_null()).collect::<Vec<_>>());
    let enum_ok = enum_values.is_some_and(|v| {
        !v.is_empty() && (v.iter().all(|v| v.is_string()) || v.iter().all(|v| v.is_i64()))
    });
    let union = ["oneOf", "anyOf"].iter().any(|k| {
        schema.get(k).and_then(Value::as_array).is_some_and(|a| {
            a.iter().filter(|x| !is_null_schema(x)).count() > 1 && !one_plain_type(a)
        })
    });
    let composed = schema
        .get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|a| a.len() > 1 || has_properties(schema));
    has_properties(schema) || enum_ok || union || composed
}

/// True for alternatives that are all the same plain scalar type (`{type: string, format:
/// uuid}` or `{type: string}`): one Rust type, so no union of their own.
fn one_plain_type(alternatives: &[Value]) -> bool {
    let plain = |a: &Value| {
        a.as_object().is_some_and(|keys| {
            !keys.keys().any(|k| {
                matches!(
                    k.as_str(),
                    "$ref"
                        | "enum"
                        | "const"
                        | "properties"
                        | "items"
                        | "oneOf"
                        | "anyOf"
                        | "allOf"
                )
            })
        })
    };
    let mut kinds = alternatives
        .iter()
        .filter(|a| !is_null_schema(a))
        .map(|a| plain(a).then(|| schema_type(a)).flatten());
    let Some(Some(first)) = kinds.next() else {
        return false;
    };
    first != "object" && first != "array" && kinds.all(|kind| kind.as_deref() == Some(&first))
}

/// True for a schema that declares at least one property: `properties: {}` declares none, and
/// such an object allows any keys (a struct of no fields would drop them all).
pub(crate) fn has_properties(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
}

/// The schema's `type`, the non-null one of a 3.1 list.
pub(crate) fn schema_type(schema: &Value) -> Option<String> {
    match schema.get("type")? {
        Value::String(t) => Some(t.clone()),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .map(str::to_owned),
        _ => None,
    }
}

pub(crate) fn is_nullable(schema: &Value) -> bool {
    schema.get("nullable") == Some(&Value::Bool(true))
        || schema.get("x-nullable") == Some(&Value::Bool(true))
        || schema
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.iter().any(|t| t == "null"))
}

/// True for a schema that allows only `null`: `type: null`, `enum: [null]`, `const: null`, or
/// an OpenAPI 3.0 alternative that says nothing but `nullable: true` (`anyOf: [X, {nullable:
/// true}]` is how 3.0 descriptions write "X or null").
pub(crate) fn is_null_schema(schema: &Value) -> bool {
    let only_nullable = schema.as_object().is_some_and(|object| {
        object.get("nullable") == Some(&Value::Bool(true))
            && object
                .keys()
                .all(|k| matches!(k.as_str(), "nullable" | "description" | "title" | "default"))
    });
    only_nullable
        || schema.get("const").is_some_and(Value::is_null)
        || schema.get("type").and_then(Value::as_str) == Some("null")
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|v| v.len() == 1 && v[0].is_null())
}

/// A schema's description (or title) as a doc.
pub(crate) fn doc(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .or_else(|| schema.get("title"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_owned)
}

/// The non-null values of an `enum` of strings or of integers.
pub(crate) fn enum_values(schema: &Value) -> Option<Vec<Value>> {
    let values: Vec<Value> = schema
        .get("enum")?
        .as_array()?
        .iter()
        .filter(|v| !v.is_null())
        .cloned()
        .collect();
    let integer = values.iter().all(|v| v.is_i64());
    let strings = values.iter().all(Value::is_string);
    (!values.is_empty() && (integer || strings)).then_some(values)
}

/// True for an `allOf` part that only says something of a value another part defines: its doc,
/// whether it may be null, read or write only, an example.
pub(crate) fn only_modifies(part: &Value) -> bool {
    part.as_object().is_some_and(|keys| {
        keys.keys().all(|key| {
            key.starts_with("x-")
                || matches!(
                    key.as_str(),
                    "description"
                        | "title"
                        | "nullable"
                        | "readOnly"
                        | "writeOnly"
                        | "deprecated"
                        | "example"
                        | "examples"
                        | "default"
                        | "externalDocs"
                        | "format"
                )
        })
    })
}

/// A schema that says what it is (`properties`, or a `type`) whose `oneOf`/`anyOf`
/// alternatives only constrain it (`required: [email]` or `required: [external_id]`; a
/// `pattern` each): the schema itself, a property required where every alternative requires
/// it. `None` for a schema with no such alternatives.
pub(crate) fn without_constraint_alternatives(schema: &Value) -> Option<Value> {
    let own_type = schema.get("type");
    if schema.get("properties").is_none() && own_type.is_none() {
        return None;
    }
    let constraint_only = |alternative: &Value| {
        alternative.as_object().is_some_and(|keys| {
            keys.iter().all(|(key, value)| match key.as_str() {
                "type" => Some(value) == own_type || value == "object" && own_type.is_none(),
                "properties"
                | "$ref"
                | "items"
                | "enum"
                | "const"
                | "allOf"
                | "oneOf"
                | "anyOf"
                | "additionalProperties"
                | "nullable" => false,
                _ => true,
            })
        })
    };
    let mut plain = schema.as_object()?.clone();
    let mut stripped = false;
    for key in ["oneOf", "anyOf"] {
        let Some(alternatives) = schema.get(key).and_then(Value::as_array) else {
            continue;
        };
        if alternatives.is_empty() || !alternatives.iter().all(constraint_only) {
            return None;
        }
        let required_in = |name: &str| {
            alternatives.iter().all(|a| {
                a.get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|n| n == name))
            })
        };
        let mut required: Vec<Value> = plain
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let names: Vec<String> = alternatives
            .iter()
            .filter_map(|a| a.get("required").and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        for name in names {
            if required_in(&name) && !required.iter().any(|r| r == name.as_str()) {
                required.push(Value::String(name));
            }
        }
        plain.insert("required".to_owned(), Value::Array(required));
        plain.remove(key);
        stripped = true;
    }
    stripped.then_some(Value::Object(plain))
}

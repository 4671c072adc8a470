//! The description a run calls against, bundled into one value: its operations, routes, and
//! samples of what its schemas accept.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::Context;
use serde_json::{Map, Value, json};

use super::routes::{placeholders_blank, placeholders_named};

/// The description as a value tree, for the parameters' and bodies' schemas; `$ref`s inside
/// the entry document are followed (one that leaves it gives no sample: the call is not made).
pub(super) struct Description {
    pub(super) root: Value,
    pub(super) swagger2: bool,
    /// A string for each `pattern` in the description, made by json-schema-faker (Prism's own
    /// generator): only in a run that calls Prism.
    patterns: HashMap<String, String>,
}

impl Description {
    /// The description bundled into one value (see `bundle.rs`).
    pub(super) fn new(root: Value) -> Description {
        let swagger2 = root.get("swagger").is_some();
        Description {
            root,
            swagger2,
            patterns: HashMap::new(),
        }
    }

    /// Fills [`Description::patterns`] with one node process that asks json-schema-faker, from
    /// Prism's installation, for a string matching each pattern.
    pub(super) fn sample_patterns(&mut self, prism: &Path) -> anyhow::Result<()> {
        fn collect(value: &Value, out: &mut Vec<String>) {
            match value {
                Value::Object(map) => {
                    if let Some(Value::String(pattern)) = map.get("pattern")
                        && !out.contains(pattern)
                    {
                        out.push(pattern.clone());
                    }
                    map.values().for_each(|v| collect(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
                _ => {}
            }
        }
        let mut patterns = Vec::new();
        collect(&self.root, &mut patterns);
        if patterns.is_empty() {
            return Ok(());
        }
        let schemas: Vec<Value> = patterns
            .iter()
            .map(|p| json!({ "type": "string", "pattern": p }))
            .collect();
        // .../target/prism/node_modules/.bin/prism → .../target/prism
        let install = prism
            .ancestors()
            .nth(3)
            .context("Prism's installation directory")?;
        let mut child = Command::new("node")
            .current_dir(install)
            .arg("-e")
            .arg(PATTERN_SCRIPT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("running node")?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            stdin.write_all(serde_json::to_string(&schemas)?.as_bytes())?;
        }
        let output = child.wait_with_output()?;
        let samples: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap_or_default();
        for (pattern, sample) in patterns.into_iter().zip(samples) {
            if let Value::String(text) = sample {
                self.patterns.insert(pattern, text);
            }
        }
        Ok(())
    }

    /// True when another route of the description has the same shape and verb: Prism routes
    /// a request to the first, so what it checks and answers may be the other operation's.
    pub(super) fn ambiguous(&self, verb: &str, route: &str) -> bool {
        let shape = placeholders_blank(route);
        let paths = self.root.get("paths").and_then(Value::as_object);
        paths
            .into_iter()
            .flatten()
            .filter(|(path, item)| {
                placeholders_blank(path) == shape
                    && self
                        .deref(item)
                        .is_some_and(|item| item.get(verb).is_some())
            })
            .count()
            > 1
    }

    /// `value`, its `$ref`s followed.
    pub(super) fn deref<'a>(&'a self, mut value: &'a Value) -> Option<&'a Value> {
        for _ in 0..32 {
            match value.get("$ref").and_then(Value::as_str) {
                Some(reference) => value = self.root.pointer(reference.strip_prefix('#')?)?,
                None => return Some(value),
            }
        }
        None
    }

    /// The children of the base schema `reference` names (`#/components/schemas/Pet`): where
    /// its `discriminator` stands beside its own fields, each schema its mapping names and each
    /// named schema that takes it as an `allOf` part, with the tag value that names it (the
    /// mapping's, else the schema's name); none for any other schema.
    pub(super) fn children(&self, reference: &str) -> Vec<(String, String)> {
        let Some(base) = self
            .root
            .pointer(reference.strip_prefix('#').unwrap_or("-"))
        else {
            return Vec::new();
        };
        let Some(discriminator) = base.get("discriminator") else {
            return Vec::new();
        };
        if base.get("oneOf").is_some() || base.get("anyOf").is_some() {
            return Vec::new();
        }
        let mut children: Vec<(String, String)> = Vec::new();
        for (tag, to) in discriminator
            .get("mapping")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if let Some(to) = to.as_str().filter(|to| *to != reference) {
                children.push((tag.clone(), to.to_owned()));
            }
        }
        for home in ["/components/schemas", "/definitions"] {
            for (name, schema) in self
                .root
                .pointer(home)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let child = format!("#{home}/{name}");
                let takes_base =
                    schema
                        .get("allOf")
                        .and_then(Value::as_array)
                        .is_some_and(|parts| {
                            parts
                                .iter()
                                .any(|p| p.get("$ref").and_then(Value::as_str) == Some(reference))
                        });
                if takes_base && !children.iter().any(|(_, known)| *known == child) {
                    children.push((name.clone(), child));
                }
            }
        }
        children
    }

    /// The operation for `verb` and a spec's route (placeholders renamed as the importer
    /// names them), and its path item: the route whose placeholders name the same words, else
    /// the one of the same shape. Returns the description's route too.
    pub(super) fn operation(&self, verb: &str, route: &str) -> Option<(&str, &Value, &Value)> {
        let paths = self.root.get("paths")?.as_object()?;
        let find = |exact: bool| {
            paths.iter().find_map(|(path, item)| {
                let same = if exact {
                    placeholders_named(path) == placeholders_named(route)
                } else {
                    placeholders_blank(path) == placeholders_blank(route)
                };
                same.then_some(())?;
                let item = self.deref(item)?;
                Some((path.as_str(), item, self.deref(item.get(verb)?)?))
            })
        };
        find(true).or_else(|| find(false))
    }

    /// A value the schema accepts, made from its example, enum, format and required
    /// properties; `None` when a `$ref` cannot be followed.
    pub(super) fn sample(&self, schema: &Value, depth: usize) -> Option<Value> {
        let schema = self.deref(schema)?;
        if depth > 12 {
            return Some(Value::Null);
        }
        if let Some(example) = schema
            .get("example")
            .filter(|e| !e.is_null() && fits(e, schema))
        {
            return Some(example.clone());
        }
        if let Some(examples) = schema.get("examples").and_then(Value::as_array)
            && let Some(first) = examples.first().filter(|e| fits(e, schema))
        {
            return Some(first.clone());
        }
        if let Some(value) = schema.get("const") {
            return Some(value.clone());
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array)
            && let Some(first) = values.iter().find(|v| !v.is_null())
        {
            return Some(first.clone());
        }
        if let Some(default) = schema.get("default") {
            return Some(default.clone());
        }
        // Alternatives that only say which properties are required: the object, with the
        // first alternative's required properties.
        if schema.get("properties").is_some()
            && let Some(first) = ["oneOf", "anyOf"]
                .iter()
                .filter_map(|k| schema.get(*k).and_then(Value::as_array))
                .flatten()
                .next()
            && first.get("properties").is_none()
            && first.get("type").is_none()
            && first.get("$ref").is_none()
        {
            let mut object = schema.as_object()?.clone();
            object.remove("oneOf");
            object.remove("anyOf");
            let mut required = object
                .get("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            required.extend(
                first
                    .get("required")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            );
            object.insert("required".to_owned(), Value::Array(required));
            return self.sample(&Value::Object(object), depth + 1);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|a| {
                a.iter()
                    .find(|s| s.get("type").and_then(Value::as_str) != Some("null"))
            }) {
                return self.sample(first, depth + 1);
            }
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            let mut merged = Map::new();
            for part in parts {
                match self.sample(part, depth + 1)? {
                    Value::Object(fields) => merged.extend(fields),
                    other if parts.len() == 1 => return Some(other),
                    _ => {}
                }
            }
            return Some(Value::Object(merged));
        }
        let kind = json_kind(schema);
        let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
        if kind == "string"
            && let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
            && let Some(text) = self.patterns.get(pattern)
        {
            return Some(json!(text));
        }
        Some(match kind {
            "string" => json!(match format {
                "date-time" => "2024-01-02T03:04:05Z",
                "date" => "2024-01-02",
                "time" => "03:04:05",
                "uuid" => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                "email" => "user@example.com",
                "uri" | "url" => "https://example.com/",
                "hostname" => "example.com",
                "ipv4" => "192.0.2.1",
                "ipv6" => "2001:db8::1",
                "byte" => "aGVsbG8=",
                _ => {
                    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(1);
                    let max = schema
                        .get("maxLength")
                        .and_then(Value::as_u64)
                        .unwrap_or(27);
                    let length = 6_u64.clamp(min.min(27), max.clamp(1, 27));
                    &"sample-sample-sample-sample"[..length as usize]
                }
            }),
            "integer" => json!(
                schema
                    .get("minimum")
                    .and_then(Value::as_i64)
                    .map_or(1, |m| m.max(1))
            ),
            "number" => json!(
                schema
                    .get("minimum")
                    .and_then(Value::as_f64)
                    .map_or(1.0, |m| m.max(1.0))
            ),
            "boolean" => json!(true),
            "array" => {
                // One item at least: an empty list says little, and a path list needs one.
                let count = schema
                    .get("minItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .max(1);
                let item = schema.get("items").map(|i| self.sample(i, depth + 1));
                match item {
                    Some(Some(item)) => Value::Array(vec![item; count as usize]),
                    Some(None) => return None,
                    _ => json!([]),
                }
            }
            _ => {
                let mut object = Map::new();
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                    for (name, property) in properties {
                        let property_schema = self.deref(property)?;
                        if required.contains(&name.as_str())
                            && property_schema.get("readOnly") != Some(&Value::Bool(true))
                        {
                            object.insert(name.clone(), self.sample(property, depth + 1)?);
                        }
                    }
                }
                Value::Object(object)
            }
        })
    }
}

/// The JSON type a schema says its values have (the one not `null` of a list; an object when it
/// says none).
pub(super) fn json_kind(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        _ => "object",
    }
}

/// Reads a JSON list of schemas on stdin, prints a sample of each (null where it cannot).
const PATTERN_SCRIPT: &str = r#"
const jsf = require("json-schema-faker");
let input = "";
process.stdin.on("data", d => input += d).on("end", () => {
  const schemas = JSON.parse(input);
  console.log(JSON.stringify(schemas.map(s => { try { return jsf.generate(s); } catch (e) { return null; } })));
});
"#;

/// True when an example has the JSON type its schema says (a template's `{{id}}` for an
/// integer does not: the description's slip, and a sample of the schema is used instead).
pub(super) fn fits(example: &Value, schema: &Value) -> bool {
    // A template's placeholder (`{{network}}`) stands for a value, it is none.
    if example.as_str().is_some_and(|text| text.contains("{{")) {
        return false;
    }
    if let Some(object) = example.as_object()
        && object.values().any(|v| !fits(v, &Value::Null))
    {
        return false;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => example.is_i64() || example.is_u64(),
        Some("number") => example.is_number(),
        Some("boolean") => example.is_boolean(),
        Some("string") => example.is_string(),
        Some("array") => example.is_array(),
        Some("object") => example.is_object(),
        _ => true,
    }
}

/// A parameter's sample: its own example (3.x `example`, `examples`, 2.0 keywords), else its
/// schema's.
pub(super) fn parameter_sample(description: &Description, parameter: &Value) -> Option<Value> {
    let schema = match parameter.get("schema") {
        Some(schema) => description.deref(schema)?,
        None => parameter,
    };
    // An example of another JSON type than the schema's (a template's `{{id}}` for an
    // integer) is the description's slip: a sample of the schema is used instead.
    let example = parameter.get("example").cloned().or_else(|| {
        parameter
            .get("examples")
            .and_then(Value::as_object)
            .and_then(|e| e.values().next())
            .and_then(|e| description.deref(e))
            .and_then(|e| e.get("value"))
            .cloned()
    });
    match example {
        Some(example) if fits(&example, schema) => Some(example),
        _ => description.sample(schema, 0),
    }
}

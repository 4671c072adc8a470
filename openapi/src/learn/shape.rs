//! The shape of the values seen at one place, merged over every answer: which JSON types came
//! (and how often), an array's items merged into one shape, an object's keys each with the
//! shape of its values and how often it was there. Written back as the schema a description
//! would say it with, in the description's own dialect of null. Every walk is bounded in depth,
//! keys and items, so a server's answer costs work in proportion to its size at most.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::document::Version;

/// How deep a shape follows nested values.
const MAX_DEPTH: usize = 16;
/// The most keys one object's shape keeps (the others are counted in `dropped`).
pub(crate) const MAX_KEYS: usize = 256;
/// The longest key a shape keeps: a longer one is no property name a description would write.
pub(crate) const MAX_KEY_BYTES: usize = 256;
/// The most items of one array merged into its items' shape.
const MAX_ITEMS: usize = 1000;

/// What came at one place.
#[derive(Debug, Default, Clone)]
pub(crate) struct Shape {
    /// Values seen.
    pub(crate) seen: u32,
    nulls: u32,
    booleans: u32,
    integers: u32,
    numbers: u32,
    strings: u32,
    arrays: u32,
    objects: u32,
    items: Option<Box<Shape>>,
    /// Each key an object had, with its values' shape (`seen`: how many objects had it).
    keys: BTreeMap<String, Shape>,
    /// Keys left out: past [`MAX_KEYS`], or longer than [`MAX_KEY_BYTES`].
    pub(crate) dropped: u32,
}

impl Shape {
    /// Merges `value` in.
    pub(crate) fn merge(&mut self, value: &Value) {
        self.merge_at(value, 0);
    }

    fn merge_at(&mut self, value: &Value, depth: usize) {
        self.seen = self.seen.saturating_add(1);
        match value {
            Value::Null => self.nulls += 1,
            Value::Bool(_) => self.booleans += 1,
            Value::Number(n) if n.is_i64() || n.is_u64() => self.integers += 1,
            Value::Number(_) => self.numbers += 1,
            Value::String(_) => self.strings += 1,
            Value::Array(items) => {
                self.arrays += 1;
                if depth < MAX_DEPTH {
                    let shape = self.items.get_or_insert_with(Box::default);
                    for item in items.iter().take(MAX_ITEMS) {
                        shape.merge_at(item, depth + 1);
                    }
                }
            }
            Value::Object(map) => {
                self.objects += 1;
                if depth < MAX_DEPTH {
                    for (key, value) in map {
                        if key.len() > MAX_KEY_BYTES
                            || (self.keys.len() >= MAX_KEYS && !self.keys.contains_key(key))
                        {
                            self.dropped = self.dropped.saturating_add(1);
                            continue;
                        }
                        self.keys
                            .entry(key.clone())
                            .or_default()
                            .merge_at(value, depth + 1);
                    }
                }
            }
        }
    }

    /// Adds what `other` saw (another answer's shape of the same place).
    pub(crate) fn absorb(&mut self, other: Shape) {
        self.seen = self.seen.saturating_add(other.seen);
        self.nulls += other.nulls;
        self.booleans += other.booleans;
        self.integers += other.integers;
        self.numbers += other.numbers;
        self.strings += other.strings;
        self.arrays += other.arrays;
        self.objects += other.objects;
        self.dropped = self.dropped.saturating_add(other.dropped);
        if let Some(items) = other.items {
            self.items.get_or_insert_with(Box::default).absorb(*items);
        }
        for (key, shape) in other.keys {
            if self.keys.len() >= MAX_KEYS && !self.keys.contains_key(&key) {
                self.dropped = self.dropped.saturating_add(1);
                continue;
            }
            self.keys.entry(key).or_default().absorb(shape);
        }
    }

    /// The shape of the items, when only lists (and `null`s) came.
    pub(crate) fn list_items(&self) -> Option<&Shape> {
        (self.arrays > 0 && self.arrays + self.nulls == self.seen)
            .then_some(self.items.as_deref())
            .flatten()
    }

    /// Whether only objects (and `null`s) came.
    pub(crate) fn only_objects(&self) -> bool {
        self.objects > 0 && self.objects + self.nulls == self.seen
    }

    /// Whether a `null` came.
    pub(crate) fn had_null(&self) -> bool {
        self.nulls > 0
    }

    /// Whether only `null` came.
    pub(crate) fn only_null(&self) -> bool {
        self.seen > 0 && self.nulls == self.seen
    }

    /// The keys the objects had, each with how many had it.
    pub(crate) fn keys(&self) -> impl Iterator<Item = (&String, &Shape)> {
        self.keys.iter()
    }

    /// The schema of what came, in `version`'s dialect of null.
    pub(crate) fn schema(&self, version: Version) -> Value {
        let mut kinds: Vec<Value> = Vec::new();
        if self.booleans > 0 {
            kinds.push(json!({ "type": "boolean" }));
        }
        if self.numbers > 0 {
            kinds.push(json!({ "type": "number" }));
        } else if self.integers > 0 {
            kinds.push(json!({ "type": "integer" }));
        }
        if self.strings > 0 {
            kinds.push(json!({ "type": "string" }));
        }
        if self.arrays > 0 {
            let items = self
                .items
                .as_ref()
                .filter(|items| items.seen > 0)
                .map_or_else(|| json!({}), |items| items.schema(version));
            kinds.push(json!({ "type": "array", "items": items }));
        }
        if self.objects > 0 {
            kinds.push(self.object_schema(version));
        }
        let mut schema = match kinds.len() {
            // Only null: it says nothing of the type; any value.
            0 => return json!({}),
            1 => kinds.remove(0),
            _ => json!({ "anyOf": kinds }),
        };
        if self.nulls > 0 {
            nullable(&mut schema, version);
        }
        schema
    }

    fn object_schema(&self, version: Version) -> Value {
        if self.keys.is_empty() {
            return json!({ "type": "object" });
        }
        let mut properties = serde_json::Map::new();
        let mut required = Vec::new();
        for (key, shape) in &self.keys {
            properties.insert(key.clone(), shape.schema(version));
            if shape.seen == self.objects {
                required.push(Value::String(key.clone()));
            }
        }
        let mut schema = json!({ "type": "object", "properties": properties });
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema
    }
}

/// Makes `schema` take `null` too, as `version` says it: a type list with `"null"` (3.1), or
/// `nullable: true` (3.0) or `x-nullable: true` (Swagger 2.0) beside a type or a union; a 3.1
/// union gains a null alternative.
pub(crate) fn nullable(schema: &mut Value, version: Version) {
    if version == Version::V31 {
        for key in ["anyOf", "oneOf"] {
            if let Some(alternatives) = schema.get_mut(key).and_then(Value::as_array_mut) {
                alternatives.push(null_schema(version));
                return;
            }
        }
    }
    match version {
        Version::V31 => {
            if let Some(Value::String(kind)) = schema.get("type").cloned() {
                schema["type"] = json!([kind, "null"]);
            }
        }
        Version::V30 => schema["nullable"] = Value::Bool(true),
        Version::Swagger2 => schema["x-nullable"] = Value::Bool(true),
    }
}

/// A union of `alternatives` that takes `null` too, as `version` says it (a `$ref` alone among
/// them is that schema, nullable).
pub(crate) fn nullable_union(alternatives: Vec<Value>, version: Version) -> Value {
    let mut union = json!({ "anyOf": alternatives });
    nullable(&mut union, version);
    union
}

/// The schema of `null` alone, as `version` writes it.
pub(crate) fn null_schema(version: Version) -> Value {
    match version {
        Version::V31 => json!({ "type": "null" }),
        Version::V30 => json!({ "nullable": true }),
        Version::Swagger2 => json!({ "x-nullable": true }),
    }
}

/// The JSON type of `value`, as a schema's `type` names it.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_merge_into_properties_required_where_always_there() {
        let mut shape = Shape::default();
        shape.merge(&json!({ "id": 1, "tags": ["a"], "note": null }));
        shape.merge(&json!({ "id": 2, "tags": [], "note": "x" }));
        shape.merge(&json!({ "id": 3.5, "tags": ["b"] }));
        let schema = shape.schema(Version::V31);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "id": { "type": "number" },
                    "note": { "type": ["string", "null"] },
                    "tags": { "type": "array", "items": { "type": "string" } },
                },
                "required": ["id", "tags"],
            })
        );
        assert_eq!(
            shape.schema(Version::V30)["properties"]["note"],
            json!({ "type": "string", "nullable": true })
        );
    }

    #[test]
    fn hostile_keys_and_sizes_are_bounded() {
        let mut map = serde_json::Map::new();
        for n in 0..64_000 {
            map.insert(format!("k{n}"), json!(n));
        }
        map.insert("x".repeat(1 << 20), json!(1));
        let mut shape = Shape::default();
        shape.merge(&Value::Object(map));
        assert_eq!(shape.keys.len(), MAX_KEYS);
        assert_eq!(shape.dropped, 64_000 - MAX_KEYS as u32 + 1);
        let mut deep = json!(1);
        for _ in 0..1_000 {
            deep = json!([deep]);
        }
        let mut nested = Shape::default();
        nested.merge(&deep);
        assert!(nested.schema(Version::V31).to_string().len() < 4096);
    }
}

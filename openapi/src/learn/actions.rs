//! What was noted, as Overlay 1.0 actions on the description: each targets the place a schema
//! is defined (through `$ref`s) or used (a property, a list's items, a response's body), by
//! its path in the description, never a name the generator made. An action only adds or
//! widens — a key the server sends, `null` allowed, a key no longer required, a status's body —
//! or replaces what every answer contradicted (a type, a shape). Anything that would rename a
//! declared key or retype one some answer matched is a proposal, written commented out for the
//! user to uncomment. Each action says which method taught it, from how many answers.

use serde_json::{Map, Value, json};

use super::shape::{Shape, nullable, nullable_union};
use super::walk::{Defined, Use};
use crate::document::{Documents, Place, Version};
use crate::escape::quoted;

/// An action, or a proposal the user reviews.
#[derive(Debug, Clone)]
pub(crate) struct Action {
    pub(crate) value: Value,
    pub(crate) proposal: bool,
}

/// Builds the actions, keeping what the description lets an overlay reach.
pub(crate) struct Actions<'d> {
    pub(crate) docs: &'d mut Documents,
    pub(crate) version: Version,
    pub(crate) out: Vec<Action>,
    /// Places an overlay cannot reach (a schema defined in another file), each once.
    pub(crate) unreachable: Vec<String>,
    /// When each method's first answer came, if the recording says.
    pub(crate) first_seen: std::collections::BTreeMap<String, String>,
}

impl Actions<'_> {
    /// The actions of one place where a schema is used.
    pub(crate) fn of_use(&mut self, place: &Place, seen: &Use) {
        let Some(node) = self.node(place) else {
            return;
        };
        let learned = self.learned(&seen.methods, seen.values);
        let problems = seen.contradicted + seen.nulls + seen.strangers;
        if problems == 0 {
            return;
        }
        let every = seen.contradicted + seen.strangers == seen.values - seen.nulls;
        let why = if seen.strangers > 0 {
            format!(
                "{} object(s) here shared no key with the schema",
                seen.strangers
            )
        } else {
            format!("{} value(s) here were of another type", seen.contradicted)
        };
        if seen.contradicted + seen.strangers > 0 && every {
            // Every value other than `null` had another shape: the schema is what came.
            let replacement = self.replacement(&seen.shape, seen.strangers > 0);
            self.replace(place, replacement, &why, &learned, false);
            return;
        }
        if seen.contradicted + seen.strangers > 0 {
            // Some values fit, others had another shape: the schema takes both (it widens:
            // nothing it took is refused), and `null` when one came.
            let other = self.replacement(&seen.other, seen.strangers > 0);
            let alternatives = vec![node.clone(), other];
            let union = if seen.nulls > 0 {
                nullable_union(alternatives, self.version)
            } else {
                json!({ "anyOf": alternatives })
            };
            self.replace(place, union, &why, &learned, false);
            return;
        }
        // Only `null`s: the schema takes them too.
        let union = node.get("anyOf").or_else(|| node.get("oneOf")).is_some();
        let widened = if node.get("$ref").is_some() || (node.get("type").is_none() && !union) {
            // A `$ref` (or an untyped schema) takes null as a union of itself and null.
            nullable_union(vec![node], self.version)
        } else {
            let mut widened = node.clone();
            nullable(&mut widened, self.version);
            widened
        };
        let why = format!("{} null(s) came here", seen.nulls);
        self.replace(place, widened, &why, &learned, false);
    }

    /// The actions of one place where an object schema is defined: its undeclared keys
    /// declared, a required key some object lacked no longer required, a declared key never
    /// sent beside an undeclared one always sent proposed as a rename.
    pub(crate) fn of_definition(
        &mut self,
        place: &Place,
        seen: &Defined,
        missing: Option<&std::collections::BTreeMap<String, u32>>,
    ) {
        let Some(node) = self.node(place) else {
            return;
        };
        let learned = self.learned(&seen.methods, seen.objects);
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (key, shape) in &seen.undeclared {
            let mut schema = shape.schema(self.version);
            if shape.only_null() {
                schema = json!({});
            }
            properties.insert(key.clone(), schema);
            if shape.seen == seen.objects && !shape.had_null() {
                required.push(Value::String(key.clone()));
            }
        }
        if !properties.is_empty() {
            let keys: Vec<&String> = properties.keys().collect();
            let why = format!(
                "the server sent {} the description does not declare",
                listed(&keys)
            );
            let mut update = json!({ "properties": properties });
            let has_required = node.get("required").is_some_and(Value::is_array);
            if !required.is_empty() && !has_required {
                update["required"] = Value::Array(required.clone());
            }
            self.push(place, update, &why, &learned, false);
            if !required.is_empty() && has_required {
                let why = "always sent".to_owned();
                self.push(
                    &place.child("required"),
                    Value::Array(required),
                    &why,
                    &learned,
                    false,
                );
            }
        }
        for (key, absent) in missing.into_iter().flatten() {
            let why = format!("{absent} object(s) came without `{}`", quoted(key));
            let target = format!(
                "{}[?@ == {}]",
                self.path(&place.child("required")),
                literal(key)
            );
            self.out.push(Action {
                value: json!({ "target": target, "description": why, "remove": true, "x-remcall-learned": learned }),
                proposal: false,
            });
        }
        self.renames(place, &node, seen, &learned);
    }

    /// A status the operation declares no JSON body for: the body that came, declared.
    pub(crate) fn status(&mut self, responses: &Place, status: u16, shape: &Shape, method: &str) {
        let schema = shape.schema(self.version);
        let why = format!(
            "`{}` got {status} with a body the description does not declare",
            quoted(method)
        );
        let declared = self
            .docs
            .root_value()
            .pointer(&responses.pointer)
            .and_then(|r| r.get(status.to_string()))
            .is_some();
        let response = match self.version {
            Version::Swagger2 => json!({ "schema": schema }),
            _ => json!({ "content": { "application/json": { "schema": schema } } }),
        };
        let update = if declared {
            json!({ status.to_string(): response })
        } else {
            let mut response = response;
            response["description"] = Value::String(format!("learned from `{}`", quoted(method)));
            json!({ status.to_string(): response })
        };
        let learned = json!({ "methods": [method], "answers": shape.seen });
        let target = path_in(self.docs.root_value(), &responses.pointer);
        self.out.push(Action {
            value: json!({ "target": target, "description": why, "update": update, "x-remcall-learned": learned }),
            proposal: false,
        });
    }

    /// A declared key no object had, beside an undeclared key every object had: the server
    /// may name it otherwise. Proposed, never applied unreviewed.
    fn renames(&mut self, place: &Place, node: &Value, seen: &Defined, learned: &Value) {
        let Some(declared) = node.get("properties").and_then(Value::as_object) else {
            return;
        };
        let never: Vec<&String> = declared
            .keys()
            .filter(|key| !seen.present.contains_key(*key))
            .collect();
        let always: Vec<&String> = seen
            .undeclared
            .iter()
            .filter(|(_, shape)| shape.seen == seen.objects)
            .map(|(key, _)| key)
            .collect();
        for old in &never {
            let Some(new) = always.iter().min_by_key(|new| distance(old, new)) else {
                continue;
            };
            if distance(old, new) > old.len().max(new.len()) / 3 + 1 {
                continue;
            }
            let why = format!(
                "`{}` never came, `{}` always did: a rename?",
                quoted(old),
                quoted(new)
            );
            let property = place.child("properties").child(old);
            let target = self.path(&property);
            self.out.push(Action {
                value: json!({ "target": target, "description": why, "remove": true, "x-remcall-learned": learned }),
                proposal: true,
            });
        }
    }

    /// What replaces a schema every value contradicted: for an object sharing no key with it,
    /// the one schema of the description whose properties cover every key that came, else the
    /// shape that came.
    fn replacement(&mut self, shape: &Shape, stranger: bool) -> Value {
        if (stranger || shape.only_objects())
            && let Some(reference) = self.covering(shape)
        {
            return with_null(reference, shape, self.version);
        }
        // A list of objects the description has a schema for: a list of that schema.
        if let Some(items) = shape.list_items().filter(|items| items.only_objects())
            && let Some(reference) = self.covering(items)
        {
            let list =
                json!({ "type": "array", "items": with_null(reference, items, self.version) });
            return with_null(list, shape, self.version);
        }
        shape.schema(self.version)
    }

    /// `{"$ref": …}` to the component schema that declares the most of the keys `shape` had,
    /// at least half of them, when no other declares as many: the description's own type for
    /// what came (the keys it lacks are learned on it in the next round).
    fn covering(&mut self, shape: &Shape) -> Option<Value> {
        let keys: Vec<&String> = shape.keys().map(|(key, _)| key).collect();
        if keys.is_empty() {
            return None;
        }
        let root = self.docs.root_value();
        let (schemas, prefix) = match self.version {
            Version::Swagger2 => (root.get("definitions")?, "#/definitions/"),
            _ => (
                root.get("components")?.get("schemas")?,
                "#/components/schemas/",
            ),
        };
        let shared: Vec<(usize, &String)> = schemas
            .as_object()?
            .iter()
            .filter_map(|(name, schema)| {
                let properties = schema.get("properties")?.as_object()?;
                let shared = keys.iter().filter(|k| properties.contains_key(**k)).count();
                (shared * 2 >= keys.len() && shared > 0).then_some((shared, name))
            })
            .collect();
        let most = shared.iter().map(|(n, _)| *n).max()?;
        match shared
            .iter()
            .filter(|(n, _)| *n == most)
            .collect::<Vec<_>>()
            .as_slice()
        {
            [(_, one)] => Some(json!({ "$ref": format!("{prefix}{}", pointer_segment(one)) })),
            _ => None,
        }
    }

    /// The node at `place`, when an overlay can reach it (it is in the description's top
    /// document); else noted as unreachable.
    fn node(&mut self, place: &Place) -> Option<Value> {
        if place.file != self.docs.main {
            let shown = format!(
                "{}#{}",
                self.docs.relative(&place.file).display(),
                place.pointer
            );
            if !self.unreachable.contains(&shown) {
                self.unreachable.push(shown);
            }
            return None;
        }
        self.docs.root_value().pointer(&place.pointer).cloned()
    }

    /// Replaces the node at `place` with `schema`: removed, then set again in its parent (an
    /// overlay's update merges into an object; a replacement must not).
    fn replace(
        &mut self,
        place: &Place,
        schema: Value,
        why: &str,
        learned: &Value,
        proposal: bool,
    ) {
        let Some((parent, key)) = place.pointer.rsplit_once('/') else {
            return;
        };
        let key = key.replace("~1", "/").replace("~0", "~");
        let parent = Place {
            file: place.file.clone(),
            pointer: parent.to_owned(),
        };
        let target = self.path(place);
        self.out.push(Action {
            value: json!({ "target": target, "description": why, "remove": true, "x-remcall-learned": learned }),
            proposal,
        });
        let mut update = Map::new();
        update.insert(key, schema);
        self.push(&parent, Value::Object(update), why, learned, proposal);
    }

    fn push(&mut self, place: &Place, update: Value, why: &str, learned: &Value, proposal: bool) {
        let target = self.path(place);
        self.out.push(Action {
            value: json!({ "target": target, "description": why, "update": update, "x-remcall-learned": learned }),
            proposal,
        });
    }

    /// Which methods taught an action, from how many answers, first seen when.
    fn learned(&self, methods: &std::collections::BTreeSet<String>, answers: u32) -> Value {
        let first = methods
            .iter()
            .filter_map(|m| self.first_seen.get(m))
            .min()
            .cloned();
        let mut learned =
            json!({ "methods": methods.iter().collect::<Vec<_>>(), "answers": answers });
        if let Some(first) = first {
            learned["first_seen"] = Value::String(first);
        }
        learned
    }

    /// The JSONPath of `place` in the top document: a name selector a segment, each written
    /// as an RFC 9535 string literal (so no key can end a selector or open another).
    fn path(&self, place: &Place) -> String {
        path_in(self.docs.root_value(), &place.pointer)
    }
}

/// `schema`, taking `null` too when one came in `shape`.
fn with_null(schema: Value, shape: &Shape, version: Version) -> Value {
    if !shape.had_null() {
        return schema;
    }
    if schema.get("$ref").is_some() {
        return nullable_union(vec![schema], version);
    }
    let mut schema = schema;
    nullable(&mut schema, version);
    schema
}

/// The JSONPath of `pointer` in `document`: a name selector for each object key, an index
/// selector for each position in a list (`['anyOf'][0]`), as the document has it.
pub(crate) fn path_in(document: &Value, pointer: &str) -> String {
    let mut path = "$".to_owned();
    let mut node = Some(document);
    for segment in pointer.split('/').skip(1) {
        let key = segment.replace("~1", "/").replace("~0", "~");
        match (node, key.parse::<usize>()) {
            (Some(Value::Array(items)), Ok(index)) => {
                path.push_str(&format!("[{index}]"));
                node = items.get(index);
            }
            _ => {
                path.push('[');
                path.push_str(&literal(&key));
                path.push(']');
                node = node.and_then(|n| n.get(&key));
            }
        }
    }
    path
}

/// `text` as an RFC 9535 single-quoted string literal: `\` and `'` escaped, control
/// characters as `\uXXXX`.
pub(crate) fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A key as a JSON pointer segment.
fn pointer_segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `a`, `b` and 3 more.
fn listed(keys: &[&String]) -> String {
    let shown: Vec<String> = keys
        .iter()
        .take(5)
        .map(|k| format!("`{}`", quoted(k)))
        .collect();
    match keys.len() {
        n if n > 5 => format!("{} and {} more", shown.join(", "), n - 5),
        _ => shown.join(", "),
    }
}

/// Edit distance, bounded by the shorter key's length (keys are short; a long one is cut).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().take(64).collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (previous + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            previous = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_one_selector_whatever_it_holds() {
        assert_eq!(literal("a'b\\c"), "'a\\'b\\\\c'");
        assert_eq!(literal("x\n\u{1b}[2J"), "'x\\u000a\\u001b[2J'");
        let path = format!("$[{}]", literal("a'] , $..x['"));
        let parsed = serde_json_path::JsonPath::parse(&path).unwrap();
        let document = json!({ "a'] , $..x['": 1, "x": 2 });
        assert_eq!(parsed.query(&document).all(), vec![&json!(1)]);
    }

    #[test]
    fn renames_are_proposed_between_near_names_only() {
        assert_eq!(distance("predictions_count", "prediction_count"), 1);
        assert!(distance("owner", "created_at") > 4);
    }
}

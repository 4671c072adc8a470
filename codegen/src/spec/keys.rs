//! Unknown keys, found by walking a parsed file beside the spec format's JSON Schema (the one
//! `remcall schema` prints, derived from the same model serde reads). Each unknown key is
//! reported where it stands, with the keys allowed there to suggest from; serde is left with
//! type errors only.

use serde_json::{Map, Value as Json};
use serde_yaml::Value as Yaml;

/// A key the schema does not allow at its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnknownKey {
    /// The dotted path of the key, as the span index names it (`methods.get.requets`).
    pub(crate) path: String,
    /// The key as written.
    pub(crate) key: String,
    /// The keys allowed there.
    pub(crate) allowed: Vec<String>,
}

/// Every unknown key of `value` under `schema` (a root schema with `$defs`).
pub(crate) fn unknown_keys(value: &Yaml, schema: &Json) -> Vec<UnknownKey> {
    let mut walk = Walk::new(schema);
    walk.value(value, schema, "");
    walk.found
}

pub(crate) struct Walk<'a> {
    root: &'a Json,
    found: Vec<UnknownKey>,
}

impl<'a> Walk<'a> {
    /// A walk over `root`, a schema with `$defs`.
    pub(crate) fn new(root: &'a Json) -> Walk<'a> {
        Walk {
            root,
            found: Vec::new(),
        }
    }

    /// Follows `$ref`s to `#/$defs/..`.
    pub(crate) fn resolve(&self, schema: &'a Json) -> &'a Json {
        let mut schema = schema;
        // A bounded number of hops: a schema whose refs loop is not one serde would read either.
        for _ in 0..16 {
            let Some(target) = schema.get("$ref").and_then(Json::as_str) else {
                break;
            };
            match target
                .strip_prefix("#/$defs/")
                .and_then(|name| self.root.get("$defs")?.get(name))
            {
                Some(found) => schema = found,
                None => break,
            }
        }
        schema
    }

    /// The schema with `$ref`s followed, and, recursively, the branches of its `anyOf`, `oneOf`
    /// and `allOf`: every shape a value may take there.
    pub(crate) fn alternatives(&self, schema: &'a Json) -> Vec<&'a Json> {
        let schema = self.resolve(schema);
        let mut out = vec![schema];
        for combinator in ["anyOf", "oneOf", "allOf"] {
            for branch in schema
                .get(combinator)
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
            {
                out.extend(self.alternatives(branch));
            }
        }
        out
    }

    /// The object schemas a mapping may match.
    pub(crate) fn object_schemas(&self, schema: &'a Json) -> Vec<&'a Map<String, Json>> {
        self.alternatives(schema)
            .into_iter()
            .filter_map(Json::as_object)
            .filter(|o| o.contains_key("properties") || o.contains_key("additionalProperties"))
            .collect()
    }

    /// The schemas a sequence's items may match.
    pub(crate) fn item_schemas(&self, schema: &'a Json) -> Vec<&'a Json> {
        self.alternatives(schema)
            .into_iter()
            .filter_map(|s| s.get("items"))
            .collect()
    }

    fn value(&mut self, value: &Yaml, schema: &'a Json, path: &str) {
        match value {
            Yaml::Mapping(mapping) => self.mapping(mapping, schema, path),
            Yaml::Sequence(items) => {
                // With several item schemas the value is ambiguous; serde decides.
                if let [items_schema] = self.item_schemas(schema).as_slice() {
                    for (i, item) in items.iter().enumerate() {
                        self.value(item, items_schema, &join(path, &i.to_string()));
                    }
                }
            }
            Yaml::Tagged(tagged) => self.value(&tagged.value, schema, path),
            _ => {}
        }
    }

    fn mapping(&mut self, mapping: &serde_yaml::Mapping, schema: &'a Json, path: &str) {
        let keys: Vec<&str> = mapping.keys().filter_map(Yaml::as_str).collect();
        let candidates = self.object_schemas(schema);
        // Of several object shapes (`{ semaphore: .. }` or `{ pool: .. }`), the one that knows
        // most of the keys; with none known, every shape's keys are suggestions.
        let known = |object: &Map<String, Json>| {
            keys.iter()
                .filter(|k| properties(object).is_some_and(|p| p.contains_key(**k)))
                .count()
        };
        let Some(best) = candidates.iter().copied().max_by_key(|o| known(o)) else {
            return;
        };
        let chosen: Vec<&Map<String, Json>> = if known(best) == 0 && candidates.len() > 1 {
            candidates
        } else {
            vec![best]
        };
        for (key, value) in mapping {
            let Some(key) = key.as_str() else { continue };
            let here = join(path, key);
            let property = chosen
                .iter()
                .find_map(|object| properties(object).and_then(|p| p.get(key)));
            if let Some(property) = property {
                self.value(value, property, &here);
                continue;
            }
            match chosen[0].get("additionalProperties") {
                Some(Json::Bool(false)) => {
                    let mut allowed: Vec<String> = chosen
                        .iter()
                        .filter_map(|o| properties(o))
                        .flat_map(|p| p.keys().cloned())
                        .collect();
                    allowed.sort();
                    allowed.dedup();
                    self.found.push(UnknownKey {
                        path: here,
                        key: key.to_owned(),
                        allowed,
                    });
                }
                Some(extra @ Json::Object(_)) => self.value(value, extra, &here),
                _ => {}
            }
        }
    }
}

pub(crate) fn properties(object: &Map<String, Json>) -> Option<&Map<String, Json>> {
    object.get("properties").and_then(Json::as_object)
}

fn join(path: &str, part: &str) -> String {
    if path.is_empty() {
        part.to_owned()
    } else {
        format!("{path}.{part}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(yaml: &str) -> Vec<(String, Vec<String>)> {
        let schema = serde_json::to_value(crate::spec::model::schema()).unwrap();
        let value: Yaml = serde_yaml::from_str(yaml).unwrap();
        unknown_keys(&value, &schema)
            .into_iter()
            .map(|u| (u.path, u.allowed))
            .collect()
    }

    #[test]
    fn misspelt_keys_are_found_where_they_stand() {
        let found = unknown("client: C\nmethods:\n  get: { requets: GET /u }\n");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, "methods.get.requets");
        assert!(found[0].1.contains(&"request".to_owned()));
    }

    #[test]
    fn profiles_and_one_of_shapes_are_walked() {
        let found = unknown(
            "client: C\nconfigs:\n  a:\n    retry: { max_attempt: 2 }\n    isolation: { semaphore: { max_concurent: 3 } }\n    headers: { X-Any-Name: v }\n",
        );
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "configs.a.retry.max_attempt",
                "configs.a.isolation.semaphore.max_concurent"
            ]
        );
    }

    #[test]
    fn a_valid_spec_has_none() {
        let text = std::fs::read_to_string("../specs/user_service.yaml").unwrap();
        assert_eq!(unknown(&text), []);
        let common = std::fs::read_to_string("../specs/configs/common.yaml").unwrap();
        assert_eq!(unknown(&common), []);
    }
}

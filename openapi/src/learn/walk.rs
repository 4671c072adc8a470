//! The walk of one answer against its schema, noting where the two part: at each place a
//! schema is *used* (a property, a list's items, a response's body), the values that came and
//! how many contradicted its type, came `null` where it takes none, or were objects sharing no
//! key with it; at each place a schema is *defined* (through `$ref`s), the objects that met it,
//! which of its keys they had, and the keys it does not declare. Learning reads what is noted;
//! checking counts it. The walk goes through `$ref`s, `allOf` (one object), `oneOf`/`anyOf` (the
//! alternative that fits, else the one sharing most keys), and is bounded in depth and in work.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::shape::{MAX_KEY_BYTES, MAX_KEYS, Shape, kind};
use crate::document::{Documents, Place, Version};

/// How deep a walk follows nested schemas and values.
const MAX_DEPTH: usize = 32;
/// The most items of one list walked.
const MAX_ITEMS: usize = 1000;

/// What came where a schema is used.
#[derive(Debug, Default)]
pub(crate) struct Use {
    pub(crate) values: u32,
    /// Values whose JSON type the schema does not take (neither `null`).
    pub(crate) contradicted: u32,
    /// `null`s where the schema takes none.
    pub(crate) nulls: u32,
    /// Objects with keys, none of them the schema's.
    pub(crate) strangers: u32,
    /// The shape of the values that contradicted it or shared no key with it.
    pub(crate) other: Shape,
    /// The shape of every value that came (to replace the schema with).
    pub(crate) shape: Shape,
    /// The methods whose answers met it.
    pub(crate) methods: BTreeSet<String>,
}

/// What came where an object schema is defined.
#[derive(Debug, Default)]
pub(crate) struct Defined {
    /// Objects that met it.
    pub(crate) objects: u32,
    /// How many of them had each declared key.
    pub(crate) present: BTreeMap<String, u32>,
    /// Keys it does not declare, each with its values' shape (`seen`: how many objects had it).
    pub(crate) undeclared: BTreeMap<String, Shape>,
    /// Keys left out: too many, or too long.
    pub(crate) dropped: u32,
    pub(crate) methods: BTreeSet<String>,
}

/// Everything noted over the answers walked.
#[derive(Debug, Default)]
pub(crate) struct Noted {
    pub(crate) uses: BTreeMap<Place, Use>,
    pub(crate) defined: BTreeMap<Place, Defined>,
}

impl Noted {
    /// Problems that strict decoding would fail on (a contradicted type, a `null` where none
    /// goes, an object of another shape, a required key missing), and values that it would
    /// drop (under undeclared keys).
    pub(crate) fn problems(&self) -> (Vec<String>, u32) {
        let mut problems = Vec::new();
        for (place, seen) in &self.uses {
            let at = &place.pointer;
            if seen.contradicted > 0 {
                problems.push(format!(
                    "{at}: {} value(s) of another type",
                    seen.contradicted
                ));
            }
            if seen.nulls > 0 {
                problems.push(format!("{at}: {} null(s) where none goes", seen.nulls));
            }
            if seen.strangers > 0 {
                problems.push(format!(
                    "{at}: {} object(s) sharing no key with it",
                    seen.strangers
                ));
            }
        }
        let lost = self
            .defined
            .values()
            .map(|seen| seen.undeclared.values().map(|s| s.seen).sum::<u32>() + seen.dropped)
            .sum();
        (problems, lost)
    }
}

/// One walk: the documents (to follow `$ref`s), what it notes, and its budget of steps.
pub(crate) struct Walk<'d> {
    pub(crate) docs: &'d mut Documents,
    pub(crate) version: Version,
    pub(crate) noted: Noted,
    pub(crate) method: String,
    /// Required keys found missing, by the defining place (strict decoding fails on them).
    pub(crate) missing: BTreeMap<Place, BTreeMap<String, u32>>,
    budget: u64,
}

impl<'d> Walk<'d> {
    pub(crate) fn new(docs: &'d mut Documents, version: Version, budget: u64) -> Walk<'d> {
        Walk {
            docs,
            version,
            noted: Noted::default(),
            method: String::new(),
            missing: BTreeMap::new(),
            budget,
        }
    }

    /// Walks `value` against the schema used at `at`.
    pub(crate) fn value(&mut self, at: &Place, value: &Value) {
        self.at_depth(at, value, 0);
    }

    fn at_depth(&mut self, at: &Place, value: &Value, depth: usize) {
        if depth > MAX_DEPTH || self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let Some((_, schema)) = self.docs.resolve(at) else {
            return;
        };
        let Ok((defined, schema)) = self.docs.follow(at, &schema) else {
            return;
        };
        let method = self.method.clone();
        let used = self.noted.uses.entry(at.clone()).or_default();
        used.values += 1;
        used.shape.merge(value);
        used.methods.insert(method.clone());
        if let Some(alternatives) = union_of(&schema) {
            // `null` is the union's to take (beside it, or as an alternative), else refused
            // where the union is used: no alternative is the one to widen.
            if value.is_null() {
                if !self.union_takes_null(&defined, &schema, alternatives) {
                    self.use_of(at).nulls += 1;
                }
                return;
            }
            self.union(&defined, alternatives, value, depth);
            return;
        }
        let takes = types(&schema);
        if value.is_null() {
            if !takes.null && !takes.any {
                self.use_of(at).nulls += 1;
            }
            return;
        }
        if !takes.any && !takes.admits(kind(value)) {
            let used = self.use_of(at);
            used.contradicted += 1;
            used.other.merge(value);
            return;
        }
        match value {
            Value::Object(map) => self.object(at, &defined, &schema, map, depth),
            Value::Array(items) if schema.get("items").is_some() => {
                let item = defined.child("items");
                for item_value in items.iter().take(MAX_ITEMS) {
                    self.at_depth(&item, item_value, depth + 1);
                }
            }
            _ => {}
        }
    }

    fn use_of(&mut self, at: &Place) -> &mut Use {
        self.noted.uses.entry(at.clone()).or_default()
    }

    /// An object against an object schema (its `allOf` parts' properties together).
    fn object(
        &mut self,
        at: &Place,
        defined: &Place,
        schema: &Value,
        map: &serde_json::Map<String, Value>,
        depth: usize,
    ) {
        let (properties, required) = self.properties(defined, schema, 0);
        let open = is_open(schema);
        if properties.is_empty() {
            // A free-form object or a map: its values' schema, when it has one.
            if schema
                .get("additionalProperties")
                .is_some_and(Value::is_object)
            {
                let values_at = defined.child("additionalProperties");
                for value in map.values().take(MAX_ITEMS) {
                    self.at_depth(&values_at, value, depth + 1);
                }
            }
            return;
        }
        if !map.is_empty() && !map.keys().any(|key| properties.contains_key(key)) && !open {
            let used = self.use_of(at);
            used.strangers += 1;
            used.other.merge(&Value::Object(map.clone()));
            return;
        }
        let method = self.method.clone();
        let seen = self.noted.defined.entry(defined.clone()).or_default();
        seen.objects += 1;
        seen.methods.insert(method);
        for (key, value) in map {
            if properties.contains_key(key) {
                *seen.present.entry(key.clone()).or_default() += 1;
            } else if !open {
                if key.len() > MAX_KEY_BYTES
                    || (seen.undeclared.len() >= MAX_KEYS && !seen.undeclared.contains_key(key))
                {
                    seen.dropped = seen.dropped.saturating_add(1);
                } else {
                    seen.undeclared.entry(key.clone()).or_default().merge(value);
                }
            }
        }
        for key in &required {
            if !map.contains_key(key) {
                *self
                    .missing
                    .entry(defined.clone())
                    .or_default()
                    .entry(key.clone())
                    .or_default() += 1;
            }
        }
        for (key, value) in map {
            if let Some(place) = properties.get(key) {
                self.at_depth(place, value, depth + 1);
            }
        }
    }

    /// The properties of `schema` (defined at `defined`) and of its `allOf` parts, each with
    /// the place of its schema; and the keys they require.
    fn properties(
        &mut self,
        defined: &Place,
        schema: &Value,
        depth: usize,
    ) -> (BTreeMap<String, Place>, BTreeSet<String>) {
        let mut properties = BTreeMap::new();
        let mut required = BTreeSet::new();
        if let Some(own) = schema.get("properties").and_then(Value::as_object) {
            for key in own.keys() {
                properties.insert(key.clone(), defined.child("properties").child(key));
            }
        }
        if let Some(keys) = schema.get("required").and_then(Value::as_array) {
            required.extend(keys.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        if depth < 8
            && let Some(parts) = schema.get("allOf").and_then(Value::as_array)
        {
            for (index, part) in parts.iter().enumerate() {
                let at = defined.child("allOf").child(&index.to_string());
                let Ok((place, part)) = self.docs.follow(&at, part) else {
                    continue;
                };
                let (more, needed) = self.properties(&place, &part, depth + 1);
                properties.extend(more);
                required.extend(needed);
            }
        }
        (properties, required)
    }

    /// A union: the alternative that takes `value` without a problem, else (an object) the
    /// one whose keys it shares most, walked as if it were the schema.
    fn union(
        &mut self,
        defined: &Place,
        (key, count): (&'static str, usize),
        value: &Value,
        depth: usize,
    ) {
        let places: Vec<Place> = (0..count)
            .map(|index| defined.child(key).child(&index.to_string()))
            .collect();
        let mut best: Option<(usize, usize)> = None;
        for (index, place) in places.iter().enumerate() {
            let (problems, shared) = self.trial(place, value);
            if problems == 0 {
                self.at_depth(place, value, depth + 1);
                return;
            }
            if best.is_none_or(|(_, most)| shared > most) {
                best = Some((index, shared));
            }
        }
        if let Some((index, _)) = best {
            self.at_depth(&places[index], value, depth + 1);
        }
    }

    /// Whether a union takes `null`: said beside it, or one of its alternatives does.
    fn union_takes_null(
        &mut self,
        defined: &Place,
        schema: &Value,
        (key, count): (&'static str, usize),
    ) -> bool {
        if types(schema).null {
            return true;
        }
        (0..count).any(|index| {
            let at = defined.child(key).child(&index.to_string());
            let Some((_, alternative)) = self.docs.resolve(&at) else {
                return false;
            };
            self.docs
                .follow(&at, &alternative)
                .is_ok_and(|(_, schema)| types(&schema).null)
        })
    }

    /// What walking `value` at `place` would find, noted nowhere: its problems, and how many of
    /// an object's keys the schema declares.
    fn trial(&mut self, place: &Place, value: &Value) -> (usize, usize) {
        let start = self.budget.min(10_000);
        let mut trial = Walk::new(self.docs, self.version, start);
        trial.method.clone_from(&self.method);
        trial.value(place, value);
        self.budget -= start - trial.budget;
        let (problems, lost) = trial.noted.problems();
        let missing: u32 = trial.missing.values().flat_map(|m| m.values()).sum();
        let declared = trial
            .noted
            .defined
            .values()
            .map(|d| d.present.values().sum::<u32>() as usize)
            .sum();
        (problems.len() + lost as usize + missing as usize, declared)
    }
}

/// A `oneOf` or `anyOf`: its key and its number of alternatives.
fn union_of(schema: &Value) -> Option<(&'static str, usize)> {
    ["oneOf", "anyOf"].into_iter().find_map(|key| {
        let alternatives = schema.get(key)?.as_array()?;
        (!alternatives.is_empty()).then_some((key, alternatives.len()))
    })
}

/// Whether a schema takes keys it does not declare (`additionalProperties` true or a schema).
fn is_open(schema: &Value) -> bool {
    match schema.get("additionalProperties") {
        Some(Value::Bool(open)) => *open,
        Some(Value::Object(_)) => true,
        _ => false,
    }
}

/// The JSON types a schema takes.
pub(crate) struct Takes {
    kinds: Vec<String>,
    pub(crate) null: bool,
    /// No `type`: any value.
    pub(crate) any: bool,
}

impl Takes {
    pub(crate) fn admits(&self, kind: &str) -> bool {
        self.kinds
            .iter()
            .any(|k| k == kind || (k == "number" && kind == "integer"))
    }
}

/// The types `schema` takes, null in every dialect's spelling included (a `null` type,
/// `nullable`, Swagger's `x-nullable`, `null` among its `enum` values).
pub(crate) fn types(schema: &Value) -> Takes {
    let mut kinds: Vec<String> = match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.clone()],
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let said_null = |key: &str| schema.get(key).and_then(Value::as_bool) == Some(true);
    let null = kinds.iter().any(|k| k == "null")
        || said_null("nullable")
        || said_null("x-nullable")
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().any(Value::is_null));
    kinds.retain(|k| k != "null");
    let any = kinds.is_empty();
    Takes { kinds, null, any }
}

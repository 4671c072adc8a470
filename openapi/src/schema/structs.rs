//! A struct from an object schema: its `allOf` parts (named structs, or inline parts whose
//! properties it takes), its properties as fields (optional unless required; a constant the
//! server always writes as a one-value enum; a nullable one that is sent made `Nullable` later,
//! in `settle/nulls.rs`), a union beside its fields flattened as a part of its own, the keys
//! beside them its `additionalProperties` allows, and the keys it requires without declaring.

use std::collections::BTreeSet;

use serde_json::Value;

use super::shape::{doc, is_nullable};
use super::unions::{is_union, union_beside_fields};
use crate::document::Place;
use crate::names;
use crate::spec::{FieldOut, StructOut};
use crate::ty::Ty;
use crate::walk::Builder;

impl Builder<'_> {
    /// A struct: its `allOf` parts (named structs) and properties (its own and inline parts').
    pub(super) fn struct_of(
        &mut self,
        at: &Place,
        schema: &Value,
        name: &str,
        depth: usize,
    ) -> StructOut {
        self.taken_types.insert(name);
        let mut out = StructOut {
            doc: doc(schema),
            ..StructOut::default()
        };
        let mut inline_parts = Vec::new();
        // An inline part's own `allOf` parts are the struct's parts too (each inline part is
        // met once: they nest as a tree, so the walk is linear in the schema).
        let mut pending: Vec<(Place, Value)> = vec![(at.clone(), schema.clone())];
        while let Some((part_at, part)) = pending.pop() {
            let Some(parts) = part.get("allOf").and_then(Value::as_array) else {
                continue;
            };
            for (i, part) in parts.iter().enumerate() {
                let place = part_at.child("allOf").child(&i.to_string());
                if let Some(reference) = part.get("$ref").and_then(Value::as_str) {
                    let ty = self.ty_at_depth(&place, part, name, depth + 1);
                    // A child's part that names its base is the base's own fields, not the
                    // union of its children that the base's uses are.
                    let base = (self.docs.target(&place, reference).ok())
                        .and_then(|target| self.base_part(&target).map(str::to_owned));
                    if let Some(part) = base.or_else(|| ty.required().named().map(str::to_owned)) {
                        out.all_of.push(part);
                    }
                } else {
                    pending.push((place.clone(), part.clone()));
                    inline_parts.push((place, part.clone()));
                }
            }
        }
        let mut taken = names::Taken::default();
        let mut own = vec![(at.clone(), schema.clone())];
        own.extend(inline_parts);
        let required_anywhere: Vec<String> = own
            .iter()
            .filter_map(|(_, part)| part.get("required").and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        for (place, part) in own {
            // A union beside the fields (`oneOf` next to `properties`, or an inline `allOf`
            // part that is one) is flattened into the struct: an `all_of:` part of its own.
            if let Some(union) = union_beside_fields(&part)
                .or_else(|| (place != *at && is_union(&part)).then(|| part.clone()))
            {
                let ty = self.ty_at_depth(&place, &union, &format!("{name}Kind"), depth + 1);
                if let Some(part) = ty.required().named() {
                    out.all_of.push(part.to_owned());
                }
            }
            self.fields_of(&place, &part, name, depth, &mut out, &mut taken);
        }
        // (A struct of no fields keeps every key in a map instead: nothing to add there.)
        let has_fields = !out.fields.is_empty() || !out.all_of.is_empty();
        if !required_anywhere.is_empty() && out.additional.is_none() && has_fields {
            self.required_but_undeclared(
                at,
                schema,
                name,
                &required_anywhere,
                &mut out,
                &mut taken,
            );
        }
        // A struct of no fields would drop every key an object may have: it keeps them.
        if out.fields.is_empty() && out.all_of.is_empty() && out.additional.is_none() {
            out.additional = Some(Ty::Value);
        }
        out
    }

    /// The Rust name of each property not yet a field: first those whose key is already the
    /// name (`nickname`), then the others (`NICKNAME`, `nickName`), so that a key that only
    /// cases like a declared one (an overlay's, a server's) never takes the declared one's
    /// name, whatever the order; a name that had to take a suffix is noted.
    fn field_names<'p>(
        &mut self,
        at: &Place,
        properties: &'p serde_json::Map<String, Value>,
        out: &StructOut,
        taken: &mut names::Taken,
    ) -> std::collections::HashMap<&'p str, String> {
        let mut named = std::collections::HashMap::new();
        for exact in [true, false] {
            for property in properties.keys() {
                let word = names::word(property);
                if (word == *property) != exact
                    || out
                        .fields
                        .iter()
                        .any(|f| f.rename.as_deref().unwrap_or(&f.key) == property)
                {
                    continue;
                }
                let key = names::unique(&word, "_", taken);
                if key != word {
                    self.note(
                        &at.child("properties").child(property),
                        false,
                        format!(
                            "`{property}` is `{word}` in Rust, as another key is: it is `{key}`"
                        ),
                    );
                }
                named.insert(property.as_str(), key);
            }
        }
        named
    }

    /// Keys the schema requires that neither it nor any of its parts or alternatives
    /// declares (JSON Schema allows it): a value the server should send, kept in an optional
    /// `serde_json::Value` field rather than dropped — optional, as such a key is as often the
    /// description's slip (a renamed property left in `required`) and a real server's answers
    /// without it must still read. Noted.
    fn required_but_undeclared(
        &mut self,
        at: &Place,
        schema: &Value,
        owner: &str,
        required: &[String],
        out: &mut StructOut,
        taken: &mut names::Taken,
    ) {
        let mut declared: BTreeSet<String> =
            out.fields.iter().map(|f| f.wire().to_owned()).collect();
        let mut seen = BTreeSet::new();
        self.declared_keys(at, schema, 0, &mut declared, &mut seen);
        let mut added = BTreeSet::new();
        for key in required {
            if declared.contains(key) || !added.insert(key.clone()) {
                continue;
            }
            let field = names::unique(&names::word(key), "_", taken);
            self.note(
                at,
                false,
                format!(
                    "`{owner}` requires `{key}` without declaring it: kept as any JSON value, when it comes"
                ),
            );
            out.fields.push(FieldOut {
                rename: (field != *key).then(|| key.clone()),
                key: field,
                ty: Ty::Value.optional(),
                doc: None,
                required_null: false,
                optional_null: false,
                constant: None,
            });
        }
    }

    /// Every property name `schema` declares, in itself, its `allOf` parts and its `oneOf` and
    /// `anyOf` alternatives, `$ref`s followed; each place once, so the walk is linear.
    fn declared_keys(
        &mut self,
        at: &Place,
        schema: &Value,
        depth: usize,
        declared: &mut BTreeSet<String>,
        seen: &mut BTreeSet<String>,
    ) {
        if depth > 32 {
            return;
        }
        let Ok((place, schema)) = self.docs.follow(at, schema) else {
            return;
        };
        if !seen.insert(format!("{}#{}", place.file.display(), place.pointer)) {
            return;
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            declared.extend(properties.keys().cloned());
        }
        for combinator in ["allOf", "oneOf", "anyOf"] {
            if let Some(parts) = schema.get(combinator).and_then(Value::as_array) {
                for (i, part) in parts.iter().enumerate() {
                    let part_at = place.child(combinator).child(&i.to_string());
                    self.declared_keys(&part_at, part, depth + 1, declared, seen);
                }
            }
        }
    }

    fn fields_of(
        &mut self,
        at: &Place,
        schema: &Value,
        owner: &str,
        depth: usize,
        out: &mut StructOut,
        taken: &mut names::Taken,
    ) {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            let mut named = self.field_names(at, properties, out, taken);
            for (property, definition) in properties {
                let Some(key) = named.remove(property.as_str()) else {
                    continue;
                };
                let place = at.child("properties").child(property);
                let hint = format!("{owner}{}", names::type_name(property));
                // A text constant with a default equal to it (pydantic's tag:
                // `type: { const: abort, default: abort }`, not in `required`) is written by the
                // server always: a one-value enum, so that a union's best fit reads its
                // alternative by it (and still reads a value without it), where text would
                // leave the alternatives alike.
                let mut ty = match always_written(definition) {
                    Some(tag) if !required.contains(&property.as_str()) => {
                        let one_value = serde_json::json!({ "type": "string", "enum": [tag] });
                        self.ty_at_depth(&place, &one_value, &hint, depth + 1)
                    }
                    _ => self.ty_at_depth(&place, definition, &hint, depth + 1),
                };
                // A property only the client sends (`writeOnly`) is absent from responses, and
                // one only the server sends (`readOnly`) from requests: the one type serves both,
                // so such a property is optional whatever `required` says.
                let one_way = ["readOnly", "writeOnly"]
                    .iter()
                    .any(|k| definition.get(*k) == Some(&Value::Bool(true)));
                let is_required = required.contains(&property.as_str()) && !one_way;
                let nullable = ty.is_option();
                // A constant the field's type cannot hold (a number's `const: "1"`) is the
                // description's slip: the field keeps its type, the constant its doc.
                let constant = definition
                    .get("const")
                    .filter(|c| is_required && !nullable && const_fits(c, &ty))
                    .cloned();
                // A `serde_json::Value` holds a null itself; whether one may come is the
                // schema's to say, `nullable` or a `null` alternative (`oneOf: [null, {}]`).
                let value_null = ty == Ty::Value
                    && (is_nullable(definition) || self.union_admits_null(&place, definition));
                let optional_null = !is_required && (nullable || value_null);
                if !is_required && !nullable {
                    ty = ty.optional();
                }
                out.fields.push(FieldOut {
                    rename: (key != *property).then(|| property.clone()),
                    key,
                    ty,
                    doc: doc(definition),
                    required_null: is_required && nullable,
                    optional_null,
                    constant,
                });
            }
        }
        // Keys beside the declared ones that the description allows are kept: `true` and `{}`
        // allow any value, a schema its values.
        if let Some(values) = schema.get("additionalProperties")
            && out.additional.is_none()
        {
            out.additional = match values {
                Value::Bool(true) => Some(Ty::Value),
                Value::Object(o) if o.is_empty() => Some(Ty::Value),
                Value::Object(_) => Some(self.ty_at_depth(
                    &at.child("additionalProperties"),
                    values,
                    &format!("{owner}Value"),
                    depth + 1,
                )),
                _ => None,
            };
        }
    }
}

/// True when a field of type `ty` can hold the constant `value` (as `check` requires: a string
/// in a `String`, an integer in an integer type, a boolean in a `bool`).
fn const_fits(value: &Value, ty: &Ty) -> bool {
    match ty {
        Ty::String => value.is_string(),
        Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64 => value.is_i64() || value.is_u64(),
        Ty::Bool => value.is_boolean(),
        _ => false,
    }
}

/// The text constant a property always holds when the server writes it by default: `const`
/// (or a one-value `enum`) with a `default` equal to it.
fn always_written(definition: &Value) -> Option<&Value> {
    let constant = definition.get("const").or_else(|| {
        match definition
            .get("enum")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            Some([one]) => Some(one),
            _ => None,
        }
    })?;
    (constant.is_string() && definition.get("default") == Some(constant)).then_some(constant)
}

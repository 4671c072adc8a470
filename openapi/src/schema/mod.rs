//! Schemas → type expressions and `types:` entries. A named schema (one a `$ref` points at)
//! becomes a type of its name, defined once however often it is met; an inline object, enum or
//! union becomes a type named after where it stands (`CreateUserBody`, `UserAddress`). What no
//! spec type expresses is `serde_json::Value`, counted.

use serde_json::Value;

use crate::document::{Place, last_segment};
use crate::names;
use crate::spec::{EnumOut, EnumValue, FieldOut, StructOut, TypeOut};
use crate::walk::Builder;

mod copies;
mod shape;
mod unions;

use unions::{is_union, union_beside_fields};

use crate::ty::Ty;
pub(crate) use shape::doc;
use shape::{
    const_alternatives, defines_type, enum_values, has_properties, is_nullable, only_modifies,
    schema_type, without_constraint_alternatives,
};

/// How deep schemas may nest inline before the rest is a `serde_json::Value`.
const MAX_DEPTH: usize = 48;

impl Builder<'_> {
    /// The type expression of `schema` (found at `at`); `hint` names an inline type.
    pub(crate) fn ty(&mut self, at: &Place, schema: &Value, hint: &str) -> Ty {
        self.ty_at_depth(at, schema, hint, 0)
    }

    fn ty_at_depth(&mut self, at: &Place, schema: &Value, hint: &str, depth: usize) -> Ty {
        if depth > MAX_DEPTH {
            self.note(
                at,
                true,
                "nested too deep to follow: typed serde_json::Value",
            );
            return self.fallback();
        }
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            return match self.docs.target(at, reference) {
                Ok(target) => self.named_type(&target, depth),
                Err(error) => {
                    self.unresolved(error, "typed serde_json::Value");
                    self.fallback()
                }
            };
        }
        if !schema.is_object() {
            // `true` (anything) or a stray scalar.
            return self.fallback();
        }
        let nullable = is_nullable(schema);
        let inner = self.non_null_ty(at, schema, hint, depth);
        if nullable { inner.nullable() } else { inner }
    }

    /// The type of a schema, `null` aside.
    fn non_null_ty(&mut self, at: &Place, schema: &Value, hint: &str, depth: usize) -> Ty {
        if let Some(plain) = without_constraint_alternatives(schema) {
            return self.non_null_ty(at, &plain, hint, depth);
        }
        if let Some(values) = const_alternatives(schema) {
            return self.inline_enum(at, schema, hint, values);
        }
        if union_beside_fields(schema).is_some() {
            return self.inline_struct(at, schema, hint, depth);
        }
        if let Some(ty) = self.alternatives_ty(at, schema, hint, depth) {
            return ty;
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            if let Some(ty) = self.modified_part(at, schema, parts, hint, depth) {
                return ty;
            }
            return self.inline_struct(at, schema, hint, depth);
        }
        if let Some(values) = enum_values(schema) {
            let values = values.into_iter().map(EnumValue::bare).collect();
            return self.inline_enum(at, schema, hint, values);
        }
        let kind = schema_type(schema);
        match kind.as_deref() {
            // Binary content: a file part in a multipart body, text anywhere else (settled
            // once every body is known).
            Some("string") if schema.get("format").and_then(Value::as_str) == Some("binary") => {
                Ty::Bytes
            }
            Some("string") => match (self.dates, schema.get("format").and_then(Value::as_str)) {
                (crate::Dates::Chrono, Some("date-time")) => Ty::DateTime,
                (crate::Dates::Chrono, Some("date")) => Ty::Date,
                _ => Ty::String,
            },
            Some("integer") => integer_ty(schema),
            Some("number") => Ty::F64,
            Some("boolean") => Ty::Bool,
            Some("array") => match schema.get("items") {
                Some(items) => Ty::list(self.ty_at_depth(
                    &at.child("items"),
                    items,
                    &format!("{hint}Item"),
                    depth + 1,
                )),
                None => Ty::list(self.fallback()),
            },
            Some("object") | None if has_properties(schema) => {
                if let Some(component) = self.copied_component(at, schema) {
                    return self.named_type(&component, depth);
                }
                self.inline_struct(at, schema, hint, depth)
            }
            Some("object") | None => match schema.get("additionalProperties") {
                Some(values)
                    if values.is_object() && !values.as_object().is_some_and(|o| o.is_empty()) =>
                {
                    Ty::map(self.ty_at_depth(
                        &at.child("additionalProperties"),
                        values,
                        &format!("{hint}Value"),
                        depth + 1,
                    ))
                }
                _ => self.fallback(),
            },
            Some(_) => self.fallback(),
        }
    }

    /// An inline enum, defined as a type named after where it stands.
    fn inline_enum(
        &mut self,
        at: &Place,
        schema: &Value,
        hint: &str,
        values: Vec<EnumValue>,
    ) -> Ty {
        let name = self.inline_name(at, schema, hint);
        let definition = self.enum_of(at, doc(schema), values);
        self.spec.types.insert(name.clone(), definition);
        Ty::Named(name)
    }

    /// An inline object as a struct named after where it stands.
    fn inline_struct(&mut self, at: &Place, schema: &Value, hint: &str, depth: usize) -> Ty {
        let name = self.inline_name(at, schema, hint);
        let definition = self.struct_of(at, schema, &name, depth);
        self.spec
            .types
            .insert(name.clone(), TypeOut::Struct(definition));
        Ty::Named(name)
    }

    /// An `allOf` of one part that says what the value is and parts that only modify it
    /// (`description`, `nullable`, `readOnly`…), as descriptions write a documented use of a
    /// shared schema: the type of that one part, not a struct of its own.
    fn modified_part(
        &mut self,
        at: &Place,
        schema: &Value,
        parts: &[Value],
        hint: &str,
        depth: usize,
    ) -> Option<Ty> {
        if has_properties(schema) {
            return None;
        }
        let substantial: Vec<(usize, &Value)> = parts
            .iter()
            .enumerate()
            .filter(|(_, part)| !only_modifies(part))
            .collect();
        let [(i, part)] = substantial.as_slice() else {
            return None;
        };
        let place = at.child("allOf").child(&i.to_string());
        let ty = self.ty_at_depth(&place, part, hint, depth + 1);
        let nullable = parts.iter().any(is_nullable);
        Some(if nullable { ty.nullable() } else { ty })
    }

    /// An enum of `values`, each listed once: a description that lists a value twice means it
    /// once.
    fn enum_of(&mut self, at: &Place, doc: Option<String>, values: Vec<EnumValue>) -> TypeOut {
        let mut unique: Vec<EnumValue> = Vec::with_capacity(values.len());
        let mut repeated = Vec::new();
        for value in values {
            if unique.iter().any(|known| known.value == value.value) {
                repeated.push(value.value.to_string());
            } else {
                unique.push(value);
            }
        }
        if !repeated.is_empty() {
            self.note(
                at,
                false,
                format!(
                    "the enum lists {} more than once: one variant each",
                    repeated.join(", ")
                ),
            );
        }
        TypeOut::Enum(EnumOut {
            doc,
            values: unique,
        })
    }

    /// The type a `$ref` names: its schema defined once as a type of its name; a schema that is
    /// no struct, enum or union (an alias of `string`, say) stands for what it is.
    fn named_type(&mut self, target: &Place, depth: usize) -> Ty {
        if let Some(known) = self.named.get(target) {
            return known.clone();
        }
        let Some((found, schema)) = self.docs.resolve(target) else {
            self.named.insert(target.clone(), Ty::Value);
            self.note(
                target,
                true,
                "a `$ref` points here, and there is nothing: typed serde_json::Value",
            );
            return self.fallback();
        };
        let original = if target.pointer.is_empty() {
            target
                .file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        } else {
            last_segment(&target.pointer)
        };
        if !defines_type(&schema) {
            // An alias: reserve the place (a self-reference becomes a value), then resolve.
            self.named.insert(target.clone(), Ty::Value);
            let ty = self.ty_at_depth(&found, &schema, &names::type_name(&original), depth + 1);
            self.named.insert(target.clone(), ty.clone());
            return ty;
        }
        let name = names::unique(&names::type_name(&original), "", &mut self.taken_types);
        // A schema that may be null is a type; where it is used, the use may be null too.
        let ty = if is_nullable(&schema) || self.union_admits_null(&found, &schema) {
            Ty::Named(name.clone()).nullable()
        } else {
            Ty::Named(name.clone())
        };
        self.named.insert(target.clone(), ty.clone());
        self.schema_names.insert(original, name.clone());
        self.pending.push((found, name));
        ty
    }

    /// Defines the named schemas met so far, and those they meet, until none is left.
    pub(crate) fn define_pending(&mut self) {
        while let Some((place, name)) = self.pending.pop() {
            let schema = self
                .docs
                .resolve(&place)
                .map(|(_, v)| v)
                .unwrap_or(Value::Null);
            let definition = self.definition(&place, &schema, &name);
            self.spec.types.insert(name, definition);
        }
    }

    fn definition(&mut self, at: &Place, schema: &Value, name: &str) -> TypeOut {
        if let Some(plain) = without_constraint_alternatives(schema) {
            return self.definition(at, &plain, name);
        }
        if let Some(values) = const_alternatives(schema) {
            return self.enum_of(at, doc(schema), values);
        }
        for key in ["oneOf", "anyOf"] {
            if schema.get(key).is_some() && union_beside_fields(schema).is_none() {
                let union = self.union(at, schema, key, name, 0);
                if union.alternatives.iter().all(|a| *a == Ty::Value) {
                    // Alternatives that each allow any value allow any value: nothing lost.
                    self.note(
                        at,
                        false,
                        format!(
                            "`{name}`: every alternative allows any JSON value, and so does it"
                        ),
                    );
                }
                return TypeOut::Union(union);
            }
        }
        if let Some(values) = enum_values(schema) {
            let values = values.into_iter().map(EnumValue::bare).collect();
            return self.enum_of(at, doc(schema), values);
        }
        TypeOut::Struct(self.struct_of(at, schema, name, 0))
    }

    /// A struct: its `allOf` parts (named structs) and properties (its own and inline parts').
    fn struct_of(&mut self, at: &Place, schema: &Value, name: &str, depth: usize) -> StructOut {
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
                if part.get("$ref").is_some() {
                    let ty = self.ty_at_depth(&place, part, name, depth + 1);
                    if let Some(part) = ty.required().named() {
                        out.all_of.push(part.to_owned());
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
        let mut declared: std::collections::BTreeSet<String> =
            out.fields.iter().map(|f| f.wire().to_owned()).collect();
        let mut seen = std::collections::BTreeSet::new();
        self.declared_keys(at, schema, 0, &mut declared, &mut seen);
        let mut added = std::collections::BTreeSet::new();
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
        declared: &mut std::collections::BTreeSet<String>,
        seen: &mut std::collections::BTreeSet<String>,
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
            for (property, definition) in properties {
                if out
                    .fields
                    .iter()
                    .any(|f| f.rename.as_deref().unwrap_or(&f.key) == property)
                {
                    continue;
                }
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
                let optional_null =
                    !is_required && (nullable || (ty == Ty::Value && is_nullable(definition)));
                if !is_required && !nullable {
                    ty = ty.optional();
                }
                let key = names::unique(&names::word(property), "_", taken);
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

    /// A name for an inline type, from where it stands; its schema's `title` and the property
    /// it is the type of are kept for when the shape turns out to be shared.
    pub(crate) fn inline_name(&mut self, at: &Place, schema: &Value, hint: &str) -> String {
        let name = names::unique(&names::type_name(hint), "", &mut self.taken_types);
        if let Some(title) = schema.get("title").and_then(Value::as_str) {
            self.titles.insert(name.clone(), title.to_owned());
        }
        if let Some(property) = property_of(&at.pointer) {
            self.properties.insert(name.clone(), property);
        }
        name
    }

    /// `serde_json::Value`, counted.
    pub(crate) fn fallback(&mut self) -> Ty {
        self.spec.summary.value_fallbacks += 1;
        Ty::Value
    }
}

/// The property a schema at `pointer` is the type of (`…/properties/stream_mode`, or one of
/// its `anyOf`/`oneOf`/`allOf` alternatives), unescaped; none for a list's items or a map's
/// values, which are types inside it.
fn property_of(pointer: &str) -> Option<String> {
    let (_, below) = pointer.rsplit_once("/properties/")?;
    let mut segments = below.split('/');
    let property = segments.next()?;
    let mut rest = segments.collect::<Vec<_>>().into_iter();
    while let Some(key) = rest.next() {
        let index = rest.next()?;
        if !matches!(key, "anyOf" | "oneOf" | "allOf") || index.parse::<usize>().is_err() {
            return None;
        }
    }
    Some(property.replace("~1", "/").replace("~0", "~"))
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

/// An integer schema's type by its format, or by bounds that say unsigned 64 bits.
fn integer_ty(schema: &Value) -> Ty {
    match schema.get("format").and_then(Value::as_str) {
        Some("int32") => Ty::I32,
        Some("uint32") => Ty::U32,
        Some("uint64") => Ty::U64,
        // Bounds that say unsigned 64 bits (`maximum: 1.8446744073709552e+19`).
        _ if schema
            .get("minimum")
            .and_then(Value::as_f64)
            .is_some_and(|m| m >= 0.0)
            && schema
                .get("maximum")
                .and_then(Value::as_f64)
                .is_some_and(|m| m > i64::MAX as f64) =>
        {
            Ty::U64
        }
        _ => Ty::I64,
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

//! Schemas → type expressions and `types:` entries. A named schema (one a `$ref` points at)
//! becomes a type of its name, defined once however often it is met; an inline object, enum or
//! union becomes a type named after where it stands (`CreateUserBody`, `UserAddress`). What no
//! spec type expresses is `serde_json::Value`, counted.

use serde_json::Value;

use crate::document::{Place, last_segment};
use crate::names;
use crate::spec::{EnumOut, EnumValue, TypeOut};
use crate::walk::Builder;

mod adjacent;
mod copies;
mod hierarchy;
mod shape;
mod structs;
mod unions;

use unions::union_beside_fields;

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
                // `nullable: true` beside the `$ref`: how the OpenAPI 3.0 generators write
                // "this type, or null" (3.0 ignores siblings of `$ref`; they mean it).
                Ok(target) if is_nullable(schema) => self.named_type(&target, depth).nullable(),
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
        if let Some((tag, children)) = self.children_of_base(target, &schema) {
            return self.hierarchy(target, found, &schema, original, tag, children, depth);
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

//! Schemas → type expressions and `types:` entries. A named schema (one a `$ref` points at)
//! becomes a type of its name, defined once however often it is met; an inline object, enum or
//! union becomes a type named after where it stands (`CreateUserBody`, `UserAddress`). What no
//! spec type expresses is `serde_json::Value`, counted.

use serde_json::Value;

use crate::Error;
use crate::document::{Place, last_segment};
use crate::names;
use crate::spec::{Builder, EnumOut, EnumValue, FieldOut, StructOut, TypeOut, UnionOut};

const VALUE: &str = "serde_json::Value";

/// How deep schemas may nest inline before the rest is a `serde_json::Value`.
const MAX_DEPTH: usize = 48;

impl Builder<'_> {
    /// The type expression of `schema` (found at `at`); `hint` names an inline type.
    pub(crate) fn ty(&mut self, at: &Place, schema: &Value, hint: &str) -> Result<String, Error> {
        self.ty_at_depth(at, schema, hint, 0)
    }

    fn ty_at_depth(
        &mut self,
        at: &Place,
        schema: &Value,
        hint: &str,
        depth: usize,
    ) -> Result<String, Error> {
        if depth > MAX_DEPTH {
            return Ok(self.fallback());
        }
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let target = self.docs.target(at, reference)?;
            return self.named_type(&target, depth);
        }
        if !schema.is_object() {
            // `true` (anything) or a stray scalar.
            return Ok(self.fallback());
        }
        let nullable = is_nullable(schema);
        let inner = self.non_null_ty(at, schema, hint, depth)?;
        Ok(
            if nullable && !inner.starts_with("Option<") && inner != VALUE {
                format!("Option<{inner}>")
            } else {
                inner
            },
        )
    }

    /// The type of a schema, `null` aside.
    fn non_null_ty(
        &mut self,
        at: &Place,
        schema: &Value,
        hint: &str,
        depth: usize,
    ) -> Result<String, Error> {
        if let Some(values) = const_alternatives(schema) {
            let name = self.inline_name(hint);
            self.spec.types.insert(
                name.clone(),
                TypeOut::Enum(EnumOut {
                    doc: doc(schema),
                    values,
                }),
            );
            return Ok(name);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
                let real: Vec<(usize, &Value)> = alternatives
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| !is_null_schema(a))
                    .collect();
                return match real.as_slice() {
                    [] => Ok(self.fallback()),
                    [(i, only)] if schema.get("discriminator").is_none() => {
                        let ty = self.ty_at_depth(
                            &at.child(key).child(&i.to_string()),
                            only,
                            hint,
                            depth + 1,
                        )?;
                        Ok(
                            if real.len() < alternatives.len() && !ty.starts_with("Option<") {
                                format!("Option<{ty}>")
                            } else {
                                ty
                            },
                        )
                    }
                    _ => {
                        let name = self.inline_name(hint);
                        let union = self.union(at, schema, key, &name, depth)?;
                        self.spec.types.insert(name.clone(), TypeOut::Union(union));
                        Ok(name)
                    }
                };
            }
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            let own = schema.get("properties").is_some();
            if parts.len() == 1 && !own {
                return self.ty_at_depth(&at.child("allOf").child("0"), &parts[0], hint, depth + 1);
            }
            let name = self.inline_name(hint);
            self.taken_types.push(name.clone());
            let definition = self.struct_of(at, schema, &name, depth)?;
            self.spec
                .types
                .insert(name.clone(), TypeOut::Struct(definition));
            return Ok(name);
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            let values: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
            let integer = !values.is_empty() && values.iter().all(|v| v.is_i64());
            let strings = !values.is_empty() && values.iter().all(Value::is_string);
            if integer || strings {
                let name = self.inline_name(hint);
                self.spec.types.insert(
                    name.clone(),
                    TypeOut::Enum(EnumOut {
                        doc: doc(schema),
                        values: values.into_iter().map(|v| (v, None, None)).collect(),
                    }),
                );
                return Ok(name);
            }
        }
        let kind = schema_type(schema);
        Ok(match kind.as_deref() {
            // Binary content: a file part in a multipart body, text anywhere else (settled
            // once every body is known).
            Some("string") if schema.get("format").and_then(Value::as_str) == Some("binary") => {
                "bytes::Bytes".to_owned()
            }
            Some("string") => "String".to_owned(),
            Some("integer") => match schema.get("format").and_then(Value::as_str) {
                Some("int32") => "i32",
                Some("uint32") => "u32",
                Some("uint64") => "u64",
                _ => "i64",
            }
            .to_owned(),
            Some("number") => "f64".to_owned(),
            Some("boolean") => "bool".to_owned(),
            Some("array") => match schema.get("items") {
                Some(items) => {
                    let item = self.ty_at_depth(
                        &at.child("items"),
                        items,
                        &format!("{hint}Item"),
                        depth + 1,
                    )?;
                    format!("Vec<{item}>")
                }
                None => format!("Vec<{}>", self.fallback()),
            },
            Some("object") | None if schema.get("properties").is_some() => {
                let name = self.inline_name(hint);
                self.taken_types.push(name.clone());
                let definition = self.struct_of(at, schema, &name, depth)?;
                self.spec
                    .types
                    .insert(name.clone(), TypeOut::Struct(definition));
                name
            }
            Some("object") | None => match schema.get("additionalProperties") {
                Some(values)
                    if values.is_object() && !values.as_object().is_some_and(|o| o.is_empty()) =>
                {
                    let value = self.ty_at_depth(
                        &at.child("additionalProperties"),
                        values,
                        &format!("{hint}Value"),
                        depth + 1,
                    )?;
                    format!("HashMap<String, {value}>")
                }
                _ => self.fallback(),
            },
            Some(_) => self.fallback(),
        })
    }

    /// The type a `$ref` names: its schema defined once as a type of its name; a schema that is
    /// no struct, enum or union (an alias of `string`, say) stands for what it is.
    fn named_type(&mut self, target: &Place, depth: usize) -> Result<String, Error> {
        if let Some(known) = self.named.get(target) {
            return Ok(known.clone());
        }
        let schema = self
            .docs
            .get(target)
            .cloned()
            .ok_or_else(|| Error::at(target, "a `$ref` points here, and there is nothing"))?;
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
            self.named.insert(target.clone(), VALUE.to_owned());
            let ty = self.ty_at_depth(target, &schema, &names::type_name(&original), depth + 1)?;
            self.named.insert(target.clone(), ty.clone());
            return Ok(ty);
        }
        let name = names::unique(&names::type_name(&original), "", &mut self.taken_types);
        self.named.insert(target.clone(), name.clone());
        self.schema_names.insert(original, name.clone());
        self.pending.push((target.clone(), name.clone()));
        Ok(name)
    }

    /// Defines the named schemas met so far, and those they meet, until none is left.
    pub(crate) fn define_pending(&mut self) -> Result<(), Error> {
        while let Some((place, name)) = self.pending.pop() {
            let schema = self.docs.get(&place).cloned().unwrap_or(Value::Null);
            let definition = self.definition(&place, &schema, &name)?;
            self.spec.types.insert(name, definition);
        }
        Ok(())
    }

    fn definition(&mut self, at: &Place, schema: &Value, name: &str) -> Result<TypeOut, Error> {
        if let Some(values) = const_alternatives(schema) {
            return Ok(TypeOut::Enum(EnumOut {
                doc: doc(schema),
                values,
            }));
        }
        for key in ["oneOf", "anyOf"] {
            if schema.get(key).is_some() {
                return self.union(at, schema, key, name, 0).map(TypeOut::Union);
            }
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            let values = values
                .iter()
                .filter(|v| !v.is_null())
                .map(|v| (v.clone(), None, None))
                .collect();
            return Ok(TypeOut::Enum(EnumOut {
                doc: doc(schema),
                values,
            }));
        }
        self.struct_of(at, schema, name, 0).map(TypeOut::Struct)
    }

    /// A struct: its `allOf` parts (named structs) and properties (its own and inline parts').
    fn struct_of(
        &mut self,
        at: &Place,
        schema: &Value,
        name: &str,
        depth: usize,
    ) -> Result<StructOut, Error> {
        let mut out = StructOut {
            doc: doc(schema),
            ..StructOut::default()
        };
        let mut inline_parts = Vec::new();
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            for (i, part) in parts.iter().enumerate() {
                let place = at.child("allOf").child(&i.to_string());
                if part.get("$ref").is_some() {
                    let ty = self.ty_at_depth(&place, part, name, depth + 1)?;
                    if is_type_name(&ty) {
                        out.all_of.push(ty);
                    }
                } else {
                    inline_parts.push((place, part.clone()));
                }
            }
        }
        let mut taken = Vec::new();
        let mut own = vec![(at.clone(), schema.clone())];
        own.extend(inline_parts);
        for (place, part) in own {
            self.fields_of(&place, &part, name, depth, &mut out, &mut taken)?;
        }
        Ok(out)
    }

    fn fields_of(
        &mut self,
        at: &Place,
        schema: &Value,
        owner: &str,
        depth: usize,
        out: &mut StructOut,
        taken: &mut Vec<String>,
    ) -> Result<(), Error> {
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
                let mut ty = self.ty_at_depth(&place, definition, &hint, depth + 1)?;
                let is_required = required.contains(&property.as_str());
                let nullable = ty.starts_with("Option<");
                let constant = definition
                    .get("const")
                    .filter(|c| {
                        is_required && !nullable && (c.is_string() || c.is_i64() || c.is_boolean())
                    })
                    .cloned();
                if !is_required && !nullable {
                    ty = format!("Option<{ty}>");
                }
                let key = names::unique(&names::word(property), "_", taken);
                out.fields.push(FieldOut {
                    rename: (key != *property).then(|| property.clone()),
                    key,
                    ty,
                    doc: doc(definition),
                    required_null: is_required && nullable,
                    constant,
                });
            }
        }
        if let Some(values) = schema.get("additionalProperties")
            && values.is_object()
            && values.as_object().is_some_and(|o| !o.is_empty())
            && out.additional.is_none()
            && schema.get("properties").is_some()
        {
            out.additional = Some(self.ty_at_depth(
                &at.child("additionalProperties"),
                values,
                &format!("{owner}Value"),
                depth + 1,
            )?);
        }
        Ok(())
    }

    /// A union of the alternatives under `key` (`oneOf`/`anyOf`), tagged when a discriminator
    /// says so.
    fn union(
        &mut self,
        at: &Place,
        schema: &Value,
        key: &str,
        name: &str,
        depth: usize,
    ) -> Result<UnionOut, Error> {
        self.taken_types.push(name.to_owned());
        let mut alternatives = Vec::new();
        for (i, alternative) in schema[key].as_array().into_iter().flatten().enumerate() {
            if is_null_schema(alternative) {
                continue;
            }
            let place = at.child(key).child(&i.to_string());
            let ty =
                self.ty_at_depth(&place, alternative, &format!("{name}Variant{i}"), depth + 1)?;
            if !alternatives.contains(&ty) {
                alternatives.push(ty);
            }
        }
        let mut tag = None;
        let mut mapping = Vec::new();
        if let Some(discriminator) = schema.get("discriminator") {
            tag = discriminator
                .get("propertyName")
                .and_then(Value::as_str)
                .map(str::to_owned);
            for (value, reference) in discriminator
                .get("mapping")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let Some(reference) = reference.as_str() else {
                    continue;
                };
                let ty = if reference.contains('#') || reference.contains('/') {
                    let target = self.docs.target(at, reference)?;
                    self.named_type(&target, depth + 1)?
                } else {
                    self.schema_names
                        .get(reference)
                        .cloned()
                        .unwrap_or_default()
                };
                if alternatives.contains(&ty) {
                    mapping.push((value.clone(), ty));
                }
            }
        }
        Ok(UnionOut {
            doc: doc(schema),
            alternatives,
            tag,
            mapping,
        })
    }

    /// A name for an inline type, from where it stands.
    fn inline_name(&mut self, hint: &str) -> String {
        names::unique(&names::type_name(hint), "", &mut self.taken_types)
    }

    /// `serde_json::Value`, counted.
    pub(crate) fn fallback(&mut self) -> String {
        self.spec.summary.value_fallbacks += 1;
        VALUE.to_owned()
    }

    /// After every type is defined: a tag every alternative declares (else the union is untagged,
    /// with a note), a mapping for each alternative, and `all_of` parts that are structs without
    /// their fields repeated in another type.
    pub(crate) fn settle_types(&mut self) {
        let names: Vec<String> = self.spec.types.keys().cloned().collect();
        for name in &names {
            let Some(TypeOut::Union(union)) = self.spec.types.get(name).cloned() else {
                continue;
            };
            let Some(tag) = &union.tag else { continue };
            let tagged = union.alternatives.iter().all(|a| {
                self.field_types(a, 0)
                    .is_some_and(|fields| fields.iter().any(|(wire, _)| wire == tag))
            });
            let mut settled = union.clone();
            if !tagged {
                settled.tag = None;
                settled.mapping.clear();
                self.spec.summary.notes.push(format!(
                    "`{name}`: not every alternative declares the discriminator `{tag}`; the union is read untagged"
                ));
            } else {
                let originals: Vec<(String, String)> = self
                    .schema_names
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                for alternative in &union.alternatives {
                    if !settled.mapping.iter().any(|(_, ty)| ty == alternative) {
                        let value = originals
                            .iter()
                            .filter(|(_, ty)| ty == alternative)
                            .map(|(original, _)| original.clone())
                            .min()
                            .unwrap_or_else(|| alternative.clone());
                        if !settled.mapping.iter().any(|(v, _)| *v == value) {
                            settled.mapping.push((value, alternative.clone()));
                        }
                    }
                }
            }
            self.spec
                .types
                .insert(name.clone(), TypeOut::Union(settled));
        }
        // Binary fields: files in the structs multipart bodies send, text elsewhere.
        let multipart: Vec<String> = self
            .spec
            .methods
            .iter()
            .filter_map(|m| m.body.as_ref())
            .filter(|b| b.encoding == "multipart")
            .map(|b| b.ty.clone())
            .collect();
        for (name, definition) in self.spec.types.iter_mut() {
            if let TypeOut::Struct(s) = definition {
                let file = if multipart.contains(name) {
                    "File"
                } else {
                    "String"
                };
                for field in &mut s.fields {
                    field.ty = field.ty.replace("bytes::Bytes", file);
                }
            }
        }
        // all_of: parts must be structs; an own field a part has with another type goes.
        for name in &names {
            let Some(TypeOut::Struct(definition)) = self.spec.types.get(name).cloned() else {
                continue;
            };
            let mut settled = definition.clone();
            settled.all_of.retain(|part| {
                matches!(self.spec.types.get(part), Some(TypeOut::Struct(_)))
                    && !self.reaches(part, name, 0)
            });
            let inherited: Vec<(String, String)> = settled
                .all_of
                .iter()
                .filter_map(|part| self.field_types(part, 0))
                .flatten()
                .collect();
            settled.fields.retain(|field| {
                let wire = field.rename.clone().unwrap_or_else(|| field.key.clone());
                !inherited.iter().any(|(w, _)| *w == wire)
            });
            self.spec
                .types
                .insert(name.clone(), TypeOut::Struct(settled));
        }
    }

    /// A struct's fields with its parts', as (wire name, type); `None` for another kind of type.
    fn field_types(&self, name: &str, depth: usize) -> Option<Vec<(String, String)>> {
        let Some(TypeOut::Struct(definition)) = self.spec.types.get(name) else {
            return None;
        };
        if depth > 16 {
            return Some(Vec::new());
        }
        let mut out: Vec<(String, String)> = definition
            .all_of
            .iter()
            .filter_map(|part| self.field_types(part, depth + 1))
            .flatten()
            .collect();
        out.extend(definition.fields.iter().map(|f| {
            (
                f.rename.clone().unwrap_or_else(|| f.key.clone()),
                f.ty.clone(),
            )
        }));
        Some(out)
    }

    /// True when `from`'s parts lead to `to`.
    fn reaches(&self, from: &str, to: &str, depth: usize) -> bool {
        if from == to {
            return true;
        }
        if depth > 16 {
            return true;
        }
        match self.spec.types.get(from) {
            Some(TypeOut::Struct(s)) => s.all_of.iter().any(|p| self.reaches(p, to, depth + 1)),
            _ => false,
        }
    }
}

/// A `oneOf` (or `anyOf`) whose alternatives are all `const`s of one kind, as Discord writes its
/// enums: the values, each with the alternative's title as its name and its description.
fn const_alternatives(schema: &Value) -> Option<Vec<EnumValue>> {
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
                (alternative["const"].clone(), name, doc)
            })
            .collect(),
    )
}

/// True for a schema that defines a type of its own: an object with properties, an enum, a
/// union, a composition.
fn defines_type(schema: &Value) -> bool {
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
        schema
            .get(k)
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().filter(|x| !is_null_schema(x)).count() > 1)
    });
    let composed = schema
        .get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|a| a.len() > 1 || schema.get("properties").is_some());
    schema.get("properties").is_some() || enum_ok || union || composed
}

/// The schema's `type`, the non-null one of a 3.1 list.
fn schema_type(schema: &Value) -> Option<String> {
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

fn is_nullable(schema: &Value) -> bool {
    schema.get("nullable") == Some(&Value::Bool(true))
        || schema.get("x-nullable") == Some(&Value::Bool(true))
        || schema
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.iter().any(|t| t == "null"))
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|v| v.len() == 1 && v[0].is_null())
}

fn is_type_name(ty: &str) -> bool {
    ty.chars().all(|c| c.is_ascii_alphanumeric())
        && ty.starts_with(|c: char| c.is_ascii_uppercase())
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

//! Types: `types:` declarations and every type expression a spec writes.

use std::collections::HashMap;

use super::Validator;
use crate::checked;
use crate::diagnostic::did_you_mean;
use crate::names;
use crate::spec::model::{ConstValue, TypeDef};
use crate::types::{PRIMITIVES, STD_NAMES, Ty};

impl Validator<'_> {
    /// Every declared type; `None` when one of them has a problem. Two passes: each type on its
    /// own, then what needs the others (`all_of:` parts, a tagged union's alternatives).
    pub(super) fn types(&mut self) -> Option<Vec<checked::TypeDecl>> {
        let spec = self.spec;
        let mut seen: HashMap<String, &str> = HashMap::new();
        let mut own: Vec<Option<Own>> = Vec::new();
        for (name, ty) in &spec.types {
            let source = ty.source;
            let key = format!("types.{name}");
            let rust = names::pascal(name);
            if let Some(first) = seen.insert(rust.clone(), name) {
                self.push(spec.at_key(
                    source,
                    &key,
                    format!("type `{name}` and `{first}` are both `{rust}` in Rust"),
                ));
            }
            self.type_name(source, &key, name);
            own.push(self.type_def(source, &key, &ty.item));
        }
        // Every type read on its own: the second pass may look any of them up.
        let all: Option<Vec<Own>> = own.into_iter().collect();
        let all = all?;
        let mut decls = Some(Vec::new());
        for (i, (name, ty)) in spec.types.iter().enumerate() {
            let key = format!("types.{name}");
            let shape = match &all[i] {
                Own::Struct { .. } => self.struct_shape(&all, i),
                Own::Enum(values, integer, open) => Some(checked::Shape::Enum(checked::Enum {
                    values: values.clone(),
                    integer: *integer,
                    open: *open,
                })),
                Own::Union(alternatives, open) => {
                    let (tag, content) = (ty.item.tag.clone(), ty.item.content.clone());
                    let alternatives = match (&tag, &content) {
                        (Some(tag), Some(_)) => {
                            self.adjacent(ty.source, &key, tag, &ty.item, alternatives)
                        }
                        (Some(tag), None) => {
                            self.tagged(&all, ty.source, &key, tag, &ty.item, alternatives)
                        }
                        (None, _) => Some(alternatives.clone()),
                    };
                    alternatives.map(|alternatives| {
                        checked::Shape::Union(checked::Union {
                            alternatives,
                            tag,
                            content,
                            open: *open,
                        })
                    })
                }
            };
            decls = decls.zip(shape).map(|(mut decls, shape)| {
                decls.push(checked::TypeDecl {
                    name: name.clone(),
                    doc: ty.item.doc.clone(),
                    generics: ty.item.generics.clone(),
                    shape,
                });
                decls
            });
        }
        decls
    }

    /// A struct's shape: its `all_of:` parts' fields and its own, each with a Rust name of its
    /// own, and the union it flattens, if any.
    fn struct_shape(&mut self, all: &[Own], i: usize) -> Option<checked::Shape> {
        let (fields, additional, union) = self.expand(all, i, &mut Vec::new())?;
        let mut taken = names::Taken::default();
        if additional.is_some() {
            taken.insert("additional_properties");
        }
        let fields = unique_field_names(fields, &mut taken);
        let flatten = union.map(|union| checked::Flattened {
            rust: unique_name(names::snake(&union), &mut taken),
            ty: Ty::Path {
                segments: vec![union],
                args: Vec::new(),
            },
        });
        Some(checked::Shape::Struct(checked::Struct {
            fields,
            additional,
            flatten,
        }))
    }

    /// Type names are written in type expressions as they are declared: PascalCase identifiers,
    /// not shadowing what generated code names.
    pub(super) fn type_name(&mut self, source: usize, key: &str, name: &str) {
        let client = self.spec.file.client.clone().unwrap_or_default();
        let generated = [
            client.clone(),
            format!("{client}Builder"),
            format!("{client}Fallback"),
        ];
        let rename =
            |name: &str| format!("rename it, e.g. `Api{name}`: type names never reach the wire");
        if !names::is_pascal_identifier(name) {
            let d = self.spec.at_key(
                source,
                key,
                format!("type name `{name}` is not a PascalCase Rust identifier"),
            );
            let cased = names::pascal(name);
            self.push(if names::is_pascal_identifier(&cased) {
                d.help(format!("write `{cased}`"))
            } else {
                d.help(rename(name))
            });
        } else if names::PRELUDE.contains(&name) || PRIMITIVES.contains(&name) {
            self.push(
                self.spec
                    .at_key(
                        source,
                        key,
                        format!("type name `{name}` would shadow Rust's `{name}`"),
                    )
                    .help(rename(name)),
            );
        } else if generated.iter().any(|g| g == name) {
            self.push(
                self.spec
                    .at_key(
                        source,
                        key,
                        format!("type name `{name}` is taken by the generated client"),
                    )
                    .help(rename(name)),
            );
        }
    }

    /// One type on its own: its own fields, values or alternatives, checked.
    fn type_def(&mut self, source: usize, key: &str, def: &TypeDef) -> Option<Own> {
        for (i, generic) in def.generics.iter().enumerate() {
            if !names::is_pascal_identifier(generic) {
                self.push(self.spec.at(
                    source,
                    &format!("{key}.generics.{i}"),
                    format!("generic parameter `{generic}` is not a PascalCase identifier"),
                ));
            }
        }
        let is_struct =
            def.fields.is_some() || def.all_of.is_some() || def.additional_properties.is_some();
        let kinds: Vec<&str> = [
            (is_struct, "a struct (`fields:`, `all_of:`)"),
            (def.variants.is_some(), "an enum (`enum:`)"),
            (def.one_of.is_some(), "a union (`one_of:`)"),
        ]
        .into_iter()
        .filter_map(|(set, kind)| set.then_some(kind))
        .collect();
        match kinds.as_slice() {
            [] => {
                self.push(self.spec.at_key(
                    source,
                    key,
                    "a type needs `fields:` (a struct), `enum:` (an enum) or `one_of:` (a union)",
                ));
                return None;
            }
            [_] => {}
            [first, second, ..] => {
                self.push(self.spec.at_key(
                    source,
                    key,
                    format!("a type is one thing, and this one is both {first} and {second}"),
                ));
                return None;
            }
        }
        let fine = self.keys_of_its_kind(source, key, def, is_struct);
        let own = if is_struct {
            self.struct_def(source, key, def)
        } else if let Some(values) = &def.variants {
            self.enum_def(source, key, values, def.open.unwrap_or(false))
        } else {
            self.union_def(source, key, def)
        };
        own.filter(|_| fine)
    }

    /// True when every key the type writes belongs to its kind (`tag:`, `mapping:` and
    /// `content:` to a union, `open:` to an enum or union, `generics:` to a struct; `mapping:` and
    /// `content:` need `tag:`).
    fn keys_of_its_kind(
        &mut self,
        source: usize,
        key: &str,
        def: &TypeDef,
        is_struct: bool,
    ) -> bool {
        // Keys that belong to another kind of type.
        let misplaced: Vec<(&str, bool, &str)> = vec![
            ("tag", def.tag.is_some() && def.one_of.is_none(), "a union"),
            (
                "mapping",
                def.mapping.is_some() && def.one_of.is_none(),
                "a union",
            ),
            (
                "content",
                def.content.is_some() && def.one_of.is_none(),
                "a union",
            ),
            (
                "open",
                def.open.is_some() && is_struct,
                "an enum or a union",
            ),
            (
                "generics",
                !def.generics.is_empty() && !is_struct,
                "a struct",
            ),
        ];
        let mut fine = true;
        for (what, wrong, belongs) in misplaced {
            if wrong {
                fine = false;
                self.push(self.spec.at_key(
                    source,
                    &format!("{key}.{what}"),
                    format!("`{what}:` belongs to {belongs}"),
                ));
            }
        }
        if def.content.is_some() && def.tag.is_none() {
            fine = false;
            self.push(
                self.spec
                    .at_key(source, &format!("{key}.content"), "`content:` needs `tag:`")
                    .help("an adjacently tagged value is `{type: card, content: ..}`: name both keys, `tag: type` and `content: content`"),
            );
        }
        if def.mapping.is_some() && def.tag.is_none() {
            fine = false;
            self.push(
                self.spec
                    .at_key(source, &format!("{key}.mapping"), "`mapping:` needs `tag:`")
                    .help(
                        "name the field whose value says which alternative a value is: `tag: type`",
                    ),
            );
        }
        fine
    }

    fn struct_def(&mut self, source: usize, key: &str, def: &TypeDef) -> Option<Own> {
        let mut fields = Some(Vec::new());
        for (field, field_def) in def.fields.iter().flatten() {
            let at = format!("{key}.fields.{field}");
            let rust = names::snake(field);
            if !names::is_identifier(&rust) {
                self.push(self.spec.at_key(source, &at, format!("field `{field}` does not make a Rust name (`{rust}`)")).help("give it a name of letters, digits and `_`, and the wire name with `rename:`"));
            }
            let ty = self.type_expr(source, &at, &field_def.ty, &def.generics);
            let constant = match (&field_def.constant, &ty) {
                (Some(value), Some(ty)) => self.constant(source, &at, key, field, value, ty),
                _ => None,
            };
            let required = field_def.required.unwrap_or(false);
            if required && ty.as_ref().is_some_and(|ty| ty.inner("Option").is_none()) {
                self.push(
                    self.spec
                        .at(source, &format!("{at}.required"), "`required: true` is for an `Option` field: one that is always sent, `null` when `None`")
                        .help("a field that is not an `Option` is required already"),
                );
            }
            fields = fields.zip(ty).map(|(mut fields, ty)| {
                fields.push(checked::Field {
                    key: field.clone(),
                    rust,
                    ty,
                    doc: field_def.doc.clone(),
                    rename: field_def.rename.clone(),
                    required,
                    constant,
                });
                fields
            });
        }
        let additional = match &def.additional_properties {
            Some(text) => Some(self.type_expr(
                source,
                &format!("{key}.additional_properties"),
                text,
                &def.generics,
            )?),
            None => None,
        };
        let mut parts = def.all_of.clone().unwrap_or_default();
        let union = self.all_of_parts(source, key, &parts, additional.is_some())?;
        parts.retain(|part| Some(part) != union.as_ref());
        Some(Own::Struct {
            fields: fields?,
            parts,
            additional,
            union,
        })
    }

    /// The union among the `all_of:` parts, if one is: every other part is a declared struct
    /// without generic parameters; at most one is a union, flattened into the struct (its value
    /// is read from the keys the fields leave, so it cannot share them with a map of other keys).
    /// `None` when a part is wrong.
    fn all_of_parts(
        &mut self,
        source: usize,
        key: &str,
        parts: &[String],
        keeps_others: bool,
    ) -> Option<Option<String>> {
        let mut union: Option<String> = None;
        for (i, part) in parts.iter().enumerate() {
            let at = format!("{key}.all_of.{i}");
            match self.spec.types.get(part) {
                None => {
                    let help = did_you_mean(part, self.spec.types.keys().map(String::as_str))
                        .unwrap_or_else(|| "declare it under `types:` with `fields:`".to_owned());
                    self.push(
                        self.spec
                            .at(source, &at, format!("unknown type `{part}`"))
                            .help(help),
                    );
                    return None;
                }
                Some(found) if found.item.variants.is_some() => {
                    self.push(self.spec.at(
                        source,
                        &at,
                        format!("`{part}` is an enum: `all_of:` takes the fields of structs, and one union"),
                    ));
                    return None;
                }
                Some(found) if !found.item.generics.is_empty() => {
                    self.push(self.spec.at(
                        source,
                        &at,
                        format!("`{part}` has generic parameters, which `all_of:` cannot fill"),
                    ));
                    return None;
                }
                Some(found) if found.item.one_of.is_some() => {
                    if let Some(first) = &union {
                        self.push(self.spec.at(
                            source,
                            &at,
                            format!("`{part}` is a second union part beside `{first}`: a struct flattens one union"),
                        ).help("declare a union of the combinations, or a struct that holds one of them as a field"));
                        return None;
                    }
                    if keeps_others {
                        self.push(self.spec.at(
                            source,
                            &at,
                            format!("`{part}` is a union, flattened into the struct, which reads the keys its fields leave: `additional_properties:` cannot have them too"),
                        ).help("give the union's alternatives `additional_properties:`"));
                        return None;
                    }
                    union = Some(part.clone());
                }
                Some(_) => {}
            }
        }
        Some(union)
    }

    /// A constant field: its value fits its type, and its marker type's name (`CardObject`, the
    /// struct's name and the field's) is free.
    fn constant(
        &mut self,
        source: usize,
        at: &str,
        key: &str,
        field: &str,
        value: &ConstValue,
        ty: &Ty,
    ) -> Option<(String, ConstValue)> {
        let name = ty.bare().unwrap_or_default();
        let fits = match value {
            ConstValue::Str(_) => name == "String",
            ConstValue::Int(_) => PRIMITIVES.contains(&name) && name.starts_with(['i', 'u']),
            ConstValue::Bool(_) => name == "bool",
        };
        if !fits {
            self.push(
                self.spec
                    .at(source, &format!("{at}.const"), format!("the constant does not fit the field's type `{}`", ty.render()))
                    .help("a string constant is a `String`, an integer one an integer type, a boolean one a `bool`"),
            );
            return None;
        }
        let owner = key.trim_start_matches("types.");
        let marker = format!("{}{}", names::pascal(owner), names::pascal(field));
        if self.spec.types.contains_key(&marker) {
            self.push(
                self.spec
                    .at(source, &format!("{at}.const"), format!("the constant field makes the type `{marker}`, which `types:` declares too"))
                    .help(format!("rename the declared `{marker}`")),
            );
            return None;
        }
        Some((marker, value.clone()))
    }

    /// Parses `text` and checks that every bare name in it is known; `None` after a diagnostic.
    pub(super) fn type_expr(
        &mut self,
        source: usize,
        key: &str,
        text: &str,
        generics: &[String],
    ) -> Option<Ty> {
        let ty = match Ty::parse(text) {
            Ok(ty) => ty,
            Err(message) => {
                self.push(self.spec.at(source, key, message));
                return None;
            }
        };
        let mut used = Vec::new();
        ty.bare_names(&mut used);
        let mut known_all = true;
        for name in used {
            let known = PRIMITIVES.contains(&name.as_str())
                || STD_NAMES.contains(&name.as_str())
                || self.spec.types.contains_key(&name)
                || generics.contains(&name);
            if !known {
                known_all = false;
                let candidates = PRIMITIVES
                    .iter()
                    .chain(STD_NAMES)
                    .copied()
                    .chain(self.spec.types.keys().map(String::as_str))
                    .chain(generics.iter().map(String::as_str));
                let d = self
                    .spec
                    .at_in_value(source, key, &name, format!("unknown type `{name}`"));
                let help = crate::types::foreign_name_help(&name)
                    .or_else(|| did_you_mean(&name, candidates))
                    .or_else(|| {
                    Some(format!(
                        "declare it under `types:`, or write a path such as `crate::model::{name}`"
                    ))
                });
                self.push(d.maybe_help(help));
            }
        }
        known_all.then_some(ty)
    }
}

/// A type read on its own, before what needs the others.
pub(super) enum Own {
    Struct {
        fields: Vec<checked::Field>,
        parts: Vec<String>,
        additional: Option<Ty>,
        /// A union `all_of:` part, flattened into the struct.
        union: Option<String>,
    },
    Enum(Vec<checked::EnumValue>, bool, bool),
    Union(Vec<checked::Alternative>, bool),
}

/// The fields with Rust names made unique in order: `fooBar` and `foo_bar` are `foo_bar` and
/// `foo_bar_2`; names in `taken` (the map field's) stay free.
fn unique_field_names(
    mut fields: Vec<checked::Field>,
    taken: &mut names::Taken,
) -> Vec<checked::Field> {
    for field in &mut fields {
        field.rust = unique_name(field.rust.clone(), taken);
    }
    fields
}

/// `base`, or `base_2`, `base_3`… when it is taken (in this very case: field names are
/// snake case); then taken. A raw identifier's number goes on its word (`r#type` → `type_2`).
fn unique_name(base: String, taken: &mut names::Taken) -> String {
    let name = if taken.contains_exactly(&base) {
        taken.numbered(base.trim_start_matches("r#"), "_")
    } else {
        base
    };
    taken.insert(&name);
    name
}

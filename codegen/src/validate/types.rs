//! Types: `types:` declarations and every type expression a spec writes.

use std::collections::HashMap;

use super::Validator;
use crate::checked;
use crate::diagnostic::did_you_mean;
use crate::names;
use crate::spec::model::TypeDef;
use crate::types::{PRIMITIVES, STD_NAMES, Ty};

impl Validator<'_> {
    /// Every declared type; `None` when one of them has a problem.
    pub(super) fn types(&mut self) -> Option<Vec<checked::TypeDecl>> {
        let spec = self.spec;
        let mut seen: HashMap<String, &str> = HashMap::new();
        let mut decls = Some(Vec::new());
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
            let shape = self.type_def(source, &key, &ty.item);
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

    /// Type names are written in type expressions as they are declared: PascalCase identifiers,
    /// not shadowing what generated code names.
    fn type_name(&mut self, source: usize, key: &str, name: &str) {
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

    fn type_def(&mut self, source: usize, key: &str, def: &TypeDef) -> Option<checked::Shape> {
        for (i, generic) in def.generics.iter().enumerate() {
            if !names::is_pascal_identifier(generic) {
                self.push(self.spec.at(
                    source,
                    &format!("{key}.generics.{i}"),
                    format!("generic parameter `{generic}` is not a PascalCase identifier"),
                ));
            }
        }
        match (&def.fields, &def.variants) {
            (Some(_), Some(_)) => {
                self.push(self.spec.at_key(
                    source,
                    key,
                    "a type has `fields:` or `enum:`, not both",
                ));
                None
            }
            (None, None) => {
                self.push(self.spec.at_key(
                    source,
                    key,
                    "a type needs `fields:` (a struct) or `enum:` (an enum)",
                ));
                None
            }
            (Some(fields), None) => {
                let mut seen: HashMap<String, &str> = HashMap::new();
                let mut checked = Some(Vec::new());
                for (field, field_def) in fields {
                    let at = format!("{key}.fields.{field}");
                    let rust = names::snake(field);
                    if let Some(first) = seen.insert(rust.clone(), field) {
                        self.push(self.spec.at_key(
                            source,
                            &at,
                            format!("field `{field}` and `{first}` are both `{rust}` in Rust"),
                        ));
                    }
                    if !names::is_identifier(&rust) {
                        self.push(self.spec.at_key(source, &at, format!("field `{field}` does not make a Rust name (`{rust}`)")).help("give it a name of letters, digits and `_`, and the wire name with `rename:`"));
                    }
                    let ty = self.type_expr(source, &at, &field_def.ty, &def.generics);
                    checked = checked.zip(ty).map(|(mut fields, ty)| {
                        fields.push(checked::Field {
                            key: field.clone(),
                            ty,
                            doc: field_def.doc.clone(),
                            rename: field_def.rename.clone(),
                        });
                        fields
                    });
                }
                checked.map(checked::Shape::Struct)
            }
            (None, Some(variants)) => {
                if variants.is_empty() {
                    self.push(
                        self.spec
                            .at_key(source, key, "an enum needs at least one variant"),
                    );
                }
                let mut seen: HashMap<String, &str> = HashMap::new();
                for (i, variant) in variants.iter().enumerate() {
                    let rust = names::pascal(variant);
                    if !names::is_identifier(&rust) {
                        self.push(
                            self.spec
                                .at(
                                    source,
                                    &format!("{key}.enum.{i}"),
                                    format!(
                                        "enum value `{}` does not make a Rust name (`{rust}`)",
                                        variant.escape_default()
                                    ),
                                )
                                .help(
                                    "enum values need a letter or digit a Rust name can start from",
                                ),
                        );
                    }
                    if let Some(first) = seen.insert(rust.clone(), variant) {
                        self.push(self.spec.at(
                            source,
                            &format!("{key}.enum.{i}"),
                            format!("variants `{variant}` and `{first}` are both `{rust}` in Rust"),
                        ));
                    }
                }
                Some(checked::Shape::Enum(variants.clone()))
            }
        }
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
                let d = self.spec.at(source, key, format!("unknown type `{name}`"));
                let help = did_you_mean(&name, candidates).or_else(|| {
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

//! A method's parameters (path, query, headers: names, types, how a query is written) and its
//! body (its type against its encoding), each checked where it is written.

use std::collections::HashMap;

use indexmap::IndexMap;

use super::{Validator, is_header_name};
use crate::checked;
use crate::names;
use crate::spec::model::{BodyDef, BodyEncoding, MethodDef, ParamDef, QueryStyle, Shorthand};
use crate::types::Ty;

impl Validator<'_> {
    /// The body: its type, checked against its encoding; the argument is named `body`.
    pub(super) fn body(
        &mut self,
        key: &str,
        def: &MethodDef,
        arg_names: &HashMap<String, String>,
    ) -> Option<Option<checked::Body>> {
        if def.body_sets.is_some()
            && !def
                .body
                .as_ref()
                .is_some_and(|b| b.encoding == BodyEncoding::Json)
        {
            self.push(
                self.spec
                    .at_key(
                        0,
                        &format!("{key}.body_sets"),
                        "`body_sets:` sets keys of a JSON body, and the method has none",
                    )
                    .help("give the method a JSON `body:`, or leave `body_sets:` out"),
            );
            return None;
        }
        match &def.body {
            Some(body) => {
                if arg_names.contains_key("body") {
                    self.push(self.spec.at_key(
                        0,
                        &format!("{key}.body"),
                        "the body argument is named `body`, as is a parameter",
                    ));
                }
                self.type_expr(0, &format!("{key}.body"), &body.ty, &[])
                    .and_then(|ty| self.body_encoding(key, body, &ty).then_some(ty))
                    .map(|ty| {
                        Some(checked::Body {
                            ty,
                            encoding: body.encoding,
                            content_type: body.content_type.clone(),
                            doc: body.doc.clone(),
                            sets: def
                                .body_sets
                                .iter()
                                .flatten()
                                .map(|(key, value)| (key.clone(), value.to_string()))
                                .collect(),
                        })
                    })
            }
            None => Some(None),
        }
    }

    /// One section of parameters (`path`, `query` or `headers`); `arg_names` holds the Rust names
    /// taken so far by the method's arguments.
    pub(super) fn params(
        &mut self,
        key: &str,
        section: &str,
        params: &IndexMap<String, Shorthand<ParamDef>>,
        arg_names: &mut HashMap<String, String>,
    ) -> Option<Vec<checked::Param>> {
        let spec = self.spec;
        let mut checked = Some(Vec::new());
        for (param, def) in params {
            let at = format!("{key}.{section}.{param}");
            let ty = self.type_expr(0, &at, &def.ty, &[]);
            let rust = names::snake(param);
            if !names::is_identifier(&rust) {
                self.push(
                    spec.at_key(
                        0,
                        &at,
                        format!("parameter `{param}` does not make a usable Rust name (`{rust}`)"),
                    )
                    .help("name it with letters, digits and `_`; set the wire name with `name:`"),
                );
            }
            if let Some(first) = arg_names.insert(rust.clone(), at.clone()) {
                self.push(spec.at_key(
                    0,
                    &at,
                    format!("parameter `{param}` is `{rust}` in Rust, as is {first}"),
                ));
            }
            // A path parameter's wire name is its placeholder.
            let wire = match section {
                "path" => param.clone(),
                _ => def.name.clone().unwrap_or_else(|| param.clone()),
            };
            if matches!(section, "headers" | "response_headers") && !is_header_name(&wire) {
                self.push(spec.at(0, &at, format!("`{wire}` is not a valid header name")));
            }
            for (what, set) in [
                ("style", def.style.is_some()),
                ("explode", def.explode.is_some()),
            ] {
                if set && section != "query" {
                    self.push(spec.at_key(
                        0,
                        &format!("{at}.{what}"),
                        format!("`{what}:` is for query parameters"),
                    ));
                }
            }
            checked = checked.zip(ty).map(|(mut checked, ty)| {
                let style = self.query_writing(def, &ty);
                checked.push(checked::Param {
                    key: param.clone(),
                    wire,
                    ty,
                    doc: def.doc.clone(),
                    style,
                });
                checked
            });
        }
        checked
    }

    /// How a query parameter is written: `style:` and `explode:` as OpenAPI has them, an object
    /// (a struct of the spec, a map) exploded into parameters of its own by default.
    fn query_writing(&self, def: &ParamDef, ty: &Ty) -> checked::QueryWriting {
        let ty = ty.inner("Option").unwrap_or(ty);
        let map = matches!(ty, Ty::Path { segments, .. } if segments.len() == 1 && matches!(segments[0].as_str(), "HashMap" | "BTreeMap"));
        let object = map
            || ty.bare().is_some_and(|name| {
                self.spec
                    .types
                    .get(name)
                    .is_some_and(|t| t.item.fields.is_some() || t.item.all_of.is_some())
            });
        match (def.style, def.explode) {
            (Some(QueryStyle::DeepObject), _) => checked::QueryWriting::Deep,
            (_, Some(false)) => checked::QueryWriting::Comma,
            _ if object => checked::QueryWriting::Object,
            _ => checked::QueryWriting::Pairs,
        }
    }

    /// A body's type fits its encoding: a struct of the spec for multipart, a `String` for text,
    /// `bytes::Bytes` for bytes; a content type is one header value.
    fn body_encoding(&mut self, key: &str, body: &BodyDef, ty: &Ty) -> bool {
        let at = format!("{key}.body");
        let needs = match body.encoding {
            BodyEncoding::Multipart => {
                let is_struct = ty.bare().is_some_and(|name| {
                    self.spec.types.get(name).is_some_and(|t| {
                        (t.item.fields.is_some() || t.item.all_of.is_some())
                            && t.item.generics.is_empty()
                    })
                });
                (!is_struct).then_some(
                    "a struct of this spec (each field is a part; `File` fields are files)",
                )
            }
            BodyEncoding::Text => (ty.bare() != Some("String")).then_some("`String`"),
            BodyEncoding::Bytes => (!ty.is_bytes()).then_some("`bytes::Bytes`"),
            BodyEncoding::Json | BodyEncoding::Form => None,
        };
        let mut fine = true;
        if let Some(needs) = needs {
            fine = false;
            self.push(self.spec.at(
                0,
                &at,
                format!(
                    "a `{}` body is {needs}, not `{}`",
                    encoding_name(body.encoding),
                    ty.render()
                ),
            ));
        }
        if let Some(content_type) = &body.content_type
            && (!content_type.contains('/') || content_type.chars().any(char::is_control))
        {
            fine = false;
            self.push(
                self.spec
                    .at(
                        0,
                        &format!("{at}.content_type"),
                        format!("`{}` is not a content type", content_type.escape_default()),
                    )
                    .help("write a media type such as `application/merge-patch+json`"),
            );
        }
        fine
    }
}

fn encoding_name(encoding: BodyEncoding) -> &'static str {
    match encoding {
        BodyEncoding::Json => "json",
        BodyEncoding::Form => "form",
        BodyEncoding::Multipart => "multipart",
        BodyEncoding::Text => "text",
        BodyEncoding::Bytes => "bytes",
    }
}

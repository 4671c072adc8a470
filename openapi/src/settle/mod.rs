//! Rules that need every type defined first: a union's tag values (`unions.rs`), binary
//! fields, parameters a URL cannot hold, `allOf` parts that can be composed as they are or
//! must be merged (`compositions.rs`), nulls a sent type must be able to send (`nulls.rs`),
//! and unions without what only repeats (`lean_unions.rs`: one alternative, a tag held twice).

mod compositions;
mod lean_unions;
mod nulls;
mod unions;

use crate::spec::TypeOut;
use crate::ty::{Encoding, Ty};
use crate::walk::Builder;

impl Builder<'_> {
    /// After every type is defined: each union's tag values, binary fields as files or text, and
    /// `allOf` compositions the spec can express.
    pub(crate) fn settle_types(&mut self) {
        self.settle_enum_alternatives();
        self.infer_tags();
        self.settle_tags();
        self.settle_binary();
        self.settle_compositions();
        self.settle_parameters();
        self.settle_nulls();
    }

    /// Once inline shapes are shared: unions of one alternative made that alternative, and tags
    /// the union writes rather than a one-value field of each alternative (`lean_unions.rs`).
    pub(crate) fn lean_unions(&mut self) {
        self.collapse_single_alternatives();
        self.write_tags_from_unions();
    }

    /// Parameters whose type a URL or a header cannot hold as the description means it: an
    /// object in a path or header (the `simple` style would write `key,value,…`) is text the
    /// caller writes, and a union of objects in a query is its keys and values. The parameter
    /// is still there (the method stays faithful); its type says less (the note loses).
    fn settle_parameters(&mut self) {
        let mut notes = Vec::new();
        let mut methods = std::mem::take(&mut self.spec.methods);
        for method in &mut methods {
            for (location, params) in [("path", &mut method.path), ("header", &mut method.headers)]
            {
                for param in params.iter_mut() {
                    if self.is_compound(param.ty.required()) {
                        notes.push((
                            param.place.clone(),
                            format!(
                                "the {location} parameter `{}` is an object: it is taken as text",
                                param.key
                            ),
                        ));
                        param.ty = if param.ty.is_option() {
                            Ty::String.optional()
                        } else {
                            Ty::String
                        };
                    }
                }
            }
            for param in &mut method.query {
                let union = param.ty.required().named().is_some_and(|name| {
                    matches!(self.spec.types.get(name), Some(TypeOut::Union(u)) if u.alternatives.iter().any(|a| self.is_compound(a)))
                });
                if union {
                    notes.push((param.place.clone(), format!("the query parameter `{}` is one of several objects: it is taken as their keys and values", param.key)));
                    let map = Ty::map(Ty::String);
                    param.ty = if param.ty.is_option() {
                        map.optional()
                    } else {
                        map
                    };
                }
            }
        }
        self.spec.methods = methods;
        for (place, message) in notes {
            self.note(&place, true, message);
        }
    }

    /// True for a struct, a map or a union that may be one: a value with parts.
    fn is_compound(&self, ty: &Ty) -> bool {
        self.is_compound_at(ty, 0)
    }

    fn is_compound_at(&self, ty: &Ty, depth: usize) -> bool {
        match ty.required() {
            Ty::Map(_) => true,
            Ty::Named(name) => match self.spec.types.get(name) {
                Some(TypeOut::Struct(_)) => true,
                Some(TypeOut::Union(u)) => {
                    depth < 8
                        && u.alternatives
                            .iter()
                            .any(|a| self.is_compound_at(a, depth + 1))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Binary fields: files in the structs multipart bodies send, text elsewhere.
    fn settle_binary(&mut self) {
        let multipart: Vec<Ty> = self
            .spec
            .methods
            .iter()
            .filter_map(|m| m.body.as_ref())
            .filter(|b| b.encoding == Encoding::Multipart)
            .map(|b| b.ty.clone())
            .collect();
        for (name, definition) in self.spec.types.iter_mut() {
            if let TypeOut::Struct(s) = definition {
                let file = if multipart.iter().any(|ty| ty.named() == Some(name)) {
                    Ty::File
                } else {
                    Ty::String
                };
                for field in &mut s.fields {
                    field.ty.visit_mut(&mut |ty| {
                        if *ty == Ty::Bytes {
                            *ty = file.clone();
                        }
                    });
                }
            }
        }
        // A union cannot hold raw bytes (they have no JSON form): a binary alternative is text.
        for definition in self.spec.types.values_mut() {
            if let TypeOut::Union(u) = definition {
                for alternative in &mut u.alternatives {
                    alternative.visit_mut(&mut |ty| {
                        if *ty == Ty::Bytes {
                            *ty = Ty::String;
                        }
                    });
                }
            }
        }
    }
}

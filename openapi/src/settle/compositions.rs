//! `allOf` compositions, once every type is defined: parts kept as they are, a union part
//! flattened, or parts that disagree merged into one struct, each field the narrower type
//! where one part's holds the other's.

use crate::spec::{FieldOut, StructOut, TypeOut};
use crate::ty::Ty;
use crate::walk::Builder;
use std::collections::HashSet;

impl Builder<'_> {
    /// `allOf` parts must be structs that do not contain the whole; an own field a part has
    /// goes. Parts that give one field different types cannot be composed: their fields are
    /// merged into the struct, each with a type that holds what every part allows.
    pub(super) fn settle_compositions(&mut self) {
        let names: Vec<String> = self.spec.types.keys().cloned().collect();
        for name in &names {
            let Some(TypeOut::Struct(definition)) = self.spec.types.get(name).cloned() else {
                continue;
            };
            let mut settled = definition.clone();
            let union_part = self.one_union_part(name, &mut settled);
            let inherited: Vec<FieldOut> = settled
                .all_of
                .iter()
                .filter_map(|part| self.all_fields(part))
                .flatten()
                .collect();
            // Parts that disagree, or the struct's own field and a part's (an envelope's
            // `result: {}` and this response's `result: Zone`): a field dropped for the part's
            // would lose what the struct says of it.
            let conflict = inherited.iter().enumerate().any(|(i, a)| {
                inherited[..i]
                    .iter()
                    .chain(&settled.fields)
                    .any(|b| a.wire() == b.wire() && !self.same_type(&a.ty, &b.ty))
            });
            if conflict {
                settled = self.merged(name, &settled, inherited);
                settled.all_of.extend(union_part);
            } else {
                settled
                    .fields
                    .retain(|field| !inherited.iter().any(|f| f.wire() == field.wire()));
            }
            self.spec
                .types
                .insert(name.clone(), TypeOut::Struct(settled));
        }
    }

    /// Keeps the struct's first union part (flattened into it) and its struct parts that do
    /// not contain it; another union part goes, noted. The union part reads the keys the
    /// struct's fields do not take, so the struct keeps no other keys and no field for a key
    /// every alternative declares.
    fn one_union_part(&mut self, name: &str, definition: &mut StructOut) -> Option<String> {
        // One union part is flattened into the struct; a second cannot be (noted below).
        let mut union_part: Option<String> = None;
        let mut other_unions = Vec::new();
        definition
            .all_of
            .retain(|part| match self.spec.types.get(part) {
                Some(TypeOut::Struct(_)) => !self.reaches(part, name),
                Some(TypeOut::Union(_)) if union_part.is_none() => {
                    union_part = Some(part.clone());
                    true
                }
                Some(TypeOut::Union(_)) => {
                    other_unions.push(format!("`{part}`"));
                    false
                }
                _ => false,
            });
        let top = self.docs.top();
        if !other_unions.is_empty() {
            self.note(
                &top,
                true,
                format!(
                    "`{name}`: its `allOf` has more than one union part; {} is not kept",
                    other_unions.join(", ")
                ),
            );
        }
        if let Some(union) = &union_part
            && definition.additional.take().is_some()
        {
            self.note(
                &top,
                true,
                format!(
                    "`{name}`: the keys its fields do not take are read as its union part `{union}`, and not also kept as other keys"
                ),
            );
        }
        // A key every alternative of the union part declares (its tag, say) is the union's
        // to read: a field of the struct would take it first, and the union never see it.
        if let Some(union) = &union_part {
            let declared_by_all = self.declared_by_every_alternative(union);
            definition
                .fields
                .retain(|field| !declared_by_all.iter().any(|w| w == field.wire()));
        }
        union_part
    }

    /// The wire names every alternative of the union `name` declares (none when an alternative
    /// is not a struct).
    fn declared_by_every_alternative(&self, name: &str) -> Vec<String> {
        let Some(TypeOut::Union(union)) = self.spec.types.get(name) else {
            return Vec::new();
        };
        let mut alternatives = union.alternatives.iter().map(|a| {
            a.named().and_then(|n| self.all_fields(n)).map(|fields| {
                fields
                    .iter()
                    .map(|f| f.wire().to_owned())
                    .collect::<Vec<_>>()
            })
        });
        let Some(Some(mut common)) = alternatives.next() else {
            return Vec::new();
        };
        for alternative in alternatives {
            let Some(fields) = alternative else {
                return Vec::new();
            };
            common.retain(|w| fields.contains(w));
        }
        common
    }

    /// A struct whose parts disagree, as one struct of every field: a field the parts type
    /// differently gets a type that holds each (noted).
    fn merged(&mut self, name: &str, own: &StructOut, inherited: Vec<FieldOut>) -> StructOut {
        let mut fields: Vec<FieldOut> = Vec::new();
        let mut widened = Vec::new();
        // Whether a field became `serde_json::Value` (the spec then says less than the parts).
        let mut loses = false;
        for field in inherited.into_iter().chain(own.fields.iter().cloned()) {
            match fields.iter_mut().find(|f| f.wire() == field.wire()) {
                // Every value has both parts' types: where one holds the other, the narrower
                // is exact (an envelope's `result: {}` and a part's `result: Zone`).
                Some(existing)
                    if !self.same_type(&existing.ty, &field.ty)
                        && self.narrower(&existing.ty, &field.ty).is_some() =>
                {
                    let narrow = self.narrower(&existing.ty, &field.ty).unwrap_or(Ty::Value);
                    if narrow == field.ty {
                        existing.constant = field.constant.clone();
                        existing.doc = existing.doc.take().or(field.doc.clone());
                    }
                    existing.required_null =
                        narrow.is_option() && (existing.required_null || field.required_null);
                    existing.optional_null =
                        narrow.is_option() && (existing.optional_null || field.optional_null);
                    existing.ty = narrow;
                }
                Some(existing) if !self.same_type(&existing.ty, &field.ty) => {
                    let ty = existing.ty.widest(&field.ty);
                    loses |= ty.required() == &Ty::Value;
                    widened.push(format!(
                        "`{}` ({} or {}: {ty})",
                        field.wire(),
                        existing.ty,
                        field.ty
                    ));
                    existing.ty = ty;
                    existing.constant = None;
                }
                Some(_) => {}
                None => fields.push(field),
            }
        }
        if !widened.is_empty() {
            let top = self.docs.top();
            self.note(
                &top,
                loses,
                format!(
                    "`{name}`: its `allOf` parts give {} different types; their fields are merged into it",
                    widened.join(", ")
                ),
            );
        }
        StructOut {
            doc: own.doc.clone(),
            all_of: Vec::new(),
            fields,
            additional: own.additional.clone(),
        }
    }

    /// Of two types one value must have at once, the one every such value has
    /// ([`Ty::narrowest`]), or a type that is one of the other's union alternatives (or that
    /// a union holding any JSON value takes).
    fn narrower(&self, a: &Ty, b: &Ty) -> Option<Ty> {
        if let Some(narrow) = a.narrowest(b) {
            return Some(narrow);
        }
        let takes = |union: &Ty, other: &Ty| match union.required().named() {
            Some(name) => matches!(
                self.spec.types.get(name),
                Some(TypeOut::Union(u)) if u.alternatives.iter().any(|alternative| {
                    alternative == other.required() || *alternative == Ty::Value
                })
            ),
            None => false,
        };
        // An open enum holds any string, and the enum whose values the other has says more;
        // a struct that declares every key of the other holds what both do.
        let holds = |wide: &Ty, narrow: &Ty| match (wide.required(), narrow.required()) {
            (Ty::String, Ty::Named(n)) => {
                matches!(self.spec.types.get(n), Some(TypeOut::Enum(e)) if e.values.iter().all(|v| v.value.is_string()))
            }
            (Ty::Named(w), Ty::Named(n)) => {
                match (self.spec.types.get(w), self.spec.types.get(n)) {
                    (Some(TypeOut::Enum(w)), Some(TypeOut::Enum(n))) => n.values.iter().all(|v| {
                        v.value.is_string() && w.values.iter().any(|x| x.value == v.value)
                    }),
                    (Some(TypeOut::Struct(_)), Some(TypeOut::Struct(_))) => {
                        let (Some(wide), Some(narrow)) = (self.all_fields(w), self.all_fields(n))
                        else {
                            return false;
                        };
                        wide.iter().all(|f| {
                            narrow
                                .iter()
                                .any(|g| g.wire() == f.wire() && self.same_type(&f.ty, &g.ty))
                        })
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        let both_optional = a.is_option() && b.is_option();
        let narrow = if takes(a, b) || holds(a, b) {
            b.required().clone()
        } else if takes(b, a) || holds(b, a) {
            a.required().clone()
        } else {
            return None;
        };
        Some(if both_optional {
            narrow.optional()
        } else {
            narrow
        })
    }

    /// True when two type expressions mean the same on the wire: equal, or enums of the same
    /// values.
    fn same_type(&self, a: &Ty, b: &Ty) -> bool {
        if a == b {
            return true;
        }
        match (a, b) {
            (Ty::Option(a), Ty::Option(b))
            | (Ty::Vec(a), Ty::Vec(b))
            | (Ty::Map(a), Ty::Map(b)) => self.same_type(a, b),
            (Ty::Named(a), Ty::Named(b)) => {
                match (self.spec.types.get(a), self.spec.types.get(b)) {
                    (Some(TypeOut::Enum(a)), Some(TypeOut::Enum(b))) => {
                        a.values.len() == b.values.len()
                            && a.values
                                .iter()
                                .all(|v| b.values.iter().any(|w| v.value == w.value))
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// A struct's fields with its parts' (each part once, however often the parts name it, so
    /// the walk is linear in the types: parts that each name the next twice once made it
    /// exponential); `None` for another kind of type.
    pub(crate) fn all_fields(&self, name: &str) -> Option<Vec<FieldOut>> {
        let Some(TypeOut::Struct(_)) = self.spec.types.get(name) else {
            return None;
        };
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        self.collect_fields(name, &mut seen, &mut out);
        Some(out)
    }

    fn collect_fields<'s>(
        &'s self,
        name: &'s str,
        seen: &mut HashSet<&'s str>,
        out: &mut Vec<FieldOut>,
    ) {
        if !seen.insert(name) {
            return;
        }
        let Some(TypeOut::Struct(definition)) = self.spec.types.get(name) else {
            return;
        };
        for part in &definition.all_of {
            self.collect_fields(part, seen, out);
        }
        out.extend(definition.fields.iter().cloned());
    }

    /// True when `from`'s parts lead to `to` (each part visited once).
    fn reaches(&self, from: &str, to: &str) -> bool {
        let mut seen = HashSet::new();
        let mut stack = vec![from];
        while let Some(at) = stack.pop() {
            if at == to {
                return true;
            }
            if !seen.insert(at) {
                continue;
            }
            if let Some(TypeOut::Struct(s)) = self.spec.types.get(at) {
                stack.extend(s.all_of.iter().map(String::as_str));
            }
        }
        false
    }
}

//! Rules that need every type defined first: a union's tag values, binary fields, and `allOf`
//! parts that can be composed as they are or must be merged.

use crate::names;
use crate::spec::{Builder, FieldOut, StructOut, TypeOut};
use crate::ty::{Encoding, Ty};
use std::collections::{HashMap, HashSet};

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

    /// A union's alternatives that are string enums (`"auto" | "none" | {function}`, each value
    /// an alternative of its own) are one enum: read apart, the first open one would take every
    /// string, and a value would not read back as the alternative it was written as.
    fn settle_enum_alternatives(&mut self) {
        let names: Vec<String> = self.spec.types.keys().cloned().collect();
        let mut replaced: Vec<String> = Vec::new();
        for name in &names {
            let Some(TypeOut::Union(union)) = self.spec.types.get(name).cloned() else {
                continue;
            };
            let string_enum = |ty: &Ty| match ty.named().and_then(|n| self.spec.types.get(n)) {
                Some(TypeOut::Enum(e)) if e.values.iter().all(|(v, _, _)| v.is_string()) => {
                    Some(e.clone())
                }
                _ => None,
            };
            let enums: Vec<(usize, crate::spec::EnumOut)> = union
                .alternatives
                .iter()
                .enumerate()
                .filter_map(|(i, a)| string_enum(a).map(|e| (i, e)))
                .collect();
            if enums.len() < 2 {
                continue;
            }
            let mut merged = enums[0].1.clone();
            for (_, other) in &enums[1..] {
                for value in &other.values {
                    if !merged.values.iter().any(|(v, _, _)| *v == value.0) {
                        merged.values.push(value.clone());
                    }
                }
            }
            let merged_name = names::unique(&format!("{name}Value"), "", &mut self.taken_types);
            self.spec
                .types
                .insert(merged_name.clone(), TypeOut::Enum(merged));
            let mut settled = union.clone();
            let first = enums[0].0;
            let mut position = 0;
            settled.alternatives.retain(|_| {
                let keep = position == first || !enums.iter().any(|(i, _)| *i == position);
                position += 1;
                keep
            });
            if let Some(slot) = settled.alternatives.get_mut(first) {
                *slot = Ty::Named(merged_name);
            }
            self.spec
                .types
                .insert(name.clone(), TypeOut::Union(settled));
            replaced.extend(
                enums
                    .iter()
                    .filter_map(|(i, _)| union.alternatives[*i].named().map(str::to_owned)),
            );
        }
        // The enums merged away, unless something else uses them.
        let mut used: HashSet<String> = HashSet::new();
        self.each_ty(|ty| {
            ty.visit_mut(&mut |part| {
                if let Ty::Named(n) = part {
                    used.insert(n.clone());
                }
            })
        });
        for name in replaced {
            if !used.contains(&name) {
                self.spec.types.shift_remove(&name);
            }
        }
    }

    /// An untagged union whose alternatives are structs that each require one field holding a
    /// single value of its own (`type: enum [text]`, `type: enum [image]`): that field is its
    /// tag, as a discriminator would say. Read untagged, the first alternative whose other
    /// fields fit would take every value, and an open tag enum would read any tag.
    fn infer_tags(&mut self) {
        let names: Vec<String> = self.spec.types.keys().cloned().collect();
        for name in &names {
            let Some(TypeOut::Union(union)) = self.spec.types.get(name).cloned() else {
                continue;
            };
            if union.tag.is_some() || union.alternatives.len() < 2 {
                continue;
            }
            let fields: Option<Vec<Vec<FieldOut>>> = union
                .alternatives
                .iter()
                .map(|a| self.all_fields(a.named()?))
                .collect();
            let Some(fields) = fields else { continue };
            let single = |field: &FieldOut| -> Option<String> {
                if field.ty.is_option() {
                    return None;
                }
                match self.tag_values(field).as_slice() {
                    [one] => Some(one.clone()),
                    _ => None,
                }
            };
            let candidate = fields[0].iter().find(|field| {
                let mut values: Vec<String> = Vec::new();
                fields.iter().all(|alternative| {
                    alternative
                        .iter()
                        .find(|f| f.wire() == field.wire())
                        .and_then(single)
                        .is_some_and(|value| {
                            let fresh = !values.contains(&value);
                            values.push(value);
                            fresh
                        })
                })
            });
            if let Some(tag) = candidate {
                let mut settled = union.clone();
                settled.tag = Some(tag.wire().to_owned());
                self.spec
                    .types
                    .insert(name.clone(), TypeOut::Union(settled));
            }
        }
    }

    /// A tag every alternative declares (else the union is untagged, with a note), and a value
    /// for each alternative: the discriminator's mapping, else the single value the alternative's
    /// tag property allows (what servers send), else the schema's name (the specification's
    /// default).
    fn settle_tags(&mut self) {
        let names: Vec<String> = self.spec.types.keys().cloned().collect();
        for name in &names {
            let Some(TypeOut::Union(union)) = self.spec.types.get(name).cloned() else {
                continue;
            };
            let Some(tag) = &union.tag else { continue };
            let mut settled = union.clone();
            let tags: Option<Vec<FieldOut>> = union
                .alternatives
                .iter()
                .map(|a| {
                    let fields = self.all_fields(a.named()?)?;
                    fields.into_iter().find(|f| f.wire() == *tag)
                })
                .collect();
            let Some(tags) = tags else {
                settled.tag = None;
                settled.mapping.clear();
                let top = self.docs.top();
                self.note(
                    &top,
                    false,
                    format!(
                        "`{name}`: not every alternative declares the discriminator `{tag}`; the union is read untagged"
                    ),
                );
                self.spec
                    .types
                    .insert(name.clone(), TypeOut::Union(settled));
                continue;
            };
            for (alternative, field) in union.alternatives.iter().zip(&tags) {
                let Some(alternative) = alternative.named() else {
                    continue;
                };
                if settled.mapping.iter().any(|(_, ty)| ty == alternative) {
                    continue;
                }
                let mut values = self.tag_values(field);
                if values.is_empty() {
                    values.extend(
                        self.schema_names
                            .iter()
                            .filter(|(_, ty)| *ty == alternative)
                            .map(|(original, _)| original.clone())
                            .min(),
                    );
                }
                if values.is_empty() {
                    values.push(alternative.to_owned());
                }
                for value in values {
                    if !settled.mapping.iter().any(|(v, _)| *v == value) {
                        settled.mapping.push((value, alternative.to_owned()));
                    }
                }
            }
            self.spec
                .types
                .insert(name.clone(), TypeOut::Union(settled));
        }
        self.close_tags();
    }

    /// A tagged union's alternative whose own tag field is an enum of one value, an enum used
    /// nowhere else, holds that value as a constant instead: the variant cannot be built with
    /// another alternative's tag (or an `Other` one), and its constructor does not ask for it.
    fn close_tags(&mut self) {
        // (alternative, field position, value, the enum)
        let mut candidates: Vec<(String, usize, serde_json::Value, String)> = Vec::new();
        for definition in self.spec.types.values() {
            let TypeOut::Union(union) = definition else {
                continue;
            };
            let Some(tag) = &union.tag else { continue };
            for alternative in union.alternatives.iter().filter_map(Ty::named) {
                let Some(TypeOut::Struct(s)) = self.spec.types.get(alternative) else {
                    continue;
                };
                let Some(index) = s.fields.iter().position(|f| f.wire() == tag) else {
                    continue;
                };
                let Some(enum_name) = s.fields[index].ty.named() else {
                    continue;
                };
                if let Some(TypeOut::Enum(e)) = self.spec.types.get(enum_name)
                    && let [(value, _, _)] = e.values.as_slice()
                    && value.is_string()
                    && !candidates.iter().any(|(a, _, _, _)| a == alternative)
                {
                    candidates.push((
                        alternative.to_owned(),
                        index,
                        value.clone(),
                        enum_name.to_owned(),
                    ));
                }
            }
        }
        let mut uses: HashMap<String, usize> = HashMap::new();
        self.each_ty(|ty| {
            ty.visit_mut(&mut |part| {
                if let Ty::Named(n) = part {
                    *uses.entry(n.clone()).or_default() += 1;
                }
            })
        });
        for (alternative, index, value, enum_name) in &candidates {
            let as_tags = candidates.iter().filter(|c| c.3 == *enum_name).count();
            if uses.get(enum_name) != Some(&as_tags) {
                continue;
            }
            if let Some(TypeOut::Struct(s)) = self.spec.types.get_mut(alternative) {
                s.fields[*index].ty = Ty::String;
                s.fields[*index].constant = Some(value.clone());
            }
            self.spec.types.shift_remove(enum_name);
        }
    }

    /// The strings a tag field may hold: its `const`, or its enum's values (an alternative may
    /// stand for several tag values); none for an open string.
    fn tag_values(&self, field: &FieldOut) -> Vec<String> {
        if let Some(constant) = field.constant.as_ref().and_then(|c| c.as_str()) {
            return vec![constant.to_owned()];
        }
        let name = field.ty.required().named();
        match name.and_then(|name| self.spec.types.get(name)) {
            Some(TypeOut::Enum(e)) => e
                .values
                .iter()
                .filter_map(|(value, _, _)| value.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
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

    /// `allOf` parts must be structs that do not contain the whole; an own field a part has
    /// goes. Parts that give one field different types cannot be composed: their fields are
    /// merged into the struct, each with a type that holds what every part allows.
    fn settle_compositions(&mut self) {
        let names: Vec<String> = self.spec.types.keys().cloned().collect();
        for name in &names {
            let Some(TypeOut::Struct(definition)) = self.spec.types.get(name).cloned() else {
                continue;
            };
            let mut settled = definition.clone();
            // One union part is flattened into the struct; a second cannot be (noted below).
            let mut union_part: Option<String> = None;
            let mut other_unions = Vec::new();
            settled
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
                && settled.additional.take().is_some()
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
                settled
                    .fields
                    .retain(|field| !declared_by_all.iter().any(|w| w == field.wire()));
            }
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
                matches!(self.spec.types.get(n), Some(TypeOut::Enum(e)) if e.values.iter().all(|(v, _, _)| v.is_string()))
            }
            (Ty::Named(w), Ty::Named(n)) => {
                match (self.spec.types.get(w), self.spec.types.get(n)) {
                    (Some(TypeOut::Enum(w)), Some(TypeOut::Enum(n))) => n
                        .values
                        .iter()
                        .all(|(v, _, _)| v.is_string() && w.values.iter().any(|(x, _, _)| x == v)),
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
                                .all(|(v, _, _)| b.values.iter().any(|(w, _, _)| v == w))
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

//! Unions, once every type is defined: alternatives that are string enums made one enum, a tag
//! the alternatives' single-valued fields imply, each alternative's tag values, and one-value
//! tag enums made constants.

use crate::names;
use crate::spec::{EnumValue, FieldOut, TypeOut};
use crate::ty::Ty;
use crate::walk::Builder;

impl Builder<'_> {
    /// A union's alternatives that are string enums (`"auto" | "none" | {function}`, each value
    /// an alternative of its own) are one enum: read apart, the first open one would take every
    /// string, and a value would not read back as the alternative it was written as.
    pub(super) fn settle_enum_alternatives(&mut self) {
        let names: Vec<String> = self.spec.types.keys().cloned().collect();
        let mut replaced: Vec<String> = Vec::new();
        for name in &names {
            let Some(TypeOut::Union(union)) = self.spec.types.get(name).cloned() else {
                continue;
            };
            // Adjacently tagged, each string is under its own tag: nothing to merge.
            if union.content.is_some() {
                continue;
            }
            let string_enum = |ty: &Ty| match ty.named().and_then(|n| self.spec.types.get(n)) {
                Some(TypeOut::Enum(e)) if e.values.iter().all(|v| v.value.is_string()) => {
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
                    if !merged.values.iter().any(|v| v.value == value.value) {
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
        let used = self.uses();
        for name in replaced {
            if !used.contains_key(&name) {
                self.spec.types.shift_remove(&name);
            }
        }
    }

    /// An untagged union whose alternatives are structs that each require one field holding a
    /// single value of its own (`type: enum [text]`, `type: enum [image]`): that field is its
    /// tag, as a discriminator would say. Read untagged, the first alternative whose other
    /// fields fit would take every value, and an open tag enum would read any tag.
    pub(super) fn infer_tags(&mut self) {
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
    pub(super) fn settle_tags(&mut self) {
        let names: Vec<String> = self.spec.types.keys().cloned().collect();
        for name in &names {
            let Some(TypeOut::Union(union)) = self.spec.types.get(name).cloned() else {
                continue;
            };
            let Some(tag) = &union.tag else { continue };
            // Adjacently tagged: the tag is beside the alternatives, not a field of theirs.
            if union.content.is_some() {
                continue;
            }
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
            let Some(tag) = union.tag.as_ref().filter(|_| union.content.is_none()) else {
                continue;
            };
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
                    && let [EnumValue { value, .. }] = e.values.as_slice()
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
        let uses = self.uses();
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
                .filter_map(|v| v.value.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    }
}

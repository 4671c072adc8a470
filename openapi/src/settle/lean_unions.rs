//! Unions as a reader would write them, once their tags are settled: a tag the union writes
//! rather than a one-value field of each alternative only it uses, and no union of one
//! alternative.

use crate::spec::{TypeOut, UnionOut};
use crate::ty::Ty;
use crate::walk::Builder;
use std::collections::HashMap;

impl Builder<'_> {
    /// A tagged union's alternative that only tagged unions use (not another struct's `all_of:`
    /// part either), tagged by one value and holding it in a constant field of its own, loses
    /// that field: the union writes the tag (its value is the mapping's) and reads the
    /// alternative by it, so the field says nothing the variant does not
    /// (`DiskState::Creating(DiskStateCreating {})`, not `{ state: DiskStateCreatingState }`).
    /// An alternative that keeps the keys it does not declare keeps the field: it would read the
    /// tag into its map and write it twice.
    pub(super) fn write_tags_from_unions(&mut self) {
        let uses = self.uses();
        // Each alternative's tags, one a union: (the tag field, its one value), or `None`
        // where the union maps several values to it.
        let mut tagged: HashMap<&str, Vec<Option<(&str, &str)>>> = HashMap::new();
        for definition in self.spec.types.values() {
            let TypeOut::Union(union) = definition else {
                continue;
            };
            let Some(tag) = union.tag.as_ref().filter(|_| union.content.is_none()) else {
                continue;
            };
            for alternative in union.alternatives.iter().filter_map(Ty::named) {
                let mut values = union.mapping.iter().filter(|(_, ty)| ty == alternative);
                let one = match (values.next(), values.next()) {
                    (Some((value, _)), None) => Some((tag.as_str(), value.as_str())),
                    _ => None,
                };
                tagged.entry(alternative).or_default().push(one);
            }
        }
        // Lifted where every use of the struct is a union's alternative with the same tag and
        // value (a shape two unions share is written alike by both).
        let lifted: Vec<(String, String)> = tagged
            .into_iter()
            .filter_map(|(alternative, tags)| {
                let (tag, value) = tags[0]?;
                let alike = tags.iter().all(|t| *t == Some((tag, value)));
                (alike
                    && uses.get(alternative) == Some(&tags.len())
                    && !self.is_part(alternative)
                    && self.holds_constant_tag(alternative, tag, value))
                .then(|| (alternative.to_owned(), tag.to_owned()))
            })
            .collect();
        for (alternative, tag) in lifted {
            if let Some(TypeOut::Struct(s)) = self.spec.types.get_mut(&alternative) {
                s.fields.retain(|field| field.wire() != tag);
            }
        }
    }

    /// True when the struct `name` holds `value` in a constant field `tag` of its own, and
    /// neither it nor a part keeps undeclared keys.
    fn holds_constant_tag(&self, name: &str, tag: &str, value: &str) -> bool {
        let Some(TypeOut::Struct(s)) = self.spec.types.get(name) else {
            return false;
        };
        let plain_part = |part: &String| matches!(self.spec.types.get(part), Some(TypeOut::Struct(p)) if p.additional.is_none() && p.all_of.is_empty());
        s.additional.is_none()
            && s.all_of.iter().all(plain_part)
            && s.fields.iter().any(|field| {
                field.wire() == tag
                    && field
                        .constant
                        .as_ref()
                        .and_then(|constant| constant.as_str())
                        == Some(value)
            })
    }

    /// A union of one alternative (string enums merged into one, two kinds of string made one)
    /// is that alternative: an alternative only it uses takes the union's name (and the union's
    /// doc, where the union has one), else every use of the union names the alternative. A union that is another
    /// struct's `all_of:` part or a tag's target stays.
    pub(super) fn collapse_single_alternatives(&mut self) {
        // Each pass may leave another union with one alternative (two that became the same).
        for _ in 0..self.spec.types.len() {
            let single = self.spec.types.iter().find_map(|(name, definition)| {
                let TypeOut::Union(union) = definition else {
                    return None;
                };
                let [alternative] = union.alternatives.as_slice() else {
                    return None;
                };
                let plain = !matches!(alternative, Ty::Option(_) | Ty::Nullable(_))
                    && !mentions(alternative, name)
                    && !self.is_part_or_target(name);
                plain.then(|| (name.clone(), union.clone()))
            });
            let Some((name, union)) = single else { return };
            self.collapse(&name, union);
        }
    }

    fn collapse(&mut self, name: &str, union: UnionOut) {
        let alternative = union.alternatives[0].clone();
        // Counted with the union still there: its alternative is one use.
        let uses = self.uses();
        self.spec.types.shift_remove(name);
        let own = alternative
            .named()
            .filter(|inner| uses.get(*inner) == Some(&1) && !self.is_part_or_target(inner))
            .map(str::to_owned);
        match own {
            Some(inner) => {
                self.rename_type(&inner, name);
                let doc = match self.spec.types.get_mut(name) {
                    Some(TypeOut::Struct(s)) => &mut s.doc,
                    Some(TypeOut::Enum(e)) => &mut e.doc,
                    Some(TypeOut::Union(u)) => &mut u.doc,
                    None => return,
                };
                if union.doc.is_some() {
                    *doc = union.doc;
                }
            }
            None => {
                self.each_ty(|ty| {
                    ty.visit_mut(&mut |part| {
                        if matches!(part, Ty::Named(n) if n == name) {
                            *part = alternative.clone();
                        }
                    })
                });
                self.dedupe_alternatives();
            }
        }
    }

    /// A union whose alternatives became the same type lists it once.
    fn dedupe_alternatives(&mut self) {
        for definition in self.spec.types.values_mut() {
            // An adjacently tagged union keeps an alternative per tag value, one type or not.
            if let TypeOut::Union(union) = definition
                && union.content.is_none()
            {
                let mut seen: Vec<Ty> = Vec::new();
                union.alternatives.retain(|alternative| {
                    let fresh = !seen.contains(alternative);
                    seen.push(alternative.clone());
                    fresh
                });
            }
        }
    }

    /// How many times each type is named in a type expression.
    pub(super) fn uses(&mut self) -> HashMap<String, usize> {
        let mut uses: HashMap<String, usize> = HashMap::new();
        self.each_ty(|ty| {
            ty.visit_mut(&mut |part| {
                if let Ty::Named(name) = part {
                    *uses.entry(name.clone()).or_default() += 1;
                }
            })
        });
        uses
    }

    /// True when a struct names `name` among its `all_of:` parts: its fields are that struct's
    /// too.
    fn is_part(&self, name: &str) -> bool {
        self.spec.types.values().any(|definition| {
            matches!(definition, TypeOut::Struct(s) if s.all_of.iter().any(|part| part == name))
        })
    }

    /// True when a struct names `name` among its `all_of:` parts or a union maps a tag to it.
    fn is_part_or_target(&self, name: &str) -> bool {
        self.spec.types.values().any(|definition| match definition {
            TypeOut::Struct(s) => s.all_of.iter().any(|part| part == name),
            TypeOut::Union(u) => u.mapping.iter().any(|(_, ty)| ty == name),
            TypeOut::Enum(_) => false,
        })
    }
}

/// True when `ty` names `name` somewhere inside.
fn mentions(ty: &Ty, name: &str) -> bool {
    let mut found = false;
    ty.clone()
        .visit_mut(&mut |part| found |= part.named() == Some(name));
    found
}

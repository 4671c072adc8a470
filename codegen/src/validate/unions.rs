//! Unions: `one_of:` declarations, their alternatives expanded and merged, and the tag that
//! tells them apart.

use super::Validator;
use super::types::Own;
use crate::checked;
use crate::diagnostic::did_you_mean;
use crate::names;
use crate::spec::model::TypeDef;
use crate::types::Ty;

/// A struct's fields with its parts', and its map of undeclared keys.
pub(super) type Expanded = (Vec<checked::Field>, Option<Ty>, Option<String>);

impl Validator<'_> {
    pub(super) fn union_def(&mut self, source: usize, key: &str, def: &TypeDef) -> Option<Own> {
        let alternatives = def.one_of.as_deref().unwrap_or_default();
        if alternatives.is_empty() {
            self.push(
                self.spec
                    .at_key(source, key, "a union needs at least one alternative"),
            );
            return None;
        }
        let open = def.open.unwrap_or(false);
        let mut out = Some(Vec::new());
        let mut taken = names::Taken::default();
        // An open union keeps what it does not know in `Other`: no alternative is named so.
        if open {
            taken.insert("Other");
        }
        let union = key.rsplit('.').next().unwrap_or(key);
        for (i, alternative) in alternatives.iter().enumerate() {
            let at = format!("{key}.one_of.{i}");
            let ty = self.type_expr(source, &at, &alternative.ty, &[]);
            let variant = match (&alternative.name, &ty) {
                (Some(name), _) => self.own_variant_name(source, &at, name, &taken, ""),
                (None, Some(ty)) => taken.first_free(&names::variant_in_union(union, ty, i), ""),
                (None, None) => String::new(),
            };
            taken.insert(&variant);
            out = out.zip(ty).map(|(mut out, ty)| {
                out.push(checked::Alternative {
                    variant,
                    ty,
                    tags: Vec::new(),
                    writes_tag: false,
                    doc: alternative.doc.clone(),
                });
                out
            });
        }
        Some(Own::Union(out?, open))
    }

    /// A struct's fields with its `all_of:` parts' first (each type worked out once) (theirs recursively), each key once, and
    /// its map of undeclared keys (its own, else a part's).
    pub(super) fn expand(
        &mut self,
        all: &[Own],
        index: usize,
        stack: &mut Vec<usize>,
    ) -> Option<Expanded> {
        if let Some(done) = self.expanded.get(&index) {
            return done.clone();
        }
        let result = self.expand_once(all, index, stack);
        self.expanded.insert(index, result.clone());
        result
    }

    fn expand_once(
        &mut self,
        all: &[Own],
        index: usize,
        stack: &mut Vec<usize>,
    ) -> Option<Expanded> {
        let (name, located) = self.spec.types.get_index(index)?;
        let Own::Struct {
            fields,
            parts,
            additional,
            union,
        } = &all[index]
        else {
            return None;
        };
        if let Some(start) = stack.iter().position(|i| *i == index) {
            // Reported once (each type is expanded once, so each cycle is met once), at the
            // cycle's first type in spec order, going round from there.
            let cycle = &stack[start..];
            let first = cycle.iter().position(|i| Some(i) == cycle.iter().min())?;
            let round: Vec<usize> = cycle[first..]
                .iter()
                .chain(&cycle[..first])
                .copied()
                .collect();
            let (first_name, first_located) = self.spec.types.get_index(round[0])?;
            let path: Vec<&str> = round
                .iter()
                .chain([&round[0]])
                .filter_map(|i| self.spec.types.get_index(*i).map(|(n, _)| n.as_str()))
                .collect();
            self.push(
                self.spec
                    .at(
                        first_located.source,
                        &format!("types.{first_name}.all_of"),
                        format!("`all_of:` goes round in a circle: {}", path.join(" → ")),
                    )
                    .help("a struct cannot hold its own fields through its parts"),
            );
            return None;
        }
        stack.push(index);
        let mut merged: Vec<checked::Field> = Vec::new();
        let mut additional = additional.clone();
        let mut union = union.clone();
        let mut fine = true;
        for (i, part) in parts.iter().enumerate() {
            let Some(part_index) = self.spec.types.get_index_of(part) else {
                fine = false;
                continue;
            };
            let Some((part_fields, part_additional, part_union)) =
                self.expand(all, part_index, stack)
            else {
                fine = false;
                continue;
            };
            additional = additional.or(part_additional);
            union = union.or(part_union);
            for field in part_fields {
                fine &= self.merge(
                    &mut merged,
                    field,
                    located.source,
                    &format!("types.{name}.all_of.{i}"),
                );
            }
        }
        for field in fields {
            let at = format!("types.{name}.fields.{}", field.key);
            fine &= self.merge(&mut merged, field.clone(), located.source, &at);
        }
        stack.pop();
        fine.then_some((merged, additional, union))
    }

    /// Adds `field` unless a field of that key is there: the same type is one field, another
    /// type is a conflict.
    pub(super) fn merge(
        &mut self,
        fields: &mut Vec<checked::Field>,
        field: checked::Field,
        source: usize,
        at: &str,
    ) -> bool {
        // One field is one key on the wire: `name` and `name` renamed `_name` are two.
        let rename_all = self.rename_all().map(str::to_owned);
        let wire = field.wire_name(rename_all.as_deref());
        match fields
            .iter()
            .find(|f| f.wire_name(rename_all.as_deref()) == wire)
        {
            None => {
                fields.push(field);
                true
            }
            Some(there) if there.ty == field.ty => true,
            Some(there) => {
                self.push(self.spec.at(
                    source,
                    at,
                    format!(
                        "field `{}` is `{}` here and `{}` in another part",
                        field.key,
                        field.ty.render(),
                        there.ty.render()
                    ),
                ));
                false
            }
        }
    }

    /// A tagged union's alternatives with their tag values: each a struct declaring the tag
    /// field, tagged by `mapping:` or its type's name.
    pub(super) fn tagged(
        &mut self,
        all: &[Own],
        source: usize,
        key: &str,
        tag: &str,
        def: &TypeDef,
        alternatives: &[checked::Alternative],
    ) -> Option<Vec<checked::Alternative>> {
        let mut fine = true;
        let mut out: Vec<checked::Alternative> = Vec::new();
        for (i, alternative) in alternatives.iter().enumerate() {
            let at = format!("{key}.one_of.{i}");
            let name = alternative.ty.bare().unwrap_or_default();
            let index = self.spec.types.get_index_of(name);
            let is_struct = index.is_some_and(|i| matches!(all[i], Own::Struct { .. }));
            if !is_struct
                || !matches!(&alternative.ty, crate::types::Ty::Path { args, .. } if args.is_empty())
            {
                fine = false;
                self.push(
                    self.spec
                        .at(source, &at, format!("`{}` is not a struct of this spec: the alternatives of a tagged union (tag `{tag}`) are structs", alternative.ty.render()))
                        .help("declare it under `types:` with `fields:`, or drop `tag:` to try the alternatives in order"),
                );
                continue;
            }
            // An alternative without the field is written with it by the union: its struct keeps
            // the rest, and its one tag value says which it is.
            let declares = index.is_some_and(|i| self.declares_field(all, i, tag));
            let keeps_others = index
                .and_then(|i| self.expand(all, i, &mut Vec::new()))
                .is_some_and(|(_, additional, union)| additional.is_some() || union.is_some());
            if !declares && keeps_others {
                fine = false;
                self.push(
                    self.spec
                        .at(source, &at, format!("`{name}` has no field `{tag}`, the union's tag, and keeps the keys it does not declare: it would keep the tag it was read with and be written with it twice"))
                        .help(format!("add `{tag}: String` to `{name}`'s fields")),
                );
                continue;
            }
            out.push(checked::Alternative {
                variant: alternative.variant.clone(),
                ty: alternative.ty.clone(),
                tags: Vec::new(),
                writes_tag: !declares,
                doc: alternative.doc.clone(),
            });
        }
        for (value, target) in def.mapping.iter().flatten() {
            match out
                .iter_mut()
                .find(|a| a.ty.bare() == Some(target.as_str()))
            {
                Some(alternative) => alternative.tags.push(value.clone()),
                None => {
                    fine = false;
                    let names = out.iter().filter_map(|a| a.ty.bare());
                    let d = self.spec.at(
                        source,
                        &format!("{key}.mapping.{value}"),
                        format!("`{target}` is not one of the union's alternatives"),
                    );
                    let help = did_you_mean(target, names);
                    self.push(d.maybe_help(help));
                }
            }
        }
        for (i, alternative) in out.iter_mut().enumerate() {
            if alternative.tags.is_empty() {
                alternative
                    .tags
                    .push(alternative.ty.bare().unwrap_or_default().to_owned());
            }
            if alternative.writes_tag && alternative.tags.len() > 1 {
                fine = false;
                let name = alternative.ty.bare().unwrap_or_default();
                self.push(
                    self.spec
                        .at(source, &format!("{key}.one_of.{i}"), format!("`{name}` has no field `{tag}`, and `mapping:` gives it {} tag values: the union could not tell which to write", alternative.tags.len()))
                        .help(format!("add `{tag}: String` to `{name}`'s fields, so that it keeps the value it was read with")),
                );
            }
        }
        fine.then_some(out)
    }

    /// True when the struct `index` (its `extends:` expanded) has a field whose wire name,
    /// after the spec's `rename_all`, is `wire`.
    fn declares_field(&mut self, all: &[Own], index: usize, wire: &str) -> bool {
        let rename_all = self.rename_all().map(str::to_owned);
        let fields = self.expand(all, index, &mut Vec::new());
        fields.is_some_and(|(fields, _, _)| {
            fields
                .iter()
                .any(|f| f.wire_name(rename_all.as_deref()) == wire)
        })
    }
}

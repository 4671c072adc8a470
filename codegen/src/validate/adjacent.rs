//! Adjacently tagged unions (`tag:` and `content:`): each value is `{<tag>: "card", <content>:
//! ..}`, the alternative under the content key, so an alternative may be any type.

use super::Validator;
use crate::checked;
use crate::diagnostic::did_you_mean;
use crate::spec::model::TypeDef;
use crate::types::Ty;

impl Validator<'_> {
    /// An adjacently tagged union's alternatives with their tag values: `mapping:`'s (its
    /// targets written as the alternatives' types are, or their variants' names), else the
    /// type's name. The union writes
    /// the tag, so each alternative has exactly one value, and no two the same.
    pub(super) fn adjacent(
        &mut self,
        source: usize,
        key: &str,
        tag: &str,
        def: &TypeDef,
        alternatives: &[checked::Alternative],
    ) -> Option<Vec<checked::Alternative>> {
        let mut fine = true;
        if def.content.as_deref() == Some(tag) {
            fine = false;
            self.push(
                self.spec
                    .at_key(source, &format!("{key}.content"), format!("`content:` and `tag:` name the same key, `{tag}`"))
                    .help("the tag and the alternative's value are two keys of one object: `tag: type`, `content: content`"),
            );
        }
        let mut out: Vec<checked::Alternative> = alternatives
            .iter()
            .map(|alternative| checked::Alternative {
                tags: Vec::new(),
                writes_tag: true,
                ..alternative.clone()
            })
            .collect();
        fine &= self.adjacent_mapping(source, key, def, &mut out);
        let mut seen: Vec<String> = Vec::new();
        for (i, alternative) in out.iter_mut().enumerate() {
            let at = format!("{key}.one_of.{i}");
            let ty = alternative.ty.render();
            if alternative.tags.is_empty() {
                match named(&alternative.ty) {
                    Some(name) => alternative.tags.push(name.to_owned()),
                    None => {
                        fine = false;
                        self.push(
                            self.spec
                                .at(
                                    source,
                                    &at,
                                    format!("`{ty}` has no name to be its tag value"),
                                )
                                .help(format!(
                                    "give it one in `mapping:`, e.g. `mapping: {{ items: {ty} }}`"
                                )),
                        );
                    }
                }
            }
            if alternative.tags.len() > 1 {
                fine = false;
                self.push(self.spec.at(
                    source,
                    &at,
                    format!(
                        "`mapping:` gives `{ty}` {} tag values: the union could not tell which to write",
                        alternative.tags.len()
                    ),
                ));
            }
            for value in &alternative.tags {
                if seen.contains(value) {
                    fine = false;
                    self.push(self.spec.at(
                        source,
                        &at,
                        format!("tag value `{value}` names two alternatives"),
                    ));
                }
                seen.push(value.clone());
            }
        }
        fine.then_some(out)
    }

    /// `mapping:`'s tag values onto the alternatives they name; false when one names none.
    fn adjacent_mapping(
        &mut self,
        source: usize,
        key: &str,
        def: &TypeDef,
        out: &mut [checked::Alternative],
    ) -> bool {
        let mut fine = true;
        for (value, target) in def.mapping.iter().flatten() {
            // A target is an alternative's type as written, or its variant's name (two
            // alternatives of one type are told apart by their names).
            let by_type = out.iter().position(|a| a.ty.render() == *target);
            let by_name = || out.iter().position(|a| a.variant == *target);
            match by_type.or_else(by_name).map(|i| &mut out[i]) {
                Some(alternative) => alternative.tags.push(value.clone()),
                None => {
                    fine = false;
                    let types: Vec<String> = out.iter().map(|a| a.ty.render()).collect();
                    let d = self.spec.at(
                        source,
                        &format!("{key}.mapping.{value}"),
                        format!("`{target}` is not one of the union's alternatives"),
                    );
                    let help = did_you_mean(target, types.iter().map(String::as_str));
                    self.push(d.maybe_help(help));
                }
            }
        }
        fine
    }
}

/// The name a type is tagged with by default: a bare path's (`Card`, `i64`), none for `Vec<Card>`.
fn named(ty: &Ty) -> Option<&str> {
    match ty {
        Ty::Path { args, .. } if args.is_empty() => ty.bare(),
        _ => None,
    }
}

//! A spec's enums: their values' wire forms and variant names, each unique.

use std::collections::HashMap;

use super::Validator;
use super::types::Own;
use crate::checked;
use crate::names;
use crate::spec::model::{EnumValueDef, WireValue};

impl Validator<'_> {
    pub(super) fn enum_def(
        &mut self,
        source: usize,
        key: &str,
        values: &[EnumValueDef],
        open: bool,
    ) -> Option<Own> {
        if values.is_empty() {
            self.push(
                self.spec
                    .at_key(source, key, "an enum needs at least one value"),
            );
            return None;
        }
        let integer = matches!(values[0].value, WireValue::Int(_));
        let mut out = Vec::new();
        let mut taken = names::Taken::default();
        let mut seen_wire: HashMap<String, usize> = HashMap::new();
        for (i, value) in values.iter().enumerate() {
            let at = format!("{key}.enum.{i}");
            let wire = match &value.value {
                WireValue::Str(text) if !integer => text.clone(),
                WireValue::Int(n) if integer => n.to_string(),
                _ => {
                    self.push(
                        self.spec
                            .at(
                                source,
                                &at,
                                "an enum's values are all strings or all integers",
                            )
                            .help("quote the numbers to make them strings: `\"1\"`"),
                    );
                    return None;
                }
            };
            if let Some(first) = seen_wire.insert(wire.clone(), i) {
                self.push(self.spec.at(
                    source,
                    &at,
                    format!(
                        "value `{}` is listed twice (first as value {first})",
                        wire.escape_default()
                    ),
                ));
            }
            let variant = self.variant_name(source, &at, value, &wire, i, &mut taken);
            taken.insert(&variant);
            out.push(checked::EnumValue {
                variant,
                wire,
                doc: value.doc.clone(),
            });
        }
        if open && taken.contains_exactly("Other") {
            self.push(
                self.spec
                    .at_key(source, key, "an open enum keeps unknown values in a variant named `Other`, and a value already takes the name")
                    .help("give that value another `name:`"),
            );
        }
        Some(Own::Enum(out, integer, open))
    }

    /// A value's variant name: its own `name:` (a PascalCase identifier not taken), or one made
    /// from its wire value, unique among those `taken`.
    fn variant_name(
        &mut self,
        source: usize,
        at: &str,
        value: &EnumValueDef,
        wire: &str,
        index: usize,
        taken: &mut names::Taken,
    ) -> String {
        match &value.name {
            Some(name) => self.own_variant_name(source, at, name, taken, " by another value"),
            None => taken.first_free(&names::variant(wire, index), ""),
        }
    }

    /// A variant's own `name:` (of an enum's value or a union's alternative), checked: a
    /// PascalCase identifier that no earlier variant took (`taken_by` ends that error's words).
    pub(super) fn own_variant_name(
        &mut self,
        source: usize,
        at: &str,
        name: &str,
        taken: &names::Taken,
        taken_by: &str,
    ) -> String {
        if !names::is_pascal_identifier(name) {
            self.push(self.spec.at(
                source,
                &format!("{at}.name"),
                format!("variant name `{name}` is not a PascalCase Rust identifier"),
            ));
        }
        if taken.contains_exactly(name) {
            self.push(self.spec.at(
                source,
                &format!("{at}.name"),
                format!("variant name `{name}` is taken{taken_by}"),
            ));
        }
        name.to_owned()
    }
}

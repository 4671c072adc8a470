//! One error type per error shape: methods whose declared error statuses map to the same types,
//! read the same way, share one enum, named by the types it carries (`ApiErrorByStatus`); each
//! method's own name stays as an alias of it, so `error.detail::<GetUserError>()` and a match
//! on `GetUserError::NotFound(..)` keep working. A description of a hundred methods that all
//! answer `4XX`/`5XX` with its `Error` schema writes one enum, not a hundred alike.

use std::collections::{BTreeMap, HashSet};

use super::super::{ErrorEnum, ErrorRead, ErrorVariant, Method};

/// What makes two methods' error enums the same type: every variant (name, statuses, payload,
/// reading) and whether a `default` covers the rest.
type Shape = (bool, Vec<(String, String, String, ErrorRead)>);

fn shape_of(errors: &ErrorEnum) -> Shape {
    let variants = errors
        .variants
        .iter()
        .map(|v| (v.name.clone(), v.pattern.clone(), v.payload.clone(), v.read))
        .collect();
    (errors.has_default, variants)
}

/// Makes the methods that declare an error shape another method declares too aliases of one
/// shared enum, and returns those enums. `taken`: the names the module already has.
pub(in crate::ir) fn share_error_enums(
    methods: &mut [Method],
    taken: &mut HashSet<String>,
) -> Vec<ErrorEnum> {
    let mut by_shape: BTreeMap<Shape, Vec<usize>> = BTreeMap::new();
    for (at, method) in methods.iter().enumerate() {
        if let Some(errors) = &method.errors {
            by_shape.entry(shape_of(errors)).or_default().push(at);
        }
    }
    // The most shared shape first: it gets the plainest name.
    let mut groups: Vec<(Shape, Vec<usize>)> = by_shape
        .into_iter()
        .filter(|(_, at)| at.len() > 1)
        .collect();
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    let mut shared = Vec::with_capacity(groups.len());
    for ((has_default, _), members) in groups {
        let Some(first) = methods[members[0]].errors.as_ref() else {
            continue;
        };
        let name = unique(shape_name(first, taken), taken);
        let variants: Vec<ErrorVariant> = first.variants.clone();
        shared.push(ErrorEnum {
            doc: format!(
                " The error bodies by status that {} methods declare alike: \
                 `error.detail::<{name}>()`, or a method's own alias of it.",
                members.len()
            ),
            name: name.clone(),
            variants,
            has_default,
            shared: None,
        });
        for at in members {
            if let Some(errors) = methods[at].errors.as_mut() {
                errors.shared = Some(name.clone());
            }
        }
    }
    shared
}

/// The name of a shape: the types its variants carry (`ApiError`, `MissingOrApiError`), then
/// `ByStatus`; when a more shared shape has that name already, its variants say which it is
/// (`ApiErrorByNotFoundOrOther`).
fn shape_name(errors: &ErrorEnum, taken: &HashSet<String>) -> String {
    let mut payloads: Vec<String> = Vec::new();
    for variant in &errors.variants {
        let word = type_word(&variant.payload);
        if !payloads.contains(&word) {
            payloads.push(word);
        }
    }
    let carried = payloads.join("Or");
    let plain = format!("{carried}ByStatus");
    if !taken.contains(&plain) {
        return plain;
    }
    let statuses: Vec<&str> = errors.variants.iter().map(|v| v.name.as_str()).collect();
    format!("{carried}By{}", statuses.join("Or"))
}

/// A Rust type as one word of a name: `Vec<ApiError>` → `VecApiError`, `serde_json::Value` →
/// `Value`.
fn type_word(ty: &str) -> String {
    let mut word = String::new();
    for part in ty.split(|c: char| !c.is_alphanumeric()) {
        // A path's leading segments (`remcall::bytes::Bytes`) say nothing a reader needs.
        if part.is_empty() || part.chars().next().is_some_and(char::is_lowercase) {
            continue;
        }
        word.push_str(part);
    }
    if word.is_empty() {
        "Error".to_owned()
    } else {
        word
    }
}

/// `name`, or with `_` until no item of the module has it; taken from then on.
fn unique(mut name: String, taken: &mut HashSet<String>) -> String {
    while !taken.insert(name.clone()) {
        name.push('_');
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(name: &str, variants: &[(&str, &str, &str)]) -> ErrorEnum {
        ErrorEnum {
            doc: String::new(),
            name: name.to_owned(),
            variants: variants
                .iter()
                .map(|(variant, pattern, payload)| ErrorVariant {
                    name: (*variant).to_owned(),
                    pattern: (*pattern).to_owned(),
                    written: (*pattern).to_owned(),
                    payload: (*payload).to_owned(),
                    answer: 400,
                    read: ErrorRead::Json,
                })
                .collect(),
            has_default: false,
            shared: None,
        }
    }

    #[test]
    fn a_type_is_one_word_of_a_name() {
        assert_eq!(type_word("ApiError"), "ApiError");
        assert_eq!(type_word("Vec<ApiError>"), "VecApiError");
        assert_eq!(type_word("remcall::serde_json::Value"), "Value");
        assert_eq!(type_word("String"), "String");
    }

    #[test]
    fn shapes_are_named_by_their_types_then_by_their_statuses() {
        let mut taken = HashSet::new();
        let common = errors("A", &[("ClientError", "400..=499", "ApiError")]);
        let name = unique(shape_name(&common, &taken), &mut taken);
        assert_eq!(name, "ApiErrorByStatus");
        let other = errors(
            "B",
            &[("NotFound", "404", "ApiError"), ("Other", "_", "ApiError")],
        );
        assert_eq!(shape_name(&other, &taken), "ApiErrorByNotFoundOrOther");
        let mixed = errors(
            "C",
            &[("NotFound", "404", "Missing"), ("Other", "_", "ApiError")],
        );
        assert_eq!(shape_name(&mixed, &taken), "MissingOrApiErrorByStatus");
    }
}

//! Inline schemas of one shape become one type. Descriptions generated from code repeat an
//! object inline in every operation that sends or returns it (one API of the corpus has 4,990
//! inline types of 1,593 shapes); each copy would be a struct of its own, with its own reader,
//! writer and derives, that every user compiles. Two inline types are the same when everything
//! the spec says of them is, docs included, and the types they name are the same in turn (a
//! recursive shape included): nothing is lost by writing the first and naming it where the
//! others stood. A type the description names (a component schema) is never merged: its name is
//! the description's own.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use crate::spec::TypeOut;
use crate::ty::Ty;
use crate::walk::Builder;

impl Builder<'_> {
    /// Writes each shape of inline type once, and points every use of a repeat at the first.
    pub(crate) fn share_shapes(&mut self) {
        let class = self.shape_classes();
        let names: Vec<&String> = self.spec.types.keys().collect();
        let mut members: HashMap<usize, Vec<&str>> = HashMap::new();
        // The classes in the order of their first uses.
        let mut first_seen: Vec<usize> = Vec::new();
        let mut replaced: HashMap<String, String> = HashMap::new();
        for (i, name) in names.iter().enumerate() {
            if !members.contains_key(&class[i]) {
                first_seen.push(class[i]);
            }
            let uses = members.entry(class[i]).or_default();
            uses.push(name.as_str());
            if uses[0] != name.as_str() {
                replaced.insert((*name).clone(), uses[0].to_owned());
            }
        }
        if replaced.is_empty() {
            return;
        }
        // The first use's name is one operation's; a shape several share is named for all. A
        // title that several shapes carry (Kinto's `ObjectSchema`: a bucket, a collection, a
        // record) names none of them: numbered in document order (`ObjectSchema3`), the name
        // would move to another shape when the server gains an operation.
        let mut shapes_titled: HashMap<&str, usize> = HashMap::new();
        for uses in members.values() {
            if let Some(title) = uses.iter().find_map(|name| self.titles.get(*name)) {
                *shapes_titled.entry(title.as_str()).or_default() += 1;
            }
        }
        let contested: HashSet<String> = shapes_titled
            .into_iter()
            .filter(|(_, shapes)| *shapes > 1)
            .map(|(title, _)| title.to_owned())
            .collect();
        let mut renamed: Vec<(String, String)> = Vec::new();
        // In the order of the first uses: a name two shapes want goes to the first, the same
        // on every run.
        let shared = first_seen
            .iter()
            .map(|class| &members[class])
            .filter(|uses| uses.len() > 1);
        for uses in shared {
            if let Some(name) = self.shared_name(uses, &contested) {
                let name = crate::names::unique(&name, "", &mut self.taken_types);
                renamed.push((uses[0].to_owned(), name));
            }
        }
        renamed.sort();
        self.spec.summary.shared_types = replaced.len();
        self.spec
            .types
            .retain(|name, _| !replaced.contains_key(name));
        let nested = self.nested_renames(&renamed);
        renamed.extend(nested);
        self.point_uses_at(&replaced);
        for (old, new) in renamed {
            self.rename_type(&old, &new);
        }
    }

    /// Each type's class (in the order of `spec.types`): types of one class have one shape.
    /// Moore's refinement: start with one class, split by what each type says with the classes
    /// of the types it names, until no class splits. What is left are the largest classes whose
    /// members cannot be told apart, recursion and all.
    fn shape_classes(&self) -> Vec<usize> {
        let declared: HashSet<&str> = self.schema_names.values().map(String::as_str).collect();
        let names: Vec<&String> = self.spec.types.keys().collect();
        let position: HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.as_str(), i))
            .collect();
        let mut class = vec![0usize; names.len()];
        let mut classes = 1;
        loop {
            let mut ids: HashMap<String, usize> = HashMap::new();
            let mut signature = String::new();
            let next: Vec<usize> = names
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    signature.clear();
                    let _ = write!(signature, "{}|", class[i]);
                    if declared.contains(name.as_str()) {
                        signature.push_str(name);
                    } else {
                        let class_of = |n: &str| position.get(n).map(|&p| class[p]);
                        describe(&mut signature, &self.spec.types[i], &class_of);
                    }
                    let fresh = ids.len();
                    *ids.entry(signature.clone()).or_insert(fresh)
                })
                .collect();
            class = next;
            if ids.len() == classes {
                break;
            }
            classes = ids.len();
        }
        class
    }

    /// Every use of a repeat named in `replaced` names the shape's first type instead.
    fn point_uses_at(&mut self, replaced: &HashMap<String, String>) {
        self.each_ty(|ty| {
            ty.visit_mut(&mut |part| {
                if let Ty::Named(name) = part
                    && let Some(kept) = replaced.get(name.as_str())
                {
                    *name = kept.clone();
                }
            });
        });
        for definition in self.spec.types.values_mut() {
            match definition {
                TypeOut::Struct(s) => s.all_of.iter_mut().for_each(|part| {
                    if let Some(kept) = replaced.get(part.as_str()) {
                        *part = kept.clone();
                    }
                }),
                // An adjacently tagged union maps to its variants' names, and keeps an
                // alternative per tag value even where two are one type.
                TypeOut::Union(u) if u.content.is_some() => {}
                TypeOut::Union(u) => {
                    for (_, ty) in &mut u.mapping {
                        if let Some(kept) = replaced.get(ty.as_str()) {
                            *ty = kept.clone();
                        }
                    }
                    // Two alternatives that were repeats of one shape are one alternative.
                    let mut seen = HashSet::new();
                    u.alternatives.retain(|ty| seen.insert(ty.clone()));
                }
                TypeOut::Enum(_) => {}
            }
        }
    }

    /// The inline types named after a shared shape's first use, from inside it (its union's
    /// alternatives, its list's items: `ThreadCronCreateStreamModeVariant0Item` inside
    /// `ThreadCronCreateStreamMode`), renamed after the name the shape takes for all its uses
    /// (`StreamModeVariant0Item` inside `StreamMode`): a type used by every run and cron
    /// payload is not named after the cron's.
    fn nested_renames(&mut self, renamed: &[(String, String)]) -> Vec<(String, String)> {
        let declared: HashSet<&str> = self.schema_names.values().map(String::as_str).collect();
        let new_name: HashMap<&str, &str> = renamed
            .iter()
            .map(|(old, new)| (old.as_str(), new.as_str()))
            .collect();
        let mut nested = Vec::new();
        for name in self.spec.types.keys() {
            if declared.contains(name.as_str()) || new_name.contains_key(name.as_str()) {
                continue;
            }
            // The longest shared name it starts with, ending before one of its words: its
            // nearest container. A lookup per word keeps the pass linear in the names.
            let parent = name
                .char_indices()
                .rev()
                .filter(|(at, c)| *at > 0 && c.is_ascii_uppercase())
                .find_map(|(at, _)| Some((at, *new_name.get(&name[..at])?)));
            if let Some((at, new)) = parent {
                nested.push((name.clone(), format!("{new}{}", &name[at..])));
            }
        }
        nested
            .into_iter()
            .map(|(old, new)| {
                let new = crate::names::unique(&new, "", &mut self.taken_types);
                (old, new)
            })
            .collect()
    }

    /// The name of a shape `uses` share (type names, first use first): the schema's `title`
    /// where one of them has it and no other shape does (`contested`), else the words all their
    /// names end with (`…Error400`), else the property all of them are the type of, unless a
    /// type has that name; nothing when they have none of these in common, or when the name is
    /// what the first use has already. The types inside the shape follow its name
    /// ([`Builder::nested_renames`]).
    fn shared_name(&self, uses: &[&str], contested: &HashSet<String>) -> Option<String> {
        let title = uses
            .iter()
            .find_map(|name| self.titles.get(*name))
            .filter(|title| !contested.contains(*title));
        let name = match title {
            Some(title) => crate::names::type_name(title),
            None => common_suffix(uses)
                .map(|suffix| crate::names::type_name(&suffix))
                .or_else(|| self.common_property(uses))
                .or_else(|| common_subject(uses))
                // `Pagination2` beside a declared `Pagination` says less than the first use's
                // name.
                .filter(|name| !self.taken_types.contains(name))?,
        };
        (name != uses[0]).then_some(name)
    }

    /// The property every use is the type of (`stream_mode` of a cron's payload and of a
    /// run's), as a type name.
    fn common_property(&self, uses: &[&str]) -> Option<String> {
        let first = self.properties.get(uses[0])?;
        uses.iter()
            .all(|name| self.properties.get(*name) == Some(first))
            .then(|| crate::names::type_name(first))
    }
}

/// The words all of `uses` end with (`Error400`), unless that is only a role word.
fn common_suffix(uses: &[&str]) -> Option<String> {
    let words: Vec<Vec<&str>> = uses.iter().map(|name| words(name)).collect();
    let common = (0..)
        .take_while(|&n| {
            words.iter().all(|w| n < w.len())
                && words
                    .iter()
                    .all(|w| w[w.len() - 1 - n] == words[0][words[0].len() - 1 - n])
        })
        .count();
    if common == 0 {
        return None;
    }
    let suffix = words[0][words[0].len() - common..].concat();
    // A word only says the use's role (`Result`, `Body`): the first use's name says more.
    (!ROLE_WORDS.contains(&suffix.as_str())).then_some(suffix)
}

/// What the uses' names say of the same thing, with the role they share: `CreateAnnotationBody`
/// and `ApiAnnotationsPartialUpdateBody` are `AnnotationBody` (the words every name holds, a
/// plural and its singular alike, less the verbs and the route's `Api`, `V1`). `None` when
/// the names share no such word or no role.
fn common_subject(uses: &[&str]) -> Option<String> {
    let role = ROLE_WORDS
        .iter()
        .find(|role| uses.iter().all(|name| name.ends_with(*role)))?;
    // Compared without a plural's `s`; written as the first use has it.
    let stem = |word: &str| word.strip_suffix('s').unwrap_or(word).to_owned();
    let first = words(&uses[0][..uses[0].len() - role.len()]);
    let others: Vec<Vec<String>> = uses[1..]
        .iter()
        .map(|name| {
            words(&name[..name.len() - role.len()])
                .iter()
                .map(|w| stem(w))
                .collect()
        })
        .collect();
    let subject: String = first
        .iter()
        .filter(|word| !VERB_WORDS.contains(&stem(word).as_str()) && !is_version(word))
        .filter(|word| others.iter().all(|other| other.contains(&stem(word))))
        .copied()
        .collect();
    (!subject.is_empty()).then(|| format!("{subject}{role}"))
}

/// Words of an operation's name that say what it does, not to what (`s` taken off).
const VERB_WORDS: &[&str] = &[
    "Create", "Update", "Partial", "Patch", "Put", "Post", "Get", "List", "Delete", "Replace",
    "Api", "Read", "Add", "Set", "Upsert", "New",
];

/// `V1`, `V2`: a version's word.
fn is_version(word: &str) -> bool {
    word.strip_prefix('V')
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
}

/// The words an inline type's name ends with by its role where it stands, which name no shape.
const ROLE_WORDS: &[&str] = &["Result", "Body", "Item", "Error", "Response", "Request"];

/// A PascalCase name's words: each starts at an uppercase letter (`Error400` is one).
fn words(name: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = name
        .char_indices()
        .filter(|(i, c)| *i == 0 || c.is_ascii_uppercase())
        .map(|(i, _)| i)
        .collect();
    starts.push(name.len());
    starts.windows(2).map(|w| &name[w[0]..w[1]]).collect()
}

/// Everything the spec will say of a type, with the types it names as their classes.
fn describe(out: &mut String, definition: &TypeOut, class_of: &dyn Fn(&str) -> Option<usize>) {
    match definition {
        TypeOut::Struct(s) => {
            let _ = write!(out, "struct {:?}", s.doc);
            for part in &s.all_of {
                out.push_str(" all_of ");
                named(out, part, class_of);
            }
            for field in &s.fields {
                let _ = write!(
                    out,
                    " field {:?} {:?} {:?} {} {} {:?} ",
                    field.key,
                    field.rename,
                    field.doc,
                    field.required_null,
                    field.optional_null,
                    field.constant
                );
                ty(out, &field.ty, class_of);
            }
            if let Some(additional) = &s.additional {
                out.push_str(" additional ");
                ty(out, additional, class_of);
            }
        }
        TypeOut::Enum(e) => {
            let _ = write!(out, "enum {:?} {:?}", e.doc, e.values);
        }
        TypeOut::Union(u) => {
            let _ = write!(
                out,
                "union {:?} {:?} {:?} {:?}",
                u.doc, u.tag, u.content, u.variants
            );
            for alternative in &u.alternatives {
                out.push_str(" one_of ");
                ty(out, alternative, class_of);
            }
            for (value, target) in &u.mapping {
                let _ = write!(out, " map {value:?} ");
                named(out, target, class_of);
            }
        }
    }
}

/// A type expression with each named type as its class.
fn ty(out: &mut String, ty: &Ty, class_of: &dyn Fn(&str) -> Option<usize>) {
    match ty {
        Ty::Named(name) => named(out, name, class_of),
        Ty::Vec(inner) | Ty::Option(inner) | Ty::Nullable(inner) | Ty::Map(inner) => {
            let _ = write!(
                out,
                "{}<",
                match ty {
                    Ty::Vec(_) => "Vec",
                    Ty::Option(_) => "Option",
                    Ty::Nullable(_) => "Nullable",
                    _ => "Map",
                }
            );
            self::ty(out, inner, class_of);
            out.push('>');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

fn named(out: &mut String, name: &str, class_of: &dyn Fn(&str) -> Option<usize>) {
    match class_of(name) {
        Some(class) => {
            let _ = write!(out, "#{class}");
        }
        None => out.push_str(name),
    }
}

#[cfg(test)]
mod tests {
    use super::common_subject;

    #[test]
    fn a_shape_several_operations_share_is_named_for_what_they_share() {
        assert_eq!(
            common_subject(&["CreateAnnotationBody", "ApiAnnotationsPartialUpdateBody"]).as_deref(),
            Some("AnnotationBody")
        );
        assert_eq!(
            common_subject(&["ListV1TicketsResult", "SearchTicketResult"]).as_deref(),
            Some("TicketsResult")
        );
        assert_eq!(common_subject(&["CreateUserBody", "UpdateTeamBody"]), None);
        assert_eq!(
            common_subject(&["CreateStatusBody", "UpdateStatusBody"]).as_deref(),
            Some("StatusBody")
        );
        assert_eq!(
            common_subject(&["CreateUserBody", "UpdateUserResult"]),
            None
        );
    }
}

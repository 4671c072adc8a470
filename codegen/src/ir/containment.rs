//! Which struct types contain which others by value, so that a type containing itself is
//! boxed.

use crate::checked::{self, Shape};
use crate::types::Ty;

/// Which struct types contain which others by value (not behind a `Vec`, map or `Box`): a struct
/// that contains itself, directly or through others, has infinite size unless boxed.
pub(super) struct Containment {
    edges: std::collections::HashMap<String, Vec<String>>,
}

/// Containers that hold their items on the heap already.
const INDIRECT: &[&str] = &["Vec", "HashMap", "BTreeMap", "Box"];

impl Containment {
    pub(super) fn of(types: &[checked::TypeDecl]) -> Containment {
        let names: std::collections::HashSet<&str> =
            types.iter().map(|t| t.name.as_str()).collect();
        let declared = |name: &String| names.contains(name.as_str());
        let mut edges = std::collections::HashMap::new();
        for decl in types {
            let mut contained = Vec::new();
            match &decl.shape {
                Shape::Struct(s) => {
                    for field in &s.fields {
                        by_value(&field.ty, &mut contained);
                    }
                }
                Shape::Union(u) => {
                    for alternative in &u.alternatives {
                        by_value(&alternative.ty, &mut contained);
                    }
                }
                Shape::Enum(_) => {}
            }
            contained.retain(declared);
            edges.insert(decl.name.clone(), contained);
        }
        Containment { edges }
    }

    /// True when `from` contains `to` by value, through any chain of fields.
    fn reaches(&self, from: &str, to: &str) -> bool {
        let mut stack = vec![from.to_owned()];
        let mut seen = std::collections::HashSet::new();
        while let Some(name) = stack.pop() {
            if name == to {
                return true;
            }
            if seen.insert(name.clone()) {
                stack.extend(self.edges.get(&name).into_iter().flatten().cloned());
            }
        }
        false
    }

    /// `ty` (a field of `owner`) with every by-value occurrence of a type that leads back to
    /// `owner` boxed: `Option<Node>` in `Node` becomes `Option<Box<Node>>`.
    pub(super) fn box_recursion(&self, ty: &Ty, owner: &str) -> Ty {
        match ty {
            Ty::Path { segments, .. }
                if segments.len() == 1 && INDIRECT.contains(&segments[0].as_str()) =>
            {
                ty.clone()
            }
            Ty::Path { segments, args }
                if args.is_empty()
                    && segments.len() == 1
                    && self.edges.contains_key(&segments[0])
                    && self.reaches(&segments[0], owner) =>
            {
                Ty::Path {
                    segments: vec!["Box".to_owned()],
                    args: vec![ty.clone()],
                }
            }
            Ty::Path { segments, args } => Ty::Path {
                segments: segments.clone(),
                args: args.iter().map(|a| self.box_recursion(a, owner)).collect(),
            },
            Ty::Tuple(items) => {
                Ty::Tuple(items.iter().map(|i| self.box_recursion(i, owner)).collect())
            }
        }
    }
}

/// The bare type names `ty` holds by value.
fn by_value(ty: &Ty, out: &mut Vec<String>) {
    match ty {
        Ty::Path { segments, .. }
            if segments.len() == 1 && INDIRECT.contains(&segments[0].as_str()) => {}
        Ty::Path { segments, args } => {
            if segments.len() == 1 {
                out.push(segments[0].clone());
            }
            args.iter().for_each(|a| by_value(a, out));
        }
        Ty::Tuple(items) => items.iter().for_each(|i| by_value(i, out)),
    }
}

//! Which struct types contain which others by value, so that a type containing itself is
//! boxed.

use crate::checked::{self, Shape};
use crate::types::Ty;

/// Which struct types contain which others by value (not behind a `Vec`, map or `Box`): a struct
/// that contains itself, directly or through others, has infinite size unless boxed.
pub(super) struct Containment {
    edges: std::collections::HashMap<String, Vec<String>>,
    /// Each type's strongly connected component: a type whose field holds a type by value
    /// leads back to it exactly when both are in one component. Computed once, in linear
    /// time: searching afresh per field took seconds on a chain of thousands of types.
    component: std::collections::HashMap<String, usize>,
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
                    if let Some(flattened) = &s.flatten {
                        by_value(&flattened.ty, &mut contained);
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
        let component = components(types, &edges);
        Containment { edges, component }
    }

    /// True when `from`, which `to` holds by value, leads back to `to` through any chain of
    /// fields: both are in one strongly connected component.
    fn reaches(&self, from: &str, to: &str) -> bool {
        from == to
            || self
                .component
                .get(from)
                .is_some_and(|c| self.component.get(to) == Some(c))
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

/// The strongly connected components of the by-value graph (Kosaraju, without recursion: a
/// chain of types can be thousands deep), as each type's component number.
fn components(
    types: &[checked::TypeDecl],
    edges: &std::collections::HashMap<String, Vec<String>>,
) -> std::collections::HashMap<String, usize> {
    let index: std::collections::HashMap<&str, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), i))
        .collect();
    let next: Vec<Vec<usize>> = types
        .iter()
        .map(|t| {
            edges[&t.name]
                .iter()
                .filter_map(|n| index.get(n.as_str()).copied())
                .collect()
        })
        .collect();
    let mut back = vec![Vec::new(); types.len()];
    for (from, to) in next.iter().enumerate() {
        for &to in to {
            back[to].push(from);
        }
    }
    // Finishing order of a depth-first walk of the graph.
    let mut order = Vec::with_capacity(types.len());
    let mut visited = vec![false; types.len()];
    for start in 0..types.len() {
        if visited[start] {
            continue;
        }
        visited[start] = true;
        let mut stack = vec![(start, 0)];
        while let Some((node, child)) = stack.pop() {
            if let Some(&to) = next[node].get(child) {
                stack.push((node, child + 1));
                if !visited[to] {
                    visited[to] = true;
                    stack.push((to, 0));
                }
            } else {
                order.push(node);
            }
        }
    }
    // In reverse finishing order, each walk of the reversed graph is one component.
    let mut component = vec![usize::MAX; types.len()];
    let mut count = 0;
    for &start in order.iter().rev() {
        if component[start] != usize::MAX {
            continue;
        }
        component[start] = count;
        let mut stack = vec![start];
        while let Some(node) = stack.pop() {
            for &from in &back[node] {
                if component[from] == usize::MAX {
                    component[from] = count;
                    stack.push(from);
                }
            }
        }
        count += 1;
    }
    types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), component[i]))
        .collect()
}

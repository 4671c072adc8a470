//! `cargo xtask layers CRATE_SRC…`: the modules of a crate that import each other in a circle.
//!
//! Each file is a module; a `crate::a::b` or `super::a` path in it (outside comments and its
//! `#[cfg(test)] mod tests`) is an edge to the longest module that path names, and so is a
//! folder's own file naming its child (`attempts::Retries`, not a `pub use` re-export); a child
//! naming its folder counts only when it names a function or a value there (`super::quoted`),
//! since the folder's types are the words its children share. Reported: every circle among
//! files (a folder's own file and its children included), and among the folders at the crate's
//! top (`call`, `policy`, …), so the crate reads in one direction; and every item named through the crate's root (`crate::Error`,
//! a re-export for the crate's users) rather than its module, an arrow to the root that sits
//! above every module. Exit 1 when there is one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

pub(crate) fn run(sources: &[PathBuf]) -> anyhow::Result<()> {
    let mut circles = 0;
    for source in sources {
        let modules = modules(source)?;
        let edges = edges(&modules);
        let files = strongly_connected(&edges);
        let folder_edges: BTreeMap<String, BTreeSet<String>> = edges
            .iter()
            .map(|(from, to)| {
                let top = |m: &str| m.split("::").next().unwrap_or_default().to_owned();
                (
                    top(from),
                    to.iter()
                        .map(|t| top(t))
                        .filter(|t| *t != top(from))
                        .collect::<Vec<_>>(),
                )
            })
            .fold(BTreeMap::new(), |mut all, (from, to)| {
                all.entry(from).or_default().extend(to);
                all
            });
        let folders = strongly_connected(&folder_edges);
        for (what, found, graph) in [
            ("modules", &files, &edges),
            ("top-level modules", &folders, &folder_edges),
        ] {
            for circle in found {
                circles += 1;
                println!(
                    "{}: {what} import each other: {}",
                    source.display(),
                    circle.join(" ⇄ ")
                );
                for from in circle {
                    let to: Vec<&str> = graph[from]
                        .iter()
                        .filter(|t| circle.contains(t))
                        .map(String::as_str)
                        .collect();
                    println!("  {from} → {}", to.join(", "));
                }
            }
        }
        for (module, path) in through_the_root(&modules) {
            circles += 1;
            println!(
                "{}: {module} names `crate::{path}` through the crate's root: name it by its module",
                source.display()
            );
        }
        if files.is_empty() && folders.is_empty() && circles == 0 {
            println!("{}: {} modules, no circle", source.display(), modules.len());
        }
    }
    if circles > 0 {
        bail!("{circles} circle(s) of imports");
    }
    Ok(())
}

/// Each module's path (`call::attempt`; `lib` for the root) and its code without comments and
/// tests.
fn modules(source: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    let mut modules = BTreeMap::new();
    let mut pending = vec![source.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(source)?.with_extension("");
            let mut parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            let name = if parts == ["lib"] || parts.is_empty() {
                "lib".to_owned()
            } else {
                parts.join("::")
            };
            let text = std::fs::read_to_string(&path)?;
            let code = text
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or_default()
                .lines()
                .map(|l| l.split("//").next().unwrap_or_default())
                .collect::<Vec<_>>()
                .join("\n");
            modules.insert(name, code);
        }
    }
    Ok(modules)
}

/// The modules each module names, itself and its own descendants left out.
fn edges(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges = BTreeMap::new();
    for (name, code) in modules {
        let mut to = BTreeSet::new();
        let parent = name.rsplit_once("::").map_or("", |(p, _)| p);
        for (prefix, base) in [("crate::", ""), ("super::", parent)] {
            for (at, _) in code.match_indices(prefix) {
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let path: String = code[at + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let mut named = base.to_owned();
                let mut longest = None;
                // The item named in the module found (`record_drift` of `super::record_drift`).
                let mut item = None;
                for segment in path.split("::").filter(|s| !s.is_empty()) {
                    if segment == "super" {
                        // `super::super::x`: one folder further up.
                        named = named.rsplit_once("::").map_or("", |(up, _)| up).to_owned();
                        continue;
                    }
                    named = if named.is_empty() {
                        segment.to_owned()
                    } else {
                        format!("{named}::{segment}")
                    };
                    if modules.contains_key(&named) {
                        longest = Some(named.clone());
                        item = None;
                    } else if item.is_none() {
                        item = Some(segment.to_owned());
                    }
                }
                let target = longest.unwrap_or_else(|| {
                    if base.is_empty() {
                        "lib".to_owned()
                    } else {
                        base.to_owned()
                    }
                });
                // A child naming its folder's types shares the folder's words; one calling
                // its folder's functions goes back up the way the call came down.
                let items = match item {
                    Some(item) => vec![item],
                    None => grouped(&code[at + prefix.len() + path.len()..]),
                };
                let upward = name.starts_with(&format!("{target}::"));
                let calls_up = items.iter().any(|item| {
                    item.starts_with(|c: char| c.is_lowercase())
                        && item != "self"
                        && !modules.contains_key(&format!("{target}::{item}"))
                });
                if target != *name
                    && !target.starts_with(&format!("{name}::"))
                    && name != "lib"
                    && (!upward || calls_up)
                {
                    to.insert(target);
                }
            }
        }
        if name != "lib" {
            to.extend(children_used(name, code, modules));
        }
        edges.insert(name.clone(), to);
    }
    edges
}

/// The first names of a `{a, b::c, D}` group at the start of `text`; none when there is no group.
fn grouped(text: &str) -> Vec<String> {
    let Some(group) = text.strip_prefix('{') else {
        return Vec::new();
    };
    let group = group.split('}').next().unwrap_or_default();
    group
        .split(',')
        .map(|item| {
            item.trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .filter(|item: &String| !item.is_empty())
        .collect()
}

/// The child modules a folder's own file names by a relative path (`attempts::Retries`,
/// `self::attempt::`): an arrow down, so that a child naming its parent's items back
/// (`super::record_drift`) is a circle inside the folder, as between siblings.
fn children_used(name: &str, code: &str, modules: &BTreeMap<String, String>) -> BTreeSet<String> {
    let prefix = format!("{name}::");
    // A re-export (`pub use attempt::Attempt;`) hands the child's item on; it does not use it.
    let code: String = code
        .split(';')
        .filter(|statement| {
            let mut statement = statement.trim_start();
            // Past its attributes (`#[cfg(feature = "schema")]`).
            while let Some(attribute) = statement.strip_prefix("#[") {
                statement = attribute.split_once(']').map_or("", |(_, rest)| rest);
                statement = statement.trim_start();
            }
            !(statement.starts_with("pub use") || statement.starts_with("pub(crate) use"))
        })
        .collect::<Vec<_>>()
        .join(";");
    let code = code.as_str();
    let mut used = BTreeSet::new();
    for child in modules.keys() {
        let Some(own) = child.strip_prefix(&prefix) else {
            continue;
        };
        if own.contains("::") {
            continue;
        }
        let path = format!("{own}::");
        let named = code.match_indices(&path).any(|(at, _)| {
            let before = &code[..at];
            let plain = !before
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
            plain || before.ends_with("self::") && !before.ends_with("super::self::")
        });
        if named {
            used.insert(child.clone());
        }
    }
    used
}

/// The items each module names through the crate's root (`crate::Error`) that the root only
/// re-exports: a path whose first segment is no module and no item the root defines.
fn through_the_root(modules: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let root = modules.get("lib").map(String::as_str).unwrap_or_default();
    let defined = |item: &str| {
        [
            "struct",
            "enum",
            "fn",
            "type",
            "trait",
            "const",
            "static",
            "macro_rules!",
        ]
        .iter()
        .any(|keyword| {
            root.match_indices(&format!("{keyword} {item}"))
                .any(|(at, _)| {
                    let after = root[at + keyword.len() + 1 + item.len()..].chars().next();
                    !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
        })
    };
    let mut found = Vec::new();
    for (name, code) in modules {
        if name == "lib" {
            continue;
        }
        for (at, _) in code.match_indices("crate::") {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
                continue;
            }
            let first: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let is_item = first.chars().next().is_some_and(char::is_uppercase);
            if is_item && !modules.contains_key(&first) && !defined(&first) {
                found.push((name.clone(), first));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The circles of a graph: its strongly connected components of more than one node (Tarjan).
fn strongly_connected(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, node: &'a str) {
            let i = self.index.len();
            self.index.insert(node, i);
            self.low.insert(node, i);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.edges.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    component.push(top.to_owned());
                    if top == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crate_of(files: &[(&str, &str)]) -> BTreeMap<String, String> {
        files
            .iter()
            .map(|(name, code)| ((*name).to_owned(), (*code).to_owned()))
            .collect()
    }

    #[test]
    fn a_re_export_named_through_the_root_is_an_arrow_up_and_an_item_of_the_root_is_not() {
        let modules = crate_of(&[
            (
                "lib",
                "pub mod error; pub use error::Error; pub struct Options;",
            ),
            ("error", "pub struct Error;"),
            (
                "call",
                "use crate::Error; use crate::Options; use crate::error::Error as E;",
            ),
        ]);
        assert_eq!(
            through_the_root(&modules),
            [("call".to_owned(), "Error".to_owned())]
        );
    }

    #[test]
    fn a_folder_that_uses_its_child_and_is_named_back_by_it_is_a_circle() {
        let modules = crate_of(&[
            (
                "call",
                "mod attempt; fn run() { attempt::Attempt::of(); } fn note() {}",
            ),
            (
                "call::attempt",
                "pub struct Attempt; fn go() { super::note(); }",
            ),
            ("call::when", "use super::attempt::Attempt;"),
        ]);
        let graph = edges(&modules);
        assert!(graph["call"].contains("call::attempt"), "{graph:?}");
        assert!(
            !graph["call"].contains("call::when"),
            "declared, never named"
        );
        assert_eq!(
            strongly_connected(&graph),
            [vec!["call".to_owned(), "call::attempt".to_owned()]]
        );
        // A child naming its folder's types, or re-exported by it, is no circle.
        let modules = crate_of(&[
            (
                "call",
                "mod attempt; pub use attempt::Step; pub struct When; \
                 fn run() { self::attempt::Attempt::of(); }",
            ),
            (
                "call::attempt",
                "pub struct Attempt; pub struct Step; use super::When;",
            ),
        ]);
        let graph = edges(&modules);
        assert!(graph["call"].contains("call::attempt"), "{graph:?}");
        assert!(strongly_connected(&graph).is_empty(), "{graph:?}");
    }

    #[test]
    fn super_super_is_one_folder_further_up() {
        let modules = crate_of(&[
            ("observe", ""),
            ("observe::probe", "use super::outlets::spans;"),
            ("observe::outlets", ""),
            (
                "observe::outlets::spans",
                "use super::super::probe::Address;",
            ),
        ]);
        let edges = edges(&modules);
        assert!(edges["observe::outlets::spans"].contains("observe::probe"));
        assert_eq!(strongly_connected(&edges).len(), 1, "{edges:?}");
    }
}

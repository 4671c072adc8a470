//! What an overlay may cost. An overlay is input too (a vendor's, a colleague's, one written
//! by a drift log from a server's answers), and a JSONPath target or an `update` can make
//! applying it exponential: `$..*` with an update doubles the document per action; filters
//! nested in filters, each with a descendant segment, cost the document's size to the power of
//! their depth; a target of ten thousand parentheses overflows the parser's stack. These bounds
//! refuse such an action, by its place, before any of it is done.

use serde_json::Value;

/// The longest target read.
const TARGET_BYTES: usize = 4096;

/// The deepest nesting of brackets and parentheses in a target.
const TARGET_DEPTH: usize = 64;

/// The deepest nesting of filters (`[?…]`) in a target.
const FILTER_DEPTH: usize = 4;

/// The most nodes a target may visit, as estimated from its shape and the document's size.
const VISITS: f64 = 50_000_000.0;

/// The most nodes one action may select.
const SELECTED: usize = 200_000;

/// What the overlay's actions have left to spend on a description. Its size is kept as an
/// estimate (an update's size times the nodes it goes into), so a long overlay does not measure
/// the whole document again after every action.
#[derive(Debug)]
pub(crate) struct Budget {
    nodes: usize,
    bytes: usize,
    limit: usize,
}

impl Budget {
    /// The budget of `document`, as it is before the first action.
    pub(crate) fn of(document: &Value) -> Budget {
        let bytes = serde_json::to_vec(document).map_or(0, |b| b.len());
        Budget {
            nodes: nodes(document),
            bytes,
            limit: growth_limit(bytes),
        }
    }

    /// Refuses a target, before it is parsed, that is too long or deep or would cost too much.
    pub(crate) fn admit(&self, target: &str) -> Result<(), String> {
        refused_target(target, self.nodes).map_or(Ok(()), Err)
    }

    /// Refuses an action that selects too many nodes.
    pub(crate) fn select(&self, selected: usize) -> Result<(), String> {
        if selected > SELECTED {
            return Err(format!(
                "the target selects {selected} nodes: one action may change at most {SELECTED}"
            ));
        }
        Ok(())
    }

    /// Spends `update` merged into `count` nodes, or refuses it past the growth limit.
    pub(crate) fn grow(&mut self, update: &Value, count: usize) -> Result<(), String> {
        let each = serde_json::to_vec(update).map_or(0, |b| b.len());
        self.bytes = self.bytes.saturating_add(each.saturating_mul(count));
        if self.bytes > self.limit {
            return Err(format!(
                "the update, into the {count} nodes the target selects, grows the description past {} MiB (four times its size, at least 4 and at most 64 MiB)",
                self.limit >> 20
            ));
        }
        self.nodes = self
            .nodes
            .saturating_add(nodes(update).saturating_mul(count));
        Ok(())
    }
}

/// The most bytes a description may grow to: four times its size, at least 4 MiB, at most
/// 64 MiB.
fn growth_limit(original: usize) -> usize {
    original.saturating_mul(4).clamp(4 << 20, 64 << 20)
}

/// Why `target` is refused before it is parsed or run on a document of `nodes` nodes, if it is.
fn refused_target(target: &str, nodes: usize) -> Option<String> {
    if target.len() > TARGET_BYTES {
        return Some(format!(
            "the target is {} bytes long: at most {TARGET_BYTES} are read",
            target.len()
        ));
    }
    let shape = shape(target);
    if shape.depth > TARGET_DEPTH {
        return Some(format!(
            "the target nests brackets {} deep: at most {TARGET_DEPTH} are read",
            shape.depth
        ));
    }
    if shape.filter_depth > FILTER_DEPTH {
        return Some(format!(
            "the target nests filters {} deep: at most {FILTER_DEPTH} are read",
            shape.filter_depth
        ));
    }
    // Each descendant segment inside a filter runs over the nodes below every node the filter
    // is tried on: the cost multiplies by the document's size.
    let visits =
        (nodes.max(1) as f64).powi(i32::try_from(shape.inner_descendants + 1).unwrap_or(i32::MAX));
    if visits > VISITS {
        return Some(format!(
            "the target's filters search the whole description {} times over ({nodes} nodes): more than it may cost; select with fewer `..` inside `[?…]`",
            shape.inner_descendants + 1
        ));
    }
    None
}

/// The nodes of `value`, itself included.
fn nodes(value: &Value) -> usize {
    let mut count = 0;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        count += 1;
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    count
}

/// What a target's text says of its cost.
#[derive(Debug, Default, PartialEq, Eq)]
struct Shape {
    /// The deepest nesting of `[` and `(`.
    depth: usize,
    /// The deepest nesting of filters.
    filter_depth: usize,
    /// Descendant segments (`..`) inside a filter.
    inner_descendants: usize,
}

/// Reads a target's nesting, skipping its string literals, in one pass.
fn shape(target: &str) -> Shape {
    let mut shape = Shape::default();
    // For each open bracket: whether it opened a filter.
    let mut open: Vec<bool> = Vec::new();
    let mut filters = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = target.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            match c {
                '\\' => {
                    chars.next();
                }
                c if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '[' | '(' => {
                let filter = c == '[' && chars.clone().find(|c| !c.is_whitespace()) == Some('?');
                open.push(filter);
                if filter {
                    filters += 1;
                    shape.filter_depth = shape.filter_depth.max(filters);
                }
                shape.depth = shape.depth.max(open.len());
            }
            ']' | ')' => filters -= usize::from(open.pop() == Some(true)),
            '.' if chars.peek() == Some(&'.') => {
                chars.next();
                if filters > 0 {
                    shape.inner_descendants += 1;
                }
            }
            _ => {}
        }
    }
    shape
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_targets_shape_is_read_outside_its_literals() {
        assert_eq!(
            shape("$.paths.*.get.parameters[?@.name == 'a[(..' && @.in == 'query']"),
            Shape {
                depth: 1,
                filter_depth: 1,
                inner_descendants: 0
            }
        );
        assert_eq!(
            shape("$..[?@..[?@..x]]"),
            Shape {
                depth: 2,
                filter_depth: 2,
                inner_descendants: 2
            }
        );
        assert_eq!(shape("$[?(@.a)]").depth, 2);
    }

    #[test]
    fn deep_long_and_costly_targets_are_refused() {
        let deep = format!("$[?{}@.a{}]", "(".repeat(10_000), ")".repeat(10_000));
        assert!(refused_target(&deep, 10).unwrap().contains("bytes long"));
        let deep = format!("$[?{}@.a{}]", "(".repeat(1_000), ")".repeat(1_000));
        assert!(
            refused_target(&deep, 10)
                .unwrap()
                .contains("brackets 1001 deep")
        );
        let filters = "$[?@[?@[?@[?@[?@.a]]]]]";
        assert!(
            refused_target(filters, 10)
                .unwrap()
                .contains("filters 5 deep")
        );
        let searching = "$..[?@..[?@..[?@..x]]]";
        assert!(
            refused_target(searching, 500)
                .unwrap()
                .contains("4 times over")
        );
        assert_eq!(refused_target("$..[?@..x]", 500), None);
        assert_eq!(refused_target("$.paths['/a'].get", 1_000_000), None);
    }

    #[test]
    fn the_growth_limit_is_four_times_within_bounds() {
        assert_eq!(growth_limit(1_000), 4 << 20);
        assert_eq!(growth_limit(10 << 20), 40 << 20);
        assert_eq!(growth_limit(100 << 20), 64 << 20);
    }
}

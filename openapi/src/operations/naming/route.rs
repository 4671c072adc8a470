//! A name from a route: what the operation does (its verb) to which resource (the route's
//! words past the prefix most routes share), its parents' words when names meet.

use std::collections::{HashMap, HashSet};

use crate::names;

/// A route's segment: a word, or a placeholder.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Segment {
    Word(String),
    Placeholder,
}

/// Levels of a route's name: its nearest parent, every ancestor, every word with the verb.
pub(super) const LAST_LEVEL: usize = 2;

/// What the description's routes say of each other: the prefix most share, and which words
/// name collections (a word some route follows with a placeholder, or a plural).
pub(super) struct Shape {
    prefix: Vec<String>,
    /// The routes up to a word a placeholder follows (`teammates/pending`), placeholders as
    /// `{}`: that word, there, is a collection.
    collections: HashSet<String>,
}

impl Shape {
    pub(super) fn of(routes: &[&str]) -> Shape {
        let split: Vec<Vec<Segment>> = routes.iter().map(|r| segments(r)).collect();
        let mut collections = HashSet::new();
        for segments in &split {
            for (at, pair) in segments.windows(2).enumerate() {
                if let [Segment::Word(_), Segment::Placeholder] = pair {
                    collections.insert(route_key(&segments[..=at]));
                }
            }
        }
        let mut prefix: Vec<String> = Vec::new();
        loop {
            let mut count: HashMap<&str, usize> = HashMap::new();
            for segments in &split {
                let shares = segments.len() > prefix.len() + 1
                    && segments
                        .iter()
                        .zip(&prefix)
                        .all(|(s, p)| *s == Segment::Word(p.clone()));
                if let (true, Some(Segment::Word(next))) = (shares, segments.get(prefix.len())) {
                    *count.entry(next.as_str()).or_default() += 1;
                }
            }
            match count
                .into_iter()
                .max_by_key(|(word, n)| (*n, std::cmp::Reverse(*word)))
            {
                // A collection (`tickets` of `/tickets/{id}`) is the resource, not a prefix.
                Some((word, n)) if n * 2 > split.len() => {
                    let mut candidate: Vec<Segment> =
                        prefix.iter().cloned().map(Segment::Word).collect();
                    candidate.push(Segment::Word(word.to_owned()));
                    if collections.contains(&route_key(&candidate)) {
                        break;
                    }
                    prefix.push(word.to_owned());
                }
                _ => break,
            }
        }
        Shape {
            prefix,
            collections,
        }
    }

    /// A route's words after the prefix (and a version or `api` segment leading what is left).
    fn own<'a>(&self, segments: &'a [Segment]) -> &'a [Segment] {
        let mut rest = segments;
        if rest.len() > self.prefix.len()
            && rest
                .iter()
                .zip(&self.prefix)
                .all(|(s, p)| *s == Segment::Word(p.clone()))
        {
            rest = &rest[self.prefix.len()..];
        }
        while let [Segment::Word(word), tail @ ..] = rest {
            if tail.is_empty() || !(word == "api" || is_version(word)) {
                break;
            }
            rest = tail;
        }
        // A route with no word of its own past the prefix keeps the prefix's last word.
        if !rest.iter().any(|s| matches!(s, Segment::Word(_))) && rest.len() < segments.len() {
            let words_before = segments.len() - rest.len();
            let last_word = segments[..words_before]
                .iter()
                .rposition(|s| matches!(s, Segment::Word(_)));
            if let Some(at) = last_word {
                rest = &segments[at..];
            }
        }
        rest
    }

    /// A word that names a collection: one a placeholder follows in some route, or a plural
    /// that is no action (`get_datasets` is one).
    fn is_collection(&self, route: &[Segment], word: &str) -> bool {
        let action = ACTION_STARTS.iter().any(|start| word.starts_with(start));
        self.collections.contains(&route_key(route))
            || (!action && singular(word) != word && plural(word) == word)
    }

    /// The name of `verb` on `route` at `level`.
    pub(super) fn name(&self, route: &str, verb: &str, level: usize) -> String {
        let all = segments(route);
        let own = self.own(&all);
        if level >= LAST_LEVEL || !own.iter().any(|s| matches!(s, Segment::Word(_))) {
            return names::method(&names::from_route(verb, route));
        }
        let words: Vec<(usize, &str)> = own
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Segment::Word(word) => Some((i, word.as_str())),
                Segment::Placeholder => None,
            })
            .collect();
        let item = matches!(own.last(), Some(Segment::Placeholder));
        let &(last_at, last) = words.last().unwrap_or(&(0, ""));
        let followed_by_placeholder =
            |at: usize| matches!(own.get(at + 1), Some(Segment::Placeholder));
        // The resource and the words that lead to it (its parents).
        let (action, resource_at) = if item || self.is_collection(&all, last) {
            (None, words.len() - 1)
        } else if words.len() > 1 {
            (Some(last), words.len() - 2)
        } else {
            (Some(last), usize::MAX)
        };
        let resource = (resource_at != usize::MAX).then(|| {
            let (at, word) = words[resource_at];
            // One item (followed by a placeholder) in the singular, else as the route has it.
            let singular_form = followed_by_placeholder(at) || (item && at == last_at);
            (at, word, singular_form)
        });
        let parents = match resource {
            Some(_) if resource_at > 0 => {
                parents(&words[..resource_at], level, followed_by_placeholder)
            }
            _ => Vec::new(),
        };
        let target = |form: fn(&str) -> String| -> String {
            let mut out = parents.clone();
            if let Some((_, word, singular_form)) = resource {
                out.push(if singular_form {
                    singular(word)
                } else {
                    form(word)
                });
            }
            out.join("_")
        };
        names::method(&phrase(verb, action, item, target))
    }
}

/// What `verb` does, said of a route read as an action on a target, or an item or a collection.
fn phrase(
    verb: &str,
    action: Option<&str>,
    item: bool,
    target: impl Fn(fn(&str) -> String) -> String,
) -> String {
    let verb = verb.to_ascii_lowercase();
    match (action, item) {
        (Some(action), _) => {
            let target = target(str::to_owned);
            match (verb.as_str(), target.is_empty()) {
                ("post" | "put" | "patch", true) => action.to_owned(),
                ("post" | "put" | "patch", false) => format!("{action}_{target}"),
                // The route's word says what it does already: `GET …/get_datasets`.
                ("get", true) if ACTION_STARTS.iter().any(|s| action.starts_with(s)) => {
                    action.to_owned()
                }
                ("get", _) if READS.contains(&action) => [action, target.as_str()]
                    .join("_")
                    .trim_end_matches('_')
                    .to_owned(),
                (verb, true) => format!("{verb}_{action}"),
                (verb, false) => format!("{verb}_{target}_{action}"),
            }
        }
        (None, true) => {
            let what = match verb.as_str() {
                "put" => "update",
                "patch" => "patch",
                "delete" => "delete",
                "get" => "get",
                other => other,
            };
            format!("{what}_{}", target(singular))
        }
        // A collection as the route calls it: a plural mostly, `pending` as it is.
        (None, false) => match verb.as_str() {
            "get" => format!("list_{}", target(str::to_owned)),
            "post" => format!("create_{}", target(singular)),
            "put" => format!("update_{}", target(str::to_owned)),
            other => format!("{other}_{}", target(str::to_owned)),
        },
    }
}

/// The words naming a resource's ancestors (`ancestors`, each with its place in the route): the
/// nearest item it is nested under and the words after it (`transaction_relationships` of
/// `/transactions/{id}/relationships/tags`), an item in the singular; every ancestor above
/// level 0, where that meets another name.
fn parents(
    ancestors: &[(usize, &str)],
    level: usize,
    followed_by_placeholder: impl Fn(usize) -> bool,
) -> Vec<String> {
    let nearest = ancestors
        .iter()
        .rposition(|&(at, _)| followed_by_placeholder(at));
    let shown: &[(usize, &str)] = match (level, nearest) {
        (0, Some(nearest)) => &ancestors[nearest..],
        _ => ancestors,
    };
    shown
        .iter()
        .map(|&(at, word)| {
            if followed_by_placeholder(at) {
                singular(word)
            } else {
                word.to_owned()
            }
        })
        .collect()
}

/// How a route's word that is an action starts (`get_datasets`, `list_all`).
const ACTION_STARTS: [&str; 8] = [
    "get_", "list_", "create_", "update_", "delete_", "set_", "search_", "find_",
];

/// Action words a GET reads with: `GET /tickets/search` is `search_tickets`.
const READS: [&str; 7] = [
    "search", "list", "find", "lookup", "count", "export", "filter",
];

/// A route's segments, each word as a method name's word (`order-items` → `order_items`), a
/// file extension (`users.json`) left out.
fn segments(route: &str) -> Vec<Segment> {
    // A path key's query (`/items?recursion=1`) is no part of the route.
    let route = route.split('?').next().unwrap_or(route);
    let mut out = Vec::new();
    for s in route.split('/').filter(|s| !s.is_empty()) {
        let s = [".json", ".xml"]
            .iter()
            .find_map(|ext| s.strip_suffix(ext))
            .unwrap_or(s);
        if s.starts_with('{') || s.starts_with(':') {
            out.push(Segment::Placeholder);
            continue;
        }
        // A custom method (`subusers:batchAdd`, Google's style) is the resource, then its action.
        match s.split_once(':') {
            Some((resource, action)) if !action.is_empty() && !action.starts_with('{') => {
                out.push(Segment::Word(names::word(resource)));
                out.push(Segment::Word(names::word(action)));
            }
            _ => out.push(Segment::Word(names::word(s))),
        }
    }
    out
}

/// Whether an operationId only spells its verb and route, prefix and all (`GET_v3-teammates`,
/// `PATCH_v3-senders-sender_id`): its first word is the verb, the rest are the route's words
/// (a placeholder's name too), and among them the `api` or version the route starts with,
/// which no name a person chose repeats.
pub(super) fn spells_route(id: &str, verb: &str, route: &str) -> bool {
    let id = names::method(id);
    let mut words = id.split('_');
    if words.next() != Some(verb) {
        return false;
    }
    let route = route.split('?').next().unwrap_or(route);
    let route_words: HashSet<String> = route
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(names::word)
        .flat_map(|w| w.split('_').map(str::to_owned).collect::<Vec<_>>())
        .collect();
    let first = route
        .split('/')
        .find(|s| !s.is_empty())
        .map(names::word)
        .unwrap_or_default();
    let rest: Vec<&str> = words.collect();
    (first == "api" || is_version(&first))
        && rest.contains(&first.as_str())
        && rest.iter().all(|w| route_words.contains(*w))
}

/// A route's segments as one text, placeholders as `{}`.
fn route_key(segments: &[Segment]) -> String {
    let parts: Vec<&str> = segments
        .iter()
        .map(|s| match s {
            Segment::Word(word) => word.as_str(),
            Segment::Placeholder => "{}",
        })
        .collect();
    parts.join("/")
}

/// `v1`, `v2.1`, `v1beta2`: an API's version in its route.
fn is_version(word: &str) -> bool {
    word.strip_prefix('v')
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The singular of a snake-case name's last word (`data`, `metadata` and `media` stay).
pub(super) fn singular(word: &str) -> String {
    if [
        "data", "media", "info", "status", "news", "series", "settings",
    ]
    .iter()
    .any(|same| word.ends_with(same))
    {
        return word.to_owned();
    }
    last_word(word, 1)
}

/// The plural of a snake-case name's last word.
fn plural(word: &str) -> String {
    last_word(word, 2)
}

fn last_word(word: &str, count: isize) -> String {
    match word.rsplit_once('_') {
        Some((head, last)) => format!("{head}_{}", pluralizer::pluralize(last, count, false)),
        None => pluralizer::pluralize(word, count, false),
    }
}

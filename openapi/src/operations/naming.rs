//! Method names for operations without an operationId, as a reviewer writes them, and the
//! names SDK generators' extensions give (`x-fern-sdk-method-name`,
//! `x-speakeasy-name-override`), which win over an operationId.
//!
//! A route's name leaves out the prefix most routes share (`/api/v1`: the base path's
//! business) and says what the operation does to which resource: a collection's GET is
//! `list_<plural>`, an item's (`…/{id}`) `get_<singular>`, a POST on a collection
//! `create_<singular>`, a PUT, PATCH or DELETE on an item `update_`, `patch_`, `delete_`; a
//! nested resource names its parent (`list_product_variants`), an action sub-route its action
//! (`close_ticket`, `bulk_remove_product_tags`). Where two names meet, each takes more of its
//! route (every ancestor, then every word) until they part: never a number. An operationId that
//! only spells its verb and route (`GET_v3-teammates`) is named as a route is. Every name is
//! decided over the whole description, so selecting operations changes none.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::Found;
use crate::names;

/// An operation's place: its route and its verb's key.
pub(super) type Key = (String, &'static str);

/// The names the description's operations take from a vendor extension or their route (an
/// operation with an operationId and no extension is not in it), and for each the name the
/// route gave before (`get_api_v1_tickets`), which a spec's entry may still use.
#[derive(Debug, Default)]
pub(super) struct Named {
    pub(super) names: HashMap<Key, String>,
    pub(super) earlier: HashMap<Key, String>,
}

/// An operation's place, its operationId (unless it only spells its route) and its vendor
/// name with its group.
type Entry<'a> = (Key, Option<&'a str>, Option<(String, String)>);

/// A route's segment: a word, or a placeholder.
#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Word(String),
    Placeholder,
}

/// Names every operation (route, verb's key, the operation with its `$ref`s followed) that has
/// a vendor name or no operationId.
pub(super) fn operation_names(all: &[Found]) -> Named {
    let mut operations: Vec<Entry<'_>> = Vec::new();
    for found in all {
        // An operationId that only spells its verb and route (`GET_v3-teammates`) names
        // nothing a route does not: the route's name is taken.
        let id = found
            .operation
            .get("operationId")
            .and_then(Value::as_str)
            .filter(|id| !spells_route(id, found.verb, &found.route));
        let key = (found.route.clone(), found.verb);
        operations.push((key, id, vendor_name(&found.operation)));
    }
    let mut named = Named::default();
    // Names that are fixed: operationIds without a vendor name.
    let mut fixed: HashSet<String> = operations
        .iter()
        .filter(|(_, id, vendor)| vendor.is_none() && id.is_some())
        .filter_map(|(_, id, _)| id.map(|id| names::method(id).to_ascii_lowercase()))
        .collect();
    vendor_names(&operations, &mut named, &mut fixed);
    shared_ids(&operations, &mut named, &mut fixed);
    let mut routes: Vec<&str> = all.iter().map(|found| found.route.as_str()).collect();
    routes.dedup();
    let shape = Shape::of(&routes);
    let unnamed: Vec<&Key> = operations
        .iter()
        .filter(|(_, id, vendor)| id.is_none() && vendor.is_none())
        .map(|(key, _, _)| key)
        .collect();
    let mut levels = vec![0usize; unnamed.len()];
    let name_of = |key: &Key, level: usize| shape.name(&key.0, key.1, level);
    for _ in 0..=LAST_LEVEL {
        let taken: Vec<String> = unnamed
            .iter()
            .zip(&levels)
            .map(|(key, level)| name_of(key, *level).to_ascii_lowercase())
            .collect();
        let mut count: HashMap<&str, usize> = HashMap::new();
        for name in &taken {
            *count.entry(name.as_str()).or_default() += 1;
        }
        let mut moved = false;
        for (i, name) in taken.iter().enumerate() {
            let clashes = count[name.as_str()] > 1 || fixed.contains(name);
            if clashes && levels[i] < LAST_LEVEL {
                levels[i] += 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    for (key, level) in unnamed.into_iter().zip(levels) {
        let earlier = names::method(&names::from_route(key.1, &key.0));
        let name = name_of(key, level);
        if name != earlier {
            named.earlier.insert(key.clone(), earlier);
        }
        named.names.insert(key.clone(), name);
    }
    named
}

/// The name an SDK generator's extension gives an operation, and its group's words:
/// `x-fern-sdk-method-name` with `x-fern-sdk-group-name`, or `x-speakeasy-name-override` with
/// `x-speakeasy-group`.
fn vendor_name(operation: &Value) -> Option<(String, String)> {
    let text = |key: &str| operation.get(key).and_then(Value::as_str).map(str::trim);
    let group = |key: &str| match operation.get(key) {
        Some(Value::String(group)) => group.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("_"),
        _ => String::new(),
    };
    let (method, group) = match text("x-fern-sdk-method-name") {
        Some(method) => (method, group("x-fern-sdk-group-name")),
        None => (
            text("x-speakeasy-name-override")?,
            group("x-speakeasy-group"),
        ),
    };
    (!method.is_empty()).then(|| (method.to_owned(), group))
}

/// Vendor names: the method's alone where no other operation has it, else with its group's
/// words after it (`create_users`, `create_teams`), else left to the operationId or route.
fn vendor_names(operations: &[Entry<'_>], named: &mut Named, fixed: &mut HashSet<String>) {
    let alone = |method: &str| names::method(method);
    let grouped = |method: &str, group: &str| {
        if group.is_empty() {
            alone(method)
        } else {
            names::method(&format!("{method}_{group}"))
        }
    };
    let mut count: HashMap<String, usize> = HashMap::new();
    for (_, _, vendor) in operations {
        if let Some((method, _)) = vendor {
            *count.entry(alone(method).to_ascii_lowercase()).or_default() += 1;
        }
    }
    let mut chosen: Vec<(&Key, String)> = Vec::new();
    for (key, _, vendor) in operations {
        let Some((method, group)) = vendor else {
            continue;
        };
        let name = if count[&alone(method).to_ascii_lowercase()] == 1 {
            alone(method)
        } else {
            grouped(method, group)
        };
        chosen.push((key, name));
    }
    let mut again: HashMap<String, usize> = HashMap::new();
    for (_, name) in &chosen {
        *again.entry(name.to_ascii_lowercase()).or_default() += 1;
    }
    for (key, name) in chosen {
        // Two extensions that still agree name nothing: the operationId or route does.
        if again[&name.to_ascii_lowercase()] == 1 && fixed.insert(name.to_ascii_lowercase()) {
            named.names.insert(key.clone(), name);
        }
    }
}

/// Operations that share an operationId (three `GetConnectionManager`s, one route under
/// another): each is the id and the words its route has past the routes' common part
/// (`get_connection_manager_connection_manager_xml`); the one with none, or none the id does not
/// say already, keeps the id. Never a
/// number, which would name them by their order in the document. (Ids a generator numbered
/// itself, `GetConnectionManager_2`, are the description's own names and stay.)
fn shared_ids(operations: &[Entry<'_>], named: &mut Named, fixed: &mut HashSet<String>) {
    let base = |id: &str| names::method(id).to_ascii_lowercase();
    let mut groups: HashMap<String, Vec<&Key>> = HashMap::new();
    for (key, id, vendor) in operations {
        if let (Some(id), None) = (id, vendor) {
            groups.entry(base(id)).or_default().push(key);
        }
    }
    for keys in groups.values().filter(|keys| keys.len() > 1) {
        // Every word of each route, a file extension its own word (`connection_manager_xml`).
        let words: Vec<Vec<String>> = keys
            .iter()
            .map(|key| {
                let route = key.0.split('?').next().unwrap_or(&key.0);
                route
                    .split('/')
                    .filter(|s| !s.is_empty() && !s.starts_with('{'))
                    .map(names::word)
                    .collect()
            })
            .collect();
        let common = (0..)
            .take_while(|&n| {
                words
                    .iter()
                    .all(|w| w.get(n).is_some() && w[n] == words[0][n])
            })
            .count();
        let id = operations
            .iter()
            .find(|(key, _, _)| key == keys[0])
            .and_then(|(_, id, _)| *id)
            .map(|id| names::method(&base(id)))
            .unwrap_or_default();
        // A route whose words past the common part the id says already (`items` of
        // `get_item`) keeps the id too.
        let id_words: HashSet<String> = id.split('_').map(singular).collect();
        let said = |past: &[String]| {
            past.iter()
                .flat_map(|w| w.split('_'))
                .all(|w| id_words.contains(&singular(w)))
        };
        let choose = |keep: &dyn Fn(&[String]) -> bool| -> Option<Vec<String>> {
            let chosen: Vec<String> = words
                .iter()
                .map(|w| {
                    let past = &w[common..];
                    if keep(past) {
                        id.clone()
                    } else {
                        names::method(&format!("{id}_{}", past.join("_")))
                    }
                })
                .collect();
            let distinct: HashSet<String> = chosen.iter().map(|c| c.to_ascii_lowercase()).collect();
            (distinct.len() == chosen.len()).then_some(chosen)
        };
        // The routes do not tell them apart (two verbs on one route): left as they are.
        let Some(chosen) = choose(&said).or_else(|| choose(&|past: &[String]| past.is_empty()))
        else {
            continue;
        };
        for (key, name) in keys.iter().zip(chosen) {
            let own = operations
                .iter()
                .find(|(k, _, _)| k == *key)
                .and_then(|(_, id, _)| id.map(names::method));
            if Some(&name) != own.as_ref() {
                fixed.insert(name.to_ascii_lowercase());
                named.names.insert((*key).clone(), name);
            }
        }
    }
}

/// Levels of a route's name: its nearest parent, every ancestor, every word with the verb.
const LAST_LEVEL: usize = 2;

/// What the description's routes say of each other: the prefix most share, and which words
/// name collections (a word some route follows with a placeholder, or a plural).
struct Shape {
    prefix: Vec<String>,
    /// The routes up to a word a placeholder follows (`teammates/pending`), placeholders as
    /// `{}`: that word, there, is a collection.
    collections: HashSet<String>,
}

impl Shape {
    fn of(routes: &[&str]) -> Shape {
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
    fn name(&self, route: &str, verb: &str, level: usize) -> String {
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
fn spells_route(id: &str, verb: &str, route: &str) -> bool {
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
fn singular(word: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::operation_names;
    use serde_json::json;

    fn named(routes: &[(&str, &str)]) -> Vec<String> {
        let all: Vec<super::Found> = routes
            .iter()
            .map(|(verb, route)| super::Found::bare(route, verb, json!({ "responses": {} })))
            .collect();
        let named = operation_names(&all);
        all.iter()
            .map(|found| named.names[&(found.route.clone(), found.verb)].clone())
            .collect()
    }

    #[test]
    fn routes_are_named_by_what_they_do_to_which_resource() {
        let routes = [
            ("get", "/api/v3/admin/gift_cards"),
            ("post", "/api/v3/admin/gift_cards"),
            ("get", "/api/v3/admin/gift_cards/{id}"),
            ("put", "/api/v3/admin/gift_cards/{id}"),
            ("patch", "/api/v3/admin/gift_cards/{id}"),
            ("delete", "/api/v3/admin/gift_cards/{id}"),
            ("get", "/api/v3/admin/products/{product_id}/variants"),
            ("get", "/api/v3/admin/products/{product_id}/variants/{id}"),
            (
                "post",
                "/api/v3/admin/products/{product_id}/tags/bulk_remove",
            ),
            ("post", "/api/v3/admin/tickets/{id}/close"),
            ("get", "/api/v3/admin/tickets/search"),
            ("get", "/api/v3/admin/appprofile/"),
            ("get", "/api/v3/admin/appprofile/schema/"),
            ("get", "/health"),
            ("post", "/api/v3/admin/users/{id}/keys:batchAdd"),
            ("patch", "/api/v3/admin/requests/{id}/approve"),
        ];
        // One resource under a shared prefix: the resource stays.
        let helpdesk = [
            ("get", "/api/v1/tickets/"),
            ("post", "/api/v1/tickets/"),
            ("get", "/api/v1/tickets/{id}/"),
            ("patch", "/api/v1/tickets/{id}/"),
            ("delete", "/api/v1/tickets/{id}/"),
            ("post", "/api/v1/tickets/{id}/close/"),
            ("post", "/api/v1/tickets/bulk/"),
            ("get", "/api/v1/tickets/{id}/attachment/"),
        ];
        assert_eq!(
            named(&helpdesk),
            [
                "list_tickets",
                "create_ticket",
                "get_ticket",
                "patch_ticket",
                "delete_ticket",
                "close_ticket",
                "bulk_tickets",
                "get_ticket_attachment"
            ]
        );
        assert_eq!(
            named(&routes),
            [
                "list_gift_cards",
                "create_gift_card",
                "get_gift_card",
                "update_gift_card",
                "patch_gift_card",
                "delete_gift_card",
                "list_product_variants",
                "get_product_variant",
                "bulk_remove_product_tags",
                "close_ticket",
                "search_tickets",
                "get_appprofile",
                "get_appprofile_schema",
                "get_health",
                "batch_add_user_keys",
                "approve_request",
            ]
        );
    }

    #[test]
    fn operations_sharing_an_id_are_told_apart_by_their_routes() {
        let all: Vec<super::Found> = [
            "/Dlna/{id}/ConnectionManager",
            "/Dlna/{id}/ConnectionManager/ConnectionManager",
            "/Dlna/{id}/ConnectionManager/ConnectionManager.xml",
        ]
        .iter()
        .map(|route| {
            super::Found::bare(
                route,
                "get",
                json!({ "operationId": "GetConnectionManager" }),
            )
        })
        .collect();
        let named = operation_names(&all);
        let name = |i: usize| named.names.get(&(all[i].route.clone(), "get")).cloned();
        assert_eq!(name(0), None, "the first keeps its id");
        assert_eq!(
            name(1).as_deref(),
            Some("get_connection_manager_connection_manager")
        );
        assert_eq!(
            name(2).as_deref(),
            Some("get_connection_manager_connection_manager_xml")
        );
    }

    #[test]
    fn an_id_that_spells_its_route_is_named_as_the_route_is() {
        use super::spells_route;
        assert!(spells_route("GET_v3-teammates", "get", "/v3/teammates"));
        assert!(spells_route(
            "PATCH_v3-senders-sender_id",
            "patch",
            "/v3/senders/{sender_id}"
        ));
        assert!(!spells_route("getTeammates", "get", "/v3/teammates"));
        assert!(!spells_route("GET_teammates", "get", "/teammates"));
        assert!(!spells_route("GET_v3-invite", "get", "/v3/teammates"));
    }

    #[test]
    fn names_that_meet_take_more_of_their_route_never_a_number() {
        let routes = [
            ("get", "/v1/repos"),
            ("get", "/v1/users/{user}/repos"),
            ("get", "/v1/orgs/{org}/repos"),
            ("get", "/v1/orgs/{org}/teams/{team}/repos"),
            ("get", "/v1/users/{user}/teams/{team}/repos"),
        ];
        let names = named(&routes);
        assert_eq!(names[0], "list_repos");
        assert_eq!(names[1], "list_user_repos");
        assert_eq!(names[2], "list_org_repos");
        assert_ne!(names[3], names[4]);
        assert!(
            names.iter().all(|n| !n.ends_with(char::is_numeric)),
            "{names:?}"
        );
    }
}

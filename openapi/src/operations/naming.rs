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

mod affix;
mod route;
pub(super) use affix::Shortened;
use route::{LAST_LEVEL, Shape, singular, spells_route};

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

#[cfg(test)]
mod tests;

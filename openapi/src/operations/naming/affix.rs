//! Operation names without their generator's affix (FastAPI's `_{path}_{verb}`, NestJS's
//! `Controller_`, springfox's `Using{VERB}`), where the shorter name is no other operation's.

use serde_json::Value;

use super::Named;
use crate::names;
use crate::spec::Verb;
use crate::walk::Builder;

/// Which operation names lose their generator's affix, by route and verb.
pub(in crate::operations) type Shortened =
    std::collections::HashMap<(String, &'static str), (String, String)>;

impl Builder<'_> {
    /// [`shortened_names`], with one note saying how many.
    pub(in crate::operations) fn shortened_names(
        &mut self,
        paths: &serde_json::Map<String, Value>,
        named: &Named,
    ) -> Shortened {
        let shortened = shortened_names(paths, named);
        if !shortened.is_empty() {
            let place = self.docs.top().child("paths");
            self.note(
                &place,
                false,
                format!(
                    "{} operations named without their generator's affix (FastAPI's `_{{path}}_{{verb}}`, NestJS's `Controller_`, springfox's `Using{{VERB}}`); a spec's entry may use either name",
                    shortened.len()
                ),
            );
        }
        shortened
    }
}

/// The operations whose operationId loses its generator's affix (see
/// [`names::without_generator_affix`]), by route and verb: (the name taken, the name the id
/// spells). Only where the shorter name is no other operation's, told apart without case.
fn shortened_names(paths: &serde_json::Map<String, Value>, named: &Named) -> Shortened {
    let mut candidates = Vec::new();
    let mut count: std::collections::HashMap<String, usize> = Default::default();
    for (route, item) in paths {
        for verb in Verb::ALL {
            let Some(operation) = item.get(verb.key()) else {
                continue;
            };
            let key = (route.clone(), verb.key());
            if let Some(name) = named.names.get(&key) {
                // A vendor's or a route's name: no generator's affix to take off.
                *count.entry(name.to_ascii_lowercase()).or_default() += 1;
                continue;
            }
            let id = operation.get("operationId").and_then(Value::as_str);
            let full = match id {
                Some(id) => names::method(id),
                None => names::method(&names::from_route(verb.key(), route)),
            };
            let short = id
                .and_then(|id| names::without_generator_affix(id, verb.key(), route))
                .map(|short| names::method(&short))
                .filter(|short| *short != full);
            *count
                .entry(short.as_ref().unwrap_or(&full).to_ascii_lowercase())
                .or_default() += 1;
            if let Some(short) = short {
                candidates.push(((route.clone(), verb.key()), (short, full)));
            }
        }
    }
    candidates
        .into_iter()
        .filter(|(_, (short, _))| count[&short.to_ascii_lowercase()] == 1)
        .collect()
}

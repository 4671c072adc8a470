//! Operations → methods. Each operation becomes an [`Operation`] value (where it is, its verb,
//! route and name), and its method is made in three steps, one file each: the parameters
//! (`parameters.rs`), the body (`body.rs`) and the responses (`responses.rs`). An operation is
//! skipped only when it cannot be called at all; anything less is a note.

mod body;
mod naming;
mod parameters;
mod responses;
mod shared_headers;
mod streams;

use serde_json::Value;

use crate::Options;
use crate::document::{Place, Version};
use crate::names;
use crate::spec::{MethodOut, Verb};
use crate::ty::Encoding;
use crate::walk::Builder;
pub(crate) use body::pick_media;

/// One operation of the description, as the method builder reads it.
pub(crate) struct Operation {
    /// Where the operation object is (after its `$ref`, if it has one).
    pub(crate) place: Place,
    pub(crate) value: Value,
    /// The path item it belongs to, and the parameters declared there for every operation.
    pub(crate) item_place: Place,
    pub(crate) shared: Value,
    pub(crate) verb: Verb,
    pub(crate) route: String,
    /// The method's name.
    pub(crate) name: String,
    /// The stem of the names of its inline types (`CreateUser` → `CreateUserBody`).
    pub(crate) type_base: String,
}

/// What an operation became.
pub(crate) enum Made {
    Method(Box<MethodOut>),
    /// It cannot be called as the description says, and why.
    Skipped(String),
}

impl Builder<'_> {
    /// Every operation of the description (after the tag and operation filters).
    pub(crate) fn operations(&mut self, options: &Options) {
        let top = self.docs.top();
        let paths = self
            .docs
            .root_value()
            .get("paths")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut taken_methods = names::Taken::default();
        let (every, named) = self.operation_names(&paths);
        let shortened = self.shortened_names(&paths, &named);
        for (route, item) in &paths {
            let item_place = top.child("paths").child(route);
            let (item_place, item) = match self.docs.follow(&item_place, item) {
                Ok(found) => found,
                Err(error) => {
                    self.unresolved(error, "the path's operations are left out");
                    continue;
                }
            };
            let shared = item.get("parameters").cloned().unwrap_or(Value::Null);
            for (verb, operation_place, operation) in
                self.item_operations(route, &item_place, &item)
            {
                let (place, operation) = match self.docs.follow(&operation_place, &operation) {
                    Ok(found) => found,
                    Err(error) => {
                        self.unresolved(error, "the operation is left out");
                        continue;
                    }
                };
                let key = (route.clone(), verb.key());
                let (short, own_name) = naming_of(&named, &shortened, &key);
                let short = short.as_ref();
                let Some(base_name) =
                    selected(options, &operation, verb, route, short, own_name.as_deref())
                else {
                    continue;
                };
                if let Some((short, full)) = short {
                    self.spec
                        .summary
                        .shortened
                        .push((short.clone(), full.clone()));
                }
                self.spec.summary.operations += 1;
                let label = format!("{} {route}", verb.upper());
                let name = names::unique(&base_name, "_", &mut taken_methods);
                if name != base_name {
                    self.note(
                        &place,
                        false,
                        format!("{label}: named `{name}`, as `{base_name}` is another operation's"),
                    );
                }
                self.keep_callbacks(&name, &place, &operation);
                let full_name = short.map(|(_, full)| full.as_str());
                let operation = Operation {
                    type_base: type_base(options, &name, full_name),
                    place,
                    value: operation,
                    item_place: item_place.clone(),
                    shared: shared.clone(),
                    verb,
                    route: route.clone(),
                    name,
                };
                match self.method(&operation) {
                    Made::Method(mut method) => {
                        let twin = method.stream_twin.take().map(|stream| {
                            self.stream_twin(&mut method, stream, &label, &mut taken_methods)
                        });
                        self.spec.methods.push(*method);
                        self.spec.methods.extend(twin);
                    }
                    Made::Skipped(reason) => self.spec.summary.skipped.push((label, reason)),
                }
            }
        }
        self.client_wide_headers(&every);
    }

    /// The operation's `callbacks`, read with the description's webhooks (`webhooks.rs`).
    fn keep_callbacks(&mut self, name: &str, place: &Place, operation: &Value) {
        if let Some(callbacks) = operation.get("callbacks") {
            let at = place.child("callbacks");
            self.callbacks
                .push((name.to_owned(), at, callbacks.clone()));
        }
    }

    /// Every operation of the description and the names decided over all of them, noted.
    fn operation_names(
        &mut self,
        paths: &serde_json::Map<String, Value>,
    ) -> (Vec<Found>, naming::Named) {
        let every = self.every_operation(paths);
        let named = naming::operation_names(&every);
        if !named.earlier.is_empty() {
            let place = self.docs.top().child("paths");
            self.note(
                &place,
                false,
                format!(
                    "{} operations without an operationId (or with one that only spells the route, or with an SDK generator's name) named as a reviewer would (`list_tickets`, `get_ticket`, `close_ticket`); a spec's entry may use the route's full name too (`get_api_v1_tickets`)",
                    named.earlier.len()
                ),
            );
        }
        (every, named)
    }

    /// Every operation of the description, its path item's and its own `$ref` followed: the
    /// names and the client-wide headers are decided over all of them, whichever are selected.
    fn every_operation(&mut self, paths: &serde_json::Map<String, Value>) -> Vec<Found> {
        let top = self.docs.top();
        let mut out = Vec::new();
        for (route, item) in paths {
            let item_place = top.child("paths").child(route);
            let Ok((item_place, item)) = self.docs.follow(&item_place, item) else {
                continue;
            };
            let shared = self.parameters_of(&item_place, &item);
            for verb in Verb::ALL {
                let Some(operation) = item.get(verb.key()) else {
                    continue;
                };
                let place = item_place.child(verb.key());
                if let Ok((place, operation)) = self.docs.follow(&place, operation) {
                    out.push(Found {
                        route: route.clone(),
                        verb: verb.key(),
                        place,
                        operation,
                        shared: shared.clone(),
                    });
                }
            }
        }
        out
    }

    /// An operation's (or a path item's) parameters: where, name, required, and the schema
    /// that types it (a 2.0 parameter's own type keys).
    fn parameters_of(&mut self, at: &Place, holder: &Value) -> Vec<(String, String, bool, Value)> {
        let Some(list) = holder.get("parameters").and_then(Value::as_array) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (index, param) in list.iter().enumerate() {
            let place = at.child("parameters").child(&index.to_string());
            let Ok((_, param)) = self.docs.follow(&place, param) else {
                continue;
            };
            let text = |key: &str| {
                param
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            };
            let shape = param.get("schema").cloned().unwrap_or_else(|| {
                let keys = ["type", "format", "items", "enum"];
                Value::Object(
                    keys.iter()
                        .filter_map(|k| Some(((*k).to_owned(), param.get(*k)?.clone())))
                        .collect(),
                )
            });
            let required = param.get("required").and_then(Value::as_bool) == Some(true);
            out.push((text("in"), text("name"), required, shape));
        }
        out
    }

    pub(crate) fn item_operations(
        &mut self,
        route: &str,
        item_place: &Place,
        item: &Value,
    ) -> Vec<(Verb, Place, Value)> {
        let mut found: Vec<(Verb, Place, Value)> = Verb::ALL
            .into_iter()
            .filter_map(|verb| {
                let operation = item.get(verb.key())?.clone();
                Some((verb, item_place.child(verb.key()), operation))
            })
            .collect();
        let additional = item.get("additionalOperations").and_then(Value::as_object);
        for (method, operation) in additional.into_iter().flatten() {
            let place = item_place.child("additionalOperations").child(method);
            match Verb::from_key(method) {
                Some(verb) if item.get(verb.key()).is_none() => {
                    found.push((verb, place, operation.clone()));
                }
                _ => {
                    self.spec.summary.operations += 1;
                    self.spec.summary.skipped.push((
                        format!("{method} {route}"),
                        "an HTTP method remcall does not send (`additionalOperations`)".to_owned(),
                    ));
                }
            }
        }
        found
    }

    /// The second method of an operation that answers JSON or a stream, a flag in its body
    /// choosing: `<method>_events` (or `_lines`), the same request, the stream as its answer.
    /// Each sets the body's stream flag itself when the importer finds it.
    fn stream_twin(
        &mut self,
        method: &mut MethodOut,
        stream: crate::spec::StreamOut,
        label: &str,
        taken: &mut names::Taken,
    ) -> MethodOut {
        let suffix = stream.kind.word();
        let name = names::unique(&format!("{}_{suffix}", method.name), "_", taken);
        let place = self.docs.top();
        let flag = method.stream_flag.clone();
        let chosen = match &flag {
            Some(flag) => format!("each sets its body's `{flag}` flag itself"),
            None => format!(
                "no body flag says which, so each asks by `Accept`: `application/json`, `{}`",
                stream.media
            ),
        };
        self.note(
            &place,
            false,
            format!("{label}: answers JSON or a stream, chosen by its body: `{}` reads the JSON, `{name}` the stream; {chosen}", method.name),
        );
        if let Some(flag) = &flag {
            method.body_sets = vec![(flag.clone(), false)];
        }
        // Without a flag the server chooses by what is asked for (a task log answering JSON or
        // NDJSON by `Accept`): each method asks for its own, where `*/*` would get the JSON.
        let accept = |method: &mut MethodOut, media: &str| {
            if flag.is_none() {
                let profile = method.profile.get_or_insert_with(Default::default);
                profile.fixed_headers = vec![("Accept".to_owned(), media.to_owned())];
            }
        };
        let mut twin_profile = method.clone();
        accept(&mut twin_profile, &stream.media);
        accept(method, "application/json");
        MethodOut {
            name,
            returns: None,
            responses: Vec::new(),
            paginate: None,
            stream: Some(stream),
            is_twin: true,
            body_sets: flag.into_iter().map(|flag| (flag, true)).collect(),
            profile: twin_profile.profile,
            ..method.clone()
        }
    }

    /// One operation's method: its parameters, its body, its responses.
    fn method(&mut self, operation: &Operation) -> Made {
        let mut method = MethodOut {
            name: operation.name.clone(),
            doc: operation_doc(&operation.value),
            ..MethodOut::default()
        };
        method.pages_hint.dropshot = operation.value.get("x-dropshot-pagination").is_some();
        let inputs = match self.parameters(operation, &mut method) {
            Ok(inputs) => inputs,
            Err(reason) => return Made::Skipped(reason),
        };
        self.body(operation, inputs, &mut method);
        self.responses(operation, &mut method);
        self.operation_credentials(operation, &mut method);
        Made::Method(Box::new(method))
    }
}

impl Builder<'_> {
    /// The media type a 2.0 operation sends (`consumes`) or answers in (`produces`): its own
    /// list, else the document's, the best of it by [`Encoding::of_media`]'s rank (JSON when it
    /// lists JSON). `None` for 3.x, or when neither says.
    pub(crate) fn swagger_media(
        &self,
        operation: &Operation,
        key: &str,
    ) -> Option<(String, Encoding)> {
        self.swagger_media_list(operation, key)?
            .into_iter()
            .map(|m| (Encoding::of_media(&m), m))
            .min_by_key(|((rank, _), _)| *rank)
            .map(|((_, encoding), media)| (media, encoding))
    }

    /// Every media type a Swagger 2.0 operation `produces` (or `consumes`), its own list else
    /// the document's; `None` for another version or when neither lists any.
    pub(crate) fn swagger_media_list(
        &self,
        operation: &Operation,
        key: &str,
    ) -> Option<Vec<String>> {
        if self.docs.version != Version::Swagger2 {
            return None;
        }
        let listed = |value: Option<&Value>| -> Option<Vec<String>> {
            let list: Vec<String> = value?
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            (!list.is_empty()).then_some(list)
        };
        listed(operation.value.get(key)).or_else(|| listed(self.docs.root_value().get(key)))
    }
}

fn operation_doc(operation: &Value) -> Option<String> {
    let text = |key: &str| {
        operation
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    match (text("summary"), text("description")) {
        (Some(s), Some(d)) if d.starts_with(s) => Some(d.to_owned()),
        (Some(s), Some(d)) => Some(format!("{s}\n\n{d}")),
        (Some(s), None) => Some(s.to_owned()),
        (None, Some(d)) => Some(d.to_owned()),
        (None, None) => None,
    }
}

/// The stem of a method's inline type names: a method the spec renames (by its name, or by the
/// longer name its operationId spells) names its types after its new name.
fn type_base(options: &Options, name: &str, full_name: Option<&str>) -> String {
    let renamed = options
        .renames
        .iter()
        .find(|(imported, _)| imported == name || Some(imported.as_str()) == full_name);
    names::type_name(renamed.map_or(name, |(_, new)| new))
}

/// The method name an operation takes (its `operationId`, else one made from its route), when
/// the options select it (by tag, by id or name); `None` when they leave it out.
fn selected(
    options: &Options,
    operation: &Value,
    verb: Verb,
    route: &str,
    short: Option<&(String, String)>,
    named: Option<&str>,
) -> Option<String> {
    let id = operation.get("operationId").and_then(Value::as_str);
    let tags: Vec<&str> = operation
        .get("tags")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !options.tags.is_empty() && !tags.iter().any(|t| options.tags.iter().any(|w| w == t)) {
        return None;
    }
    let full_name = match (named, id) {
        (Some(named), _) => named.to_owned(),
        (None, Some(id)) => names::method(id),
        (None, None) => names::method(&names::from_route(verb.key(), route)),
    };
    let base_name = short.map_or(&full_name, |(short, _)| short);
    let longer = short.map(|(_, longer)| longer);
    if !options.operations.is_empty()
        && !options.operations.iter().any(|o| {
            Some(o.as_str()) == id || *o == full_name || o == base_name || Some(o) == longer
        })
    {
        return None;
    }
    Some(base_name.clone())
}

/// The name an operation takes from a vendor extension or its route, and the pair (name taken,
/// longer name) a spec's entry may use either of: an id without its generator's affix, or a
/// route's name and the one routes had before.
fn naming_of(
    named: &naming::Named,
    shortened: &naming::Shortened,
    key: &naming::Key,
) -> (Option<(String, String)>, Option<String>) {
    let own = named.names.get(key).cloned();
    let short = shortened.get(key).cloned().or_else(|| {
        let earlier = named.earlier.get(key)?;
        Some((own.clone()?, earlier.clone()))
    });
    (short, own)
}

/// An operation of the description, found with its `$ref`s followed.
pub(super) struct Found {
    pub(super) route: String,
    pub(super) verb: &'static str,
    place: Place,
    pub(super) operation: Value,
    /// Its path item's parameters.
    shared: Vec<(String, String, bool, Value)>,
}

#[cfg(test)]
impl Found {
    /// An operation at `route` without a document around it, for tests of the names.
    fn bare(route: &str, verb: &str, operation: Value) -> Found {
        let verb = Verb::from_key(verb).map_or("get", Verb::key);
        Found {
            route: route.to_owned(),
            verb,
            place: Place {
                file: std::path::PathBuf::new(),
                pointer: String::new(),
            },
            operation,
            shared: Vec::new(),
        }
    }
}

//! An operation's parameters: the path item's, replaced by the operation's of the same name and
//! place, `$ref`s followed; path placeholders nobody declares become text; each written the way
//! the specification's serialization table says, or noted where remcall writes it otherwise.

use serde_json::{Map, Value};

use super::Operation;
use crate::document::{Place, percent_decode};
use crate::names;
use crate::schema::doc;
use crate::spec::{MethodOut, ParamOut, Request, Style, Verb};
use crate::ty::Ty;
use crate::walk::Builder;

mod style;

/// Headers the client sets itself: a parameter for them is dropped. (`Accept` is not one: the
/// runtime sends none of its own, and a server that negotiates needs the one it lists.)
const OWN_HEADERS: [&str; 3] = ["authorization", "content-type", "content-length"];

/// Where a parameter remcall sends goes in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SentIn {
    Path,
    Query,
    Header,
}

impl SentIn {
    /// The description's word for it (`in: path`).
    fn word(self) -> &'static str {
        match self {
            SentIn::Path => "path",
            SentIn::Query => "query",
            SentIn::Header => "header",
        }
    }
}

/// What the parameters leave for the body: a 2.0 `in: body` parameter or `formData` fields.
#[derive(Default)]
pub(super) struct BodyInputs {
    pub(super) body: Option<(Place, Value)>,
    pub(super) form: Vec<(Place, Value)>,
}

impl Builder<'_> {
    /// Fills the method's path, query and header parameters and its request line; `Err` with
    /// the reason when the operation cannot be called (it needs a cookie remcall cannot send).
    pub(super) fn parameters(
        &mut self,
        operation: &Operation,
        method: &mut MethodOut,
    ) -> Result<BodyInputs, String> {
        let declared = self.declared_parameters(operation, method);
        let mut taken: names::Taken = ["body"].into_iter().collect();
        let in_path: Vec<String> = declared
            .iter()
            .filter(|(_, p)| p.get("in").and_then(Value::as_str) == Some("path"))
            .filter_map(|(_, p)| p.get("name").and_then(Value::as_str).map(str::to_owned))
            .collect();
        let (mut path, fixed_query) = self.route(operation, &in_path);
        let mut inputs = BodyInputs::default();
        for (place, parameter) in declared {
            let text = |key: &str| parameter.get(key).and_then(Value::as_str).unwrap_or("");
            let wire = text("name").to_owned();
            let required = parameter.get("required") == Some(&Value::Bool(true));
            let Some(mut location) =
                self.sent_as_parameter(operation, method, &mut inputs, &place, &parameter)?
            else {
                continue;
            };
            // A path parameter the route has no placeholder for (a `utoipa` description's
            // `id` on `POST /v2/DeleteThing`): the server reads it from the query.
            if location == SentIn::Path && !path.contains(&format!("{{{wire}}}")) {
                self.note(
                    &place,
                    false,
                    format!(
                        "the path parameter `{wire}` is sent in the query: the route `{}` has no `{{{wire}}}`",
                        operation.route
                    ),
                );
                location = SentIn::Query;
            }
            let schema = parameter_schema(&parameter);
            let hint = format!("{}{}", operation.type_base, names::type_name(&wire));
            let mut ty = self.ty(&place.child("schema"), &schema, &hint);
            // A parameter is written as text whatever its schema: one that says nothing of its
            // type (`{}`, a title alone) is a string, not a JSON value a URL cannot hold.
            ty.visit_mut(&mut |part| {
                if *part == Ty::Value {
                    *part = Ty::String;
                }
            });
            if location == SentIn::Path {
                ty = ty.required().clone();
            } else if !required && !matches!(ty, Ty::Option(_)) {
                // A list too: an optional list is left out when not set, not sent empty, and
                // counts towards the method taking its optional parameters by name.
                ty = ty.optional();
            }
            let key = names::unique(&names::word(&wire), "_", &mut taken);
            // A style remcall writes otherwise keeps the parameter (faithful), with a note.
            let style = self.serialization(&place, &parameter, location, &ty);
            let out = ParamOut {
                wire: (location != SentIn::Path && key != wire).then(|| wire.clone()),
                key: key.clone(),
                ty,
                doc: doc(&parameter),
                style,
                place: place.clone(),
                least: ["default", "minimum"]
                    .iter()
                    .find_map(|key| schema.get(*key).and_then(Value::as_i64)),
            };
            match location {
                SentIn::Path => {
                    path = path.replace(&format!("{{{wire}}}"), &format!("{{{key}}}"));
                    method.path.push(out);
                }
                SentIn::Query => method.query.push(out),
                SentIn::Header => method.headers.push(out),
            }
        }
        self.fixed_query(operation, method, fixed_query);
        let path = self.settle_path(operation, method, path, &mut taken);
        method.request = Request {
            verb: operation.verb,
            path,
        };
        Ok(inputs)
    }

    /// Where a declared parameter is sent, if as a path, query or header parameter: a Swagger 2.0
    /// body or form field goes to `inputs`, a header the runtime writes itself or an
    /// `Idempotency-Key` is left to it, a cookie or an invalid header name is not sent (a note;
    /// a required cookie makes the operation unusable).
    fn sent_as_parameter(
        &mut self,
        operation: &Operation,
        method: &mut MethodOut,
        inputs: &mut BodyInputs,
        place: &Place,
        parameter: &Value,
    ) -> Result<Option<SentIn>, String> {
        let text = |key: &str| parameter.get(key).and_then(Value::as_str).unwrap_or("");
        let wire = text("name");
        let required = parameter.get("required") == Some(&Value::Bool(true));
        match text("in") {
            "body" => {
                inputs.body = Some((place.clone(), parameter.clone()));
                Ok(None)
            }
            "formData" => {
                inputs.form.push((place.clone(), parameter.clone()));
                Ok(None)
            }
            "cookie" if required => Err(format!(
                "it needs the cookie `{wire}`, which remcall does not send"
            )),
            "cookie" => {
                self.note(
                    place,
                    true,
                    format!("the optional cookie `{wire}` is not sent"),
                );
                method.lost = true;
                Ok(None)
            }
            "header" if OWN_HEADERS.contains(&wire.to_ascii_lowercase().as_str()) => Ok(None),
            "header"
                if wire.eq_ignore_ascii_case("idempotency-key") && operation.verb == Verb::Post =>
            {
                method.idempotency_key = Some(wire.to_owned());
                Ok(None)
            }
            "header" if !crate::names::is_header_name(wire) => {
                self.note(
                    place,
                    true,
                    format!(
                        "the header `{}` is not a valid header name: it is not sent",
                        wire.escape_debug()
                    ),
                );
                method.lost = true;
                Ok(None)
            }
            "path" => Ok(Some(SentIn::Path)),
            "query" => Ok(Some(SentIn::Query)),
            "header" => Ok(Some(SentIn::Header)),
            other => {
                self.note(
                    place,
                    true,
                    format!("a parameter `in: {other}` is not sent"),
                );
                method.lost = true;
                Ok(None)
            }
        }
    }

    /// The path key as a route the spec can say and a server routes: a `#fragment` (used to
    /// tell operations on one path apart) or a `?query` left out, an Express-style `:name`
    /// segment of a declared path parameter written `{name}`, and every character of the
    /// literal text that a URL path cannot carry as itself percent-encoded (as any HTTP client
    /// would send it), so nothing of the key can form a placeholder or break the request line.
    fn route(&mut self, operation: &Operation, in_path: &[String]) -> (String, Option<String>) {
        let key = operation.route.as_str();
        let mut route = key;
        let mut query = None;
        if let Some(cut) = route.find(['#', '?']) {
            if route.as_bytes()[cut] == b'#' {
                self.note(
                    &operation.item_place,
                    false,
                    format!(
                        "the path key's fragment `{}` is not part of the route: the client calls `{}`",
                        &route[cut..],
                        &route[..cut]
                    ),
                );
            } else {
                // Against the rules, but vendors do it (`/v1/things?beta=true`): the query is
                // sent with every call ([`Builder::fixed_query`]).
                let rest = &route[cut + 1..];
                query = Some(rest[..rest.find('#').unwrap_or(rest.len())].to_owned());
            }
            route = &route[..cut];
        }
        let mut out = String::with_capacity(route.len() + 8);
        if !route.starts_with('/') {
            out.push('/');
        }
        for (i, segment) in route.split('/').enumerate() {
            if i > 0 {
                out.push('/');
            }
            if let Some(name) = segment.strip_prefix(':')
                && in_path.iter().any(|p| p == name)
            {
                self.note(
                    &operation.item_place,
                    false,
                    format!("the segment `{segment}` is the path parameter `{name}`: written `{{{name}}}`"),
                );
                out.push('{');
                out.push_str(name);
                out.push('}');
                continue;
            }
            let mut rest = segment;
            while !rest.is_empty() {
                // A placeholder is `{` a name without braces, slashes or spaces `}`.
                // Looking only as far as the next brace keeps the walk linear.
                let placeholder = rest.strip_prefix('{').and_then(|after| {
                    let close = after
                        .find(['{', '}'])
                        .filter(|&i| after.as_bytes()[i] == b'}')?;
                    let name = &after[..close];
                    (!name.is_empty() && !name.contains([' ', '%'])).then_some(close + 2)
                });
                if let Some(length) = placeholder {
                    out.push_str(&rest[..length]);
                    rest = &rest[length..];
                    continue;
                }
                let c = rest.chars().next().unwrap_or_default();
                let literal = c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=@%".contains(c);
                // A `:` that would read as `:name` is encoded; elsewhere it is text.
                if literal || (c == ':' && !out.ends_with('/')) {
                    out.push(c);
                } else {
                    let mut bytes = [0; 4];
                    for byte in c.encode_utf8(&mut bytes).bytes() {
                        out.push_str(&format!("%{byte:02X}"));
                    }
                }
                rest = &rest[c.len_utf8()..];
            }
        }
        (out, query)
    }

    /// A path key's query (`?beta=true&v=2`), sent with every call of the method as its
    /// profile's fixed query; a query parameter of the same name wins (noted).
    fn fixed_query(
        &mut self,
        operation: &Operation,
        method: &mut MethodOut,
        query: Option<String>,
    ) {
        let Some(query) = query else { return };
        let mut fixed = Vec::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (name, value) = (percent_decode(name), percent_decode(value));
            if method
                .query
                .iter()
                .any(|p| p.wire.as_deref().unwrap_or(&p.key) == name)
            {
                self.note(
                    &operation.item_place,
                    false,
                    format!(
                        "the path key's query sets `{name}`, a query parameter too: the parameter's value is sent"
                    ),
                );
                continue;
            }
            if !fixed.iter().any(|(known, _)| *known == name) {
                fixed.push((name, value));
            }
        }
        if fixed.is_empty() {
            return;
        }
        let sent: Vec<String> = fixed.iter().map(|(n, v)| format!("{n}={v}")).collect();
        self.note(
            &operation.item_place,
            false,
            format!(
                "the path key's query `?{query}` is sent with every call (`config: {{ query }}`): {}",
                sent.join(", ")
            ),
        );
        method
            .profile
            .get_or_insert_with(Default::default)
            .fixed_query = fixed;
    }

    /// The route with every placeholder named as its parameter: one the parameters do not
    /// declare becomes a text parameter; a declared path parameter the route has no
    /// placeholder for cannot be sent (a note).
    fn settle_path(
        &mut self,
        operation: &Operation,
        method: &mut MethodOut,
        mut path: String,
        taken: &mut names::Taken,
    ) -> String {
        // Placeholders the parameters do not declare: text each, named clear of the others.
        for placeholder in placeholders(&path) {
            if method.path.iter().any(|p| p.key == placeholder) {
                continue;
            }
            let key = names::unique(&names::word(&placeholder), "_", taken);
            path = path.replace(&format!("{{{placeholder}}}"), &format!("{{{key}}}"));
            method.path.push(ParamOut {
                key,
                ty: Ty::String,
                wire: None,
                doc: None,
                style: Style::Exploded,
                place: operation.place.clone(),
                least: None,
            });
        }
        // Declared path parameters the route has no placeholder for cannot be sent.
        let used = placeholders(&path);
        let (kept, unused): (Vec<ParamOut>, Vec<ParamOut>) = std::mem::take(&mut method.path)
            .into_iter()
            .partition(|p| used.contains(&p.key));
        method.path = kept;
        for parameter in unused {
            let route = &operation.route;
            self.note(
                &operation.place.child("parameters"),
                true,
                format!(
                    "the path parameter `{}` is not in `{route}`: it is not sent",
                    parameter.key
                ),
            );
            method.lost = true;
        }
        path
    }

    /// The path item's parameters, then the operation's (which replace those of the same name
    /// and place), each with the place it was found at.
    fn declared_parameters(
        &mut self,
        operation: &Operation,
        method: &mut MethodOut,
    ) -> Vec<(Place, Value)> {
        let mut parameters: Vec<(Place, Value)> = Vec::new();
        let lists = [
            (&operation.shared, operation.item_place.child("parameters")),
            (
                operation.value.get("parameters").unwrap_or(&Value::Null),
                operation.place.child("parameters"),
            ),
        ];
        for (list, list_place) in lists {
            for (i, parameter) in list.as_array().into_iter().flatten().enumerate() {
                let (place, parameter) = match self
                    .docs
                    .follow(&list_place.child(&i.to_string()), parameter)
                {
                    Ok(found) => found,
                    Err(error) => {
                        self.unresolved(error, "the parameter is left out");
                        method.lost = true;
                        continue;
                    }
                };
                let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
                parameters.retain(|(_, p)| key(p) != key(&parameter));
                parameters.push((place, parameter));
            }
        }
        parameters
    }
}

/// A parameter's schema: 3.x `schema` (or `content`), or the 2.0 parameter's own keywords.
fn parameter_schema(parameter: &Value) -> Value {
    if let Some(schema) = parameter.get("schema") {
        return schema.clone();
    }
    if let Some(content) = parameter.get("content").and_then(Value::as_object)
        && let Some(schema) = content.values().next().and_then(|m| m.get("schema"))
    {
        return schema.clone();
    }
    let mut schema = Map::new();
    for key in ["type", "format", "items", "enum"] {
        if let Some(value) = parameter.get(key) {
            schema.insert(key.to_owned(), value.clone());
        }
    }
    Value::Object(schema)
}

/// A 2.0 `formData` parameter's schema (the parameter's own keywords).
pub(super) fn form_field_schema(field: &Value) -> Value {
    parameter_schema(field)
}

fn placeholders(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        // A route may name a parameter twice: one argument fills both places.
        let name = &rest[open + 1..open + close];
        if !out.iter().any(|n| n == name) {
            out.push(name.to_owned());
        }
        rest = &rest[open + close + 1..];
    }
    out
}

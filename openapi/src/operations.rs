//! Operations → methods: the name (operationId, else the route's words), the request line, the
//! parameters (path-level ones included, `$ref`s followed), the body (JSON preferred; form,
//! multipart, text and bytes as the description offers), the success shapes and the declared
//! error bodies. An operation that cannot become a method is left out with its reason.

use serde_json::{Map, Value};

use crate::Error;
use crate::Options;
use crate::document::{Place, Version};
use crate::names;
use crate::schema::doc;
use crate::spec::{BodyOut, Builder, FieldOut, MethodOut, ParamOut, StructOut, TypeOut};

const VERBS: [&str; 7] = ["get", "put", "post", "delete", "options", "head", "patch"];

/// Headers the client sets itself: a parameter for them is dropped.
const OWN_HEADERS: [&str; 4] = ["authorization", "content-type", "accept", "content-length"];

impl Builder<'_> {
    pub(crate) fn operations(&mut self, options: &Options) -> Result<(), Error> {
        let top = self.docs.top();
        let paths = self
            .docs
            .root_value()
            .get("paths")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut taken_methods: Vec<String> = Vec::new();
        for (route, item) in &paths {
            let item_place = top.child("paths").child(route);
            let (item_place, item) = self.docs.follow(&item_place, item)?;
            let shared = item.get("parameters").cloned().unwrap_or(Value::Null);
            for verb in VERBS {
                let Some(operation) = item.get(verb) else {
                    continue;
                };
                let place = item_place.child(verb);
                let id = operation.get("operationId").and_then(Value::as_str);
                let tags: Vec<&str> = operation
                    .get("tags")
                    .and_then(Value::as_array)
                    .map(|t| t.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if !options.tags.is_empty()
                    && !tags.iter().any(|t| options.tags.iter().any(|w| w == t))
                {
                    continue;
                }
                let base_name = match id {
                    Some(id) => names::method(id),
                    None => names::method(&names::from_route(verb, route)),
                };
                if !options.operations.is_empty()
                    && !options
                        .operations
                        .iter()
                        .any(|o| Some(o.as_str()) == id || *o == base_name)
                {
                    continue;
                }
                self.spec.summary.operations += 1;
                let label = format!("{} {route}", verb.to_ascii_uppercase());
                let name = names::unique(&base_name, "_", &mut taken_methods);
                if name != base_name {
                    self.spec.summary.notes.push(format!(
                        "{label}: named `{name}`, as `{base_name}` is another operation's"
                    ));
                }
                match self.method(&place, operation, &shared, &item_place, verb, route, &name)? {
                    Ok(method) => self.spec.methods.push(method),
                    Err(reason) => self.spec.summary.skipped.push((label, reason)),
                }
            }
        }
        Ok(())
    }

    /// One operation's method, or why it cannot be one.
    #[allow(clippy::too_many_arguments)]
    fn method(
        &mut self,
        at: &Place,
        operation: &Value,
        shared: &Value,
        item_place: &Place,
        verb: &str,
        route: &str,
        name: &str,
    ) -> Result<Result<MethodOut, String>, Error> {
        let type_base = names::type_name(name);
        let mut method = MethodOut {
            name: name.to_owned(),
            doc: operation_doc(operation),
            ..MethodOut::default()
        };
        method.pages_hint.dropshot = operation.get("x-dropshot-pagination").is_some();
        // Parameters: the path item's, replaced by the operation's of the same name and place.
        let mut parameters: Vec<(Place, Value)> = Vec::new();
        for (list, list_place) in [
            (shared, item_place.child("parameters")),
            (
                operation.get("parameters").unwrap_or(&Value::Null),
                at.child("parameters"),
            ),
        ] {
            for (i, parameter) in list.as_array().into_iter().flatten().enumerate() {
                let (place, parameter) = self
                    .docs
                    .follow(&list_place.child(&i.to_string()), parameter)?;
                let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
                parameters.retain(|(_, p)| key(p) != key(&parameter));
                parameters.push((place, parameter));
            }
        }
        let mut taken: Vec<String> = vec!["body".to_owned()];
        let mut path = route.to_owned();
        let mut form_fields: Vec<(Place, Value)> = Vec::new();
        let mut body_parameter = None;
        for (place, parameter) in &parameters {
            let wire = parameter
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let location = parameter
                .get("in")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let required = parameter.get("required") == Some(&Value::Bool(true));
            match location {
                "body" => {
                    body_parameter = Some((place.clone(), parameter.clone()));
                    continue;
                }
                "formData" => {
                    form_fields.push((place.clone(), parameter.clone()));
                    continue;
                }
                "cookie" => {
                    if required {
                        return Ok(Err(format!(
                            "it needs the cookie `{wire}`, which remcall does not send"
                        )));
                    }
                    self.spec
                        .summary
                        .notes
                        .push(format!("{name}: the optional cookie `{wire}` is not sent"));
                    continue;
                }
                "header" if OWN_HEADERS.contains(&wire.to_ascii_lowercase().as_str()) => continue,
                "header" if wire.eq_ignore_ascii_case("idempotency-key") && verb == "post" => {
                    method.idempotency_key = Some(wire.to_owned());
                    continue;
                }
                _ => {}
            }
            let schema = parameter_schema(parameter);
            let hint = format!("{type_base}{}", names::type_name(wire));
            let mut ty = self.ty(&place.child("schema"), &schema, &hint)?;
            if !required
                && location != "path"
                && !ty.starts_with("Option<")
                && !ty.starts_with("Vec<")
            {
                ty = format!("Option<{ty}>");
            }
            let key = names::unique(&names::word(wire), "_", &mut taken);
            let out = ParamOut {
                wire: (location != "path" && key != wire).then(|| wire.to_owned()),
                key: key.clone(),
                ty,
                doc: doc(parameter),
                deep: parameter.get("style").and_then(Value::as_str) == Some("deepObject"),
                comma: parameter.get("explode") == Some(&Value::Bool(false))
                    || parameter.get("collectionFormat").and_then(Value::as_str) == Some("csv"),
            };
            match location {
                "path" => {
                    path = path.replace(&format!("{{{wire}}}"), &format!("{{{key}}}"));
                    method.path.push(out);
                }
                "query" => method.query.push(out),
                "header" => method.headers.push(out),
                _ => {}
            }
        }
        // Placeholders the parameters do not declare: a string each.
        for placeholder in placeholders(&path) {
            if !method.path.iter().any(|p| p.key == placeholder) {
                let key = names::word(&placeholder);
                path = path.replace(&format!("{{{placeholder}}}"), &format!("{{{key}}}"));
                if !method.path.iter().any(|p| p.key == key) {
                    method.path.push(ParamOut {
                        key,
                        ty: "String".to_owned(),
                        wire: None,
                        doc: None,
                        deep: false,
                        comma: false,
                    });
                }
            }
        }
        method.request = format!("{} {path}", verb.to_ascii_uppercase());

        // The body.
        let body = match self.docs.version {
            Version::Swagger2 => {
                if let Some((place, parameter)) = body_parameter {
                    let schema = parameter.get("schema").cloned().unwrap_or(Value::Null);
                    let ty =
                        self.ty(&place.child("schema"), &schema, &format!("{type_base}Body"))?;
                    Some(BodyOut {
                        ty,
                        encoding: "json",
                        content_type: None,
                        doc: doc(&parameter),
                    })
                } else if !form_fields.is_empty() {
                    Some(self.form_body(&form_fields, operation, &type_base)?)
                } else {
                    None
                }
            }
            _ => match operation.get("requestBody") {
                Some(body) => {
                    let (place, body) = self.docs.follow(&at.child("requestBody"), body)?;
                    self.body_v3(&place, &body, &type_base)?
                }
                None => None,
            },
        };
        if let Some(body) = body {
            if matches!(verb, "get" | "head") {
                if body.ty != "serde_json::Value" {
                    self.spec.summary.notes.push(format!(
                        "{name}: the {} request's body is dropped: remcall sends none with it",
                        verb.to_ascii_uppercase()
                    ));
                }
            } else {
                method.body = Some(body);
            }
        }

        // Responses.
        let responses = operation
            .get("responses")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut successes: Vec<(u16, String, &'static str)> = Vec::new();
        for (status, response) in &responses {
            let place = at.child("responses").child(status);
            let (place, response) = self.docs.follow(&place, response)?;
            let code = status_code(status);
            match code {
                Some(code) if (200..300).contains(&code) => {
                    let headers = response.get("headers").and_then(Value::as_object);
                    if headers.is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("link"))) {
                        method.pages_hint.link_header = true;
                    }
                    let hint = if code == 200 || code == 201 {
                        format!("{type_base}Result")
                    } else {
                        format!("{type_base}Result{code}")
                    };
                    let (ty, encoding) = self.response_type(&place, &response, &hint)?;
                    successes.push((code, ty, encoding));
                }
                _ => {
                    let (ty, encoding) = self.response_type(
                        &place,
                        &response,
                        &format!("{type_base}Error{}", status.to_ascii_uppercase()),
                    )?;
                    if encoding == "json" && ty != "()" {
                        let key = match status.to_ascii_uppercase().as_str() {
                            "DEFAULT" => "default".to_owned(),
                            s if s.ends_with("XX") => s.to_owned(),
                            s => s.to_owned(),
                        };
                        if status_key_ok(&key) {
                            method.errors.push((key, ty));
                        }
                    }
                }
            }
        }
        successes.sort_by_key(|(code, _, _)| *code);
        let distinct: Vec<&(u16, String, &str)> =
            successes.iter().filter(|(_, ty, _)| ty != "()").collect();
        let all_same = distinct
            .windows(2)
            .all(|w| w[0].1 == w[1].1 && w[0].2 == w[1].2);
        match (successes.as_slice(), all_same) {
            ([], _) => {}
            (_, true) => {
                if let Some((_, ty, encoding)) = distinct.first() {
                    method.returns = Some((ty.clone(), encoding));
                }
            }
            (_, false) => {
                if successes.iter().all(|(_, _, e)| *e == "json") {
                    method.responses = successes
                        .iter()
                        .map(|(c, ty, _)| (*c, ty.clone()))
                        .collect();
                } else {
                    let (_, ty, encoding) = distinct[0];
                    method.returns = Some((ty.clone(), encoding));
                }
            }
        }
        Ok(Ok(method))
    }

    /// A 3.x `requestBody`: the JSON media type when there is one, else form, multipart, text or
    /// bytes.
    fn body_v3(
        &mut self,
        at: &Place,
        body: &Value,
        type_base: &str,
    ) -> Result<Option<BodyOut>, Error> {
        let Some(content) = body.get("content").and_then(Value::as_object) else {
            return Ok(None);
        };
        let Some((media, encoding)) = pick_media(content) else {
            return Ok(None);
        };
        if content.len() > 1 {
            let others: Vec<&str> = content
                .keys()
                .filter(|m| **m != media)
                .map(String::as_str)
                .collect();
            self.spec.summary.notes.push(format!(
                "{type_base}: sends `{media}`; the description also takes {}",
                others.join(", ")
            ));
        }
        let schema = content[&media]
            .get("schema")
            .cloned()
            .unwrap_or(Value::Null);
        let place = at.child("content").child(&media).child("schema");
        let hint = format!("{type_base}Body");
        let ty = match encoding {
            "text" => "String".to_owned(),
            "bytes" => "bytes::Bytes".to_owned(),
            "multipart" => {
                let ty = self.ty(&place, &schema, &hint)?;
                if !matches!(self.spec.types.get(&ty), Some(TypeOut::Struct(_)))
                    && !self.pending.iter().any(|(_, n)| *n == ty)
                {
                    // Not an object: the whole body as one part is not a form; send JSON.
                    return Ok(Some(BodyOut {
                        ty,
                        encoding: "json",
                        content_type: None,
                        doc: doc(body),
                    }));
                }
                ty
            }
            _ => self.ty(&place, &schema, &hint)?,
        };
        let standard = matches!(
            media.as_str(),
            "application/json"
                | "application/x-www-form-urlencoded"
                | "text/plain"
                | "application/octet-stream"
        ) || media.starts_with("multipart/form-data");
        Ok(Some(BodyOut {
            ty,
            encoding,
            content_type: (!standard && !media.contains('*')).then(|| media.clone()),
            doc: doc(body),
        }))
    }

    /// A 2.0 `formData` body: a struct of its fields, multipart when it has a file.
    fn form_body(
        &mut self,
        fields: &[(Place, Value)],
        operation: &Value,
        type_base: &str,
    ) -> Result<BodyOut, Error> {
        let name = names::unique(&format!("{type_base}Form"), "", &mut self.taken_types);
        let mut definition = StructOut::default();
        let mut taken = Vec::new();
        let mut multipart = operation
            .get("consumes")
            .and_then(Value::as_array)
            .is_some_and(|c| {
                c.iter()
                    .any(|c| c.as_str().is_some_and(|c| c.starts_with("multipart/")))
            });
        for (place, field) in fields {
            let wire = field
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let required = field.get("required") == Some(&Value::Bool(true));
            let mut ty = if field.get("type").and_then(Value::as_str) == Some("file") {
                multipart = true;
                "File".to_owned()
            } else {
                let schema = parameter_schema(field);
                self.ty(place, &schema, &format!("{name}{}", names::type_name(wire)))?
            };
            if !required && !ty.starts_with("Option<") {
                ty = format!("Option<{ty}>");
            }
            let key = names::unique(&names::word(wire), "_", &mut taken);
            definition.fields.push(FieldOut {
                rename: (key != wire).then(|| wire.to_owned()),
                key,
                ty,
                doc: doc(field),
                required_null: false,
                constant: None,
            });
        }
        self.spec
            .types
            .insert(name.clone(), TypeOut::Struct(definition));
        Ok(BodyOut {
            ty: name,
            encoding: if multipart { "multipart" } else { "form" },
            content_type: None,
            doc: None,
        })
    }

    /// A response's body type and how it is read (`json`, `text` or `bytes`); `()` without one.
    fn response_type(
        &mut self,
        at: &Place,
        response: &Value,
        hint: &str,
    ) -> Result<(String, &'static str), Error> {
        if let Some(content) = response.get("content").and_then(Value::as_object) {
            let Some((media, encoding)) = pick_media(content) else {
                return Ok(("()".to_owned(), "json"));
            };
            return Ok(match encoding {
                "text" => ("String".to_owned(), "text"),
                "bytes" | "multipart" => ("bytes::Bytes".to_owned(), "bytes"),
                _ => match content[&media].get("schema") {
                    Some(schema) => (
                        self.ty(
                            &at.child("content").child(&media).child("schema"),
                            schema,
                            hint,
                        )?,
                        "json",
                    ),
                    None => ("()".to_owned(), "json"),
                },
            });
        }
        // Swagger 2.0: the schema sits on the response.
        match response.get("schema") {
            Some(schema) if schema.get("type").and_then(Value::as_str) == Some("file") => {
                Ok(("bytes::Bytes".to_owned(), "bytes"))
            }
            Some(schema) => Ok((self.ty(&at.child("schema"), schema, hint)?, "json")),
            None => Ok(("()".to_owned(), "json")),
        }
    }
}

/// A parameter's schema: 3.x `schema`, or the 2.0 parameter's own `type`/`items`/`format`.
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

/// The media type to use, and its encoding: JSON first, then form, multipart, text, bytes.
fn pick_media(content: &Map<String, Value>) -> Option<(String, &'static str)> {
    /// What a media type is read as, best first.
    fn rank(media: &str) -> (u8, &'static str) {
        if media == "application/json"
            || media.ends_with("+json")
            || media.starts_with("application/json;")
        {
            (0, "json")
        } else if media == "*/*" || media == "application/*" {
            (1, "json")
        } else if media.starts_with("application/x-www-form-urlencoded") {
            (2, "form")
        } else if media.starts_with("multipart/form-data") {
            (3, "multipart")
        } else if media.starts_with("text/") {
            (4, "text")
        } else {
            (5, "bytes")
        }
    }
    content
        .keys()
        .map(|media| (rank(media), media))
        .min_by(|(a, m), (b, n)| a.0.cmp(&b.0).then(m.cmp(n)))
        .map(|((_, encoding), media)| (media.clone(), encoding))
}

fn operation_doc(operation: &Value) -> Option<String> {
    let summary = operation
        .get("summary")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let description = operation
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    match (summary, description) {
        (Some(s), Some(d)) if d.starts_with(s) => Some(d.to_owned()),
        (Some(s), Some(d)) => Some(format!("{s}\n\n{d}")),
        (Some(s), None) => Some(s.to_owned()),
        (None, Some(d)) => Some(d.to_owned()),
        (None, None) => None,
    }
}

fn status_code(status: &str) -> Option<u16> {
    match status.to_ascii_uppercase().as_str() {
        "2XX" => Some(200),
        other => other.parse().ok(),
    }
}

fn status_key_ok(key: &str) -> bool {
    matches!(key, "default" | "4XX" | "5XX")
        || key.parse::<u16>().is_ok_and(|c| (400..600).contains(&c))
}

fn placeholders(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push(rest[open + 1..open + close].to_owned());
        rest = &rest[open + close + 1..];
    }
    out
}

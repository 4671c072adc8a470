//! An operation's responses: the success shapes (one result type, or several by status) and
//! the declared error bodies. A 2.0 response is read in the media type the operation (or the
//! document) `produces`.

use serde_json::Value;

use super::Operation;
use super::body::pick_media;
use crate::document::Place;
use crate::spec::{MethodOut, PagesHint};
use crate::status::StatusKey;
use crate::ty::{Encoding, Ty};
use crate::walk::Builder;

impl Builder<'_> {
    /// Fills the method's result (or results by status) and its typed error bodies.
    pub(super) fn responses(&mut self, operation: &Operation, method: &mut MethodOut) {
        let responses = operation
            .value
            .get("responses")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let type_base = &operation.type_base;
        let mut successes: Vec<(u16, Ty, Encoding)> = Vec::new();
        for (status, response) in &responses {
            let place = operation.place.child("responses").child(status);
            let (place, response) = match self.docs.follow(&place, response) {
                Ok(found) => found,
                Err(error) => {
                    self.unresolved(error, "the response is read as serde_json::Value");
                    (place, serde_json::json!({ "schema": {} }))
                }
            };
            let Some(key) = StatusKey::read(status) else {
                continue;
            };
            match key.success() {
                // HTTP gives these no body, whatever a description declares for them.
                Some(code @ (204 | 205)) => {
                    if response
                        .get("content")
                        .is_some_and(|c| c.as_object().is_some_and(|c| !c.is_empty()))
                        || response.get("schema").is_some()
                    {
                        self.note(&place, false, format!("a {code} response has no body in HTTP: its declared content is not read"));
                    }
                    successes.push((code, Ty::Unit, Encoding::Json));
                }
                Some(code) if (200..300).contains(&code) => {
                    page_hints(&response, &mut method.pages_hint);
                    let hint = if code == 200 || code == 201 {
                        format!("{type_base}Result")
                    } else {
                        format!("{type_base}Result{code}")
                    };
                    let response = self.with_swagger_content(operation, response);
                    let response = super::streams::with_fern_streaming(&operation.value, response);
                    if let Some(stream) = self.streamed(&operation.value, &place, &response, &hint)
                    {
                        if offers_json(&response) {
                            method.stream_twin = Some(stream);
                        } else {
                            method.stream = Some(stream);
                            continue;
                        }
                    }
                    let (ty, encoding) = self.response_type(operation, &place, &response, &hint);
                    successes.push((code, ty, encoding));
                }
                _ => {
                    let hint = format!("{type_base}Error{}", status.to_ascii_uppercase());
                    let response = streamed_error_as_json(response);
                    let (ty, encoding) = self.response_type(operation, &place, &response, &hint);
                    // Every media type is kept: JSON as its type, text as `String`, anything
                    // else as the bytes that came.
                    if ty != Ty::Unit && key.is_error() {
                        let encoding = match encoding {
                            Encoding::Json | Encoding::Text | Encoding::Bytes => encoding,
                            Encoding::Form | Encoding::Multipart => Encoding::Bytes,
                        };
                        let ty = if encoding == Encoding::Bytes {
                            Ty::Bytes
                        } else {
                            ty
                        };
                        method.errors.push((key, ty, encoding));
                    }
                }
            }
        }
        self.stream_extras(operation, method);
        self.successes(operation, method, successes);
    }

    /// What a streamed method reads besides its items: the failures the operation declares, and
    /// for an operation that answers JSON or a stream, the body flag that chooses.
    fn stream_extras(&mut self, operation: &Operation, method: &mut MethodOut) {
        if method.stream.is_some() || method.stream_twin.is_some() {
            self.stream_errors(&operation.place.child("responses"), method);
        }
        if method.stream_twin.is_some() {
            method.stream_flag = self.stream_flag(&operation.value, &operation.place);
        }
    }

    /// What the successes make of the method: one result when their bodies agree, a response
    /// enum when they differ (all JSON), else the first with a note.
    fn successes(
        &mut self,
        operation: &Operation,
        method: &mut MethodOut,
        mut successes: Vec<(u16, Ty, Encoding)>,
    ) {
        successes.sort_by_key(|(code, _, _)| *code);
        let distinct: Vec<&(u16, Ty, Encoding)> = successes
            .iter()
            .filter(|(_, ty, _)| *ty != Ty::Unit)
            .collect();
        let all_same = distinct
            .windows(2)
            .all(|w| w[0].1 == w[1].1 && w[0].2 == w[1].2);
        if all_same {
            if let Some((_, ty, encoding)) = distinct.first() {
                method.returns = Some((ty.clone(), *encoding));
            }
        } else if successes.iter().all(|(_, _, e)| *e == Encoding::Json) {
            method.responses = successes
                .iter()
                .map(|(c, ty, _)| (*c, ty.clone()))
                .collect();
        } else {
            let (_, ty, encoding) = distinct[0];
            method.returns = Some((ty.clone(), *encoding));
            self.note(
                &operation.place.child("responses"),
                true,
                "its successes come in several media types: the first is read",
            );
            method.lost = true;
        }
    }

    /// A response's body type and how it is read; `()` without one.
    fn response_type(
        &mut self,
        operation: &Operation,
        at: &Place,
        response: &Value,
        hint: &str,
    ) -> (Ty, Encoding) {
        // A success with content has a body, schema or not (a 204 or 205 has none).
        let success = at
            .pointer
            .rsplit('/')
            .next()
            .is_some_and(|code| code.starts_with('2') && code != "204" && code != "205");
        if let Some(content) = response.get("content").and_then(Value::as_object) {
            let Some((media, encoding)) = pick_media(content) else {
                return (Ty::Unit, Encoding::Json);
            };
            return match encoding {
                Encoding::Text => (Ty::String, Encoding::Text),
                Encoding::Bytes | Encoding::Multipart => (Ty::Bytes, Encoding::Bytes),
                Encoding::Json | Encoding::Form => match content[&media].get("schema") {
                    Some(schema) => {
                        let place = at.child("content").child(&media).child("schema");
                        (self.ty(&place, schema, hint), Encoding::Json)
                    }
                    None if !success => (Ty::Unit, Encoding::Json),
                    // Content without a schema is still content: any JSON value.
                    None => {
                        self.schemaless(at);
                        (Ty::Value, Encoding::Json)
                    }
                },
            };
        }
        // Swagger 2.0: the schema sits on the response, in what the operation produces.
        let Some(schema) = response.get("schema") else {
            if success
                && operation.value.get("produces").is_some()
                && matches!(
                    self.swagger_media(operation, "produces"),
                    Some((_, Encoding::Json))
                )
            {
                self.schemaless(at);
                return (Ty::Value, Encoding::Json);
            }
            return (Ty::Unit, Encoding::Json);
        };
        if schema.get("type").and_then(Value::as_str) == Some("file") {
            return (Ty::Bytes, Encoding::Bytes);
        }
        match self.swagger_media(operation, "produces").map(|(_, e)| e) {
            None | Some(Encoding::Json) => {
                (self.ty(&at.child("schema"), schema, hint), Encoding::Json)
            }
            Some(Encoding::Text) => (Ty::String, Encoding::Text),
            Some(_) => (Ty::Bytes, Encoding::Bytes),
        }
    }
}

impl Builder<'_> {
    /// A Swagger 2.0 response that the operation `produces` as a stream (Server-Sent Events,
    /// JSON Lines): with the `content` an OpenAPI 3 response would have, its schema under each
    /// media type produced, so that it is read as a stream (and its JSON twin) the same way.
    /// Any other response as it is.
    fn with_swagger_content(&self, operation: &Operation, response: Value) -> Value {
        let Some(produced) = self.swagger_media_list(operation, "produces") else {
            return response;
        };
        if response.get("content").is_some()
            || !produced
                .iter()
                .any(|m| super::streams::stream_media(m).is_some())
        {
            return response;
        }
        let media_object = match response.get("schema") {
            Some(schema) => serde_json::json!({ "schema": schema }),
            None => serde_json::json!({}),
        };
        let content: serde_json::Map<String, Value> = produced
            .into_iter()
            .map(|media| (media, media_object.clone()))
            .collect();
        let mut response = response;
        if let Some(object) = response.as_object_mut() {
            object.insert("content".to_owned(), Value::Object(content));
        }
        response
    }

    /// Notes a JSON answer declared without a schema, read as `serde_json::Value`.
    fn schemaless(&mut self, at: &Place) {
        self.note(
            at,
            false,
            "a JSON answer without a schema: read as serde_json::Value",
        );
    }
}

/// True when a response offers a JSON media type beside a stream (a body flag chooses).
fn offers_json(response: &Value) -> bool {
    response
        .get("content")
        .and_then(Value::as_object)
        .is_some_and(|content| {
            content.keys().any(|media| {
                super::streams::stream_media(media).is_none()
                    && crate::ty::Encoding::of_media(media).1 == Encoding::Json
            })
        })
}

/// What a success's headers say of pages: a `Link` header, or one that holds the next page's
/// URL.
fn page_hints(response: &Value, hint: &mut PagesHint) {
    let headers = response.get("headers").and_then(Value::as_object);
    if headers.is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("link"))) {
        hint.link_header = true;
    }
    for (name, header) in headers.into_iter().flatten() {
        let declared = header.get("schema").unwrap_or(header);
        if crate::paging::is_next_url_header(name, declared) {
            hint.next_url_header = Some(name.clone());
        }
    }
}

/// An error status a streaming operation declares in a stream's media type only
/// (text-generation-inference's `/generate_stream` 422 as `text/event-stream` of
/// `ErrorResponse`): servers answer such a status with the error's JSON, so it is read as JSON
/// of the declared schema (`itemSchema`, else `schema`), a typed error of the method, and the
/// stream's in-band error when no error event is named. Any other response as it is.
fn streamed_error_as_json(response: Value) -> Value {
    let Some(content) = response.get("content").and_then(Value::as_object) else {
        return response;
    };
    let has_json = content.keys().any(|media| {
        super::streams::stream_media(media).is_none()
            && crate::ty::Encoding::of_media(media).1 == Encoding::Json
    });
    let streamed = content
        .iter()
        .filter(|(media, _)| super::streams::stream_media(media).is_some())
        .find_map(|(_, media)| media.get("itemSchema").or_else(|| media.get("schema")));
    let (false, Some(schema)) = (has_json, streamed) else {
        return response;
    };
    let mut response = response.clone();
    if let Some(object) = response.as_object_mut() {
        let json = serde_json::json!({ "application/json": { "schema": schema } });
        object.insert("content".to_owned(), json);
    }
    response
}

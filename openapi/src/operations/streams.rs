//! Streamed answers: a success response in `text/event-stream` (Server-Sent Events) or a JSON
//! Lines media type (`application/jsonl`, `application/x-ndjson`, `application/stream+json`,
//! `application/json-seq`), or a JSON answer Fern's `x-fern-streaming` says is streamed. The
//! item's type comes from OpenAPI 3.2's `itemSchema` (for events: the event's `data`, its
//! `contentSchema` when it has one, or events by name when the item is a `oneOf` of events
//! with a constant `event`), else from the media type's `schema`, which 3.0 and 3.1
//! descriptions use for one event's data (or one line). A stream whose description says it ends
//! with `[DONE]` gets that end. An operation that answers JSON as well (a body flag chooses)
//! keeps its JSON method and gets a second one for the stream.

use serde_json::Value;

use crate::document::Place;
use crate::spec::{StreamKind, StreamOut};
use crate::ty::{Encoding, Ty};
use crate::walk::Builder;

/// The stream a media type is, if it is one.
pub(super) fn stream_media(media: &str) -> Option<StreamKind> {
    let media = media.trim().to_ascii_lowercase();
    let essence = media.split(';').next().unwrap_or_default().trim();
    if essence == "text/event-stream" {
        return Some(StreamKind::Events);
    }
    // JSON Lines in every spelling: `application/jsonl`, `application/x-jsonl`,
    // `application/x-ndjson`, `text/jsonl`, `application/json-seq`, `application/stream+json`,
    // `application/x-json-stream`, and a vendor's type with such a suffix
    // (`application/vnd.acme.events+jsonl`).
    let (_, subtype) = essence.split_once('/')?;
    let plain = |word: &str| word.strip_prefix("x-").unwrap_or(word).to_owned();
    let suffix = subtype.rsplit_once('+').map(|(_, suffix)| plain(suffix));
    let lines = ["jsonl", "jsonlines", "ndjson", "json-seq", "json-stream"];
    let is_lines = lines.contains(&plain(subtype).as_str())
        || suffix.is_some_and(|suffix| lines.contains(&suffix.as_str()))
        || subtype.ends_with("stream+json");
    is_lines.then_some(StreamKind::Lines)
}

/// The data an event stream ends with by a convention descriptions write in prose.
const DONE: &str = "[DONE]";

impl Builder<'_> {
    /// True when the description says the stream ends with `[DONE]`: in the operation's own
    /// text, or in the stream's schema, examples or the request body's (one `$ref` followed: that is
    /// where OpenAI-compatible descriptions say it, in the `stream` flag's description or an
    /// example). Linear in what it reads; the words are the vendor's, matched, never written.
    fn says_done(&mut self, operation: &Value, at: &Place, given: &Value) -> bool {
        if operation.to_string().contains(DONE) {
            return true;
        }
        let request = operation
            .get("requestBody")
            .and_then(|body| self.docs.follow(at, body).ok())
            .and_then(|(place, body)| {
                let content = body.get("content")?.as_object()?;
                let json = content.iter().find(|(media, _)| media.contains("json"))?.1;
                Some((place, json.get("schema")?.clone()))
            });
        // Examples kept in `components/examples` are where a sample stream shows its end.
        let examples = given
            .get("examples")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|examples| examples.values())
            .map(|example| (at.clone(), example.clone()));
        let schemas = ["itemSchema", "schema"]
            .iter()
            .filter_map(|key| Some((at.clone(), given.get(*key)?.clone())))
            .chain(examples)
            .chain(request);
        for (place, schema) in schemas.collect::<Vec<_>>() {
            if let Ok((_, followed)) = self.docs.follow(&place, &schema)
                && followed.to_string().contains(DONE)
            {
                return true;
            }
        }
        false
    }

    /// The stream a success response's content offers, if any.
    pub(super) fn streamed(
        &mut self,
        operation: &Value,
        at: &Place,
        response: &Value,
        hint: &str,
    ) -> Option<StreamOut> {
        let content = response.get("content")?.as_object()?;
        // Events before lines, as the spec has no way to offer both.
        let (media, kind) = content
            .keys()
            .filter_map(|media| Some((media, stream_media(media)?)))
            .min_by_key(|(media, kind)| (*kind, media.as_str()))?;
        let lines = kind == StreamKind::Lines;
        let at = at.child("content").child(media);
        let given = &content[media];
        let item_hint = format!("{hint}Item");
        let mut out = StreamOut {
            kind,
            media: media.clone(),
            item: Ty::Value,
            end: None,
            events: Vec::new(),
            error: None,
        };
        // The raw schemas go to `ty`, which keeps a `$ref`'s name; the followed ones are read.
        if let Some(raw) = given.get("itemSchema") {
            let raw_at = at.child("itemSchema");
            let (place, item) = self.followed(&raw_at, raw)?;
            if lines {
                out.item = self.ty(&raw_at, raw, &item_hint);
            } else if let Some(mut events) = self.events_by_name(&place, &item, hint) {
                out.error = error_event(&mut events);
                out.events = events;
            } else {
                out.item = self.event_data((&raw_at, raw), (&place, &item), &item_hint);
            }
        } else if let Some(raw) = given.get("schema") {
            let raw_at = at.child("schema");
            let (place, schema) = self.followed(&raw_at, raw)?;
            out.item = match (lines, schema.get("items")) {
                // A list described for JSON Lines: each line is one of its items.
                (true, Some(items)) if is_type(&schema, "array") => {
                    self.ty(&place.child("items"), items, &item_hint)
                }
                _ if is_type(&schema, "string") && !lines => Ty::String,
                // The event object itself (`{event, data, id, retry}`), as 3.2's `itemSchema`
                // says it: the items are its `data`.
                _ if !lines && is_event_envelope(&schema) => {
                    self.event_data((&raw_at, raw), (&place, &schema), &item_hint)
                }
                _ => self.ty(&raw_at, raw, &item_hint),
            };
        }
        // Text or binary items have no JSON to read: each is the text as it came.
        if out.item == Ty::Bytes {
            out.item = Ty::String;
        }
        if !lines && self.says_done(operation, &at, given) {
            out.end = Some(DONE.to_owned());
            let said = self.as_said(&at);
            self.note(
                &at,
                false,
                format!("the event stream ends at `data: {DONE}`, {said}"),
            );
        }
        Some(out)
    }

    /// An event object of 3.2's `itemSchema`: its `data`, read by its `contentSchema` when it
    /// has one, as text when it is a string; or the item itself when it has no `data`. The item
    /// comes as written (`raw`) and after its `$ref`.
    fn event_data(
        &mut self,
        (raw_at, raw): (&Place, &Value),
        (at, item): (&Place, &Value),
        hint: &str,
    ) -> Ty {
        let Some(data) = item.get("properties").and_then(|p| p.get("data")) else {
            return self.ty(raw_at, raw, hint);
        };
        let data_at = at.child("properties").child("data");
        let Some((place, followed)) = self.followed(&data_at, data) else {
            return Ty::Value;
        };
        match followed.get("contentSchema") {
            Some(schema) => self.ty(&place.child("contentSchema"), schema, hint),
            None if is_type(&followed, "string") => Ty::String,
            None => self.ty(&data_at, data, hint),
        }
    }

    /// Events by name: an item that is a `oneOf` (or `anyOf`) of event objects, each with a
    /// constant `event`; `None` when it is not.
    fn events_by_name(
        &mut self,
        at: &Place,
        item: &Value,
        hint: &str,
    ) -> Option<Vec<(String, Ty)>> {
        let (key, alternatives) = ["oneOf", "anyOf"]
            .iter()
            .find_map(|key| Some((*key, item.get(key)?.as_array()?)))?;
        let mut named = Vec::new();
        for (index, alternative) in alternatives.iter().enumerate() {
            let raw_at = at.child(key).child(&index.to_string());
            let (place, followed) = self.followed(&raw_at, alternative)?;
            let event = followed.get("properties")?.get("event")?;
            let name = match (event.get("const"), event.get("enum")) {
                (Some(Value::String(name)), _) => name.clone(),
                (None, Some(Value::Array(values))) if values.len() == 1 => {
                    values[0].as_str()?.to_owned()
                }
                _ => return None,
            };
            if named.iter().any(|(seen, _)| *seen == name) {
                return None;
            }
            let data_hint = format!("{hint}{}", crate::names::type_name(&name));
            let data = self.event_data((&raw_at, alternative), (&place, &followed), &data_hint);
            named.push((name, data));
        }
        (!named.is_empty()).then_some(named)
    }

    /// The boolean property of the operation's JSON request body that chooses a stream: one
    /// named `stream`, else the one boolean property whose name has `stream` in it. `None` when
    /// the body has no such flag (the caller then chooses as the description says).
    pub(super) fn stream_flag(&mut self, operation: &Value, at: &Place) -> Option<String> {
        // Fern names it: `stream-condition: $request.stream`.
        let fern = (operation.get("x-fern-streaming"))
            .and_then(|f| f.get("stream-condition"))
            .and_then(Value::as_str)
            .and_then(|condition| condition.strip_prefix("$request."))
            .filter(|name| !name.contains('.'));
        let body = operation.get("requestBody")?;
        let (place, body) = self.docs.follow(at, body).ok()?;
        let content = body.get("content")?.as_object()?;
        let json = content.iter().find(|(media, _)| media.contains("json"))?.1;
        let (_, schema) = self.docs.follow(&place, json.get("schema")?).ok()?;
        let properties = schema.get("properties")?.as_object()?;
        if let Some(name) = fern.filter(|name| properties.contains_key(*name)) {
            return Some(name.to_owned());
        }
        let boolean = |schema: &Value| {
            let types = |s: &Value| match s.get("type") {
                Some(Value::String(t)) => t == "boolean",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "boolean"),
                _ => false,
            };
            types(schema)
                || ["anyOf", "oneOf"].iter().any(|key| {
                    schema
                        .get(*key)
                        .and_then(Value::as_array)
                        .is_some_and(|alternatives| alternatives.iter().any(types))
                })
        };
        let flags: Vec<&String> = properties
            .iter()
            .filter(|(name, schema)| {
                name.to_ascii_lowercase().contains("stream") && boolean(schema)
            })
            .map(|(name, _)| name)
            .collect();
        flags
            .iter()
            .find(|name| name.eq_ignore_ascii_case("stream"))
            .or(flags.first().filter(|_| flags.len() == 1))
            .map(|name| (*name).clone())
    }

    /// `value` after its `$ref`, or `None` (with a note) when the reference does not resolve.
    fn followed(&mut self, at: &Place, value: &Value) -> Option<(Place, Value)> {
        match self.docs.follow(at, value) {
            Ok(found) => Some(found),
            Err(error) => {
                self.unresolved(error, "the stream's items are read as serde_json::Value");
                None
            }
        }
    }
}

impl Builder<'_> {
    /// A streamed method's failures mid-answer: when its events name none, the error the
    /// operation declares for its failures (`default`, else a 5XX, else the first), a struct of
    /// the spec, is tried on an item that does not read as the stream's type. Noted: the
    /// description declares it for the status, and servers send the same body in the stream.
    pub(super) fn stream_errors(&mut self, at: &Place, method: &mut crate::spec::MethodOut) {
        let declared = method
            .errors
            .iter()
            .filter(|(_, ty, encoding)| matches!(ty, Ty::Named(_)) && *encoding == Encoding::Json)
            .filter_map(|(status, ty, _)| Some((status.stream_preference()?, ty)))
            .min_by_key(|(preference, _)| *preference)
            .map(|(_, ty)| ty.clone());
        for stream in method.stream.iter_mut().chain(&mut method.stream_twin) {
            // Text items always read: nothing would ever be tried as the error.
            let text = stream.item == Ty::String && stream.events.is_empty();
            if stream.error.is_some() || text {
                continue;
            }
            if let Some(error) = &declared {
                stream.error = Some((error.clone(), None));
                self.note(
                    at,
                    false,
                    format!("a failure inside the stream is read as `{}`, the operation's declared error, when an item does not read as the stream's type", error),
                );
            }
        }
    }
}

/// An event named `error` among the events by name, taken out of them: the server's failure
/// mid-answer, which ends the stream with a typed error rather than being one more item. Only
/// when its data is JSON (text has no keys to tell it by).
fn error_event(events: &mut Vec<(String, Ty)>) -> Option<(Ty, Option<String>)> {
    let index = events
        .iter()
        .position(|(name, data)| name == "error" && matches!(data, Ty::Named(_) | Ty::Map(_)))?;
    let (name, data) = events.remove(index);
    Some((data, Some(name)))
}

/// True for a schema of the event object rather than of its data: properties `data` and only
/// the other fields of an event (`event`, `id`, `retry`).
fn is_event_envelope(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| {
            properties.contains_key("data")
                && properties
                    .keys()
                    .all(|key| matches!(key.as_str(), "data" | "event" | "id" | "retry"))
        })
}

/// True when `schema` says it is of JSON type `name` (alone, or with `null`).
fn is_type(schema: &Value, name: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(ty)) => ty == name,
        Some(Value::Array(types)) => types.iter().any(|t| t == name),
        _ => false,
    }
}

/// A success response of an operation with Fern's `x-fern-streaming`, with the content an
/// OpenAPI 3 response would declare: `true` makes its JSON answer a stream (JSON lines, or
/// events with `format: sse`); `{ stream-condition, response, response-stream, format }` offers
/// the JSON answer (`response`, else the declared one) and the stream of `response-stream`, a body
/// flag choosing. Any other response as it is.
pub(super) fn with_fern_streaming(operation: &Value, response: Value) -> Value {
    let Some(fern) = operation.get("x-fern-streaming") else {
        return response;
    };
    let declared = response
        .get("content")
        .and_then(Value::as_object)
        .and_then(|content| content.iter().find(|(media, _)| media.contains("json")))
        .and_then(|(_, media)| media.get("schema"))
        .cloned();
    let stream_media = match fern.get("format").and_then(Value::as_str) {
        Some("sse") => "text/event-stream",
        _ => "application/x-ndjson",
    };
    let mut content = serde_json::Map::new();
    match fern {
        Value::Bool(true) => {
            let Some(schema) = declared else {
                return response;
            };
            content.insert(
                stream_media.to_owned(),
                serde_json::json!({ "schema": schema }),
            );
        }
        Value::Object(settings) => {
            let Some(stream) = settings.get("response-stream") else {
                return response;
            };
            if let Some(json) = settings.get("response").cloned().or(declared) {
                content.insert(
                    "application/json".to_owned(),
                    serde_json::json!({ "schema": json }),
                );
            }
            content.insert(
                stream_media.to_owned(),
                serde_json::json!({ "schema": stream }),
            );
        }
        _ => return response,
    }
    let mut response = response;
    if let Some(object) = response.as_object_mut() {
        object.insert("content".to_owned(), Value::Object(content));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::stream_media;
    use crate::spec::StreamKind;

    #[test]
    fn every_json_lines_media_type_is_a_stream_of_lines() {
        for media in [
            "application/jsonl",
            "application/x-jsonl",
            "application/x-jsonlines",
            "application/ndjson",
            "application/x-ndjson; charset=utf-8",
            "text/jsonl",
            "application/json-seq",
            "application/stream+json",
            "application/x-json-stream",
            "application/vnd.acme.events+jsonl",
            "application/vnd.acme.feed+x-ndjson",
        ] {
            assert_eq!(stream_media(media), Some(StreamKind::Lines), "{media}");
        }
        assert_eq!(stream_media("text/event-stream"), Some(StreamKind::Events));
        for media in [
            "application/json",
            "application/jsonp",
            "text/plain",
            "application/x-json",
        ] {
            assert_eq!(stream_media(media), None, "{media}");
        }
    }
}

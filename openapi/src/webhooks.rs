//! The deliveries a described API sends back, read into the spec's `webhooks:`: OpenAPI 3.1's
//! `webhooks`, the older `x-webhooks` extension (the same shape), and each operation's
//! `callbacks`. Every operation of those path items is an event: its name from its key (a
//! callback's from its own), its payload the request body's JSON schema, typed as any body is,
//! its answer the first 2xx it declares. What tells one event's delivery from another's is read
//! from the description: a header parameter of one value (`X-GitHub-Event: issues`), a required
//! payload property of one value (`type: invoice.paid`). Events it does not tell apart, and every
//! callback (its URL is the caller's, so the path is the receiver's to give), are delivered to a
//! path of their own, and a note says so. The scheme is read from the headers the events declare
//! (`webhook-signature`, `Stripe-Signature`, `X-Hub-Signature-256`).

use std::collections::HashMap;

use serde_json::Value;

use crate::document::Place;
use crate::names;
use crate::operations::pick_media;
use crate::spec::EventOut;
use crate::ty::Encoding;
use crate::walk::Builder;

/// One event before its look is settled.
struct Found {
    event: EventOut,
    /// A callback's: always on a path of its own.
    callback: bool,
    place: Place,
}

impl Builder<'_> {
    /// Every event the description declares, into `spec.webhooks`.
    pub(crate) fn webhooks(&mut self) {
        let top = self.docs.top();
        let items = self.declared_items();
        if items.is_empty() {
            return;
        }
        let mut found = Vec::new();
        let mut taken = names::Taken::default();
        let mut signature_headers = Vec::new();
        for (key, place, item, callback) in items {
            let (place, item) = match self.docs.follow(&place, &item) {
                Ok(followed) => followed,
                Err(error) => {
                    self.spec.summary.events_declared += 1;
                    self.unresolved(error, "the event is left out");
                    continue;
                }
            };
            let operations = self.item_operations(&key, &place, &item);
            let several = operations.len() > 1;
            for (verb, at, operation) in operations {
                self.spec.summary.events_declared += 1;
                let (at, operation) = match self.docs.follow(&at, &operation) {
                    Ok(followed) => followed,
                    Err(error) => {
                        self.unresolved(error, "the event is left out");
                        continue;
                    }
                };
                let mut raw = key.clone();
                if several {
                    raw.push_str(&format!(" {}", verb.key()));
                }
                let name = names::unique(&names::method(&raw), "_", &mut taken);
                let event = self.event(&name, &at, &operation, &item, &mut signature_headers);
                found.push(Found {
                    event,
                    callback,
                    place: at,
                });
            }
        }
        self.settle_looks(&mut found);
        self.spec.webhooks.signature = scheme(&signature_headers);
        if self.spec.webhooks.signature.is_none() {
            self.note(
                &top,
                false,
                "the description does not say how its deliveries are signed: the receiver expects Standard Webhooks; set `webhooks.signature` to the sender's scheme",
            );
        }
        self.spec.webhooks.events = found.into_iter().map(|f| f.event).collect();
        self.spec.summary.events = self.spec.webhooks.events.len();
        if !self.spec.webhooks.events.is_empty() {
            self.note(
                &top,
                false,
                "the description's webhook events are a typed receiver beside the client (`webhooks::`): the crate builds it with remcall's `webhooks` feature",
            );
        }
    }

    /// The path items of events: `webhooks` and `x-webhooks` entries by their key, callbacks
    /// by their operation's and their own name (numbered when one has several URLs), each
    /// with whether it is a callback.
    fn declared_items(&mut self) -> Vec<(String, Place, Value, bool)> {
        let top = self.docs.top();
        let root = self.docs.root_value().clone();
        let mut items: Vec<(String, Place, Value, bool)> = Vec::new();
        for key in ["webhooks", "x-webhooks"] {
            for (name, item) in root
                .get(key)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                items.push((
                    name.clone(),
                    top.child(key).child(name),
                    item.clone(),
                    false,
                ));
            }
        }
        for (operation, place, callbacks) in std::mem::take(&mut self.callbacks) {
            for (name, callback) in callbacks.as_object().into_iter().flatten() {
                let at = place.child(name);
                let (at, callback) = match self.docs.follow(&at, callback) {
                    Ok(followed) => followed,
                    Err(error) => {
                        self.spec.summary.events_declared += 1;
                        self.unresolved(error, "the callback is left out");
                        continue;
                    }
                };
                let expressions = callback.as_object().cloned().unwrap_or_default();
                let several = expressions.len() > 1;
                for (index, (expression, item)) in expressions.iter().enumerate() {
                    let mut event = format!("{operation} {name}");
                    if several {
                        event.push_str(&format!(" {}", index + 1));
                    }
                    items.push((event, at.child(expression), item.clone(), true));
                }
            }
        }
        items
    }

    /// One event: its doc, payload, naming headers and fields, and answer.
    fn event(
        &mut self,
        name: &str,
        at: &Place,
        operation: &Value,
        item: &Value,
        signature_headers: &mut Vec<String>,
    ) -> EventOut {
        let doc = ["description", "summary"]
            .iter()
            .find_map(|key| operation.get(*key).and_then(Value::as_str))
            .map(str::to_owned);
        let mut headers = Vec::new();
        let parameters = item
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .chain(
                operation
                    .get("parameters")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            )
            .cloned()
            .collect::<Vec<_>>();
        for (index, parameter) in parameters.iter().enumerate() {
            let Ok((place, parameter)) = self
                .docs
                .follow(&at.child("parameters").child(&index.to_string()), parameter)
            else {
                continue;
            };
            if parameter.get("in").and_then(Value::as_str) != Some("header") {
                continue;
            }
            let Some(header) = parameter.get("name").and_then(Value::as_str) else {
                continue;
            };
            signature_headers.push(header.to_ascii_lowercase());
            let schema = parameter.get("schema").cloned().unwrap_or(Value::Null);
            let schema = self
                .docs
                .follow(&place.child("schema"), &schema)
                .map(|(_, s)| s)
                .unwrap_or(Value::Null);
            // What a header can carry: visible ASCII, spaces inside.
            let sendable = |value: &String| {
                value
                    .bytes()
                    .all(|b| b == b' ' || (0x21..0x7f).contains(&b))
            };
            if let Some(value) = one_value(&schema)
                .and_then(|v| text_of(&v))
                .filter(sendable)
                && names::is_header_name(header)
            {
                headers.push((header.to_owned(), value));
            }
        }
        let type_base = crate::names::type_name(name);
        let (payload, fields) = match operation.get("requestBody") {
            Some(body) => match self.docs.follow(&at.child("requestBody"), body) {
                Ok((place, body)) => self.payload(&place, &body, &type_base, name),
                Err(error) => {
                    self.unresolved(error, "the event's payload is read as serde_json::Value");
                    (Some(crate::ty::Ty::Value), Vec::new())
                }
            },
            None => (None, Vec::new()),
        };
        let answer = operation
            .get("responses")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(status, _)| status.parse::<u16>().ok())
            .find(|status| (200..300).contains(status));
        EventOut {
            name: name.to_owned(),
            doc,
            payload,
            path: None,
            headers,
            fields,
            answer: answer.filter(|status| *status != 200),
        }
    }

    /// The payload's type (JSON; another media type is noted and left unread) and the
    /// required properties of one value that name the event.
    fn payload(
        &mut self,
        at: &Place,
        body: &Value,
        type_base: &str,
        name: &str,
    ) -> (Option<crate::ty::Ty>, Vec<(String, Value)>) {
        let Some(content) = body.get("content").and_then(Value::as_object) else {
            return (None, Vec::new());
        };
        match pick_media(content) {
            Some((media, Encoding::Json)) => {
                let place = at.child("content").child(&media).child("schema");
                let schema = content[&media]
                    .get("schema")
                    .cloned()
                    .unwrap_or(Value::Null);
                let fields = self.naming_fields(&place, &schema);
                (Some(self.ty(&place, &schema, type_base)), fields)
            }
            _ => {
                if let Some(media) = content.keys().next() {
                    self.note(
                        at,
                        true,
                        format!("the event `{name}` delivers `{media}`, which the receiver does not read: its method gets no payload"),
                    );
                }
                (None, Vec::new())
            }
        }
    }

    /// The required properties of one value of the schema (or of its `allOf` parts).
    fn naming_fields(&mut self, at: &Place, schema: &Value) -> Vec<(String, Value)> {
        let mut fields = Vec::new();
        let mut parts = vec![(at.clone(), schema.clone())];
        let mut seen = 0;
        while let Some((place, part)) = parts.pop() {
            seen += 1;
            if seen > 16 {
                break;
            }
            let Ok((place, part)) = self.docs.follow(&place, &part) else {
                continue;
            };
            for (index, inner) in part
                .get("allOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                parts.push((
                    place.child("allOf").child(&index.to_string()),
                    inner.clone(),
                ));
            }
            let required: Vec<&str> = part
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for (key, property) in part
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if !required.contains(&key.as_str()) || fields.iter().any(|(k, _)| k == key) {
                    continue;
                }
                let property = self
                    .docs
                    .follow(&place.child("properties").child(key), property)
                    .map(|(_, p)| p)
                    .unwrap_or(Value::Null);
                // A float's text is not one value (`1.0`, `1`): integers, strings, booleans.
                if let Some(value) = one_value(&property)
                    && (value.is_string() || value.is_boolean() || value.is_i64())
                    && !key.is_empty()
                    && !key.contains('.')
                {
                    fields.push((key.clone(), value));
                }
            }
        }
        fields
    }

    /// Events whose deliveries look alike, and callbacks, each on a path of its own.
    fn settle_looks(&mut self, found: &mut [Found]) {
        let look = |event: &EventOut| {
            let mut headers = event.headers.clone();
            headers.sort();
            let mut fields: Vec<(String, String)> = event
                .fields
                .iter()
                .map(|(k, v)| (k.clone(), text_of(v).unwrap_or_default()))
                .collect();
            fields.sort();
            (headers, fields)
        };
        let mut count: HashMap<_, usize> = HashMap::new();
        for f in found.iter().filter(|f| !f.callback) {
            *count.entry(look(&f.event)).or_default() += 1;
        }
        for f in found.iter_mut() {
            let alike = !f.callback && count.get(&look(&f.event)).is_some_and(|n| *n > 1);
            if !(f.callback || alike) {
                continue;
            }
            let path = format!("/{}", f.event.name.replace('_', "-"));
            if alike {
                self.note(
                    &f.place,
                    false,
                    format!("nothing the description declares tells the event `{}` from another: it is received at `{path}`", f.event.name),
                );
            }
            f.event.path = Some(path);
        }
    }
}

/// The one value a schema allows: its `const`, or an `enum` of one.
fn one_value(schema: &Value) -> Option<Value> {
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    match schema.get("enum").and_then(Value::as_array) {
        Some(values) if values.len() == 1 => Some(values[0].clone()),
        _ => None,
    }
}

/// A scalar's text as a naming value: a string's own, a number's or a boolean's JSON text.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The scheme the declared headers say, if any.
fn scheme(headers: &[String]) -> Option<&'static str> {
    let has = |name: &str| headers.iter().any(|h| h == name);
    if has("webhook-signature") {
        Some("standard_webhooks")
    } else if has("stripe-signature") {
        Some("stripe")
    } else if has("x-hub-signature-256") {
        Some("github")
    } else {
        None
    }
}

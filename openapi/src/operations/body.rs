//! An operation's request body: 3.x `requestBody` (JSON preferred; form, multipart, text and
//! bytes as the description offers), or 2.0's `in: body` parameter or `formData` fields.

use serde_json::{Map, Value};

use super::Operation;
use super::parameters::{BodyInputs, form_field_schema};
use crate::document::{Place, Version};
use crate::names;
use crate::schema::doc;
use crate::spec::{BodyOut, FieldOut, MethodOut, StructOut, TypeOut, Verb};
use crate::ty::{Encoding, Ty};
use crate::walk::Builder;

impl Builder<'_> {
    /// The method's body, when the operation takes one.
    pub(super) fn body(
        &mut self,
        operation: &Operation,
        inputs: BodyInputs,
        method: &mut MethodOut,
    ) {
        let body = match self.docs.version {
            Version::Swagger2 => self.body_v2(operation, inputs),
            _ => match operation.value.get("requestBody") {
                Some(body) => match self
                    .docs
                    .follow(&operation.place.child("requestBody"), body)
                {
                    Ok((place, body)) => self.body_v3(&place, &body, &operation.type_base),
                    Err(error) => {
                        self.unresolved(error, "the body is sent as serde_json::Value");
                        method.lost = true;
                        Some(BodyOut {
                            ty: self.fallback(),
                            encoding: Encoding::Json,
                            content_type: None,
                            doc: None,
                            on_get: false,
                        })
                    }
                },
                None => None,
            },
        };
        let Some(mut body) = body else { return };
        // A JSON body whose schema allows `null` (`anyOf: [X, null]`) may be sent as `null`:
        // the method takes `Option<&X>`. Other encodings have no null to send.
        if body.encoding != Encoding::Json || body.ty.required() == &Ty::Value {
            body.ty = body.ty.required().clone();
        }
        // HTTP gives a GET's body no meaning, but some APIs (a search with its query in the
        // body) take one: it is sent, and the spec says so in so many words.
        body.on_get = matches!(operation.verb, Verb::Get | Verb::Head);
        method.body = Some(body);
    }

    /// A 2.0 body: the `in: body` parameter's schema, or a struct of the `formData` fields.
    fn body_v2(&mut self, operation: &Operation, inputs: BodyInputs) -> Option<BodyOut> {
        if let Some((place, parameter)) = inputs.body {
            let schema = parameter.get("schema").cloned().unwrap_or(Value::Null);
            let hint = format!("{}Body", operation.type_base);
            // Sent in the media type the operation consumes: JSON when it lists JSON.
            let (ty, encoding, content_type) = match self.swagger_media(operation, "consumes") {
                Some((media, Encoding::Text)) => {
                    let custom = !media.starts_with("text/plain");
                    (Ty::String, Encoding::Text, custom.then_some(media))
                }
                Some((media, Encoding::Bytes)) => {
                    let custom = media != "application/octet-stream" && !media.contains('*');
                    (Ty::Bytes, Encoding::Bytes, custom.then_some(media))
                }
                Some((media, Encoding::Json)) => {
                    let custom = media != "application/json" && !media.contains('*');
                    let ty = self.ty(&place.child("schema"), &schema, &hint);
                    (ty, Encoding::Json, custom.then_some(media))
                }
                _ => (
                    self.ty(&place.child("schema"), &schema, &hint),
                    Encoding::Json,
                    None,
                ),
            };
            return Some(BodyOut {
                ty,
                encoding,
                content_type,
                doc: doc(&parameter),
                on_get: false,
            });
        }
        if inputs.form.is_empty() {
            return None;
        }
        Some(self.form_body(&inputs.form, &operation.value, &operation.type_base))
    }

    /// A 3.x `requestBody`: the JSON media type when there is one, else form, multipart, text or
    /// bytes.
    fn body_v3(&mut self, at: &Place, body: &Value, type_base: &str) -> Option<BodyOut> {
        let content = body.get("content").and_then(Value::as_object)?;
        let (media, encoding) = pick_media(content)?;
        if content.len() > 1 {
            let others: Vec<&str> = content
                .keys()
                .filter(|m| **m != media)
                .map(String::as_str)
                .collect();
            // What goes on the wire: a range (`*/*`, `application/*+json`) is sent as JSON.
            let sent = if media.contains('*') {
                "application/json"
            } else {
                media.as_str()
            };
            self.note(
                at,
                false,
                format!(
                    "sends `{sent}`; the description also takes {}",
                    others.join(", ")
                ),
            );
        }
        let schema = content[&media]
            .get("schema")
            .cloned()
            .unwrap_or(Value::Null);
        let place = at.child("content").child(&media).child("schema");
        let hint = format!("{type_base}Body");
        let ty = match encoding {
            Encoding::Text => Ty::String,
            Encoding::Bytes => Ty::Bytes,
            Encoding::Multipart => {
                let ty = self.ty(&place, &schema, &hint);
                let is_struct = ty.named().is_some_and(|name| {
                    matches!(self.spec.types.get(name), Some(TypeOut::Struct(_)))
                        || self.pending.iter().any(|(_, n)| n == name)
                });
                if !is_struct {
                    // Not an object: no part has a name, so there is no form to send.
                    self.note(
                        &place,
                        true,
                        format!("the `{media}` body's schema is not an object, so it names no parts: the body is sent as JSON"),
                    );
                    return Some(BodyOut {
                        ty,
                        encoding: Encoding::Json,
                        content_type: None,
                        doc: doc(body),
                        on_get: false,
                    });
                }
                ty
            }
            Encoding::Json | Encoding::Form => self.ty(&place, &schema, &hint),
        };
        let standard = matches!(
            media.as_str(),
            "application/json"
                | "application/x-www-form-urlencoded"
                | "text/plain"
                | "application/octet-stream"
        ) || media.starts_with("multipart/form-data");
        Some(BodyOut {
            ty,
            encoding,
            content_type: (!standard && !media.contains('*')).then(|| media.clone()),
            doc: doc(body),
            on_get: false,
        })
    }

    /// A 2.0 `formData` body: a struct of its fields, multipart when it has a file.
    fn form_body(
        &mut self,
        fields: &[(Place, Value)],
        operation: &Value,
        type_base: &str,
    ) -> BodyOut {
        let name = names::unique(&format!("{type_base}Form"), "", &mut self.taken_types);
        let mut definition = StructOut::default();
        let mut taken = names::Taken::default();
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
                Ty::File
            } else {
                let schema = form_field_schema(field);
                self.ty(place, &schema, &format!("{name}{}", names::type_name(wire)))
            };
            if !required {
                ty = ty.optional();
            }
            let key = names::unique(&names::word(wire), "_", &mut taken);
            definition.fields.push(FieldOut {
                rename: (key != wire).then(|| wire.to_owned()),
                key,
                ty,
                doc: doc(field),
                required_null: false,
                optional_null: false,
                constant: None,
            });
        }
        self.spec
            .types
            .insert(name.clone(), TypeOut::Struct(definition));
        BodyOut {
            ty: Ty::Named(name),
            encoding: if multipart {
                Encoding::Multipart
            } else {
                Encoding::Form
            },
            content_type: None,
            doc: None,
            on_get: false,
        }
    }
}

/// The media type to use, and its encoding: JSON first, then form, multipart, text, bytes.
pub(crate) fn pick_media(content: &Map<String, Value>) -> Option<(String, Encoding)> {
    content
        .keys()
        .map(|media| (Encoding::of_media(media), media))
        .min_by(|((a, _), m), ((b, _), n)| a.cmp(b).then(m.cmp(n)))
        .map(|((_, encoding), media)| (media.clone(), encoding))
}

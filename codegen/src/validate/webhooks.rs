//! `webhooks:`: the scheme a sender signs with, and each event's payload, path, naming headers
//! and fields, and answer; two events whose deliveries look alike are refused, since the
//! receiver could not tell which one came.

use std::collections::HashMap;

use super::{Validator, is_header_name};
use crate::checked::{self, Signature};
use crate::names;
use crate::spec::model::{
    ConstValue, DigestEncoding, EventDef, SchemeName, SignatureDef, WebhooksDef,
};

/// What tells an event's deliveries apart: its path, naming headers and fields, each sorted.
type Look = (String, Vec<(String, String)>, Vec<(String, String)>);

impl Validator<'_> {
    /// The spec's `webhooks:`; `None` after a diagnostic (or without one).
    pub(super) fn webhooks(&mut self) -> Option<Option<checked::Webhooks>> {
        let spec = self.spec;
        let Some(def) = &spec.file.webhooks else {
            return Some(None);
        };
        let errors = self.out.len();
        let signature = self.signature(def);
        let mut events = Vec::new();
        let mut rust_names: HashMap<String, &str> = HashMap::new();
        let mut looks: HashMap<Look, &str> = HashMap::new();
        for (name, def) in &def.events {
            let key = format!("webhooks.events.{name}");
            let rust = names::snake(name);
            if !names::is_identifier(&rust) || rust.starts_with(|c: char| c.is_ascii_digit()) {
                self.push(spec.at_key(0, &key, format!("`{name}` makes no Rust method name")));
            } else if let Some(first) = rust_names.insert(rust.clone(), name) {
                self.push(spec.at_key(
                    0,
                    &key,
                    format!("events `{name}` and `{first}` are both `{rust}` in Rust"),
                ));
            }
            let event = self.event(&key, name, def);
            let mut look = (
                event.path.clone(),
                event.headers.clone(),
                event.fields.clone(),
            );
            look.1.sort();
            look.2.sort();
            if let Some(first) = looks.insert(look, name) {
                self.push(
                    spec.at_key(
                        0,
                        &key,
                        format!("deliveries of `{name}` and `{first}` look alike"),
                    )
                    .help(
                        "give one a `path:`, or the `headers:` or `fields:` whose value names it",
                    ),
                );
            }
            events.push(event);
        }
        if def.events.is_empty() {
            self.push(spec.at_key(0, "webhooks", "`webhooks:` declares no event"));
        }
        (self.out.len() == errors).then_some(Some(checked::Webhooks { signature, events }))
    }

    /// One event: its payload's type, path, naming headers and fields, and answer.
    fn event(&mut self, key: &str, name: &str, event: &EventDef) -> checked::Event {
        let spec = self.spec;
        let payload = match &event.payload {
            Some(ty) => self.type_expr(0, &format!("{key}.payload"), ty, &[]),
            None => None,
        };
        let path = event.path.clone().unwrap_or_else(|| "/".to_owned());
        if !path.starts_with('/')
            || !path[1..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~/".contains(&b))
        {
            self.push(
                spec.at(
                    0,
                    &format!("{key}.path"),
                    format!("`{path}` is not a plain path"),
                )
                .help(
                    "a path starts with `/` and holds letters, digits and `-._~/`, no placeholders",
                ),
            );
        }
        let mut headers = Vec::new();
        for (header, value) in &event.headers {
            let at = format!("{key}.headers.{header}");
            if !is_header_name(header) {
                self.push(spec.at_key(0, &at, format!("`{header}` is no header name")));
            } else if header_value_problem(value) {
                self.push(spec.at(0, &at, "a header value is visible ASCII text"));
            }
            headers.push((header.to_ascii_lowercase(), value.clone()));
        }
        let mut fields = Vec::new();
        for (field, value) in &event.fields {
            if field.split('.').any(str::is_empty) {
                self.push(spec.at_key(
                    0,
                    &format!("{key}.fields.{field}"),
                    format!("`{field}` is no dotted path of keys"),
                ));
            }
            let text = match value {
                ConstValue::Str(text) => text.clone(),
                ConstValue::Int(n) => n.to_string(),
                ConstValue::Bool(b) => b.to_string(),
            };
            fields.push((field.clone(), text));
        }
        let answer = event.answer.unwrap_or(200);
        if !(200..300).contains(&answer) {
            self.push(
                spec.at(
                    0,
                    &format!("{key}.answer"),
                    format!("`{answer}` is not a success"),
                )
                .help("a handled delivery is answered 2xx, or its sender sends it again"),
            );
        }
        checked::Event {
            name: name.to_owned(),
            doc: event.doc.clone(),
            payload,
            path,
            headers,
            fields,
            answer,
            max_body: event.max_body.map(|size| size.0),
        }
    }

    fn signature(&mut self, def: &WebhooksDef) -> Signature {
        match &def.signature {
            None | Some(SignatureDef::Named(SchemeName::StandardWebhooks)) => {
                Signature::StandardWebhooks
            }
            Some(SignatureDef::Named(SchemeName::Stripe)) => Signature::Stripe,
            Some(SignatureDef::Named(SchemeName::Github)) => Signature::GitHub,
            Some(SignatureDef::Named(SchemeName::None)) => Signature::None,
            Some(SignatureDef::Hmac(hmac)) => {
                let hmac = &hmac.hmac;
                for (key, header) in [
                    ("header", Some(&hmac.header)),
                    ("id_header", hmac.id_header.as_ref()),
                ] {
                    if let Some(header) = header
                        && !is_header_name(header)
                    {
                        self.push(self.spec.at(
                            0,
                            &format!("webhooks.signature.hmac.{key}"),
                            format!("`{header}` is no header name"),
                        ));
                    }
                }
                if header_value_problem(&hmac.prefix) {
                    self.push(self.spec.at(
                        0,
                        "webhooks.signature.hmac.prefix",
                        "a prefix is visible ASCII text",
                    ));
                }
                Signature::Hmac {
                    header: hmac.header.to_ascii_lowercase(),
                    prefix: hmac.prefix.clone(),
                    base64: hmac.encoding == Some(DigestEncoding::Base64),
                    id_header: hmac.id_header.as_ref().map(|h| h.to_ascii_lowercase()),
                }
            }
        }
    }
}

/// True when `value` is not visible ASCII (spaces and tabs inside allowed), as a header value
/// must be.
fn header_value_problem(value: &str) -> bool {
    !value
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || (0x21..0x7f).contains(&b))
}

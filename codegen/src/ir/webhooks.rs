//! The receiver of the deliveries a client's API sends back, in render-ready form: the trait's
//! methods, the static the router tells events apart by, the verifier of its scheme, and the
//! `Event` enum its tests send.

use crate::checked::{self, Signature};
use crate::names;

use super::docs::doc_lines;

/// The `webhooks` module of a client.
#[derive(Debug)]
pub struct Webhooks {
    /// The runtime's `Verifier` constructor for the scheme, applied to `secrets` (none:
    /// unsigned).
    pub verifier: Option<String>,
    /// A header naming the delivery, for a scheme that signs no id.
    pub id_header: Option<String>,
    /// The events, in spec order (their index is their place).
    pub events: Vec<WebhookEvent>,
    /// The receiver's trait: `Receiver`, unless a type of the client has the name.
    pub receiver: String,
    /// The enum of events a test sends: `Event`, unless a type of the client has the name.
    pub event: String,
    /// The client's types the payloads name, imported from the client's module.
    pub uses: Vec<String>,
}

/// One event of a receiver.
#[derive(Debug)]
pub struct WebhookEvent {
    /// Its name on the static (as in the spec).
    pub name: String,
    /// The receiver's method.
    pub method: String,
    /// The `Event` enum's variant.
    pub variant: String,
    /// Rustdoc lines of the method.
    pub doc: Vec<String>,
    /// The payload's Rust type.
    pub payload: Option<String>,
    /// Path, naming headers and fields, answer.
    pub path: String,
    /// (lowercase name, value).
    pub headers: Vec<(String, String)>,
    /// (dotted path, value).
    pub fields: Vec<(String, String)>,
    /// The status of a handled delivery.
    pub answer: u16,
    /// Its largest body in bytes, 0 for the inbox's.
    pub max_body: u64,
}

/// The receiver of `webhooks`.
pub(super) fn lower(webhooks: &checked::Webhooks, types: &[checked::TypeDecl]) -> Webhooks {
    // The module sees the client's types through `use super::*`: its own names must not hide
    // one a payload names.
    let mut module = names::Taken::default();
    for decl in types {
        module.insert(&decl.name);
    }
    let mut pick = |short: &str, long: &str| {
        let name = if module.contains(short) {
            module.first_free(long, "")
        } else {
            short.to_owned()
        };
        module.insert(&name);
        name
    };
    let receiver = pick("Receiver", "WebhookReceiver");
    let event = pick("Event", "WebhookEvent");
    let (verifier, id_header) = match &webhooks.signature {
        Signature::StandardWebhooks => (Some("standard_webhooks(secrets)".to_owned()), None),
        Signature::Stripe => (Some("stripe(secrets)".to_owned()), None),
        Signature::GitHub => (Some("github(secrets)".to_owned()), None),
        Signature::None => (None, None),
        Signature::Hmac {
            header,
            prefix,
            base64,
            id_header,
        } => {
            let encoding = if *base64 { "Base64" } else { "Hex" };
            (
                Some(format!(
                    "hmac_sha256({header:?}, {prefix:?}, remcall::webhooks::Encoding::{encoding}, secrets)"
                )),
                id_header.clone(),
            )
        }
    };
    let mut taken = names::Taken::default();
    let events = webhooks
        .events
        .iter()
        .map(|event| {
            let mut doc = doc_lines(event.doc.as_ref());
            if doc.is_empty() {
                doc.push(format!(
                    " The `{}` event.",
                    super::comment_text(&event.name)
                ));
            }
            let variant = taken.first_free(&names::pascal(&event.name), "");
            taken.insert(&variant);
            WebhookEvent {
                name: event.name.clone(),
                method: names::snake(&event.name),
                variant,
                doc,
                payload: event.payload.as_ref().map(crate::types::Ty::render),
                path: event.path.clone(),
                headers: event.headers.clone(),
                fields: event.fields.clone(),
                answer: event.answer,
                max_body: event.max_body.unwrap_or(0),
            }
        })
        .collect();
    let mut uses = Vec::new();
    for payload in webhooks.events.iter().filter_map(|e| e.payload.as_ref()) {
        let mut named = Vec::new();
        payload.bare_names(&mut named);
        for name in named {
            if types.iter().any(|t| t.name == name) && !uses.contains(&name) {
                uses.push(name);
            }
        }
    }
    Webhooks {
        verifier,
        id_header,
        events,
        receiver,
        event,
        uses,
    }
}

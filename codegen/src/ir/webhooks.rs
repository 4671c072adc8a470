//! The receiver of the deliveries a client's API sends back, in render-ready form: the trait's
//! methods, the static the router tells events apart by, the verifier of its scheme, and the
//! `Event` enum its tests send.

use crate::checked::{self, Signature};
use crate::names;

use super::docs::{comment_text, doc_lines};

/// The `webhooks` module of a client.
#[derive(Debug)]
pub struct Webhooks {
    /// The runtime's `Verifier` of the scheme, made of `secrets` (none: unsigned): an
    /// expression of `Result<Verifier, Error>`.
    pub verifier: Option<String>,
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
    let (receiver, event) = module_names(types);
    let verifier = verifier_of(&webhooks.signature);
    let mut taken = names::Taken::default();
    let events = webhooks
        .events
        .iter()
        .map(|event| {
            let mut doc = doc_lines(event.doc.as_ref());
            if doc.is_empty() {
                doc.push(format!(" The `{}` event.", comment_text(&event.name)));
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
    let uses = payload_types(webhooks, types);
    Webhooks {
        verifier,
        events,
        receiver,
        event,
        uses,
    }
}

/// The receiver's trait and its event enum: `Receiver` and `Event`, or `WebhookReceiver` and
/// `WebhookEvent` where a type of the client has the short name (the module imports the
/// client's types its payloads name).
fn module_names(types: &[checked::TypeDecl]) -> (String, String) {
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
    (receiver, event)
}

/// The client's types the payloads name, each once, in order.
fn payload_types(webhooks: &checked::Webhooks, types: &[checked::TypeDecl]) -> Vec<String> {
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
    uses
}

/// The runtime's `Verifier` of the scheme made of `secrets`, as an expression (none: unsigned);
/// a generic HMAC's delivery-id header set on it. Names and prefixes are written as Rust
/// string literals by `{:?}`.
fn verifier_of(signature: &Signature) -> Option<String> {
    let made = match signature {
        Signature::StandardWebhooks => "standard_webhooks(secrets)".to_owned(),
        Signature::Stripe => "stripe(secrets)".to_owned(),
        Signature::GitHub => "github(secrets)".to_owned(),
        Signature::None => return None,
        Signature::Hmac {
            header,
            prefix,
            base64,
            id_header,
        } => {
            let encoding = if *base64 { "Base64" } else { "Hex" };
            let mut made = format!(
                "hmac_sha256({header:?}, {prefix:?}, remcall::webhooks::Encoding::{encoding}, secrets)"
            );
            if let Some(id_header) = id_header {
                made.push_str(&format!(
                    ".map(|verifier| verifier.id_header(remcall::reqwest::header::HeaderName::from_static({id_header:?})))"
                ));
            }
            made
        }
    };
    Some(format!("remcall::webhooks::Verifier::{made}"))
}

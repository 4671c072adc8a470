//! The checked form of a spec's `webhooks:`: its scheme and its events, each told apart from the
//! others by its path, headers and fields.

use crate::types::Ty;

/// The spec's `webhooks:`.
#[derive(Debug)]
pub struct Webhooks {
    /// How deliveries are signed.
    pub signature: Signature,
    /// The events, in spec order.
    pub events: Vec<Event>,
}

/// A webhook signing scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signature {
    /// Standard Webhooks.
    StandardWebhooks,
    /// Stripe.
    Stripe,
    /// GitHub.
    GitHub,
    /// Unsigned.
    None,
    /// A generic HMAC-SHA256: header (lowercase), prefix, base64 (else hex), id header.
    Hmac {
        /// The header.
        header: String,
        /// Before the digest.
        prefix: String,
        /// Base64 rather than hex.
        base64: bool,
        /// The header naming the delivery.
        id_header: Option<String>,
    },
}

/// One event.
#[derive(Debug)]
pub struct Event {
    /// Its name as in the spec.
    pub name: String,
    /// Its rustdoc.
    pub doc: Option<String>,
    /// Its payload's type.
    pub payload: Option<Ty>,
    /// Its path (starting with `/`).
    pub path: String,
    /// Naming headers: (lowercase name, value).
    pub headers: Vec<(String, String)>,
    /// Naming fields: (dotted path, value as text).
    pub fields: Vec<(String, String)>,
    /// The status a handled delivery is answered with.
    pub answer: u16,
    /// Its largest body, in bytes (none: the inbox's).
    pub max_body: Option<u64>,
}

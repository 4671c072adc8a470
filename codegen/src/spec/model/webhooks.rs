//! `webhooks:`: the deliveries the API sends back, how they are signed, and what tells each
//! event's delivery apart.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

use super::ConstValue;

/// `webhooks:`: how the API signs its deliveries, and the events it delivers.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhooksDef {
    /// The signing scheme: `standard_webhooks` (the default), `stripe`, `github`, `none` (a
    /// sender that signs nothing), or `{ hmac: { header, prefix, encoding } }`.
    pub signature: Option<SignatureDef>,
    /// The events, by name (the receiver's method).
    #[serde(default)]
    pub events: IndexMap<String, EventDef>,
}

/// A webhook signing scheme.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SignatureDef {
    /// A scheme by name.
    Named(SchemeName),
    /// An HMAC-SHA256 of the body in a header of the API's own.
    Hmac(HmacSignatureDef),
}

/// The schemes known by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SchemeName {
    /// Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
    StandardWebhooks,
    /// Stripe's `Stripe-Signature`.
    Stripe,
    /// GitHub's `X-Hub-Signature-256`.
    Github,
    /// None: anyone who reaches the route can deliver (keep it off the internet).
    None,
}

/// `{ hmac: { header: X-Signature, prefix: "sha256=", encoding: hex } }`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HmacSignatureDef {
    /// The header and how it writes the digest.
    pub hmac: HmacDef,
}

/// A generic HMAC-SHA256 signature header.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HmacDef {
    /// The header holding it.
    pub header: String,
    /// What comes before the digest (`sha256=`); none by default.
    #[serde(default)]
    pub prefix: String,
    /// `hex` (the default) or `base64`.
    pub encoding: Option<DigestEncoding>,
    /// The header naming the delivery, the same on each redelivery (none: redeliveries are
    /// handled again).
    pub id_header: Option<String>,
}

/// How a digest is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DigestEncoding {
    /// Hexadecimal.
    Hex,
    /// Standard base64.
    Base64,
}

/// A `webhooks.events` entry: what a delivery of it carries and how it is told apart.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventDef {
    /// Rustdoc of the receiver's method.
    pub doc: Option<String>,
    /// The payload's type, JSON (none: a delivery with no body the receiver reads).
    pub payload: Option<String>,
    /// The path under the receiver's router it is delivered to (default `/`).
    pub path: Option<String>,
    /// Headers whose value names it (`X-GitHub-Event: issues`).
    #[serde(default)]
    pub headers: IndexMap<String, String>,
    /// Payload fields whose value names it, by dotted path of keys (`type: invoice.paid`).
    #[serde(default)]
    pub fields: IndexMap<String, ConstValue>,
    /// The status a handled delivery is answered with (default 200).
    pub answer: Option<u16>,
    /// The largest body of this event, below the inbox's (`64KiB`): a larger one is refused
    /// (413); when every event of a path says one, no more than the largest is read.
    pub max_body: Option<remcall_profile::ByteSize>,
}

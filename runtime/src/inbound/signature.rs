//! Webhook signatures, checked before a byte of the body is decoded (feature `webhooks`): the
//! schemes the APIs remcall's users call sign their deliveries with.
//!
//! - **Standard Webhooks** (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`,
//!   HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the base64 of a `whsec_` secret);
//! - **Stripe** (`Stripe-Signature: t=<seconds>,v1=<hex>`, HMAC-SHA256 of `{t}.{body}` keyed
//!   with the `whsec_` secret's own bytes);
//! - **GitHub** (`X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256 of the body);
//! - a generic HMAC-SHA256 of the body in a header of the API's own, hex or base64.
//!
//! Several secrets are tried in turn (a secret's rotation), every comparison is constant-time
//! (`hmac`'s own), and a signed timestamp further than the tolerance (5 minutes by default) from
//! now is refused, so a captured delivery cannot be sent again later. A refusal says which check
//! failed and never what the request held.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{KeyInit, Mac};
use remcall_profile::Secret;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::error::{Error, ErrorKind};

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// How long a signed timestamp stays acceptable either side of now, by default.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(5 * 60);

/// How a generic HMAC header writes the digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Lowercase or uppercase hexadecimal.
    Hex,
    /// Standard base64.
    Base64,
}

/// A signing scheme.
#[derive(Clone, Debug)]
enum Scheme {
    StandardWebhooks,
    Stripe,
    GitHub,
    Hmac {
        header: HeaderName,
        prefix: String,
        encoding: Encoding,
    },
}

/// Checks the signature of a webhook delivery with the scheme and secrets its sender uses.
#[derive(Clone)]
pub struct Verifier {
    scheme: Scheme,
    keys: Vec<Vec<u8>>,
    tolerance: Duration,
    /// The header naming a delivery, for a generic HMAC (its sender's own).
    id_header: Option<HeaderName>,
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verifier")
            .field("scheme", &self.scheme)
            .field("secrets", &self.keys.len())
            .field("tolerance", &self.tolerance)
            .finish()
    }
}

/// What a verified delivery said of itself: its id (Standard Webhooks' `webhook-id`, the
/// Stripe event's `id`, GitHub's `X-GitHub-Delivery`) and when it was signed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The delivery's id, the same on every redelivery.
    pub id: Option<String>,
    /// When the sender signed it, for the schemes that sign a time.
    pub signed_at: Option<SystemTime>,
}

/// Why a delivery was refused. Its text names the check, never the request's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A header the scheme needs is absent.
    Missing,
    /// A header is not in the scheme's form.
    Malformed,
    /// The signed time is further from now than the tolerance: a replay, or a wrong clock.
    Stale,
    /// No signature matches any secret: the body or a header was changed, or the secret is not
    /// the sender's.
    Mismatch,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::Missing => "the delivery has no signature",
            Refusal::Malformed => "the delivery's signature is not in its scheme's form",
            Refusal::Stale => {
                "the delivery was signed outside the tolerance: a replay, or a clock far off"
            }
            Refusal::Mismatch => "the delivery's signature matches no secret",
        })
    }
}

impl std::error::Error for Refusal {}

impl Verifier {
    /// Standard Webhooks; each secret a `whsec_` secret (its base64 after the prefix).
    pub fn standard_webhooks(secrets: &[Secret]) -> Result<Verifier, Error> {
        let keys = expanded(secrets)?
            .into_iter()
            .map(|secret| {
                let encoded = secret.strip_prefix("whsec_").unwrap_or(&secret);
                BASE64.decode(encoded).map_err(|_| {
                    Error::fixed(
                        ErrorKind::Config,
                        "a Standard Webhooks secret is `whsec_` and base64",
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Verifier::of(Scheme::StandardWebhooks, keys)
    }

    /// Stripe's `Stripe-Signature`; each secret the endpoint's `whsec_…` as Stripe shows it.
    pub fn stripe(secrets: &[Secret]) -> Result<Verifier, Error> {
        Verifier::of(Scheme::Stripe, raw(secrets)?)
    }

    /// GitHub's `X-Hub-Signature-256`; each secret the webhook's secret as configured.
    pub fn github(secrets: &[Secret]) -> Result<Verifier, Error> {
        Verifier::of(Scheme::GitHub, raw(secrets)?)
    }

    /// An HMAC-SHA256 of the body in `header`, after `prefix` (`sha256=`, or nothing), written
    /// in `encoding`.
    pub fn hmac_sha256(
        header: &str,
        prefix: &str,
        encoding: Encoding,
        secrets: &[Secret],
    ) -> Result<Verifier, Error> {
        let header = HeaderName::from_bytes(header.as_bytes()).map_err(|_| {
            Error::fixed(
                ErrorKind::Config,
                "the signature's header is no header name",
            )
        })?;
        let scheme = Scheme::Hmac {
            header,
            prefix: prefix.to_owned(),
            encoding,
        };
        Verifier::of(scheme, raw(secrets)?)
    }

    fn of(scheme: Scheme, keys: Vec<Vec<u8>>) -> Result<Verifier, Error> {
        if keys.is_empty() || keys.iter().any(Vec::is_empty) {
            return Err(Error::fixed(
                ErrorKind::Config,
                "a webhook verifier needs at least one secret, none empty",
            ));
        }
        Ok(Verifier {
            scheme,
            keys,
            tolerance: DEFAULT_TOLERANCE,
            id_header: None,
        })
    }

    /// The header a generic HMAC sender names each delivery in (the same on a redelivery):
    /// read as the delivery's id, and written by [`Verifier::sign`].
    #[must_use]
    pub fn id_header(mut self, name: HeaderName) -> Verifier {
        self.id_header = Some(name);
        self
    }

    /// How long a delivery's id is kept to tell a replay: twice the tolerance, which covers a
    /// delivery signed at either end of it.
    pub fn replay_window(&self) -> Duration {
        self.tolerance * 2
    }

    /// How far from now a signed time may be (5 minutes by default).
    #[must_use]
    pub fn tolerance(mut self, tolerance: Duration) -> Verifier {
        self.tolerance = tolerance;
        self
    }

    /// Checks a delivery received `now`: its headers and its body exactly as they came.
    pub fn verify(
        &self,
        headers: &HeaderMap,
        body: &[u8],
        now: SystemTime,
    ) -> Result<Verified, Refusal> {
        match &self.scheme {
            Scheme::StandardWebhooks => {
                let id = text(headers, "webhook-id")?;
                let seconds = text(headers, "webhook-timestamp")?;
                let signed_at = self.fresh(seconds, now)?;
                let signatures = text(headers, "webhook-signature")?;
                let candidates = signatures
                    .split(' ')
                    .filter_map(|s| s.strip_prefix("v1,"))
                    .filter_map(|s| BASE64.decode(s).ok());
                let signed = [id.as_bytes(), b".", seconds.as_bytes(), b".", body];
                self.any_matches(&signed, candidates)?;
                Ok(Verified {
                    id: Some(id.to_owned()),
                    signed_at: Some(signed_at),
                })
            }
            Scheme::Stripe => {
                let header = text(headers, "stripe-signature")?;
                let mut seconds = None;
                let mut candidates = Vec::new();
                for pair in header.split(',') {
                    match pair.split_once('=') {
                        Some(("t", t)) => seconds = Some(t),
                        Some(("v1", hex)) => candidates.extend(from_hex(hex)),
                        _ => {}
                    }
                }
                let seconds = seconds.ok_or(Refusal::Malformed)?;
                let signed_at = self.fresh(seconds, now)?;
                let signed = [seconds.as_bytes(), b".", body];
                self.any_matches(&signed, candidates)?;
                Ok(Verified {
                    // Stripe signs the event, whose `id` every redelivery repeats.
                    id: super::route::field_text(body, "id"),
                    signed_at: Some(signed_at),
                })
            }
            Scheme::GitHub => {
                let header = text(headers, "x-hub-signature-256")?;
                let hex = header.strip_prefix("sha256=").ok_or(Refusal::Malformed)?;
                self.any_matches(&[body], from_hex(hex))?;
                Ok(Verified {
                    // Not signed: GitHub signs no id; the best a receiver has.
                    id: text(headers, "x-github-delivery").ok().map(str::to_owned),
                    signed_at: None,
                })
            }
            Scheme::Hmac {
                header,
                prefix,
                encoding,
            } => {
                let value = text(headers, header.as_str())?;
                let written = value
                    .strip_prefix(prefix.as_str())
                    .ok_or(Refusal::Malformed)?;
                let digest = match encoding {
                    Encoding::Hex => from_hex(written),
                    Encoding::Base64 => BASE64.decode(written).ok(),
                };
                self.any_matches(&[body], digest)?;
                let id = self
                    .id_header
                    .as_ref()
                    .and_then(|name| text(headers, name.as_str()).ok());
                Ok(Verified {
                    id: id.map(str::to_owned),
                    signed_at: None,
                })
            }
        }
    }

    /// The headers a sender of this scheme writes for `body`, signed with the first secret:
    /// what a test's sender (the stub) sends, so a service's handlers are driven as the real
    /// sender would drive them. `id` is used where the scheme signs one.
    pub fn sign(&self, id: &str, signed_at: SystemTime, body: &[u8]) -> HeaderMap {
        let seconds = signed_at
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs()
            .to_string();
        let mac = |parts: &[&[u8]]| {
            let mut mac = HmacSha256::new_from_slice(&self.keys[0])
                .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
            for part in parts {
                mac.update(part);
            }
            mac.finalize().into_bytes()
        };
        let mut headers = HeaderMap::new();
        let mut put = |name: &str, value: String| {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                headers.insert(name, value);
            }
        };
        match &self.scheme {
            Scheme::StandardWebhooks => {
                let digest = mac(&[id.as_bytes(), b".", seconds.as_bytes(), b".", body]);
                put("webhook-id", id.to_owned());
                put("webhook-timestamp", seconds);
                put("webhook-signature", format!("v1,{}", BASE64.encode(digest)));
            }
            Scheme::Stripe => {
                let digest = mac(&[seconds.as_bytes(), b".", body]);
                put(
                    "stripe-signature",
                    format!("t={seconds},v1={}", to_hex(&digest)),
                );
            }
            Scheme::GitHub => {
                let digest = mac(&[body]);
                put("x-hub-signature-256", format!("sha256={}", to_hex(&digest)));
                put("x-github-delivery", id.to_owned());
            }
            Scheme::Hmac {
                header,
                prefix,
                encoding,
            } => {
                let digest = mac(&[body]);
                let written = match encoding {
                    Encoding::Hex => to_hex(&digest),
                    Encoding::Base64 => BASE64.encode(digest),
                };
                put(header.as_str(), format!("{prefix}{written}"));
                if let Some(name) = &self.id_header {
                    put(name.as_str(), id.to_owned());
                }
            }
        }
        headers
    }

    /// The signed time in `seconds`, when it is within the tolerance of `now`.
    fn fresh(&self, seconds: &str, now: SystemTime) -> Result<SystemTime, Refusal> {
        let seconds: u64 = seconds.trim().parse().map_err(|_| Refusal::Malformed)?;
        let signed_at = UNIX_EPOCH + Duration::from_secs(seconds);
        let apart = match now.duration_since(signed_at) {
            Ok(after) => after,
            Err(before) => before.duration(),
        };
        if apart > self.tolerance {
            return Err(Refusal::Stale);
        }
        Ok(signed_at)
    }

    /// Whether one of `candidates` is the MAC of `signed` under one of the secrets; each
    /// comparison constant-time.
    fn any_matches(
        &self,
        signed: &[&[u8]],
        candidates: impl IntoIterator<Item = Vec<u8>>,
    ) -> Result<(), Refusal> {
        let candidates: Vec<Vec<u8>> = candidates.into_iter().collect();
        if candidates.is_empty() {
            return Err(Refusal::Malformed);
        }
        for key in &self.keys {
            let mut mac = HmacSha256::new_from_slice(key)
                .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
            for part in signed {
                mac.update(part);
            }
            if candidates
                .iter()
                .any(|candidate| mac.clone().verify_slice(candidate).is_ok())
            {
                return Ok(());
            }
        }
        Err(Refusal::Mismatch)
    }
}

/// A header's text, or why there is none.
fn text<'a>(headers: &'a HeaderMap, name: &str) -> Result<&'a str, Refusal> {
    let value = headers.get(name).ok_or(Refusal::Missing)?;
    value.to_str().map_err(|_| Refusal::Malformed)
}

/// The secrets, their `${VAR}`s expanded.
fn expanded(secrets: &[Secret]) -> Result<Vec<String>, Error> {
    secrets
        .iter()
        .map(|secret| {
            remcall_profile::vars::expand_env(secret.expose_template())
                .map_err(|e| Error::new(ErrorKind::Config, format!("a webhook secret: {e}")))
        })
        .collect()
}

/// The secrets' own bytes, as schemes that key the HMAC with the text use them.
fn raw(secrets: &[Secret]) -> Result<Vec<Vec<u8>>, Error> {
    Ok(expanded(secrets)?
        .into_iter()
        .map(String::into_bytes)
        .collect())
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok())
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

#[cfg(test)]
mod tests;

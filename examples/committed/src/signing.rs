//! An HMAC request signer and response verifier, as a team would write one for a gateway that
//! demands signed calls. Wired into `LedgerClient` by `interceptors: [crate::signing::HmacSigner]`
//! in `specs/ledger.yaml`.
//!
//! Request: `X-Timestamp` (Unix seconds), `X-Content-SHA256` (hex digest of the body) and
//! `X-Signature` = HMAC-SHA256(key, "METHOD\npath?query\ntimestamp\ndigest").
//! Response: `X-Signature` = HMAC-SHA256(key, "status\ndigest of the body"); a response without
//! it, or with a wrong one, fails the call with `ErrorKind::Interceptor`.

use std::time::{SystemTime, UNIX_EPOCH};

use hmac::{Hmac, KeyInit, Mac};
use remcall::reqwest::header::HeaderValue;
use remcall::{BoxError, CallInfo, Interceptor, Outgoing, Response};
use sha2::{Digest, Sha256};

/// The variable holding the signing key.
pub const KEY_VARIABLE: &str = "REMCALL_LEDGER_HMAC_KEY";
/// The key used when the variable is unset: fine for the demo and tests, never for production.
pub const DEMO_KEY: &str = "ledger-demo-key";

/// Signs requests and verifies responses with one shared key.
pub struct HmacSigner {
    key: Vec<u8>,
}

impl Default for HmacSigner {
    /// The key from `REMCALL_LEDGER_HMAC_KEY`, else the demo key.
    fn default() -> Self {
        let key = std::env::var(KEY_VARIABLE).unwrap_or_else(|_| DEMO_KEY.to_owned());
        HmacSigner::new(key.as_bytes())
    }
}

impl std::fmt::Debug for HmacSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HmacSigner")
            .field("key", &"<redacted>")
            .finish()
    }
}

impl HmacSigner {
    /// A signer with this key.
    pub fn new(key: &[u8]) -> HmacSigner {
        HmacSigner { key: key.to_vec() }
    }

    /// The hex HMAC-SHA256 of `message`.
    pub fn sign(&self, message: &str) -> String {
        // HMAC takes keys of any length; this cannot fail.
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key).unwrap_or_else(|_| unreachable!());
        mac.update(message.as_bytes());
        hex(&mac.finalize().into_bytes())
    }

    /// What the signature of a request covers.
    pub fn request_message(
        method: &str,
        path_and_query: &str,
        timestamp: &str,
        digest: &str,
    ) -> String {
        format!("{method}\n{path_and_query}\n{timestamp}\n{digest}")
    }

    /// What the signature of a response covers.
    pub fn response_message(status: u16, body: &[u8]) -> String {
        format!("{status}\n{}", body_digest(body))
    }
}

/// The hex SHA-256 of a body.
pub fn body_digest(body: &[u8]) -> String {
    hex(&Sha256::digest(body))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Interceptor for HmacSigner {
    async fn before_send(&self, request: &mut Outgoing) -> Result<(), BoxError> {
        let timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)?
            .as_secs()
            .to_string();
        let digest = body_digest(request.body.as_deref().unwrap_or_default());
        let path_and_query = match request.url.query() {
            Some(query) => format!("{}?{query}", request.url.path()),
            None => request.url.path().to_owned(),
        };
        let message = HmacSigner::request_message(
            request.http_method.as_str(),
            &path_and_query,
            &timestamp,
            &digest,
        );
        request
            .headers
            .insert("x-timestamp", HeaderValue::from_str(&timestamp)?);
        request
            .headers
            .insert("x-content-sha256", HeaderValue::from_str(&digest)?);
        // The signature proves the key: a credential, marked so that logs redact it and the
        // cache never keeps it (it keys no answer either way: it changes on every call).
        let mut signature = HeaderValue::from_str(&self.sign(&message))?;
        signature.set_sensitive(true);
        request.headers.insert("x-signature", signature);
        Ok(())
    }

    async fn after_receive(&self, _call: &CallInfo, response: &Response) -> Result<(), BoxError> {
        let expected = self.sign(&HmacSigner::response_message(
            response.status.as_u16(),
            &response.body,
        ));
        match response
            .headers
            .get("x-signature")
            .and_then(|v| v.to_str().ok())
        {
            Some(signature) if constant_time_eq(signature.as_bytes(), expected.as_bytes()) => {
                Ok(())
            }
            Some(_) => Err("the response signature does not match its body".into()),
            None => Err("the response is not signed".into()),
        }
    }
}

/// Compares without an early exit, so timing does not reveal how much of a signature matched.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0_u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

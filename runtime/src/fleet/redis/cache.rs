//! Kept answers shared by a fleet (`cache.shared`): an answer one replica keeps is written to
//! Redis too (in the background), and a replica whose memory has nothing for a request looks
//! there before sending it; what it finds is rebuilt with its own request and judged by RFC
//! 9111 as its own would be.
//!
//! Redis is trusted with the answers, not with the callers: the key is an HMAC-SHA256, keyed
//! with the fleet's `secret`, of the method, the URL's path and query and the request's keyed
//! headers (`outbound/cache/key.rs` says which), so a reader of the key space can neither read nor
//! guess a credential from a key; the value holds the answer as kept (no `Set-Cookie`) and
//! nothing of the request — no URL, no header; and each entry is signed with the same secret,
//! so a writer without it cannot make one that any replica takes. An entry lives in Redis as
//! long as it may answer (its freshness and `stale_if_error`). Redis slower than `timeout` or
//! down: each replica keeps answers in its memory alone.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use hmac::{KeyInit, Mac};
use remcall_profile::SharedStoreSettings;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::{Link, tagged};
use crate::outbound::cache::{Shared, SharedAnswers};

type Hmac = hmac::Hmac<Sha256>;

/// An entry as Redis keeps it, beside its body and signature.
#[derive(Serialize, Deserialize)]
struct Stored {
    status: u16,
    headers: Vec<(String, Vec<u8>)>,
    /// When the answer came, in ms since the epoch: its age counts from there.
    response_time_ms: u64,
    /// Until when it may answer a failed call, in ms since the epoch.
    stale_until_ms: u64,
}

/// The fleet's kept answers, under the profile's key.
pub(crate) struct CacheInRedis {
    link: Arc<Link>,
    key: String,
    /// The fleet's secret with the cache's scope (the client's name and base URLs, or the
    /// profile's `scope`) taken in: keys the digests and the signatures, so two clients that
    /// share a Redis, a key and a secret still never answer each other.
    secret: Hmac,
}

impl std::fmt::Debug for CacheInRedis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CacheInRedis")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl SharedAnswers for CacheInRedis {
    fn key_of(
        &self,
        method: &str,
        url: &str,
        headers: &mut dyn Iterator<Item = (&HeaderName, &HeaderValue)>,
        body: Option<&[u8]>,
    ) -> Box<str> {
        let mut digest = self.secret.clone();
        // Each part prefixed with its length: no two requests digest the same text.
        let mut part = |bytes: &[u8]| {
            digest.update(&(bytes.len() as u64).to_le_bytes());
            digest.update(bytes);
        };
        part(b"key");
        part(method.as_bytes());
        part(url.as_bytes());
        for (name, value) in headers {
            part(name.as_str().as_bytes());
            part(value.as_bytes());
        }
        // A query sent with a body (QUERY, a POST marked `safe: true`) is told apart by it.
        if let Some(body) = body {
            part(b"body");
            part(body);
        }
        let hex: String = digest
            .finalize()
            .into_bytes()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        tagged(&self.key, &format!("cache:{hex}")).into()
    }

    fn get<'a>(
        &'a self,
        key: &'a str,
        until: tokio::time::Instant,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Option<Shared>> + Send + 'a>> {
        Box::pin(self.fetch(key, until))
    }

    fn put(&self, key: &str, answer: Shared, now: SystemTime) {
        self.store(key, answer, now);
    }
}

impl CacheInRedis {
    /// The fleet's cache under `shared.key` (resolved), its digests and signatures keyed with
    /// `secret` (resolved, long enough) and bound to `scope`'s parts.
    pub(crate) fn new(
        shared: &SharedStoreSettings,
        secret: &str,
        scope: &[String],
        link: Arc<Link>,
    ) -> CacheInRedis {
        // HMAC takes a key of any length.
        let mut scoped = <Hmac as KeyInit>::new_from_slice(secret.as_bytes())
            .unwrap_or_else(|_| <Hmac as KeyInit>::new(&Default::default()));
        // Each part prefixed with its length, as in `key_of`: no two scopes read alike.
        for part in std::iter::once("scope").chain(scope.iter().map(String::as_str)) {
            scoped.update(&(part.len() as u64).to_le_bytes());
            scoped.update(part.as_bytes());
        }
        CacheInRedis {
            link,
            key: shared.key.clone(),
            secret: scoped,
        }
    }

    /// The signature of an entry under `key`: its key, metadata and body.
    fn signature(&self, key: &str, meta: &[u8], body: &[u8]) -> Hmac {
        let mut mac = self.secret.clone();
        for part in [b"entry".as_slice(), key.as_bytes(), meta, body] {
            mac.update(&(part.len() as u64).to_le_bytes());
            mac.update(part);
        }
        mac
    }

    /// The entry Redis keeps under `key`, if any, signed by the fleet and Redis answers in
    /// time (by `until` too).
    async fn fetch(&self, key: &str, until: tokio::time::Instant) -> Option<Shared> {
        type Fields = (Option<Vec<u8>>, Option<Vec<u8>>, Option<Vec<u8>>);
        let (meta, body, signature): Fields = self
            .link
            .run_until(Some(until), |mut conn| async move {
                redis::cmd("HMGET")
                    .arg(key)
                    .arg("meta")
                    .arg("body")
                    .arg("mac")
                    .query_async(&mut conn)
                    .await
            })
            .await?;
        let (meta, body) = (meta?, body?);
        // Not the fleet's own: a writer without the secret made it, or it was altered.
        self.signature(key, &meta, &body)
            .verify_slice(&signature?)
            .ok()?;
        // An entry in a shape this version cannot read is no entry.
        let stored: Stored = serde_json::from_slice(&meta).ok()?;
        let mut headers = HeaderMap::with_capacity(stored.headers.len());
        for (name, value) in stored.headers {
            headers.append(
                HeaderName::from_bytes(name.as_bytes()).ok()?,
                HeaderValue::from_bytes(&value).ok()?,
            );
        }
        let at = |ms: u64| SystemTime::UNIX_EPOCH.checked_add(Duration::from_millis(ms));
        Some(Shared {
            status: StatusCode::from_u16(stored.status).ok()?,
            headers,
            body: Bytes::from(body),
            response_time: at(stored.response_time_ms)?,
            stale_until: at(stored.stale_until_ms)?,
        })
    }

    /// Writes `answer` under `key` in the background, signed, to live while it may answer.
    fn store(&self, key: &str, answer: Shared, now: SystemTime) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let Ok(lives) = answer.stale_until.duration_since(now) else {
            return;
        };
        let since_epoch = |at: SystemTime| {
            at.duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        };
        let stored = Stored {
            status: answer.status.as_u16(),
            headers: answer
                .headers
                .iter()
                .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
                .collect(),
            response_time_ms: since_epoch(answer.response_time),
            stale_until_ms: since_epoch(answer.stale_until),
        };
        let Ok(meta) = serde_json::to_vec(&stored) else {
            return;
        };
        let signature = self
            .signature(key, &meta, &answer.body)
            .finalize()
            .into_bytes()
            .to_vec();
        let (link, key, body) = (self.link.clone(), key.to_owned(), answer.body);
        let lives_ms = u64::try_from(lives.as_millis()).unwrap_or(u64::MAX).max(1);
        runtime.spawn(async move {
            let _: Option<()> = link
                .run(|mut conn| async move {
                    let fields: [(&str, &[u8]); 3] = [
                        ("meta", meta.as_slice()),
                        ("body", &body[..]),
                        ("mac", signature.as_slice()),
                    ];
                    redis::pipe()
                        .atomic()
                        .hset_multiple(&key, &fields)
                        .ignore()
                        .pexpire(&key, i64::try_from(lives_ms).unwrap_or(i64::MAX))
                        .ignore()
                        .query_async(&mut conn)
                        .await
                })
                .await;
        });
    }
}

//! Kept answers shared by a fleet (`cache.shared`): an answer one replica keeps is written to
//! Redis too (in the background), and a replica whose memory has nothing for a request looks
//! there before sending it; what it finds is kept in its memory and judged by RFC 9111 as its
//! own would be.
//!
//! The key is a SHA-256 digest of the method, the URL's path and query and the request's
//! credentials (`outbound/cache.rs` says which headers those are): the same across replicas,
//! one credential's answer never another's, and no credential or URL in Redis's key space. An
//! entry lives in Redis as long as it may answer (its freshness and `stale_if_error`). Redis
//! slower than `timeout` or down: each replica keeps answers in its memory alone.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http_cache_semantics::CachePolicy;
use remcall_profile::SharedStoreSettings;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Link, tagged};
use crate::outbound::cache::{Entry, SharedAnswers};

/// An entry as Redis keeps it, beside its body: what RFC 9111's rules need, and the answer's
/// status and headers.
#[derive(Serialize, Deserialize)]
struct Stored {
    policy: CachePolicy,
    status: u16,
    headers: Vec<(String, Vec<u8>)>,
    /// Until when it may answer a failed call, in ms since the epoch.
    stale_until_ms: u64,
}

/// The fleet's kept answers, under the profile's key.
#[derive(Debug)]
pub(crate) struct SharedCache {
    link: Arc<Link>,
    key: String,
}

impl SharedAnswers for SharedCache {
    /// The Redis key of a request: its method, URL (path and query) and credential headers,
    /// digested.
    fn key_of(
        &self,
        method: &str,
        url: &str,
        credentials: &mut dyn Iterator<Item = (&HeaderName, &HeaderValue)>,
    ) -> Box<str> {
        let mut digest = Sha256::new();
        // Each part prefixed with its length: no two requests digest the same text.
        let mut part = |bytes: &[u8]| {
            digest.update((bytes.len() as u64).to_le_bytes());
            digest.update(bytes);
        };
        part(method.as_bytes());
        part(url.as_bytes());
        for (name, value) in credentials {
            part(name.as_str().as_bytes());
            part(value.as_bytes());
        }
        let hex: String = digest
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        tagged(&self.key, &format!("cache:{hex}")).into()
    }

    fn get<'a>(
        &'a self,
        key: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Option<Entry>> + Send + 'a>> {
        Box::pin(self.fetch(key))
    }

    fn put(&self, key: &str, entry: &Entry, now: SystemTime) {
        self.store(key, entry, now);
    }
}

impl SharedCache {
    pub(crate) fn new(shared: &SharedStoreSettings, link: Arc<Link>) -> SharedCache {
        SharedCache {
            link,
            key: shared.key.clone(),
        }
    }

    /// The entry Redis keeps under `key`, if any and Redis answers in time.
    async fn fetch(&self, key: &str) -> Option<Entry> {
        let (meta, body): (Option<Vec<u8>>, Option<Vec<u8>>) = self
            .link
            .run(|mut conn| async move {
                redis::cmd("HMGET")
                    .arg(key)
                    .arg("meta")
                    .arg("body")
                    .query_async(&mut conn)
                    .await
            })
            .await?;
        // An entry Redis holds in a shape this version cannot read is no entry.
        let stored: Stored = serde_json::from_slice(&meta?).ok()?;
        let mut headers = HeaderMap::with_capacity(stored.headers.len());
        for (name, value) in stored.headers {
            headers.append(
                HeaderName::from_bytes(name.as_bytes()).ok()?,
                HeaderValue::from_bytes(&value).ok()?,
            );
        }
        Some(Entry {
            policy: stored.policy,
            status: StatusCode::from_u16(stored.status).ok()?,
            headers,
            body: Bytes::from(body?),
            stale_until: SystemTime::UNIX_EPOCH + Duration::from_millis(stored.stale_until_ms),
        })
    }

    /// Writes `entry` under `key` in the background, to live while it may answer.
    fn store(&self, key: &str, entry: &Entry, now: SystemTime) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let Ok(lives) = entry.stale_until.duration_since(now) else {
            return;
        };
        let since_epoch = |at: SystemTime| {
            at.duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        };
        let stored = Stored {
            policy: entry.policy.clone(),
            status: entry.status.as_u16(),
            headers: entry
                .headers
                .iter()
                .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
                .collect(),
            stale_until_ms: since_epoch(entry.stale_until),
        };
        let Ok(meta) = serde_json::to_vec(&stored) else {
            return;
        };
        let (link, key, body) = (self.link.clone(), key.to_owned(), entry.body.clone());
        let lives_ms = u64::try_from(lives.as_millis()).unwrap_or(u64::MAX).max(1);
        runtime.spawn(async move {
            let _: Option<()> = link
                .run(|mut conn| async move {
                    redis::pipe()
                        .atomic()
                        .hset_multiple(&key, &[("meta", meta.as_slice()), ("body", &body[..])])
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

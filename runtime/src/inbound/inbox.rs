//! A receiver's settings and what it does with one delivery, in order: read the body within
//! its limit, verify the signature over it, tell which declared event it is, refuse a
//! redelivery, and only then decode and hand it to the receiver's method, in a task of its own
//! so a panic answers 500 and the service lives.

use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use reqwest::header::{HeaderMap, HeaderName};

use super::body::{self, Unread};
use super::delivery::{Delivery, Handling, Kind};
use super::events::Events;
use super::replays::{Replays, Seen};
use super::route;
use super::signature::{Refusal, Verifier};
use super::stats::{Counters, InboxStats};

/// The largest body a receiver reads by default (1 MiB, as inflated).
pub const DEFAULT_MAX_BODY: usize = 1024 * 1024;

/// How a receiver takes deliveries: who signs them, how large they may be, how payloads are
/// read, and where the ids of those seen are kept. Cheap to clone; clones share counters.
#[derive(Clone, Debug)]
pub struct Inbox {
    verifier: Option<Verifier>,
    replays: Store,
    max_body: usize,
    lax: bool,
    id_header: Option<HeaderName>,
    counters: Arc<Counters>,
    client: Arc<OnceLock<&'static str>>,
}

impl Inbox {
    /// Deliveries signed as `verifier` checks, bodies up to 1 MiB, payloads read strictly, ids
    /// kept in memory for twice the verifier's tolerance.
    pub fn new(verifier: Verifier) -> Inbox {
        let replays = Replays::new(verifier.replay_window(), super::replays::DEFAULT_CAPACITY);
        Inbox::with(Some(verifier), replays)
    }

    /// Deliveries nobody signs, for a sender that cannot (a job runner's completion callback
    /// on a private network): anyone who reaches the route can send one, so keep it off the
    /// internet.
    pub fn unsigned() -> Inbox {
        Inbox::with(None, Replays::default())
    }

    fn with(verifier: Option<Verifier>, replays: Replays) -> Inbox {
        Inbox {
            verifier,
            replays: Store::Memory(Arc::new(replays)),
            max_body: DEFAULT_MAX_BODY,
            lax: false,
            id_header: None,
            counters: Arc::default(),
            client: Arc::default(),
        }
    }

    /// The largest body read, in bytes, after inflating a gzip-coded one.
    #[must_use]
    pub fn max_body(mut self, bytes: usize) -> Inbox {
        self.max_body = bytes;
        self
    }

    /// Payloads read as `decode: lax` reads answers: what does not fit the type is repaired
    /// and counted as drift instead of refused.
    #[must_use]
    pub fn lax(mut self, lax: bool) -> Inbox {
        self.lax = lax;
        self
    }

    /// Where the ids of deliveries seen are kept (their window and bound).
    #[must_use]
    pub fn replays(mut self, replays: Replays) -> Inbox {
        self.replays = Store::Memory(Arc::new(replays));
        self
    }

    /// The ids of deliveries seen kept in Redis (`redis://`, `rediss://`, `redis+cluster://`),
    /// under `key`, for as long as the replay window: the replicas behind one URL handle a
    /// redelivery once between them. While Redis cannot be reached each replica decides from
    /// its own memory (one WARN an outage); `url` is never shown with its password.
    #[cfg(feature = "redis")]
    pub fn shared_replays(mut self, url: &str, key: &str) -> Result<Inbox, crate::error::Error> {
        // A sender waits seconds for its answer: Redis may take up to two of them (more when
        // its measured round trips need more) before a replica decides alone.
        let link = crate::fleet::redis::Link::new(
            url,
            std::time::Duration::from_secs(2),
            "webhooks",
            "shared_replays",
        )?;
        let window = self.verifier.as_ref().map_or(
            super::signature::DEFAULT_TOLERANCE * 2,
            Verifier::replay_window,
        );
        self.replays = Store::Redis(Arc::new(super::shared_replays::ReplaysInRedis::new(
            link, key, window,
        )));
        Ok(self)
    }

    /// The header that names a delivery, for a scheme that signs no id of its own (a generic
    /// HMAC, or none); redeliveries with the same one are answered and not handled again.
    #[must_use]
    pub fn id_header(mut self, name: HeaderName) -> Inbox {
        self.id_header = Some(name);
        self
    }

    /// What it has counted so far.
    pub fn stats(&self) -> InboxStats {
        self.counters
            .snapshot(self.client.get().copied().unwrap_or_default())
    }

    pub(crate) fn serve(&self, client: &'static str) {
        let _ = self.client.set(client);
    }

    /// Takes one delivery to `path` through every check, then to `dispatch`.
    pub(crate) async fn receive<R: Send + Sync + 'static>(
        &self,
        events: &'static Events,
        path: &'static str,
        request: Request<Body>,
        receiver: Arc<R>,
        dispatch: fn(Arc<R>, Delivery) -> Handling,
    ) -> Response {
        Counters::add(&self.counters.received);
        let (parts, body) = request.into_parts();
        let limit = events.read_limit(path, self.max_body);
        let body = match self.read(&parts.headers, body, limit).await {
            Ok(body) => body,
            Err(refused) => return refused,
        };
        let id = match self.verified_id(&parts.headers, &body) {
            Ok(id) => id,
            Err(refusal) => {
                Counters::add(&self.counters.refused_signature);
                tracing::debug!(target: "remcall::log", client = events.client, %refusal, "webhook delivery refused");
                let status = match refusal {
                    Refusal::Malformed => StatusCode::BAD_REQUEST,
                    _ => StatusCode::UNAUTHORIZED,
                };
                return status.into_response();
            }
        };
        let Some(event) = route::event_of(events, path, &parts.headers, &body) else {
            Counters::add(&self.counters.unknown);
            tracing::debug!(target: "remcall::log", client = events.client, path, "webhook delivery of no declared event");
            return StatusCode::ACCEPTED.into_response();
        };
        let spec = &events.events[event];
        if spec.max_body > 0 && body.len() as u64 > spec.max_body {
            Counters::add(&self.counters.refused_size);
            return StatusCode::PAYLOAD_TOO_LARGE.into_response();
        }
        let answer = StatusCode::from_u16(spec.answer).unwrap_or(StatusCode::OK);
        let now = SystemTime::now();
        if let Some(id) = &id
            && self.replays.check(id, now).await == Seen::Again
        {
            Counters::add(&self.counters.replayed);
            return answer.into_response();
        }
        let delivery = Delivery {
            event,
            body,
            lax: self.lax,
            counters: self.counters.clone(),
        };
        let handled = tokio::spawn(dispatch(receiver, delivery)).await;
        let (counter, status) = match handled {
            Ok(Ok(())) => (&self.counters.handled, answer),
            Ok(Err(failure)) => match failure.kind {
                Kind::Ignored => (&self.counters.ignored, answer),
                Kind::Undecodable => {
                    tracing::debug!(target: "remcall::log", client = events.client, event = spec.name, told = %failure.told, "webhook payload does not read");
                    (&self.counters.refused_decode, StatusCode::BAD_REQUEST)
                }
                Kind::Failed => {
                    tracing::warn!(target: "remcall::log", client = events.client, event = spec.name, told = %failure.told, "webhook handler failed");
                    (&self.counters.failed, StatusCode::INTERNAL_SERVER_ERROR)
                }
            },
            Err(_) => {
                tracing::warn!(target: "remcall::log", client = events.client, event = spec.name, "webhook handler panicked");
                (&self.counters.panicked, StatusCode::INTERNAL_SERVER_ERROR)
            }
        };
        if status.is_client_error() || status.is_server_error() {
            // Not handled: a redelivery must be handled, not taken for a replay.
            if let Some(id) = &id {
                self.replays.forget(id).await;
            }
        }
        Counters::add(counter);
        status.into_response()
    }

    /// The body within `limit`, or the answer that refuses it unread.
    async fn read(
        &self,
        headers: &HeaderMap,
        body: Body,
        limit: usize,
    ) -> Result<Vec<u8>, Response> {
        body::read(headers, body, limit).await.map_err(|unread| {
            let status = match unread {
                Unread::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
                Unread::Coding => StatusCode::UNSUPPORTED_MEDIA_TYPE,
                Unread::Broken => StatusCode::BAD_REQUEST,
            };
            if unread != Unread::Broken {
                Counters::add(&self.counters.refused_size);
            }
            status.into_response()
        })
    }

    /// The delivery's id once its signature is checked: the one the scheme signs (or reads
    /// from the verified body), else the configured header's.
    fn verified_id(&self, headers: &HeaderMap, body: &[u8]) -> Result<Option<String>, Refusal> {
        let signed = match &self.verifier {
            Some(verifier) => verifier.verify(headers, body, SystemTime::now())?.id,
            None => None,
        };
        Ok(signed.or_else(|| {
            let name = self.id_header.as_ref()?;
            let value = headers.get(name)?.to_str().ok()?.trim();
            (!value.is_empty()).then(|| value.to_owned())
        }))
    }
}

/// Where the ids of deliveries seen are kept.
#[derive(Clone, Debug)]
enum Store {
    Memory(Arc<Replays>),
    #[cfg(feature = "redis")]
    Redis(Arc<super::shared_replays::ReplaysInRedis>),
}

impl Store {
    async fn check(&self, id: &str, now: SystemTime) -> Seen {
        match self {
            Store::Memory(replays) => replays.check(id, now),
            #[cfg(feature = "redis")]
            Store::Redis(replays) => replays.check(id, now).await,
        }
    }

    async fn forget(&self, id: &str) {
        match self {
            Store::Memory(replays) => replays.forget(id),
            #[cfg(feature = "redis")]
            Store::Redis(replays) => replays.forget(id).await,
        }
    }
}

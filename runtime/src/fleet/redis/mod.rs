//! What a fleet shares, kept in Redis (feature `redis`): the rate limit (`rate_limit.shared`,
//! limit.rs), the retry budget (`retry.budget.shared`, budget.rs), the server's quotas
//! (`quota.shared`, quota.rs) and kept answers (`cache.shared`, cache.rs), over one connection
//! each with the failure handling they share (this file), which the webhooks' shared replays
//! (inbound/shared_replays.rs) use too.
//!
//! Redis is waited on for `timeout`, or longer when its measured round trips need longer: on a
//! loaded host a command's answer waits for the runtime to read it, and a fixed 50 ms would
//! call a busy Redis down (rtt.rs). A command that fails or is slower marks the link down: one WARN for the outage, every call decides without Redis (as its `on_error` or the
//! local budget says) and at once, and a task reconnects in the background with backoff. When
//! Redis answers a PING again the link is up, with one INFO saying how many decisions were made
//! without it.

mod budget;
mod cache;
mod limit;
mod quota;
mod rtt;

pub(crate) use budget::BudgetInRedis;
pub(crate) use cache::CacheInRedis;
pub(crate) use limit::{Admission, LimiterInRedis};
pub(crate) use quota::QuotasInRedis;

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::cluster_async::ClusterConnection;

use crate::error::{Error, ErrorKind};

/// The first and the longest wait between reconnection attempts.
const BACKOFF_FIRST: Duration = Duration::from_millis(50);
const BACKOFF_MAX: Duration = Duration::from_secs(2);

/// Where the limits are kept: one Redis server (`redis://`, `rediss://`), or a Redis Cluster
/// reached through any of its nodes (`redis+cluster://`, `rediss+cluster://`), whose client
/// follows the slots (a script's keys share one, by their hash tag).
enum Backend {
    Single(Box<redis::Client>),
    Cluster(Box<redis::cluster::ClusterClient>),
}

/// A connection of either kind; cheap to clone (both multiplex).
#[derive(Clone)]
pub(crate) enum Conn {
    Single(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(
        &'a mut self,
        cmd: &'a redis::Cmd,
    ) -> redis::RedisFuture<'a, redis::Value> {
        match self {
            Conn::Single(conn) => conn.req_packed_command(cmd),
            Conn::Cluster(conn) => conn.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> redis::RedisFuture<'a, Vec<redis::Value>> {
        match self {
            Conn::Single(conn) => conn.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(conn) => conn.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(conn) => conn.get_db(),
            Conn::Cluster(conn) => conn.get_db(),
        }
    }
}

impl Backend {
    async fn connect(&self) -> redis::RedisResult<Conn> {
        match self {
            Backend::Single(client) => client
                .get_multiplexed_async_connection()
                .await
                .map(Conn::Single),
            Backend::Cluster(client) => client.get_async_connection().await.map(Conn::Cluster),
        }
    }
}

/// One Redis server or cluster, as a client's shared limit or budget reaches it.
pub(crate) struct Link {
    redis: Backend,
    /// The URL without its password, for logs.
    label: String,
    /// The password, to take out of the text of Redis's errors.
    password: Option<String>,
    /// How long a command is waited on: the profile's `timeout` at least.
    timeout: rtt::Timeout,
    client: &'static str,
    conn: Mutex<Option<Conn>>,
    /// Held while one call connects, so a burst of calls on a cold link makes one connection,
    /// not one each (forty handshakes at once outlasted `timeout` and called Redis down).
    connecting: tokio::sync::Mutex<()>,
    down: AtomicBool,
    reconnecting: AtomicBool,
    /// Decisions made without Redis in the current outage.
    without: AtomicU64,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("redis", &self.label)
            .field("down", &self.down.load(Ordering::Relaxed))
            .finish()
    }
}

impl Link {
    /// `url` resolved from the environment; `field` names it in errors (never its text, which
    /// may hold a password).
    pub(crate) fn new(
        url: &str,
        timeout: Duration,
        client: &'static str,
        field: &str,
    ) -> Result<Arc<Link>, Error> {
        let parsed = reqwest::Url::parse(url).ok().filter(|u| {
            matches!(
                u.scheme(),
                "redis" | "rediss" | "redis+cluster" | "rediss+cluster"
            ) && u.host_str().is_some()
        });
        let Some(mut parsed) = parsed else {
            return Err(Error::new(
                ErrorKind::Config,
                format!("{field}: not a redis://, rediss:// or redis+cluster:// URL"),
            ));
        };
        let cluster = parsed.scheme().ends_with("+cluster");
        let password = parsed.password().map(str::to_owned);
        if password.is_some() {
            let _ = parsed.set_password(Some("***"));
        }
        let cannot = || {
            Error::new(
                ErrorKind::Config,
                format!("{field}: Redis cannot use this URL ({})", parsed.as_str()),
            )
        };
        let redis = if cluster {
            // The cluster client takes a node's plain URL; it finds the others itself.
            let node = url.replacen("+cluster://", "://", 1);
            Backend::Cluster(Box::new(
                redis::cluster::ClusterClient::new([node]).map_err(|_| cannot())?,
            ))
        } else {
            Backend::Single(Box::new(redis::Client::open(url).map_err(|_| cannot())?))
        };
        Ok(Arc::new(Link {
            redis,
            label: parsed.as_str().to_owned(),
            password,
            timeout: rtt::Timeout::new(timeout),
            client,
            conn: Mutex::new(None),
            connecting: tokio::sync::Mutex::new(()),
            down: AtomicBool::new(false),
            reconnecting: AtomicBool::new(false),
            without: AtomicU64::new(0),
        }))
    }

    /// Runs `command` on the connection within `timeout`; `None` when Redis is down, slow or
    /// failing (the link is then marked down).
    pub(crate) async fn run<T, F, Fut>(self: &Arc<Self>, command: F) -> Option<T>
    where
        F: FnOnce(Conn) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        self.run_until(None, command).await
    }

    /// [`Link::run`], given up at `until` (what a call may spend on Redis) when that comes
    /// before the link's own timeout: a wait cut short so is the call's time running out, not
    /// Redis failing, so the link stays up and its timeout learns nothing from it.
    pub(crate) async fn run_until<T, F, Fut>(
        self: &Arc<Self>,
        until: Option<tokio::time::Instant>,
        command: F,
    ) -> Option<T>
    where
        F: FnOnce(Conn) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        if self.down.load(Ordering::Acquire) {
            self.reconnect();
            return None;
        }
        let held = self.lock().clone();
        let timeout = self.timeout.now();
        let started = tokio::time::Instant::now();
        let own_end = started + timeout;
        let (ends, cut) = match until {
            Some(until) if until < own_end => (until, true),
            _ => (own_end, false),
        };
        let outcome = tokio::time::timeout_at(ends, async {
            let conn = match held {
                Some(conn) => conn,
                None => self.connect_once().await?,
            };
            command(conn).await
        })
        .await;
        match outcome {
            Ok(Ok(value)) => {
                self.timeout.answered_in(started.elapsed());
                Some(value)
            }
            Ok(Err(error)) => {
                self.fail(&error.to_string());
                None
            }
            Err(_) if cut => None,
            Err(_) => {
                self.timeout.expired();
                self.fail(&format!("no answer within {timeout:?}"));
                None
            }
        }
    }

    /// The connection, made by the first call that finds none; the others wait for it.
    async fn connect_once(&self) -> redis::RedisResult<Conn> {
        let _one = self.connecting.lock().await;
        if let Some(conn) = self.lock().clone() {
            return Ok(conn);
        }
        let conn = self.redis.connect().await?;
        *self.lock() = Some(conn.clone());
        Ok(conn)
    }

    /// Counts a decision made without Redis; true for the outage's first.
    pub(crate) fn without_redis(&self) -> bool {
        self.without.fetch_add(1, Ordering::Relaxed) == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Conn>> {
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Marks the link down (one WARN an outage) and starts reconnecting.
    fn fail(self: &Arc<Self>, why: &str) {
        *self.lock() = None;
        if !self.down.swap(true, Ordering::AcqRel) {
            self.without.store(0, Ordering::Relaxed);
            tracing::warn!(
                target: crate::observe::outlets::log::TARGET,
                client = self.client,
                redis = %self.label,
                error = %self.redact(why),
                "Redis cannot be reached: shared limits decide without it until it answers again"
            );
        }
        self.reconnect();
    }

    /// Starts the background reconnection, unless it runs already.
    fn reconnect(self: &Arc<Self>) {
        if self.reconnecting.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.reconnecting.store(false, Ordering::Release);
            return;
        };
        let link = Arc::downgrade(self);
        runtime.spawn(async move {
            let mut wait = BACKOFF_FIRST;
            loop {
                tokio::time::sleep(wait).await;
                // The client is gone: nothing to reconnect for.
                let Some(link) = link.upgrade() else { return };
                let timeout = link.timeout.now();
                let started = tokio::time::Instant::now();
                let attempt = tokio::time::timeout(timeout, async {
                    let mut conn = link.redis.connect().await?;
                    redis::cmd("PING").query_async::<()>(&mut conn).await?;
                    Ok::<_, redis::RedisError>(conn)
                })
                .await;
                if attempt.is_err() {
                    link.timeout.expired();
                }
                if let Ok(Ok(conn)) = attempt {
                    link.timeout.answered_in(started.elapsed());
                    *link.lock() = Some(conn);
                    link.down.store(false, Ordering::Release);
                    link.reconnecting.store(false, Ordering::Release);
                    tracing::info!(
                        target: crate::observe::outlets::log::TARGET,
                        client = link.client,
                        redis = %link.label,
                        decided_without = link.without.load(Ordering::Relaxed),
                        "Redis answers again: shared limits are back on it"
                    );
                    return;
                }
                wait = (wait * 2).min(BACKOFF_MAX);
            }
        });
    }

    /// `text` with the URL's password taken out.
    fn redact(&self, text: &str) -> String {
        match &self.password {
            Some(password) if !password.is_empty() => text.replace(password.as_str(), "***"),
            _ => text.to_owned(),
        }
    }
}

/// A key of this crate's, hash-tagged so that Redis Cluster puts a key's parts in one slot.
pub(crate) fn tagged(key: &str, part: &str) -> String {
    format!("remcall:{{{key}}}:{part}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_stays_out_of_labels_errors_and_debug() {
        let link = Link::new(
            "redis://app:s3cr3t-pw@127.0.0.1:6379/0",
            Duration::from_millis(50),
            "C",
            "rate_limit.shared.redis",
        )
        .unwrap();
        let shown = format!("{link:?} {}", link.redact("auth failed for s3cr3t-pw"));
        assert!(!shown.contains("s3cr3t-pw"), "{shown}");
        assert!(shown.contains("app:***@127.0.0.1"), "{shown}");
        let refused = Link::new("http://app:s3cr3t-pw@h", Duration::ZERO, "C", "f").unwrap_err();
        assert!(!refused.to_string().contains("s3cr3t"), "{refused}");
        assert_eq!(tagged("stripe-api", "rate"), "remcall:{stripe-api}:rate");
    }
}

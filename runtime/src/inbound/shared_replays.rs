//! The ids of webhook deliveries a fleet's receivers have seen (features `redis` and
//! `webhooks`): two replicas behind one URL handle a redelivery once between them. Each id is a
//! key of its own, set only if absent and expiring with the replay window (`SET NX PX`), so a
//! check is one round trip and Redis forgets for us. The sender writes the id: it is kept as a
//! SHA-256 digest, so its length and bytes are not the sender's to choose. When Redis cannot be
//! reached the replica decides alone, from its own memory of ids, rather than refuse deliveries.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use super::replays::{Replays, Seen};
use crate::fleet::redis::{Link, tagged};

/// Delivery ids kept in Redis, with a local memory for when it cannot be reached.
#[derive(Debug)]
pub(crate) struct ReplaysInRedis {
    link: Arc<Link>,
    prefix: String,
    keep_for: Duration,
    local: Replays,
}

impl ReplaysInRedis {
    pub(crate) fn new(link: Arc<Link>, key: &str, keep_for: Duration) -> ReplaysInRedis {
        ReplaysInRedis {
            link,
            prefix: tagged(key, "delivery"),
            keep_for,
            local: Replays::new(keep_for, super::replays::DEFAULT_CAPACITY),
        }
    }

    fn key(&self, id: &str) -> String {
        let digest = Sha256::digest(id.as_bytes());
        let mut key = self.prefix.clone();
        key.push(':');
        for byte in digest {
            key.push_str(&format!("{byte:02x}"));
        }
        key
    }

    /// Whether `id` is the first of its deliveries the fleet has seen within the window.
    pub(crate) async fn check(&self, id: &str, now: SystemTime) -> Seen {
        let key = self.key(id);
        let millis = u64::try_from(self.keep_for.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        let set = self
            .link
            .run(|mut conn| async move {
                redis::cmd("SET")
                    .arg(&key)
                    .arg(1)
                    .arg("NX")
                    .arg("PX")
                    .arg(millis)
                    .query_async::<Option<String>>(&mut conn)
                    .await
            })
            .await;
        // Kept here too, so an outage that starts now still knows this replica's ids.
        let local = self.local.check(id, now);
        match set {
            Some(Some(_)) => Seen::First,
            Some(None) => Seen::Again,
            None => {
                self.link.without_redis();
                local
            }
        }
    }

    /// Forgets `id` in Redis and here: the delivery was not handled.
    pub(crate) async fn forget(&self, id: &str) {
        self.local.forget(id);
        let key = self.key(id);
        self.link
            .run(|mut conn| async move {
                redis::cmd("DEL")
                    .arg(&key)
                    .query_async::<i64>(&mut conn)
                    .await
            })
            .await;
    }
}

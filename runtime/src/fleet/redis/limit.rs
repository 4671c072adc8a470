//! The shared rate limit: GCRA, as the local limiter, with the theoretical arrival time kept in
//! Redis and moved by a Lua script that reads Redis's own clock (`TIME`), so the replicas' clocks
//! do not matter. One round trip per admitted call; the script is sent once and run by its hash
//! after (the `redis` crate loads it again when Redis answers NOSCRIPT).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use remcall_profile::{OnRedisError, RateLimitSettings, SharedLimitSettings};
use tokio::time::Instant;

use super::{Link, tagged};
use crate::policy::rate_limit::{RateLimiter, Reservation};

/// KEYS[1]: the TAT; ARGV: interval, tolerance, max wait (µs). Returns {admitted, wait µs}; a
/// negative wait is the burst left after this turn, in µs of tolerance.
const ADMIT_LUA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local interval = tonumber(ARGV[1])
local next = tat + interval
local wait = next - (now + tonumber(ARGV[2]))
if wait > tonumber(ARGV[3]) then return {0, wait} end
redis.call('SET', KEYS[1], string.format('%.0f', next), 'PX', math.floor((next - now) / 1000) + 1000)
return {1, wait}
";

/// KEYS[1]: the TAT; ARGV[1]: interval (µs). A turn not used, given back while it is still ahead.
const GIVE_BACK_LUA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local back = tat - tonumber(ARGV[1])
if back >= now then redis.call('SET', KEYS[1], string.format('%.0f', back), 'KEEPTTL') end
return 1
";

/// The scripts, hashed once.
static ADMIT: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(ADMIT_LUA));
static GIVE_BACK: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(GIVE_BACK_LUA));

/// A limit shared through Redis, with what it does while Redis cannot answer.
#[derive(Debug)]
pub(crate) struct LimiterInRedis {
    link: Arc<Link>,
    key: String,
    interval_us: u64,
    tolerance_us: u64,
    max_wait: Duration,
    on_error: OnRedisError,
    /// `local_share`: this replica's part of the limit.
    local: RateLimiter,
    /// When (µs since `base`, this process's clock) the fleet's theoretical arrival time stood
    /// at Redis's last answer: the burst it had left then, grown by the time since, is the
    /// part of its share of the burst the local limit starts with when Redis goes away.
    fleet_tat_us: AtomicU64,
    base: Instant,
}

/// What the limiter decided for one call.
pub(crate) enum Admission<'a> {
    /// The call may go after `wait`; made without Redis when `without_redis`.
    Go(Turn<'a>),
    /// No turn within `max_wait`.
    Refused {
        /// Decided without Redis (`on_error: closed` or the local share).
        without_redis: bool,
    },
}

/// An admitted call's turn. Dropped while it waits, it is given back.
pub(crate) struct Turn<'a> {
    kind: TurnKind<'a>,
    /// Decided without Redis.
    pub(crate) without_redis: bool,
}

enum TurnKind<'a> {
    Now,
    Shared {
        limiter: &'a LimiterInRedis,
        wait: Duration,
    },
    Local(Reservation<'a>),
}

impl LimiterInRedis {
    pub(crate) fn new(
        settings: &RateLimitSettings,
        shared: &SharedLimitSettings,
        link: Arc<Link>,
        now: Instant,
    ) -> LimiterInRedis {
        let per_second = settings.per_second.max(f64::MIN_POSITIVE);
        let interval_us = (1e6 / per_second).clamp(1.0, 1e15) as u64;
        let replicas = shared.replicas.max(1);
        let local = RateLimiter::new(
            &RateLimitSettings {
                per_second: settings.per_second / f64::from(replicas),
                burst: (settings.burst / replicas).max(1),
                max_wait: settings.max_wait,
                shared: None,
            },
            now,
        );
        LimiterInRedis {
            link,
            key: tagged(&shared.key, "rate"),
            interval_us,
            tolerance_us: interval_us.saturating_mul(u64::from(settings.burst.max(1))),
            max_wait: settings.max_wait,
            on_error: shared.on_error,
            local,
            fleet_tat_us: AtomicU64::new(0),
            base: now,
        }
    }

    /// Asks Redis for a turn; without Redis, `on_error` decides.
    pub(crate) async fn admit(&self, now: Instant) -> Admission<'_> {
        let max_wait_us = u64::try_from(self.max_wait.as_micros()).unwrap_or(u64::MAX / 2);
        let answer: Option<(i64, i64)> = self
            .link
            .run(|mut conn| async move {
                ADMIT
                    .key(&self.key)
                    .arg(self.interval_us)
                    .arg(self.tolerance_us)
                    .arg(max_wait_us)
                    .invoke_async(&mut conn)
                    .await
            })
            .await;
        // The fleet's arrival time as Redis answered it: `wait` is how far it is past the burst.
        let now_us = u64::try_from(now.saturating_duration_since(self.base).as_micros())
            .unwrap_or(u64::MAX / 4);
        let fleet_tat = |wait: i64| {
            now_us
                .saturating_add(self.tolerance_us)
                .saturating_add_signed(wait)
        };
        match answer {
            Some((1, wait)) => {
                self.fleet_tat_us.store(fleet_tat(wait), Ordering::Relaxed);
                Admission::Go(Turn {
                    kind: match u64::try_from(wait) {
                        Ok(wait) if wait > 0 => TurnKind::Shared {
                            limiter: self,
                            wait: Duration::from_micros(wait),
                        },
                        _ => TurnKind::Now,
                    },
                    without_redis: false,
                })
            }
            Some((_, wait)) => {
                self.fleet_tat_us.store(fleet_tat(wait), Ordering::Relaxed);
                Admission::Refused {
                    without_redis: false,
                }
            }
            None => {
                if self.link.without_redis() {
                    let fleet_tat = self.fleet_tat_us.load(Ordering::Relaxed);
                    let left = now_us
                        .saturating_add(self.tolerance_us)
                        .saturating_sub(fleet_tat);
                    let share = left as f64 / self.tolerance_us.max(1) as f64;
                    self.local.leave_burst(now, share);
                }
                match self.on_error {
                    OnRedisError::Open => Admission::Go(Turn {
                        kind: TurnKind::Now,
                        without_redis: true,
                    }),
                    OnRedisError::Closed => Admission::Refused {
                        without_redis: true,
                    },
                    OnRedisError::LocalShare => match self.local.reserve(now) {
                        Some(reservation) => Admission::Go(Turn {
                            kind: TurnKind::Local(reservation),
                            without_redis: true,
                        }),
                        None => Admission::Refused {
                            without_redis: true,
                        },
                    },
                }
            }
        }
    }
}

impl Turn<'_> {
    /// Waits for the turn.
    pub(crate) async fn ready(mut self) {
        match std::mem::replace(&mut self.kind, TurnKind::Now) {
            TurnKind::Now => {}
            TurnKind::Local(reservation) => reservation.ready().await,
            TurnKind::Shared { limiter, wait } => {
                // Put back while the sleep runs, so that a cancelled call gives its turn back.
                self.kind = TurnKind::Shared { limiter, wait };
                tokio::time::sleep(wait).await;
                self.kind = TurnKind::Now;
            }
        }
    }

    /// True when the call must wait for its turn.
    pub(crate) fn waits(&self) -> bool {
        match &self.kind {
            TurnKind::Now => false,
            TurnKind::Shared { .. } => true,
            TurnKind::Local(reservation) => reservation.waits(),
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        // Cancelled while waiting for a shared turn: give it back, in the background (a drop
        // cannot wait), when the runtime is still there.
        if let TurnKind::Shared { limiter, .. } = &self.kind
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let (link, key, interval) = (
                limiter.link.clone(),
                limiter.key.clone(),
                limiter.interval_us,
            );
            runtime.spawn(async move {
                let _: Option<i64> = link
                    .run(|mut conn| async move {
                        GIVE_BACK
                            .key(&key)
                            .arg(interval)
                            .invoke_async(&mut conn)
                            .await
                    })
                    .await;
            });
        }
    }
}

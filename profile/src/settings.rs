//! The effective settings of a call: a layered [`Profile`] with remcall's defaults filled in.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::model::{
    Auth, BreakerPolicy, Compression, Condition, DEFAULT_CACHE_BYTES, DecodeMode, EndpointsPolicy,
    HeaderDef, HedgeDelay, Isolation, Jitter, LimitAlgorithm, LogLevel, OnRedisError, Profile,
    QuotaHeaders, RateLimitPolicy, RedisUrl, RetryPolicy, Scope, SharedStore, Strategy, Tls,
    TraceContext, Window,
};

mod var_fields;

/// How many bytes of an error answer's body an error's message shows unless a profile says.
pub const DEFAULT_BODY_IN_MESSAGE: u64 = 512;

/// Every policy value of a call, nothing left unset.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Connect deadline.
    pub connect_timeout: Duration,
    /// Per-attempt deadline.
    pub attempt_timeout: Duration,
    /// Whole-call deadline.
    pub total_timeout: Duration,
    /// Silence after which an open stream is broken off.
    pub idle_timeout: Duration,
    /// Retry policy.
    pub retry: RetrySettings,
    /// Breaker policy.
    pub breaker: BreakerSettings,
    /// Isolation policy.
    pub isolation: IsolationSettings,
    /// Rate limit, if any.
    pub rate_limit: Option<RateLimitSettings>,
    /// The answers' quota fields pace the calls (`quota: { from_headers: auto }`).
    pub quota_from_headers: bool,
    /// The quotas kept in Redis for every replica, if any.
    pub quota_shared: Option<SharedStoreSettings>,
    /// The cache of GET answers, when the profile has `cache:`.
    pub cache: Option<CacheSettings>,
    /// Hedged requests, if any (idempotent methods only).
    pub hedge: Option<HedgeSettings>,
    /// The header that carries the time a call has left, if any.
    pub deadline_header: Option<String>,
    /// Credentials, if any (placeholders not yet resolved).
    pub auth: Option<Auth>,
    /// Extra headers (placeholders not yet resolved).
    pub headers: BTreeMap<String, HeaderDef>,
    /// Extra query parameters (placeholders not yet resolved).
    pub query: BTreeMap<String, HeaderDef>,
    /// Cookies sent in one `Cookie` header (placeholders not yet resolved).
    pub cookies: BTreeMap<String, HeaderDef>,
    /// Logging level.
    pub log: LogLevel,
    /// How an answer that does not fit its type is met.
    pub decode: DecodeMode,
    /// Whether answers may come compressed.
    pub compression: Compression,
    /// Whether each attempt carries the caller's trace context (feature `otel`).
    pub trace_context: TraceContext,
    /// Response size limit in bytes (decompressed).
    pub max_response_bytes: u64,
    /// How many bytes of an error answer's body an error's message shows.
    pub body_in_message: u64,
    /// Empty pages in a row a paginated method follows before it stops with an error.
    pub max_empty_pages: u32,
    /// Size limit of one event of a stream, or one JSON line, in bytes.
    pub max_event_bytes: u64,
    /// TLS settings, as written (checks on unless `insecure`).
    pub tls: Tls,
    /// Load balancing, ejection and discovery.
    pub endpoints: EndpointSettings,
    /// The exchanges recorded, when the profile has `record:`.
    pub record: Option<RecordSettings>,
}

/// Empty pages in a row a paginated method follows by default: more than a filtered scan
/// (DynamoDB's, a search) usually skips, few enough that a server answering only empty pages is
/// stopped within a second or two.
pub const DEFAULT_MAX_EMPTY_PAGES: u32 = 100;

/// How long an open stream may be silent by default: Envoy's stream idle timeout, long enough
/// for a server that sends a keep-alive comment every minute or so.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// Effective endpoint policy.
#[derive(Clone, Debug, PartialEq)]
pub struct EndpointSettings {
    /// How an endpoint is chosen.
    pub strategy: Strategy,
    /// Weights by base-URL position (missing: 1).
    pub weights: Vec<u32>,
    /// Consecutive failures that eject an endpoint (0: never).
    pub eject_after: u32,
    /// First ejection period.
    pub eject_for: Duration,
    /// Most endpoints ejected at once, in percent.
    pub eject_max_percent: u32,
    /// DNS re-resolution period, when DNS discovery is on.
    pub dns_refresh: Option<Duration>,
}

/// Effective retry policy.
#[derive(Clone, Debug, PartialEq)]
pub struct RetrySettings {
    /// Attempts in all.
    pub max_attempts: u32,
    /// First backoff sleep.
    pub initial: Duration,
    /// Longest backoff sleep.
    pub max: Duration,
    /// Backoff growth factor.
    pub multiplier: f64,
    /// Backoff randomisation.
    pub jitter: Jitter,
    /// Retryable outcomes.
    pub on: Vec<Condition>,
    /// Longest `Retry-After` honoured (zero: ignored).
    pub retry_after_max: Duration,
    /// Retries per call allowed by the budget.
    pub budget_ratio: f64,
    /// Retries per second always allowed.
    pub budget_min_per_second: u32,
    /// The budget kept in Redis for every replica, if any.
    pub budget_shared: Option<SharedStoreSettings>,
}

/// Effective state shared through Redis: a retry budget, quotas, kept answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedStoreSettings {
    /// Redis URL (placeholders not yet resolved).
    pub redis: RedisUrl,
    /// The key replicas share.
    pub key: String,
    /// Slower than this: Redis is down.
    pub timeout: Duration,
    /// The fleet's key for digests and signatures (placeholders not yet resolved), if set.
    pub secret: Option<crate::model::Secret>,
    /// Who shares kept answers (`cache.shared`; placeholders not yet resolved): `None`, the
    /// client's name and base URLs.
    pub scope: Option<String>,
}

/// Effective shared rate limit.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedLimitSettings {
    /// Redis URL (placeholders not yet resolved).
    pub redis: RedisUrl,
    /// The key replicas share.
    pub key: String,
    /// Slower than this: Redis is down.
    pub timeout: Duration,
    /// What a call gets while Redis cannot answer.
    pub on_error: OnRedisError,
    /// Replicas sharing the key.
    pub replicas: u32,
}

/// Effective breaker policy.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakerSettings {
    /// Per method or per client.
    pub scope: Scope,
    /// Sliding window.
    pub window: Window,
    /// Calls needed before the rate means anything.
    pub min_calls: u32,
    /// Failure percentage that opens the breaker.
    pub failure_rate: f64,
    /// Slow-call threshold and percentage, if enabled.
    pub slow_call: Option<(Duration, f64)>,
    /// Open period.
    pub open_for: Duration,
    /// Longest open period after repeated re-opens.
    pub open_for_max: Duration,
    /// Trials when half-open: in all under the rate rule, at a time under the counting rule.
    pub half_open_calls: u32,
    /// How the trials decide between CLOSED and OPEN.
    pub half_open: HalfOpenRule,
    /// Outcomes that count as failures.
    pub record: Vec<Condition>,
}

/// How a half-open breaker's trials decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfOpenRule {
    /// Once `half_open_calls` trials have finished, their failure (and slow) rate against the
    /// closed state's thresholds: Resilience4j's rule.
    Rate,
    /// Closes at `close_after` successful trials, re-opens at `reopen_after` failed ones (a slow
    /// success is a failed trial), whichever comes first: Hystrix's single trial and the
    /// consecutive-count breaker are both this rule.
    Count {
        /// Successful trials that close the breaker.
        close_after: u32,
        /// Failed trials that re-open it.
        reopen_after: u32,
    },
}

/// Effective isolation policy.
#[derive(Clone, Debug, PartialEq)]
pub enum IsolationSettings {
    /// Semaphore bulkhead.
    Semaphore {
        /// Slots.
        max_concurrent: u32,
        /// Wait for a slot.
        max_wait: Duration,
    },
    /// Dedicated runtime.
    Pool {
        /// Worker threads.
        workers: u32,
        /// Queue length.
        queue: u32,
        /// Wait in the queue.
        queue_timeout: Duration,
    },
    /// Adaptive concurrency limit.
    Adaptive {
        /// How the limit follows latency.
        algorithm: LimitAlgorithm,
        /// The limit at first.
        initial: u32,
        /// Lowest limit.
        min: u32,
        /// Highest limit.
        max: u32,
        /// Wait for room under the limit.
        max_wait: Duration,
    },
    /// None.
    None,
}

/// Effective hedging policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HedgeSettings {
    /// After how long a hedge goes out.
    pub delay: HedgeDelay,
    /// Floor of a percentile delay.
    pub min_delay: Duration,
    /// Hedges in flight per call.
    pub max_extra: u32,
    /// Hedges as a percentage of the method's calls over ten seconds.
    pub budget_percent: f64,
}

/// The cache of GET answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheSettings {
    /// The bytes kept answers may take.
    pub memory: u64,
    /// How long past its freshness a kept answer may answer a failed call.
    pub stale_if_error: Duration,
    /// The answers kept in Redis for every replica, if any.
    pub shared: Option<SharedStoreSettings>,
    /// Request headers left out of the key, lowercase.
    pub unkeyed: Vec<String>,
}

/// Effective rate limit.
#[derive(Clone, Debug, PartialEq)]
pub struct RateLimitSettings {
    /// Average calls per second.
    pub per_second: f64,
    /// Burst above the average.
    pub burst: u32,
    /// Wait for a token.
    pub max_wait: Duration,
    /// The limit kept in Redis for every replica, if any.
    pub shared: Option<SharedLimitSettings>,
}

/// Effective recording of exchanges (`record:`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordSettings {
    /// The file (placeholders not yet resolved).
    pub file: String,
    /// The methods recorded; empty: every method.
    pub methods: Vec<String>,
    /// The most of each body written.
    pub max_body: u64,
}

impl Settings {
    /// Fills every part the profile leaves out with remcall's default.
    pub fn from_profile(profile: &Profile) -> Settings {
        let timeout = profile.timeout.clone().unwrap_or_default();
        let s = Duration::from_secs;
        Settings {
            connect_timeout: timeout.connect.unwrap_or(s(2)),
            attempt_timeout: timeout.attempt.unwrap_or(s(10)),
            total_timeout: timeout.total.unwrap_or(s(30)),
            idle_timeout: timeout.idle.unwrap_or(DEFAULT_IDLE_TIMEOUT),
            retry: retry_settings(profile.retry.clone().unwrap_or_default()),
            breaker: breaker_settings(profile.breaker.clone().unwrap_or_default()),
            isolation: isolation_settings(profile.isolation.clone()),
            rate_limit: profile.rate_limit.clone().map(rate_limit_settings),
            quota_from_headers: profile.quota.as_ref().and_then(|q| q.from_headers)
                != Some(QuotaHeaders::Off),
            quota_shared: profile
                .quota
                .as_ref()
                .and_then(|q| q.shared.clone())
                .map(shared_store),
            cache: profile.cache.as_ref().map(|cache| CacheSettings {
                memory: cache.memory.map_or(DEFAULT_CACHE_BYTES, |b| b.0),
                stale_if_error: cache.stale_if_error.unwrap_or(Duration::ZERO),
                shared: cache.shared.clone().map(shared_store),
                unkeyed: cache
                    .unkeyed
                    .iter()
                    .flatten()
                    .map(|name| name.to_ascii_lowercase())
                    .collect(),
            }),
            hedge: profile.hedge.as_ref().map(|hedge| HedgeSettings {
                delay: hedge.delay.unwrap_or(HedgeDelay::Percentile(0.95)),
                min_delay: hedge.min_delay.unwrap_or(Duration::from_millis(2)),
                max_extra: hedge.max_extra.unwrap_or(1).max(1),
                budget_percent: hedge.budget_percent.unwrap_or(10.0),
            }),
            deadline_header: profile.deadline.as_ref().and_then(|d| d.propagate.clone()),
            auth: profile.auth.clone(),
            headers: profile.headers.clone().map(|h| h.0).unwrap_or_default(),
            query: profile.query.clone().map(|q| q.0).unwrap_or_default(),
            cookies: profile.cookies.clone().map(|c| c.0).unwrap_or_default(),
            log: profile.log.unwrap_or(LogLevel::Basic),
            decode: profile.decode.unwrap_or_default(),
            compression: profile.compression.unwrap_or_default(),
            trace_context: profile.trace_context.unwrap_or_default(),
            max_response_bytes: profile.max_response_bytes.map_or(16 << 20, |b| b.0),
            body_in_message: profile
                .errors
                .as_ref()
                .and_then(|e| e.body_in_message)
                .map_or(DEFAULT_BODY_IN_MESSAGE, |b| b.0),
            max_empty_pages: profile.max_empty_pages.unwrap_or(DEFAULT_MAX_EMPTY_PAGES),
            max_event_bytes: profile.max_event_bytes.map_or(1 << 20, |b| b.0),
            tls: profile.tls.clone().unwrap_or_default(),
            endpoints: endpoint_settings(profile.endpoints.clone().unwrap_or_default()),
            record: profile.record.as_ref().map(|record| RecordSettings {
                file: record.file.clone().unwrap_or_default(),
                methods: record.methods.clone().unwrap_or_default(),
                max_body: record.max_body.map_or(1 << 20, |b| b.0),
            }),
        }
    }
}

/// The retry settings, defaults filled in.
fn retry_settings(retry: RetryPolicy) -> RetrySettings {
    let backoff = retry.backoff.unwrap_or_default();
    let budget = retry.budget.unwrap_or_default();
    let ms = Duration::from_millis;
    let s = Duration::from_secs;
    RetrySettings {
        max_attempts: retry.max_attempts.unwrap_or(3).max(1),
        initial: backoff.initial.unwrap_or(ms(100)),
        max: backoff.max.unwrap_or(s(2)),
        multiplier: backoff.multiplier.unwrap_or(2.0),
        jitter: backoff.jitter.unwrap_or(Jitter::Full),
        on: retry.on.unwrap_or_else(|| {
            vec![
                Condition::Connect,
                Condition::Timeout,
                Condition::Status(429),
                Condition::Status(502),
                Condition::Status(503),
                Condition::Status(504),
            ]
        }),
        retry_after_max: retry.retry_after.and_then(|r| r.max).unwrap_or(s(10)),
        budget_ratio: budget.ratio.unwrap_or(0.2),
        budget_min_per_second: budget.min_per_second.unwrap_or(10),
        budget_shared: budget.shared.map(shared_store),
    }
}

/// A shared store's settings, defaults filled in.
fn shared_store(shared: SharedStore) -> SharedStoreSettings {
    SharedStoreSettings {
        redis: shared.redis.unwrap_or_default(),
        key: shared.key.unwrap_or_default(),
        timeout: shared.timeout.unwrap_or(Duration::from_millis(50)),
        secret: shared.secret,
        scope: shared.scope,
    }
}

/// The rate limit's settings, defaults filled in.
fn rate_limit_settings(limit: RateLimitPolicy) -> RateLimitSettings {
    let ms = Duration::from_millis;
    RateLimitSettings {
        per_second: limit.per_second.unwrap_or(100.0),
        burst: limit.burst.unwrap_or(20),
        max_wait: limit.max_wait.unwrap_or(Duration::ZERO),
        shared: limit.shared.map(|shared| SharedLimitSettings {
            redis: shared.redis.unwrap_or_default(),
            key: shared.key.unwrap_or_default(),
            timeout: shared.timeout.unwrap_or(ms(50)),
            on_error: shared.on_error.unwrap_or(OnRedisError::LocalShare),
            replicas: shared.replicas.unwrap_or(1).max(1),
        }),
    }
}

/// How calls spread over the endpoints, defaults filled in.
fn endpoint_settings(e: EndpointsPolicy) -> EndpointSettings {
    let s = Duration::from_secs;
    let eject = e.eject.unwrap_or_default();
    EndpointSettings {
        strategy: e.strategy.unwrap_or(Strategy::RoundRobin),
        weights: e.weights.unwrap_or_default(),
        eject_after: eject.after.unwrap_or(5),
        eject_for: eject.duration.unwrap_or(s(30)),
        eject_max_percent: eject.max_percent.unwrap_or(50).min(100),
        dns_refresh: e.dns.map(|d| d.refresh.unwrap_or(s(30))),
    }
}

/// The breaker's settings, defaults filled in.
fn breaker_settings(breaker: BreakerPolicy) -> BreakerSettings {
    let s = Duration::from_secs;
    BreakerSettings {
        scope: breaker.scope.unwrap_or(Scope::Method),
        window: breaker.window.unwrap_or(Window::Time(s(10))),
        min_calls: breaker.min_calls.unwrap_or(20),
        failure_rate: breaker.failure_rate.unwrap_or(50.0),
        slow_call: breaker
            .slow_call
            .and_then(|slow| slow.over.map(|over| (over, slow.rate.unwrap_or(100.0)))),
        open_for: breaker.open_for.unwrap_or(s(5)),
        open_for_max: breaker.open_for_max.unwrap_or(s(60)),
        half_open_calls: breaker.half_open_calls.unwrap_or(5).max(1),
        half_open: match (breaker.close_after, breaker.reopen_after) {
            (None, None) => HalfOpenRule::Rate,
            (close_after, reopen_after) => HalfOpenRule::Count {
                close_after: close_after
                    .unwrap_or_else(|| breaker.half_open_calls.unwrap_or(5))
                    .max(1),
                reopen_after: reopen_after.unwrap_or(1).max(1),
            },
        },
        record: breaker.record.unwrap_or_else(|| {
            vec![
                Condition::Connect,
                Condition::Timeout,
                Condition::StatusClass(5),
            ]
        }),
    }
}

/// The isolation settings, defaults filled in: a semaphore of 128 when the profile says none.
fn isolation_settings(isolation: Option<Isolation>) -> IsolationSettings {
    let s = Duration::from_secs;
    match isolation {
        Some(Isolation::None) => IsolationSettings::None,
        Some(Isolation::Adaptive(adaptive)) => {
            let min = adaptive.min.unwrap_or(2).max(1);
            let max = adaptive.max.unwrap_or(500).max(min);
            IsolationSettings::Adaptive {
                algorithm: adaptive.algorithm.unwrap_or(LimitAlgorithm::Gradient2),
                initial: adaptive.initial.unwrap_or(20).clamp(min, max),
                min,
                max,
                max_wait: adaptive.max_wait.unwrap_or(Duration::ZERO),
            }
        }
        Some(Isolation::Pool(pool)) => IsolationSettings::Pool {
            workers: pool.workers.unwrap_or(8).max(1),
            queue: pool.queue.unwrap_or(64),
            queue_timeout: pool.queue_timeout.unwrap_or(s(1)),
        },
        Some(Isolation::Semaphore(sem)) => IsolationSettings::Semaphore {
            max_concurrent: sem.max_concurrent.unwrap_or(128),
            max_wait: sem.max_wait.unwrap_or(Duration::ZERO),
        },
        None => IsolationSettings::Semaphore {
            max_concurrent: 128,
            max_wait: Duration::ZERO,
        },
    }
}

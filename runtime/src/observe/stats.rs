//! Per-method statistics: what `client.stats()` reports.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Serialize, Serializer};

use tokio::time::Instant;

use crate::observe::latency::Latencies;

/// The state of a circuit breaker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakerState {
    /// Calls flow.
    Closed,
    /// Calls are short-circuited.
    Open,
    /// A few trial calls decide whether to close again.
    HalfOpen,
}

/// A snapshot of one method's figures since the client was built. Serialises to JSON with the
/// latencies as `p50_ms` and `p99_ms`.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MethodStats {
    /// Logical calls, including those stopped before sending.
    pub calls: u64,
    /// Calls that returned `Ok` without a fallback.
    pub successes: u64,
    /// Calls that failed, including short-circuited, rejected and rate-limited ones (whether or
    /// not a fallback then answered).
    pub failures: u64,
    /// Attempts after the first.
    pub retries: u64,
    /// Calls refused by an open breaker.
    pub short_circuited: u64,
    /// Calls refused by a full bulkhead (or isolation pool).
    pub rejected: u64,
    /// Calls refused by the rate limiter: no turn within its `max_wait`.
    pub rate_limited: u64,
    /// Failed calls a fallback answered (with `Ok`; one that passes the failure on is not counted).
    pub fallbacks: u64,
    /// Hedged requests sent (backup copies of a slow attempt).
    pub hedges: u64,
    /// Calls a hedge answered first.
    pub hedge_wins: u64,
    /// Rate-limit and retry-budget decisions made without Redis (it was down or slow) under
    /// `rate_limit.shared` or `retry.budget.shared`.
    pub without_redis: u64,
    /// Events (or JSON lines) its streams delivered, undecodable ones included.
    pub events: u64,
    /// Bytes its streams read after they opened.
    pub stream_bytes: u64,
    /// Broken streams reopened from their last event id.
    pub resumes: u64,
    /// Streams that broke off and could not be resumed (they ended with an error item).
    pub streams_broken: u64,
    /// Its streams open now.
    pub streams_open: u64,
    /// Answers repaired under `decode: lax`: each field that came null, missing or of another
    /// kind than the description says, once per answer.
    pub drift: u64,
    /// Keys of answers that no type declares (skipped), and objects that share no key with
    /// their type: each once per answer. `Observer::drift_overlay()` declares them.
    pub undeclared: u64,
    /// Calls the cache answered without asking the server (`cache:`).
    pub cache_hits: u64,
    /// Kept answers the server confirmed unchanged (a `304 Not Modified`).
    pub revalidated: u64,
    /// Failed calls a kept answer past its freshness answered (`cache.stale_if_error`).
    pub served_stale: u64,
    /// Time its attempts waited for their turn in the quota the server announces.
    #[serde(rename = "quota_wait_ms", serialize_with = "millis")]
    pub quota_wait: Duration,
    /// Calls in flight through the bulkhead (or pool, or adaptive limit) and how many it allows
    /// now; absent under `isolation: none`. A client-wide bulkhead is the client's figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bulkhead: Option<(u32, u32)>,
    /// The bulkhead is the client's, shared with its other methods that have no isolation of
    /// their own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub bulkhead_is_clients: bool,
    /// Milliseconds since the breaker last changed state; absent if it never has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker_changed_ms_ago: Option<u64>,
    /// While the breaker is open, milliseconds until it lets its next trial call through (its
    /// open time grows with each failed trial, up to `open_for_max`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker_next_trial_ms: Option<u64>,
    /// The adaptive concurrency limit now, under `isolation: adaptive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency_limit: Option<u32>,
    /// The method's breaker state.
    pub breaker: BreakerState,
    /// Median latency of the calls of the last one to two minutes.
    #[serde(rename = "p50_ms", serialize_with = "millis")]
    pub p50: Duration,
    /// 99th-percentile latency of the calls of the last one to two minutes.
    #[serde(rename = "p99_ms", serialize_with = "millis")]
    pub p99: Duration,
    /// False until the method's first call: an untouched method has no state of its own yet
    /// (a big client costs what it uses).
    pub used: bool,
    /// The method answers with a stream of events or lines: only its figures of streams
    /// (`events`, `stream_bytes`, …) are exported as metric series.
    pub streams: bool,
}

impl MethodStats {
    /// The figures of a method never called.
    pub(crate) fn untouched(breaker: BreakerState) -> MethodStats {
        MethodStats {
            calls: 0,
            successes: 0,
            failures: 0,
            retries: 0,
            short_circuited: 0,
            rejected: 0,
            rate_limited: 0,
            fallbacks: 0,
            hedges: 0,
            hedge_wins: 0,
            without_redis: 0,
            events: 0,
            stream_bytes: 0,
            resumes: 0,
            streams_broken: 0,
            streams_open: 0,
            drift: 0,
            undeclared: 0,
            cache_hits: 0,
            revalidated: 0,
            served_stale: 0,
            quota_wait: Duration::ZERO,
            bulkhead: None,
            bulkhead_is_clients: false,
            breaker_changed_ms_ago: None,
            breaker_next_trial_ms: None,
            concurrency_limit: None,
            breaker,
            p50: Duration::ZERO,
            p99: Duration::ZERO,
            used: false,
            streams: false,
        }
    }
}

fn millis<S: Serializer>(duration: &Duration, s: S) -> Result<S::Ok, S::Error> {
    // Microsecond precision, not binary float noise (`2097.1510000000003`).
    s.serialize_f64((duration.as_secs_f64() * 1e6).round() / 1000.0)
}

/// One endpoint's state.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EndpointStats {
    /// Its base URL.
    pub url: String,
    /// Attempts in flight now.
    pub in_flight: u32,
    /// Out of rotation after repeated failures.
    pub ejected: bool,
}

/// A snapshot of every method's figures and every endpoint's state; serialises to JSON
/// (`serde_json::to_string(&client.stats())`) for dashboards.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClientStats {
    /// The client's name.
    pub client: &'static str,
    /// Per method, in spec order.
    #[serde(serialize_with = "named")]
    pub methods: Vec<(&'static str, MethodStats)>,
    /// The endpoints and their state.
    pub endpoints: Vec<EndpointStats>,
    /// The quotas the server's answers announced (`quota: { from_headers: auto }`).
    pub quotas: Vec<QuotaStats>,
}

/// A quota the server announces, as its last answers left it.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QuotaStats {
    /// Its name (`X-RateLimit-Resource`, the IETF policy), when the server names it.
    pub name: Option<String>,
    /// The calls a window allows, when announced.
    pub limit: Option<u64>,
    /// The calls left in this window (after the client's own since the last answer).
    pub remaining: Option<u64>,
    /// Time until the window resets, when known.
    #[serde(rename = "resets_in_ms", serialize_with = "optional_millis")]
    pub resets_in: Option<Duration>,
    /// Time the quota is paused for by a refusal (`Retry-After`), when it is.
    #[serde(rename = "paused_for_ms", serialize_with = "optional_millis")]
    pub paused_for: Option<Duration>,
}

fn optional_millis<S: Serializer>(duration: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match duration {
        Some(duration) => millis(duration, s),
        None => s.serialize_none(),
    }
}

/// Methods as a JSON object keyed by name, in spec order.
fn named<S: Serializer>(methods: &[(&'static str, MethodStats)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(methods.len()))?;
    for (name, stats) in methods {
        map.serialize_entry(name, stats)?;
    }
    map.end()
}

impl ClientStats {
    /// One method's figures, by its spec name.
    pub fn method(&self, name: &str) -> Option<&MethodStats> {
        self.methods
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| s)
    }
}

/// The live counters behind [`MethodStats`]; lock-free.
#[derive(Debug)]
pub(crate) struct Counters {
    calls: AtomicU64,
    successes: AtomicU64,
    failures: AtomicU64,
    retries: AtomicU64,
    short_circuited: AtomicU64,
    rejected: AtomicU64,
    rate_limited: AtomicU64,
    fallbacks: AtomicU64,
    hedges: AtomicU64,
    hedge_wins: AtomicU64,
    cache_hits: AtomicU64,
    revalidated: AtomicU64,
    served_stale: AtomicU64,
    quota_wait_ns: AtomicU64,
    without_redis: AtomicU64,
    events: AtomicU64,
    stream_bytes: AtomicU64,
    resumes: AtomicU64,
    streams_broken: AtomicU64,
    streams_open: AtomicU64,
    drift: AtomicU64,
    undeclared: AtomicU64,
    /// Where drift was seen (each place once), for the log and the overlay.
    pub(crate) drift_log: crate::observe::drift::DriftLog,
    latencies: Latencies,
    /// The last two minutes, second by second, for the dashboard.
    #[cfg(feature = "dashboard")]
    pub(crate) history: crate::observe::history::History,
}

/// An open stream, counted in `streams_open` until it is dropped.
pub(crate) struct StreamOpen<'a>(&'a AtomicU64);

impl Drop for StreamOpen<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// How a logical call ended, for the counters. Not an [`crate::error::ErrorKind`]: the counters file a
/// call by where the pipeline stopped it (refused by the limiter, the breaker or the bulkhead, or
/// sent),
/// and a sent call that failed is a failure whatever its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    Success,
    Failure,
    ShortCircuited,
    Rejected,
    RateLimited,
}

impl Counters {
    pub(crate) fn new(now: Instant) -> Counters {
        Counters {
            calls: AtomicU64::new(0),
            successes: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            short_circuited: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            rate_limited: AtomicU64::new(0),
            fallbacks: AtomicU64::new(0),
            hedges: AtomicU64::new(0),
            hedge_wins: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            revalidated: AtomicU64::new(0),
            served_stale: AtomicU64::new(0),
            quota_wait_ns: AtomicU64::new(0),
            without_redis: AtomicU64::new(0),
            events: AtomicU64::new(0),
            stream_bytes: AtomicU64::new(0),
            resumes: AtomicU64::new(0),
            streams_broken: AtomicU64::new(0),
            streams_open: AtomicU64::new(0),
            drift: AtomicU64::new(0),
            undeclared: AtomicU64::new(0),
            drift_log: crate::observe::drift::DriftLog::default(),
            latencies: Latencies::new(now),
            #[cfg(feature = "dashboard")]
            history: crate::observe::history::History::new(now),
        }
    }

    /// Counts one logical call; `latency` for calls that were sent.
    pub(crate) fn record(&self, ending: Ending, latency: Option<Duration>, now: Instant) {
        let bump = |c: &AtomicU64| {
            c.fetch_add(1, Ordering::Relaxed);
        };
        bump(&self.calls);
        match ending {
            Ending::Success => bump(&self.successes),
            Ending::Failure => bump(&self.failures),
            Ending::ShortCircuited => {
                bump(&self.failures);
                bump(&self.short_circuited);
            }
            Ending::Rejected => {
                bump(&self.failures);
                bump(&self.rejected);
            }
            Ending::RateLimited => {
                bump(&self.failures);
                bump(&self.rate_limited);
            }
        }
        if let Some(latency) = latency {
            self.latencies.record(latency, now);
        }
        #[cfg(feature = "dashboard")]
        self.history.record(
            crate::observe::history::Event::Call {
                failed: ending != Ending::Success,
                short_circuited: ending == Ending::ShortCircuited,
                latency,
            },
            now,
        );
    }

    pub(crate) fn record_retry(&self) {
        self.retries.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "dashboard")]
        self.history
            .record(crate::observe::history::Event::Retry, Instant::now());
    }

    pub(crate) fn record_fallback(&self) {
        self.fallbacks.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "dashboard")]
        self.history
            .record(crate::observe::history::Event::Fallback, Instant::now());
    }

    pub(crate) fn record_cache_hit(&self) {
        self.cache_hits.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn record_revalidated(&self) {
        self.revalidated.fetch_add(1, Ordering::Relaxed);
    }

    /// One more failed call a stale answer answered.
    pub(crate) fn record_served_stale(&self) {
        self.served_stale.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn record_quota_wait(&self, waited: Duration) {
        let nanos = u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX);
        self.quota_wait_ns.fetch_add(nanos, Ordering::Relaxed);
    }

    pub(crate) fn record_hedge(&self) {
        self.hedges.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "dashboard")]
        self.history
            .record(crate::observe::history::Event::Hedge, Instant::now());
    }

    pub(crate) fn record_without_redis(&self) {
        self.without_redis.fetch_add(1, Ordering::Relaxed);
    }

    /// A stream opened: counted open until the guard is dropped.
    pub(crate) fn stream_opened(&self) -> StreamOpen<'_> {
        self.streams_open.fetch_add(1, Ordering::Relaxed);
        StreamOpen(&self.streams_open)
    }

    pub(crate) fn record_events(&self, n: usize) {
        if n > 0 {
            self.events.fetch_add(n as u64, Ordering::Relaxed);
            #[cfg(feature = "dashboard")]
            self.history.record(
                crate::observe::history::Event::StreamItems(u32::try_from(n).unwrap_or(u32::MAX)),
                Instant::now(),
            );
        }
    }

    pub(crate) fn record_stream_bytes(&self, n: usize) {
        self.stream_bytes.fetch_add(n as u64, Ordering::Relaxed);
    }

    pub(crate) fn record_resume(&self) {
        self.resumes.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "dashboard")]
        self.history.record(
            crate::observe::history::Event::StreamResumed,
            Instant::now(),
        );
    }

    /// Counts one repair; true the first time its place is seen, so it is logged once.
    pub(crate) fn record_drift(&self, drift: &crate::decode::lax::Drift) -> bool {
        let counter =
            if drift.undeclared.is_some() || drift.came == crate::decode::undeclared::STRANGER {
                &self.undeclared
            } else {
                &self.drift
            };
        counter.fetch_add(1, Ordering::Relaxed);
        self.drift_log.first(drift)
    }

    pub(crate) fn record_stream_broken(&self) {
        self.streams_broken.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "dashboard")]
        self.history
            .record(crate::observe::history::Event::StreamBroken, Instant::now());
    }

    pub(crate) fn record_hedge_win(&self) {
        self.hedge_wins.fetch_add(1, Ordering::Relaxed);
    }

    /// The `q` quantile of the method's recent latency, and how many calls it is of.
    pub(crate) fn recent_quantile(&self, q: f64, now: Instant) -> (Duration, u64) {
        self.latencies.quantile_of(q, now)
    }

    pub(crate) fn snapshot(&self, breaker: BreakerState, now: Instant) -> MethodStats {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        MethodStats {
            calls: load(&self.calls),
            successes: load(&self.successes),
            failures: load(&self.failures),
            retries: load(&self.retries),
            short_circuited: load(&self.short_circuited),
            rejected: load(&self.rejected),
            rate_limited: load(&self.rate_limited),
            fallbacks: load(&self.fallbacks),
            hedges: load(&self.hedges),
            hedge_wins: load(&self.hedge_wins),
            without_redis: load(&self.without_redis),
            events: load(&self.events),
            stream_bytes: load(&self.stream_bytes),
            resumes: load(&self.resumes),
            streams_broken: load(&self.streams_broken),
            streams_open: load(&self.streams_open),
            drift: load(&self.drift),
            undeclared: load(&self.undeclared),
            cache_hits: load(&self.cache_hits),
            revalidated: load(&self.revalidated),
            served_stale: load(&self.served_stale),
            quota_wait: Duration::from_nanos(load(&self.quota_wait_ns)),
            bulkhead: None,
            bulkhead_is_clients: false,
            breaker_changed_ms_ago: None,
            breaker_next_trial_ms: None,
            concurrency_limit: None,
            breaker,
            p50: self.latencies.quantile(0.5, now),
            p99: self.latencies.quantile(0.99, now),
            used: true,
            streams: false,
        }
    }
}

#[cfg(test)]
mod tests;

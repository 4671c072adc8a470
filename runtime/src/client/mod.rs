//! The shared state of one client, built from its spec and profile.

mod builder;
pub(crate) mod environment;
#[cfg(feature = "metrics")]
pub mod facade;
pub(crate) mod families;
#[cfg(feature = "otel")]
pub mod otel;
mod policies;
pub mod prometheus;

use std::sync::{Arc, OnceLock};

use remcall_profile::{Scope, Settings};
use reqwest::header::HeaderMap;
use tokio::time::Instant;

use crate::fleet;
use crate::observe::probe::{Decision, MethodProbe};
use crate::observe::stats::{ClientStats, Counters, EndpointStats};
use crate::outbound::auth::Credentials;
use crate::outbound::cache::Cache;
use crate::outbound::endpoints::Endpoints;
use crate::outbound::interceptor::DynInterceptor;
use crate::policy::breaker::Breaker;
use crate::policy::budget::RetryBudget;
use crate::policy::bulkhead::Bulkhead;
use crate::policy::hedge::Hedging;
use crate::policy::quota::{MethodQuota, Quotas};
use crate::policy::rate_limit::RateLimiter;
use crate::spec::{ClientSpec, MethodSpec};
use crate::wire::query::ProfileQuery;
pub use builder::ClientBuilder;

/// The runtime half of a generated client. Cheap to clone: clones share one state, and two
/// clients built separately share nothing.
#[derive(Clone)]
pub struct Client {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A summary: the full state holds histograms and (redacted) settings nobody wants to read.
        let shared = &self.shared;
        f.debug_struct("Client")
            .field("name", &shared.spec.name)
            .field("endpoints", &shared.endpoints)
            .field(
                "methods",
                &shared
                    .spec
                    .methods
                    .iter()
                    .map(|m| m.name)
                    .collect::<Vec<_>>(),
            )
            .field("interceptors", &shared.interceptors)
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) spec: &'static ClientSpec,
    pub(crate) http: reqwest::Client,
    pub(crate) endpoints: Endpoints,
    /// Each method's state, made on its first call (a client from a large API description has
    /// hundreds of methods, of which a service calls a few); a method with a profile of its own
    /// is made when the client is built, so its mistakes fail `build()`.
    pub(crate) methods: Vec<OnceLock<Box<MethodState>>>,
    /// What an untouched method's state is made from: the client's own.
    pub(crate) template: policies::Template,
    pub(crate) budget: RetryBudget,
    /// The fleet's retry budget in Redis, when the profile shares one.
    pub(crate) fleet_budget: fleet::SharedBudget,
    pub(crate) interceptors: Vec<Arc<dyn DynInterceptor>>,
    /// The quotas the server's answers announce, by name.
    pub(crate) quotas: Quotas,
    /// The answers kept under `cache:`, when the client's profile or any method's keeps them.
    pub(crate) cache: Option<Cache>,
    /// The fleet's quotas in Redis, when the profile shares them (`quota.shared`).
    pub(crate) fleet_quotas: fleet::SharedQuotas,
    /// The fleet's kept answers in Redis, when the profile shares them (`cache.shared`).
    pub(crate) fleet_cache: fleet::SharedCache,
    /// The recording of real exchanges, when the profile has `record:`.
    pub(crate) recorder: Option<crate::observe::recording::Recorder>,
}

impl Shared {
    /// The recording `request`'s exchange goes to, when its method is recorded (a download's
    /// never: its body is the caller's stream).
    pub(crate) fn recorder_of(
        &self,
        request: &crate::wire::request::Request,
    ) -> Option<&crate::observe::recording::Recorder> {
        self.recorder
            .as_ref()
            .filter(|r| !request.download && r.records(request.method.name))
    }

    /// The state of `method`, made now if this is its first call.
    #[inline]
    pub(crate) fn method(&self, method: &'static MethodSpec) -> &MethodState {
        match self.methods[method.index].get() {
            Some(state) => state,
            None => self.first_use(method),
        }
    }

    #[inline(never)]
    fn first_use(&self, method: &'static MethodSpec) -> &MethodState {
        self.methods[method.index].get_or_init(|| {
            let template = &self.template;
            let state = template.for_method(self.spec, method, &template.settings, Instant::now());
            // With the client's own settings every policy is the client's, built by `build()`:
            // nothing is left that could fail.
            Box::new(state.unwrap_or_else(|error| unreachable!("{error}")))
        })
    }

    /// A method's state if it has been made.
    pub(crate) fn made(&self, index: usize) -> Option<&MethodState> {
        self.methods[index].get().map(|state| &**state)
    }
}

/// What one method needs at call time, computed once when the client is built.
#[derive(Debug)]
pub(crate) struct MethodState {
    /// What its calls' and attempts' telemetry goes through.
    pub(crate) probe: MethodProbe,
    pub(crate) settings: Settings,
    pub(crate) http_method: reqwest::Method,
    /// Profile headers, placeholders resolved; secret ones marked sensitive.
    pub(crate) headers: HeaderMap,
    /// Profile query parameters, placeholders resolved.
    pub(crate) query: ProfileQuery,
    /// The client's credentials, or the method's own when its profile sets another `auth`.
    pub(crate) credentials: Option<Credentials>,
    pub(crate) counters: Counters,
    /// Hedged requests, when the profile asks for them and the method is idempotent.
    pub(crate) hedging: Option<Box<Hedging>>,
    /// The method's own breaker, or the client's when `scope: client`.
    pub(crate) breaker: Arc<Breaker>,
    /// The client's bulkhead, or the method's own when its profile sets another `isolation`.
    pub(crate) bulkhead: Arc<Bulkhead>,
    /// Likewise for the rate limiter.
    pub(crate) rate_limit: Option<Arc<RateLimiter>>,
    /// The rate limit shared with the fleet, in place of `rate_limit`, when the profile says so.
    pub(crate) fleet_limit: fleet::SharedLimit,
    /// The server's quota its answers name (`quota: { from_headers: auto }`).
    pub(crate) quota: MethodQuota,
}

impl MethodState {
    /// A decision of the policies about one of its calls, told to every outlet.
    pub(crate) fn decided(&self, decision: Decision<'_>) {
        self.probe.decided(&self.counters, decision);
    }
}

/// A weak handle on a client for watching it (the dashboard): it does not keep the client
/// alive, and says `None` once every clone of the client is gone.
#[derive(Clone, Debug)]
pub struct Observer {
    shared: std::sync::Weak<Shared>,
}

impl Observer {
    /// The statistics of the methods used so far, while the client lives.
    pub fn stats(&self) -> Option<ClientStats> {
        let shared = self.shared.upgrade()?;
        Some(Client { shared }.stats())
    }

    /// How many methods the client has, used or not, while it lives.
    #[cfg(feature = "dashboard")]
    pub(crate) fn method_count(&self) -> Option<usize> {
        Some(self.shared.upgrade()?.spec.methods.len())
    }

    /// Every method's statistics, those never called with their zeros, while it lives.
    pub fn stats_all(&self) -> Option<ClientStats> {
        let shared = self.shared.upgrade()?;
        Some(Client { shared }.stats_all())
    }

    /// What `decode: lax` repaired of the answers so far, as an OpenAPI Overlay 1.0 document
    /// (JSON) that makes the description say what the server sends: write it to a file,
    /// review it, and import with it (`remcall import DESC --overlay FILE`, or `openapi: {
    /// overlays: [FILE] }`); strict decoding then passes. `None` once the client is gone.
    pub fn drift_overlay(&self) -> Option<String> {
        let shared = self.shared.upgrade()?;
        let seen: Vec<(&str, Vec<crate::decode::lax::Drift>)> = shared
            .spec
            .methods
            .iter()
            .filter_map(|m| {
                let state = shared.made(m.index)?;
                Some((m.name, state.counters.drift_log.seen()))
            })
            .collect();
        Some(crate::observe::drift::overlay(shared.spec.name, &seen))
    }

    /// Each used method's last two minutes, second by second, oldest first (feature
    /// `dashboard`); methods never called are left out.
    #[cfg(feature = "dashboard")]
    pub fn history(&self) -> Option<Vec<(&'static str, Vec<crate::observe::history::Second>)>> {
        let shared = self.shared.upgrade()?;
        let now = Instant::now();
        Some(
            shared
                .spec
                .methods
                .iter()
                .filter_map(|m| {
                    shared
                        .made(m.index)
                        .map(|state| (m.name, state.counters.history.series(now)))
                })
                .collect(),
        )
    }
}

/// What can be watched: every generated client (and the runtime's [`Client`]).
pub trait Observe {
    /// A weak handle on the client's figures.
    fn observe(&self) -> Observer;
}

impl Observe for Client {
    fn observe(&self) -> Observer {
        Observer {
            shared: Arc::downgrade(&self.shared),
        }
    }
}

impl Client {
    /// A snapshot of the figures of every method used so far (called, or given a profile of its
    /// own) and every endpoint's state. A client of hundreds of methods of which a service calls
    /// ten reports ten; [`Client::stats_all`] lists every method.
    pub fn stats(&self) -> ClientStats {
        self.snapshot(false)
    }

    /// A snapshot of every method's figures, those never used with their zeros.
    pub fn stats_all(&self) -> ClientStats {
        self.snapshot(true)
    }

    fn snapshot(&self, all: bool) -> ClientStats {
        let shared = &self.shared;
        let now = Instant::now();
        let methods = shared
            .spec
            .methods
            .iter()
            .filter(|m| all || shared.made(m.index).is_some())
            .map(|m| {
                let (name, mut stats) = self.method_stats(m, now);
                stats.streams = m.streams;
                (name, stats)
            })
            .collect();
        let endpoints = shared
            .endpoints
            .snapshot()
            .into_iter()
            .map(|(url, in_flight, ejected)| EndpointStats {
                url,
                in_flight,
                ejected,
            })
            .collect();
        ClientStats {
            client: shared.spec.name,
            methods,
            endpoints,
            quotas: shared.quotas.snapshot(now),
        }
    }

    /// One method's figures: its state's, or an untouched method's.
    fn method_stats(
        &self,
        m: &'static MethodSpec,
        now: Instant,
    ) -> (&'static str, crate::observe::stats::MethodStats) {
        let shared = &self.shared;
        match shared.made(m.index) {
            Some(state) => {
                let mut stats = state.counters.snapshot(state.breaker.state(), now);
                stats.concurrency_limit = state.bulkhead.adaptive_limit();
                stats.bulkhead = state.bulkhead.use_and_limit();
                stats.bulkhead_is_clients = stats.bulkhead.is_some()
                    && Arc::ptr_eq(&state.bulkhead, &shared.template.bulkhead);
                stats.breaker_changed_ms_ago = state
                    .breaker
                    .changed_ago(now)
                    .map(|ago| ago.as_millis() as u64);
                stats.breaker_next_trial_ms = state
                    .breaker
                    .next_trial_in(now)
                    .map(|left| left.as_millis() as u64);
                (m.name, stats)
            }
            // Never called: nothing was made for it. A client-scoped breaker is still the
            // client's.
            None => {
                let breaker = match shared.template.settings.breaker.scope {
                    Scope::Client => shared.template.breaker.state(),
                    Scope::Method => crate::observe::stats::BreakerState::Closed,
                };
                let mut stats = crate::observe::stats::MethodStats::untouched(breaker);
                stats.concurrency_limit = shared.template.bulkhead.adaptive_limit();
                stats.bulkhead = shared.template.bulkhead.use_and_limit();
                stats.bulkhead_is_clients = stats.bulkhead.is_some();
                (m.name, stats)
            }
        }
    }

    /// The client's name.
    pub fn name(&self) -> &'static str {
        self.shared.spec.name
    }
}

//! The shared state of one client, built from its spec and profile.

pub(crate) mod environment;

use std::sync::{Arc, OnceLock};

use remcall_profile::{Layer, Profile, Scope, Settings, vars};
use reqwest::header::HeaderMap;
use tokio::time::Instant;

use crate::error::{Error, ErrorKind};
use crate::fleet;
use crate::observe::stats::{ClientStats, Counters, EndpointStats};
use crate::outbound::auth::Credentials;
use crate::outbound::endpoints::{Discover, DynDiscover, Endpoints};
use crate::outbound::interceptor::{DynInterceptor, Erased, Interceptor};
use crate::outbound::tls;
use crate::policy::breaker::Breaker;
use crate::policy::budget::RetryBudget;
use crate::policy::bulkhead::Bulkhead;
use crate::policy::hedge::Hedging;
use crate::policy::rate_limit::RateLimiter;
use crate::spec::{ClientSpec, MethodSpec};
use crate::wire::query::ProfileQuery;
use crate::wire::request::{header_name, header_value};

/// Redirects followed before a call fails; more is a loop or a misconfiguration.
const MAX_REDIRECTS: usize = 5;

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
    pub(crate) template: Template,
    pub(crate) budget: RetryBudget,
    /// The fleet's retry budget in Redis, when the profile shares one.
    pub(crate) fleet_budget: fleet::Budget,
    pub(crate) interceptors: Vec<Arc<dyn DynInterceptor>>,
}

/// The client-level parts every method without a profile of its own shares or copies.
#[derive(Debug)]
pub(crate) struct Template {
    settings: Settings,
    headers: HeaderMap,
    query: ProfileQuery,
    credentials: Option<Credentials>,
    breaker: Arc<Breaker>,
    bulkhead: Arc<Bulkhead>,
    rate_limit: Option<Arc<RateLimiter>>,
    fleet_limit: fleet::Limit,
}

impl Shared {
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
            let settings = template.settings.clone();
            let breaker = match settings.breaker.scope {
                Scope::Client => template.breaker.clone(),
                Scope::Method => Arc::new(Breaker::new(
                    settings.breaker.clone(),
                    self.spec.name,
                    method.name,
                    Instant::now(),
                )),
            };
            Box::new(MethodState {
                // Checked when the client was built.
                http_method: reqwest::Method::from_bytes(method.http_method.as_bytes())
                    .unwrap_or(reqwest::Method::GET),
                headers: template.headers.clone(),
                query: template.query.clone(),
                credentials: template.credentials.clone(),
                counters: Counters::new(Instant::now()),
                hedging: hedging(&settings, method, Instant::now()),
                breaker,
                bulkhead: template.bulkhead.clone(),
                rate_limit: template.rate_limit.clone(),
                fleet_limit: template.fleet_limit.clone(),
                settings,
            })
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
    pub(crate) fleet_limit: fleet::Limit,
}

/// Builds a [`Client`]; generated builders wrap this one.
#[derive(Debug)]
pub struct ClientBuilder {
    spec: &'static ClientSpec,
    base_urls: Option<Vec<String>>,
    profile: Option<Profile>,
    http: Option<reqwest::Client>,
    interceptors: Vec<Arc<dyn DynInterceptor>>,
    discover: Option<Arc<dyn DynDiscover>>,
}

impl ClientBuilder {
    /// A builder for the client `spec` describes.
    pub fn new(spec: &'static ClientSpec) -> ClientBuilder {
        ClientBuilder {
            spec,
            base_urls: None,
            profile: None,
            http: None,
            interceptors: Vec::new(),
            discover: None,
        }
    }

    /// Calls go to this endpoint instead of the spec's.
    pub fn base_url(self, url: &str) -> ClientBuilder {
        self.base_urls([url])
    }

    /// Calls are spread over these endpoints instead of the spec's.
    pub fn base_urls(mut self, urls: impl IntoIterator<Item = impl AsRef<str>>) -> ClientBuilder {
        self.base_urls = Some(urls.into_iter().map(|u| u.as_ref().to_owned()).collect());
        self
    }

    /// Overrides the spec's profile field by field (layered over any earlier override).
    pub fn profile(mut self, profile: Profile) -> ClientBuilder {
        self.profile = Some(self.profile.take().unwrap_or_default().layer(profile));
        self
    }

    /// Sends through this `reqwest::Client` (its own connect timeout, TLS and proxy settings
    /// apply) instead of one built from the profile.
    pub fn http_client(mut self, http: reqwest::Client) -> ClientBuilder {
        self.http = Some(http);
        self
    }

    /// Takes endpoints from `discover` (Consul, Kubernetes, a custom DNS) instead of the base
    /// URLs, asked again every `discover.refresh()`.
    pub fn discover(mut self, discover: impl Discover) -> ClientBuilder {
        self.discover = Some(Arc::new(discover));
        self
    }

    /// Adds an interceptor; it runs after the profile's headers, auth and earlier interceptors.
    pub fn interceptor(mut self, interceptor: impl Interceptor) -> ClientBuilder {
        self.interceptors.push(Arc::new(Erased(interceptor)));
        self
    }

    /// Resolves profiles, environment placeholders (an error names every unset one),
    /// credentials, TLS and endpoints.
    pub fn build(self) -> Result<Client, Error> {
        let spec = self.spec;
        let named = |e: Error| e.in_call(spec.name, "");
        let client_profile = Profile::from_yaml_str(spec.profile).map_err(|e| named(e.into()))?;
        let runtime = self.profile.unwrap_or_default();
        let client_settings =
            Settings::from_profile(&client_profile.clone().layer(runtime.clone()));

        // The settings of each method with a profile of its own: the client's profile, the
        // method's, the runtime's. The others' are the client's.
        let mut own_settings: Vec<(&'static MethodSpec, Settings)> = Vec::new();
        for method in spec.methods {
            reqwest::Method::from_bytes(method.http_method.as_bytes()).map_err(|_| {
                Error::new(
                    ErrorKind::Config,
                    format!("invalid HTTP method `{}`", method.http_method),
                )
                .in_call(spec.name, method.name)
            })?;
            if method.profile.is_empty() {
                continue;
            }
            let own = Profile::from_yaml_str(method.profile)
                .map_err(|e| Error::from(e).in_call(spec.name, method.name))?;
            own_settings.push((
                method,
                Settings::from_profile(&client_profile.clone().layer(own).layer(runtime.clone())),
            ));
        }
        let base_urls = match self.base_urls {
            Some(urls) => urls,
            None => spec.base_urls.iter().map(|u| (*u).to_owned()).collect(),
        };
        environment::check(spec, &client_settings, &own_settings, &base_urls, |name| {
            std::env::var(name).ok()
        })?;
        let carries_secrets = std::iter::once(&client_settings)
            .chain(own_settings.iter().map(|(_, s)| s))
            .any(|s| {
                s.auth.is_some()
                    || s.headers.values().any(|h| h.secret)
                    || s.query.values().any(|q| q.secret)
            });

        let http = match self.http {
            Some(http) => http,
            None => {
                let builder = reqwest::Client::builder()
                    .connect_timeout(client_settings.connect_timeout)
                    .redirect(redirect_policy(carries_secrets));
                let builder =
                    tls::configure(builder, &client_settings.tls, spec.name).map_err(named)?;
                builder.build().map_err(|e| {
                    named(
                        Error::new(ErrorKind::Config, "cannot build the HTTP client")
                            .with_source(e),
                    )
                })?
            }
        };

        // Policies built from the client-level settings are shared by every method whose
        // settings match; a method that overrides one gets its own.
        let now = Instant::now();
        let pool_error = |e: std::io::Error| {
            Error::new(ErrorKind::Config, "cannot start the isolation pool").with_source(e)
        };
        let client_bulkhead = Arc::new(
            Bulkhead::new(&client_settings.isolation, spec.name)
                .map_err(|e| named(pool_error(e)))?,
        );
        let client_limiter = client_settings
            .rate_limit
            .as_ref()
            .filter(|r| r.shared.is_none())
            .map(|r| Arc::new(RateLimiter::new(r, now)));
        let client_fleet_limit = fleet::limiter(&client_settings, spec.name, now).map_err(named)?;
        let client_breaker = Arc::new(Breaker::new(
            client_settings.breaker.clone(),
            spec.name,
            "*",
            now,
        ));
        let client_credentials = client_settings
            .auth
            .as_ref()
            .map(|auth| Credentials::new(auth, &client_settings, spec.name))
            .transpose()
            .map_err(named)?;

        let template = Template {
            headers: resolve_headers(&client_settings).map_err(named)?,
            query: ProfileQuery::resolve(&client_settings).map_err(named)?,
            credentials: client_credentials.clone(),
            breaker: client_breaker.clone(),
            bulkhead: client_bulkhead.clone(),
            rate_limit: client_limiter.clone(),
            fleet_limit: client_fleet_limit.clone(),
            settings: client_settings.clone(),
        };
        let mut methods: Vec<OnceLock<Box<MethodState>>> = std::iter::repeat_with(OnceLock::new)
            .take(spec.methods.len())
            .collect();
        for (method, settings) in own_settings {
            let in_method = |e: Error| e.in_call(spec.name, method.name);
            let headers = resolve_headers(&settings).map_err(in_method)?;
            let query = ProfileQuery::resolve(&settings).map_err(in_method)?;
            let http_method = reqwest::Method::from_bytes(method.http_method.as_bytes())
                .unwrap_or(reqwest::Method::GET);
            let breaker = match settings.breaker.scope {
                Scope::Client => client_breaker.clone(),
                Scope::Method => Arc::new(Breaker::new(
                    settings.breaker.clone(),
                    spec.name,
                    method.name,
                    now,
                )),
            };
            let bulkhead = if settings.isolation == client_settings.isolation {
                client_bulkhead.clone()
            } else {
                Arc::new(
                    Bulkhead::new(&settings.isolation, spec.name)
                        .map_err(|e| in_method(pool_error(e)))?,
                )
            };
            let (rate_limit, fleet_limit) = match &settings.rate_limit {
                Some(limit) if Some(limit) == client_settings.rate_limit.as_ref() => {
                    (client_limiter.clone(), client_fleet_limit.clone())
                }
                Some(limit) if limit.shared.is_some() => (
                    None,
                    fleet::limiter(&settings, spec.name, now).map_err(in_method)?,
                ),
                Some(limit) => (Some(Arc::new(RateLimiter::new(limit, now))), None),
                None => (None, None),
            };
            // One token cache per client unless a method authenticates differently.
            let credentials = match &settings.auth {
                auth if *auth == client_settings.auth => client_credentials.clone(),
                Some(auth) => {
                    Some(Credentials::new(auth, &settings, spec.name).map_err(in_method)?)
                }
                None => None,
            };
            methods[method.index] = OnceLock::from(Box::new(MethodState {
                hedging: hedging(&settings, method, now),
                settings,
                http_method,
                headers,
                query,
                credentials,
                counters: Counters::new(now),
                breaker,
                bulkhead,
                rate_limit,
                fleet_limit,
            }));
        }
        let budget = RetryBudget::new(
            client_settings.retry.budget_ratio,
            client_settings.retry.budget_min_per_second,
            now,
        );
        let fleet_budget = fleet::budget(&client_settings, spec.name, now).map_err(named)?;

        let endpoints = Endpoints::new(
            spec.name,
            &base_urls,
            spec.base_path,
            client_settings.endpoints.clone(),
            self.discover,
        )
        .map_err(named)?;
        let shared = Shared {
            spec,
            http,
            endpoints,
            methods,
            template,
            budget,
            fleet_budget,
            interceptors: self.interceptors,
        };
        Ok(Client {
            shared: Arc::new(shared),
        })
    }
}

/// Redirects are followed up to [`MAX_REDIRECTS`]; for a client that carries secrets
/// (credentials, `secret: true` headers), only within the origin (scheme, host and port) that
/// redirects: reqwest drops `Authorization` on the way to another origin, but not an API key
/// header, and a 307 carries the body along. A redirect not followed is the answer, a 3xx.
fn redirect_policy(carries_secrets: bool) -> reqwest::redirect::Policy {
    if !carries_secrets {
        return reqwest::redirect::Policy::limited(MAX_REDIRECTS);
    }
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .last()
            .is_some_and(|from| from.origin() == attempt.url().origin());
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error("too many redirects")
        } else if same_origin {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// The profile's headers as header values, `${VAR}`s resolved now: at build time, never at
/// generation time. Secret ones are marked sensitive, which keeps them out of logs.
fn resolve_headers(settings: &Settings) -> Result<HeaderMap, Error> {
    let mut headers = HeaderMap::new();
    for (name, def) in &settings.headers {
        let value = vars::expand_env(&def.value)
            .map_err(|e| Error::new(ErrorKind::Config, format!("header `{name}`: {e}")))?;
        let mut value = header_value(name, &value)?;
        value.set_sensitive(def.secret);
        headers.insert(header_name(name)?, value);
    }
    Ok(headers)
}

/// A method's hedging state: only for idempotent methods (a client profile's `hedge:` skips the
/// others; the generator refuses it in a non-idempotent method's own config).
fn hedging(settings: &Settings, method: &MethodSpec, now: Instant) -> Option<Box<Hedging>> {
    let hedge = settings.hedge?;
    method
        .idempotent
        .then(|| Box::new(Hedging::new(hedge, now)))
}

/// A weak handle on a client for watching it (the dashboard): it does not keep the client
/// alive, and says `None` once every clone of the client is gone.
#[derive(Clone, Debug)]
pub struct Observer {
    shared: std::sync::Weak<Shared>,
}

impl Observer {
    /// The client's statistics, while it lives.
    pub fn stats(&self) -> Option<ClientStats> {
        let shared = self.shared.upgrade()?;
        Some(Client { shared }.stats())
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
    /// A snapshot of every method's figures and every endpoint's state.
    pub fn stats(&self) -> ClientStats {
        let shared = &self.shared;
        let now = Instant::now();
        let methods = shared
            .spec
            .methods
            .iter()
            .map(|m| match shared.made(m.index) {
                Some(state) => {
                    let mut stats = state.counters.snapshot(state.breaker.state(), now);
                    stats.concurrency_limit = state.bulkhead.adaptive_limit();
                    stats.bulkhead = state.bulkhead.use_and_limit();
                    stats.breaker_changed_ms_ago = state
                        .breaker
                        .changed_ago(now)
                        .map(|ago| ago.as_millis() as u64);
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
                    (m.name, stats)
                }
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
        }
    }

    /// The client's name.
    pub fn name(&self) -> &'static str {
        self.shared.spec.name
    }
}

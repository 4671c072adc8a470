//! Which policy instances a method uses: the client's, shared, or its own. One decision per
//! policy, made here both for a method that has the client's settings (on its first call) and
//! for one with a profile of its own (when the client is built): a new policy is added here,
//! once.

use std::sync::Arc;

use remcall_profile::{Scope, Settings, vars};
use reqwest::header::{HeaderMap, HeaderValue};
use tokio::time::Instant;

use super::MethodState;
use crate::error::{Error, ErrorKind};
use crate::fleet;
use crate::observe::probe::{ClientProbe, MethodProbe};
use crate::observe::stats::Counters;
use crate::outbound::auth::Credentials;
use crate::policy::breaker::Breaker;
use crate::policy::bulkhead::{Bulkhead, PoolThreads};
use crate::policy::hedge::Hedging;
use crate::policy::rate_limit::RateLimiter;
use crate::spec::{ClientSpec, MethodSpec};
use crate::wire::query::ProfileQuery;
use crate::wire::request::{header_name, header_value};

/// The client-level policies, which every method whose settings match shares.
#[derive(Debug)]
pub(crate) struct Template {
    pub(crate) settings: Settings,
    headers: HeaderMap,
    query: ProfileQuery,
    credentials: Option<Credentials>,
    pub(crate) breaker: Arc<Breaker>,
    pub(crate) bulkhead: Arc<Bulkhead>,
    /// The threads every pool bulkhead of the client runs on.
    pool_threads: PoolThreads,
    rate_limit: Option<Arc<RateLimiter>>,
    fleet_limit: fleet::SharedLimit,
    /// What every method's probe shares, and the path their routes follow (`/api`).
    probe: (ClientProbe, Box<str>),
}

impl Template {
    /// The client's policies, from its settings: `${VAR}`s resolved, pools started, credentials
    /// ready. `pool_threads` is the most workers any of the client's pools has.
    pub(crate) fn new(
        spec: &'static ClientSpec,
        settings: Settings,
        pool_threads: u32,
        now: Instant,
    ) -> Result<Template, Error> {
        let pool_threads = PoolThreads::new(spec.name, pool_threads);
        let (rate_limit, fleet_limit) = rate_limits(&settings, spec, now)?;
        Ok(Template {
            headers: resolve_headers(&settings)?,
            query: ProfileQuery::resolve(&settings)?,
            credentials: settings
                .auth
                .as_ref()
                .map(|auth| Credentials::new(auth, &settings, spec.name))
                .transpose()?,
            breaker: Arc::new(Breaker::new(settings.breaker.clone(), spec.name, "*", now)),
            bulkhead: Arc::new(bulkhead(&settings, &pool_threads)?),
            pool_threads,
            rate_limit,
            fleet_limit,
            settings,
            probe: (ClientProbe::new(), "".into()),
        })
    }

    /// Sets the path every method's route follows on the wire, as `url.template` begins.
    pub(crate) fn set_path_prefix(&mut self, prefix: String) {
        self.probe.1 = prefix.into();
    }

    /// The state of `method` with `settings`: each policy the client's when the method's
    /// settings for it are the client's, its own otherwise. With the client's own settings
    /// nothing is built that could fail.
    pub(crate) fn for_method(
        &self,
        spec: &'static ClientSpec,
        method: &'static MethodSpec,
        settings: &Settings,
        now: Instant,
    ) -> Result<MethodState, Error> {
        let client = &self.settings;
        let headers = if settings.headers == client.headers && settings.cookies == client.cookies {
            self.headers.clone()
        } else {
            resolve_headers(settings)?
        };
        let query = if settings.query == client.query {
            self.query.clone()
        } else {
            ProfileQuery::resolve(settings)?
        };
        let breaker = match settings.breaker.scope {
            Scope::Client => self.breaker.clone(),
            Scope::Method => Arc::new(Breaker::new(
                settings.breaker.clone(),
                spec.name,
                method.name,
                now,
            )),
        };
        let bulkhead = if settings.isolation == client.isolation {
            self.bulkhead.clone()
        } else {
            Arc::new(bulkhead(settings, &self.pool_threads)?)
        };
        let (rate_limit, fleet_limit) = if settings.rate_limit == client.rate_limit {
            (self.rate_limit.clone(), self.fleet_limit.clone())
        } else {
            rate_limits(settings, spec, now)?
        };
        // One token cache per client unless a method authenticates differently.
        let credentials = match &settings.auth {
            auth if auth == &client.auth => self.credentials.clone(),
            Some(auth) => Some(Credentials::new(auth, settings, spec.name)?),
            None => None,
        };
        let (client_probe, prefix) = &self.probe;
        Ok(MethodState {
            probe: MethodProbe::new(client_probe, spec.name, method, prefix, now),
            // Checked when the client was built.
            http_method: reqwest::Method::from_bytes(method.http_method.as_bytes())
                .unwrap_or(reqwest::Method::GET),
            hedging: hedging(settings, method, now),
            counters: Counters::new(now),
            settings: settings.clone(),
            headers,
            query,
            credentials,
            breaker,
            bulkhead,
            rate_limit,
            fleet_limit,
            quota: Default::default(),
        })
    }
}

/// The rate limit of `settings`: the fleet's in Redis when it shares one, this process's
/// otherwise, also when the shared one has no Redis to keep it in (an empty `redis:`).
fn rate_limits(
    settings: &Settings,
    spec: &'static ClientSpec,
    now: Instant,
) -> Result<(Option<Arc<RateLimiter>>, fleet::SharedLimit), Error> {
    let Some(limit) = &settings.rate_limit else {
        return Ok((None, None));
    };
    if limit.shared.is_some()
        && let Some(shared) = fleet::limiter(settings, spec.name, now)?
    {
        return Ok((None, Some(shared)));
    }
    Ok((Some(Arc::new(RateLimiter::new(limit, now))), None))
}

fn bulkhead(settings: &Settings, threads: &PoolThreads) -> Result<Bulkhead, Error> {
    Bulkhead::new(&settings.isolation, threads).map_err(|e| {
        Error::new(ErrorKind::Config, "cannot start the isolation pool").with_source(e)
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
    if let Some(cookie) = cookie_header(settings)? {
        headers.insert(reqwest::header::COOKIE, cookie);
    }
    Ok(headers)
}

/// The profile's cookies as one `Cookie` header (`a=1; b=2`), resolved now; sensitive when any
/// is a secret. A value that would end its cookie (`;`, a comma, a space, a quote, a control
/// character) is refused rather than let one cookie's value set another.
fn cookie_header(settings: &Settings) -> Result<Option<HeaderValue>, Error> {
    if settings.cookies.is_empty() {
        return Ok(None);
    }
    let mut text = String::new();
    for (name, def) in &settings.cookies {
        let value = vars::expand_env(&def.value)
            .map_err(|e| Error::new(ErrorKind::Config, format!("cookie `{name}`: {e}")))?;
        let plain = |c: char| c.is_ascii_graphic() && !matches!(c, ';' | ',' | '"' | '\\');
        if !value.chars().all(plain) {
            return Err(Error::new(
                ErrorKind::Config,
                format!(
                    "cookie `{name}` has a value a cookie cannot hold (`;`, `,`, a space, a quote or a control character)"
                ),
            ));
        }
        if !text.is_empty() {
            text.push_str("; ");
        }
        text.push_str(name);
        text.push('=');
        text.push_str(&value);
    }
    let mut value = header_value("Cookie", &text)?;
    value.set_sensitive(settings.cookies.values().any(|c| c.secret));
    Ok(Some(value))
}

/// A method's hedging state: only for idempotent methods (a client profile's `hedge:` skips the
/// others; the generator refuses it in a non-idempotent method's own config).
fn hedging(settings: &Settings, method: &MethodSpec, now: Instant) -> Option<Box<Hedging>> {
    let hedge = settings.hedge?;
    method
        .idempotent
        .then(|| Box::new(Hedging::new(hedge, now)))
}

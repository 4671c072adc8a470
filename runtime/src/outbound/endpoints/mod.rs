//! The endpoints a client spreads its calls over: load balancing (round robin, random,
//! least-in-flight, power of two choices; weighted) and passive health (outlier ejection with
//! doubling and probation). Where the list comes from (static, DNS, or a user's [`Discover`]) is
//! in `discover.rs`.

mod base_url;
mod discover;

use base_url::parse_base;
pub(crate) use base_url::{without_query, without_userinfo};
pub(crate) use discover::DynDiscover;
pub use discover::{Discover, DiscoveredEndpoint, DnsDiscover, Resolve, SystemResolver};

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use remcall_profile::{EndpointSettings, Strategy};
use reqwest::header::HeaderValue;
use tokio::time::Instant;

use crate::error::{Error, ErrorKind};
use crate::observe::probe::Address;

/// One endpoint and its live figures.
pub(crate) struct Endpoint {
    /// Scheme, host, port and base path.
    pub(crate) base: String,
    /// `base` parsed once, so an attempt only sets the path; `None` if it does not parse (the
    /// attempt then reports the error).
    parsed: Option<reqwest::Url>,
    pub(crate) host: Option<HeaderValue>,
    weight: u32,
    in_flight: AtomicU32,
    consecutive_failures: AtomicU32,
    /// Nanoseconds since the set's start until which the endpoint is out; 0: in.
    ejected_until: AtomicU64,
    /// Ejections since it last succeeded: doubles the next one, and marks probation.
    ejections: AtomicU32,
    /// Its host as telemetry names the server (`server.address`), made once.
    host_name: Arc<str>,
    /// `base` as logs, statistics and `Debug` show it: without a user or password.
    pub(crate) shown: Box<str>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base", &self.shown)
            .field("weight", &self.weight)
            .field("in_flight", &self.in_flight)
            .finish_non_exhaustive()
    }
}

/// A base URL without its user and password, for what others read.
fn shown_base(base: &str, parsed: Option<&reqwest::Url>) -> Box<str> {
    let Some(url) = parsed.filter(|u| !u.username().is_empty() || u.password().is_some()) else {
        return base.into();
    };
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.as_str().trim_end_matches('/').into()
}

impl Endpoint {
    fn new(base: String, host: Option<HeaderValue>, weight: u32) -> Endpoint {
        let parsed = reqwest::Url::parse(&base).ok();
        Endpoint {
            shown: shown_base(&base, parsed.as_ref()),
            host_name: Arc::from(
                parsed
                    .as_ref()
                    .and_then(reqwest::Url::host_str)
                    .unwrap_or_default(),
            ),
            parsed,
            base,
            host,
            weight: weight.max(1),
            in_flight: AtomicU32::new(0),
            consecutive_failures: AtomicU32::new(0),
            ejected_until: AtomicU64::new(0),
            ejections: AtomicU32::new(0),
        }
    }

    /// This endpoint's URL for `path`, a filled and encoded path template.
    /// Its host and port, as a trace or a metric names the server (`server.address`,
    /// `server.port`).
    pub(crate) fn address(&self) -> Address<'_> {
        let port = self
            .parsed
            .as_ref()
            .and_then(reqwest::Url::port_or_known_default)
            .unwrap_or_default();
        Address {
            host: &self.host_name,
            port,
        }
    }

    pub(crate) fn url(&self, path: &str) -> Result<reqwest::Url, Error> {
        let Some(base) = &self.parsed else {
            return reqwest::Url::parse(&format!("{}{path}", self.base)).map_err(|e| {
                Error::new(ErrorKind::Encode, "the request URL is invalid").with_source(e)
            });
        };
        let mut url = base.clone();
        let prefix = base.path().trim_end_matches('/');
        if prefix.is_empty() {
            url.set_path(path);
        } else {
            let mut full = String::with_capacity(prefix.len() + path.len());
            full.push_str(prefix);
            full.push_str(path);
            url.set_path(&full);
        }
        Ok(url)
    }
}

/// A chosen endpoint, counted in flight until dropped. It borrows from a fixed list; from a
/// discovered one, which may change while the attempt runs, it holds its own reference.
#[derive(Debug)]
pub(crate) enum Lease<'a> {
    Fixed(&'a Arc<Endpoint>),
    Discovered(Arc<Endpoint>),
}

impl Lease<'_> {
    /// The endpoint.
    pub(crate) fn endpoint(&self) -> &Arc<Endpoint> {
        match self {
            Lease::Fixed(endpoint) => endpoint,
            Lease::Discovered(endpoint) => endpoint,
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        self.endpoint().in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The endpoints of one client.
pub(crate) struct Endpoints {
    client: &'static str,
    base_path: String,
    settings: EndpointSettings,
    start: Instant,
    list: RwLock<Arc<Vec<Arc<Endpoint>>>>,
    /// The list, when no discovery can change it: read without the lock.
    fixed: Option<Arc<Vec<Arc<Endpoint>>>>,
    next: AtomicUsize,
    discover: Option<Arc<dyn DynDiscover>>,
    /// Nanoseconds since `start` of the last discovery; `u64::MAX`: never.
    discovered_at: AtomicU64,
    refreshing: AtomicBool,
    /// Serialises the first discovery, which calls must wait for.
    first: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Endpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let urls: Vec<String> = self.current().iter().map(|e| e.shown.to_string()).collect();
        f.debug_struct("Endpoints")
            .field("strategy", &self.settings.strategy)
            .field("urls", &urls)
            .finish_non_exhaustive()
    }
}

impl Endpoints {
    /// Static endpoints from base URLs, or DNS discovery over them when `settings.dns_refresh`
    /// is set, or `discover` when given.
    pub(crate) fn new(
        client: &'static str,
        urls: &[String],
        base_path: &str,
        settings: EndpointSettings,
        discover: Option<Arc<dyn DynDiscover>>,
    ) -> Result<Endpoints, Error> {
        let weight = |i: usize| settings.weights.get(i).copied().unwrap_or(1).max(1);
        let mut list = Vec::new();
        let mut discover = discover;
        if discover.is_none() {
            if urls.is_empty() {
                return Err(Error::new(
                    ErrorKind::Config,
                    "no base URL: give one with .base_url(..)",
                ));
            }
            let parsed: Vec<(reqwest::Url, u32)> = urls
                .iter()
                .enumerate()
                .map(|(i, u)| Ok((parse_base(u)?, weight(i))))
                .collect::<Result<_, Error>>()?;
            match settings.dns_refresh {
                Some(refresh) => {
                    if let Some((url, _)) = parsed.iter().find(|(u, _)| u.scheme() == "https") {
                        return Err(Error::new(
                            ErrorKind::Config,
                            format!(
                                "endpoints.dns cannot verify TLS by address (`{url}`): use a Discover for https"
                            ),
                        ));
                    }
                    discover = Some(Arc::new(DnsDiscover::new(parsed, refresh)));
                }
                None => {
                    for (url, weight) in parsed {
                        let base = url.as_str().trim_end_matches('/').to_owned();
                        list.push(DiscoveredEndpoint {
                            url: base,
                            weight,
                            host: None,
                        });
                    }
                }
            }
        }
        let mut endpoints = Endpoints {
            client,
            base_path: base_path.trim_end_matches('/').to_owned(),
            settings,
            start: Instant::now(),
            list: RwLock::new(Arc::new(Vec::new())),
            fixed: None,
            next: AtomicUsize::new(0),
            discover,
            discovered_at: AtomicU64::new(u64::MAX),
            refreshing: AtomicBool::new(false),
            first: tokio::sync::Mutex::new(()),
        };
        endpoints.replace(list);
        if endpoints.discover.is_none() {
            endpoints.fixed = Some(endpoints.current());
        }
        Ok(endpoints)
    }

    /// The path every method's route follows on the wire: the first base URL's own path with
    /// the spec's base path (`/api`), as a route's `url.template` begins.
    pub(crate) fn path_prefix(&self) -> String {
        let first = self.fixed.as_ref().and_then(|list| list.first());
        match first.and_then(|e| e.parsed.as_ref()) {
            Some(url) => url.path().trim_end_matches('/').to_owned(),
            None => self.base_path.clone(),
        }
    }

    fn current(&self) -> Arc<Vec<Arc<Endpoint>>> {
        self.list
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Installs a new list, keeping the figures of endpoints that stay.
    fn replace(&self, found: Vec<DiscoveredEndpoint>) {
        let old = self.current();
        // By base URL, so a refresh of many endpoints stays linear.
        let kept: std::collections::HashMap<&str, &Arc<Endpoint>> =
            old.iter().map(|e| (e.base.as_str(), e)).collect();
        let list = found
            .into_iter()
            .map(|d| {
                let base = format!("{}{}", d.url.trim_end_matches('/'), self.base_path);
                kept.get(base.as_str())
                    .map(|e| Arc::clone(e))
                    .unwrap_or_else(|| {
                        let host = d
                            .host
                            .as_deref()
                            .and_then(|h| HeaderValue::from_str(h).ok());
                        Arc::new(Endpoint::new(base, host, d.weight))
                    })
            })
            .collect();
        *self
            .list
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(list);
    }

    fn nanos(&self, now: Instant) -> u64 {
        u64::try_from(now.saturating_duration_since(self.start).as_nanos()).unwrap_or(u64::MAX)
    }

    /// Chooses an endpoint for an attempt, avoiding ejected ones and `avoid` (the one that just
    /// failed) while another is available.
    /// An endpoint for one attempt, other than those in `avoid` when there is another to take
    /// (the one that just failed, or those a call's other attempts are at).
    pub(crate) fn pick(&self, avoid: &[Arc<Endpoint>]) -> Result<Lease<'_>, Error> {
        let lease = match &self.fixed {
            Some(list) => Lease::Fixed(self.choose(list, avoid)?),
            None => Lease::Discovered(self.choose(&self.current(), avoid)?.clone()),
        };
        lease.endpoint().in_flight.fetch_add(1, Ordering::AcqRel);
        Ok(lease)
    }

    fn choose<'a>(
        &self,
        list: &'a [Arc<Endpoint>],
        avoid: &[Arc<Endpoint>],
    ) -> Result<&'a Arc<Endpoint>, Error> {
        if list.is_empty() {
            return Err(Error::new(ErrorKind::Connect, "no endpoint is known"));
        }
        if let [only] = list {
            // Ejected or just failed, it is still better than none: nothing to choose.
            return Ok(only);
        }
        let now = self.nanos(Instant::now());
        let usable = |e: &Arc<Endpoint>| {
            !avoid.iter().any(|a| Arc::ptr_eq(a, e))
                && e.ejected_until.load(Ordering::Acquire) <= now
        };
        let mut candidates: Vec<&Arc<Endpoint>> = list.iter().filter(|e| usable(e)).collect();
        if candidates.is_empty() {
            // Everything is ejected or just failed: better any endpoint than none.
            candidates = list
                .iter()
                .filter(|e| !avoid.iter().any(|a| Arc::ptr_eq(a, e)))
                .collect();
            if candidates.is_empty() {
                candidates = list.iter().collect();
            }
        }
        let chosen = match self.settings.strategy {
            Strategy::RoundRobin => {
                let total: usize = candidates.iter().map(|e| e.weight as usize).sum();
                let mut slot = self.next.fetch_add(1, Ordering::Relaxed) % total;
                candidates.iter().copied().find(|e| {
                    let hit = slot < e.weight as usize;
                    slot = slot.saturating_sub(e.weight as usize);
                    hit
                })
            }
            Strategy::Random => weighted_random(&candidates),
            Strategy::LeastInFlight => {
                // Rotate the starting point so ties spread instead of piling on the first.
                let offset = self.next.fetch_add(1, Ordering::Relaxed);
                (0..candidates.len())
                    .map(|i| candidates[(i + offset) % candidates.len()])
                    .min_by_key(|e| e.in_flight.load(Ordering::Acquire) * 1000 / e.weight.max(1))
            }
            Strategy::P2c => {
                // Two distinct candidates (when there are two), the less loaded wins.
                let a = weighted_random(&candidates);
                let others: Vec<&Arc<Endpoint>> = candidates
                    .iter()
                    .copied()
                    .filter(|e| a.is_none_or(|a| !Arc::ptr_eq(a, e)))
                    .collect();
                let b = if others.is_empty() {
                    a
                } else {
                    weighted_random(&others)
                };
                match (a, b) {
                    (Some(a), Some(b)) => {
                        let load = |e: &Arc<Endpoint>| {
                            e.in_flight.load(Ordering::Acquire) * 1000 / e.weight.max(1)
                        };
                        Some(if load(b) < load(a) { b } else { a })
                    }
                    (a, b) => a.or(b),
                }
            }
        };
        Ok(chosen.unwrap_or(candidates[0]))
    }

    /// Records how an attempt on `endpoint` went: `failed` for connect, timeout and 5xx.
    pub(crate) fn record(&self, endpoint: &Arc<Endpoint>, failed: bool) {
        if !failed {
            endpoint.consecutive_failures.store(0, Ordering::Release);
            endpoint.ejections.store(0, Ordering::Release);
            return;
        }
        let after = self.settings.eject_after;
        if after == 0 {
            return;
        }
        let failures = endpoint.consecutive_failures.fetch_add(1, Ordering::AcqRel) + 1;
        // On probation (back from an ejection without a success since), one failure is enough.
        let on_probation = endpoint.ejections.load(Ordering::Acquire) > 0;
        if failures < after && !on_probation {
            return;
        }
        let list = self.current();
        let now = self.nanos(Instant::now());
        if endpoint.ejected_until.load(Ordering::Acquire) > now {
            return;
        }
        let ejected = list
            .iter()
            .filter(|e| e.ejected_until.load(Ordering::Acquire) > now)
            .count();
        if (ejected + 1) * 100 > list.len() * self.settings.eject_max_percent as usize {
            return; // ejecting one more would leave too few endpoints
        }
        let repeats = endpoint.ejections.fetch_add(1, Ordering::AcqRel).min(16);
        let period = self.settings.eject_for.saturating_mul(1 << repeats);
        let until = now.saturating_add(u64::try_from(period.as_nanos()).unwrap_or(u64::MAX));
        endpoint.ejected_until.store(until, Ordering::Release);
        endpoint.consecutive_failures.store(0, Ordering::Release);
        tracing::info!(target: crate::observe::outlets::log::TARGET, client = self.client, endpoint = %endpoint.shown, ?period, "endpoint ejected");
    }

    /// Each endpoint's base URL, calls in flight and whether it is ejected now.
    pub(crate) fn snapshot(&self) -> Vec<(String, u32, bool)> {
        let now = self.nanos(Instant::now());
        self.current()
            .iter()
            .map(|e| {
                (
                    e.shown.to_string(),
                    e.in_flight.load(Ordering::Acquire),
                    e.ejected_until.load(Ordering::Acquire) > now,
                )
            })
            .collect()
    }
}

fn weighted_random<'a>(candidates: &[&'a Arc<Endpoint>]) -> Option<&'a Arc<Endpoint>> {
    let total: u32 = candidates.iter().map(|e| e.weight).sum();
    let mut slot = fastrand::u32(0..total.max(1));
    candidates.iter().copied().find(|e| {
        let hit = slot < e.weight;
        slot = slot.saturating_sub(e.weight);
        hit
    })
}

#[cfg(test)]
mod tests;

//! Where endpoints come from when they are not fixed: DNS (again every `refresh`), or a user's
//! [`Discover`] (Consul, Kubernetes). The first call waits for the first list; later ones use the
//! current list while one of them refreshes it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;

use super::Endpoints;

/// The most endpoints a client keeps from one discovery; more are dropped with a WARN.
pub const MAX_DISCOVERED: usize = 10_000;
use crate::error::{Error, ErrorKind};
use crate::outbound::interceptor::BoxError;

/// One endpoint a [`Discover`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiscoveredEndpoint {
    /// Scheme, host and port, e.g. `http://10.0.0.7:8080` (the base path is added).
    pub url: String,
    /// Relative weight (1 = normal).
    pub weight: u32,
    /// The `Host` header to send, when `url` names an address rather than the service.
    pub host: Option<String>,
}

/// A source of endpoints, asked again every [`Discover::refresh`]: DNS, or a user's Consul or
/// Kubernetes lookup. Set one with the client builder's `.discover(..)`.
pub trait Discover: Send + Sync + 'static {
    /// The endpoints now.
    fn discover(&self) -> impl Future<Output = Result<Vec<DiscoveredEndpoint>, BoxError>> + Send;

    /// How long a list stays current.
    fn refresh(&self) -> Duration {
        Duration::from_secs(30)
    }
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`Discover`] made object-safe.
pub(crate) trait DynDiscover: Send + Sync {
    fn discover(&self) -> BoxFuture<'_, Result<Vec<DiscoveredEndpoint>, BoxError>>;
    fn refresh(&self) -> Duration;
}

impl std::fmt::Debug for dyn DynDiscover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Discover")
    }
}

impl<T: Discover> DynDiscover for T {
    fn discover(&self) -> BoxFuture<'_, Result<Vec<DiscoveredEndpoint>, BoxError>> {
        Box::pin(Discover::discover(self))
    }
    fn refresh(&self) -> Duration {
        Discover::refresh(self)
    }
}

/// Resolves host names for [`DnsDiscover`]; the default asks the system resolver.
pub trait Resolve: Send + Sync + 'static {
    /// Every address of `host:port`.
    fn resolve(
        &self,
        host: &str,
        port: u16,
    ) -> impl Future<Output = std::io::Result<Vec<std::net::SocketAddr>>> + Send;
}

/// The system resolver.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    async fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<std::net::SocketAddr>> {
        Ok(tokio::net::lookup_host((host, port)).await?.collect())
    }
}

/// DNS discovery: each base URL's host resolved to all its addresses, again every `refresh`.
/// Requests go to the addresses with the original `Host` header. Plain `http` only: TLS needs
/// the name for verification, so use a [`Discover`] of your own (or a balancer) for `https`.
#[derive(Debug, Clone)]
pub struct DnsDiscover<R = SystemResolver> {
    urls: Vec<(reqwest::Url, u32)>,
    refresh: Duration,
    resolver: R,
}

impl DnsDiscover<SystemResolver> {
    /// Resolves the hosts of `urls` (with weights) with the system resolver.
    pub fn new(urls: Vec<(reqwest::Url, u32)>, refresh: Duration) -> Self {
        DnsDiscover {
            urls,
            refresh,
            resolver: SystemResolver,
        }
    }
}

impl<R: Resolve> DnsDiscover<R> {
    /// The same with another resolver (a test's, or a service-mesh one).
    pub fn with_resolver<R2: Resolve>(self, resolver: R2) -> DnsDiscover<R2> {
        DnsDiscover {
            urls: self.urls,
            refresh: self.refresh,
            resolver,
        }
    }
}

impl<R: Resolve> Discover for DnsDiscover<R> {
    async fn discover(&self) -> Result<Vec<DiscoveredEndpoint>, BoxError> {
        let mut found = Vec::new();
        for (url, weight) in &self.urls {
            let host = url.host_str().ok_or("a base URL without a host")?;
            let port = url
                .port_or_known_default()
                .ok_or("a base URL without a port")?;
            let authority = match url.port() {
                Some(port) => format!("{host}:{port}"),
                None => host.to_owned(),
            };
            for address in self.resolver.resolve(host, port).await? {
                found.push(DiscoveredEndpoint {
                    url: format!("{}://{address}", url.scheme()),
                    weight: *weight,
                    host: Some(authority.clone()),
                });
            }
        }
        Ok(found)
    }

    fn refresh(&self) -> Duration {
        self.refresh
    }
}

impl Endpoints {
    /// Whether the list comes from a [`Discover`] (and [`Endpoints::ready`] may wait).
    pub(crate) fn discovers(&self) -> bool {
        self.discover.is_some()
    }

    /// Makes sure a discovered list exists (the first call waits for it) and refreshes a stale
    /// one in the background.
    pub(crate) async fn ready(&self) -> Result<(), Error> {
        let Some(discover) = &self.discover else {
            return Ok(());
        };
        if self.discovered_at.load(Ordering::Acquire) == u64::MAX {
            let _first = self.first.lock().await;
            if self.discovered_at.load(Ordering::Acquire) == u64::MAX {
                self.rediscover(discover.as_ref()).await?;
            }
            return Ok(());
        }
        let age = self
            .nanos(Instant::now())
            .saturating_sub(self.discovered_at.load(Ordering::Acquire));
        if Duration::from_nanos(age) >= discover.refresh()
            && !self.refreshing.swap(true, Ordering::AcqRel)
        {
            // Stale: this call refreshes while using the current list; concurrent calls do not.
            let result = self.rediscover(discover.as_ref()).await;
            self.refreshing.store(false, Ordering::Release);
            if let Err(error) = result {
                tracing::warn!(target: crate::observe::outlets::log::TARGET, client = self.client, %error, "endpoint discovery failed; keeping the previous endpoints");
            }
        }
        Ok(())
    }

    async fn rediscover(&self, discover: &dyn DynDiscover) -> Result<(), Error> {
        let mut found = discover.discover().await.map_err(|e| {
            Error::new(
                ErrorKind::Connect,
                format!("endpoint discovery failed: {e}"),
            )
        })?;
        if found.is_empty() {
            return Err(Error::new(
                ErrorKind::Connect,
                "endpoint discovery found no endpoint",
            ));
        }
        if found.len() > MAX_DISCOVERED {
            tracing::warn!(
                target: crate::observe::outlets::log::TARGET,
                client = self.client,
                found = found.len(),
                kept = MAX_DISCOVERED,
                "endpoint discovery found more endpoints than a client keeps; using the first"
            );
            found.truncate(MAX_DISCOVERED);
        }
        self.replace(found);
        self.discovered_at
            .store(self.nanos(Instant::now()), Ordering::Release);
        Ok(())
    }
}

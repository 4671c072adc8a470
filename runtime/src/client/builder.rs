//! Building a client: its profiles layered and checked, its HTTP client, its policies (the
//! client's, and each method's that has a profile of its own) and its endpoints.

use std::sync::{Arc, OnceLock};

use remcall_profile::{IsolationSettings, Layer, Profile, Settings};
use tokio::time::Instant;

use super::policies::Template;
use super::{Client, MethodState, Shared, environment};
use crate::error::{Error, ErrorKind};
use crate::fleet;
use crate::observe::recording::Recorder;
use crate::outbound::cache::Cache;
use crate::outbound::endpoints::{Discover, DynDiscover, Endpoints};
use crate::outbound::interceptor::{DynInterceptor, Erased, Interceptor};
use crate::outbound::tls;
use crate::policy::budget::RetryBudget;
use crate::spec::{ClientSpec, MethodSpec};

/// Redirects followed before a call fails; more is a loop or a misconfiguration.
const MAX_REDIRECTS: usize = 5;

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
        // A profile from the service's own configuration (serde) or code is checked as one read
        // from YAML is.
        if let Some(profile) = &self.profile {
            profile.check().map_err(|e| {
                named(Error::new(
                    ErrorKind::Config,
                    format!("the profile given to the builder: {e}"),
                ))
            })?;
        }
        let (client_settings, own_settings) = settings(spec, self.profile.unwrap_or_default())?;
        fleet_stores_alike(spec, &client_settings, &own_settings)?;
        let base_urls = match self.base_urls {
            Some(urls) => urls,
            None => spec.base_urls.iter().map(|u| (*u).to_owned()).collect(),
        };
        environment::check(spec, &client_settings, &own_settings, &base_urls, |name| {
            std::env::var(name).ok()
        })?;
        let http = match self.http {
            Some(http) => http,
            None => http_client(spec, &client_settings, &own_settings).map_err(named)?,
        };
        let now = Instant::now();
        let pool_threads = most_pool_workers(&client_settings, &own_settings);
        let mut template =
            Template::new(spec, client_settings, pool_threads, now).map_err(named)?;
        let endpoints = Endpoints::new(
            spec.name,
            &base_urls,
            spec.base_path,
            template.settings.endpoints.clone(),
            self.discover,
        )
        .map_err(named)?;
        template.set_path_prefix(endpoints.path_prefix());
        let fleet_cache = fleet::cache(&template.settings, spec.name, &base_urls).map_err(named)?;
        let cache = Cache::for_client(
            &template.settings,
            own_settings.iter().map(|(_, settings)| settings),
            fleet_cache.clone(),
        );
        let mut methods: Vec<OnceLock<Box<MethodState>>> = std::iter::repeat_with(OnceLock::new)
            .take(spec.methods.len())
            .collect();
        for (method, settings) in own_settings {
            let state = template
                .for_method(spec, method, &settings, now)
                .map_err(|e| e.in_call(spec.name, method.name))?;
            methods[method.index] = OnceLock::from(Box::new(state));
        }
        let retry = &template.settings.retry;
        let budget = RetryBudget::new(retry.budget_ratio, retry.budget_min_per_second, now);
        let fleet_budget = fleet::budget(&template.settings, spec.name, now).map_err(named)?;
        let fleet_quotas = fleet::quotas(&template.settings, spec.name).map_err(named)?;
        let recorder = Recorder::of(&template.settings).map_err(named)?;
        let shared = Shared {
            spec,
            http,
            endpoints,
            methods,
            template,
            budget,
            fleet_budget,
            interceptors: self.interceptors,
            quotas: Default::default(),
            cache,
            fleet_quotas,
            fleet_cache,
            recorder,
        };
        Ok(Client {
            shared: Arc::new(shared),
        })
    }
}

/// What a client shares with its fleet is the client's: one Redis link and key space. A
/// method whose own profile shares quotas or answers otherwise than the client's would be
/// ignored, so it is refused (`check` refuses it in a spec, where it is written).
fn fleet_stores_alike(
    spec: &ClientSpec,
    client: &Settings,
    methods: &[(&'static MethodSpec, Settings)],
) -> Result<(), Error> {
    let cache_shared = |s: &Settings| s.cache.as_ref().and_then(|c| c.shared.clone());
    for (method, settings) in methods {
        for (field, alike) in [
            ("quota.shared", settings.quota_shared == client.quota_shared),
            (
                "cache.shared",
                cache_shared(settings) == cache_shared(client),
            ),
        ] {
            if !alike {
                return Err(Error::new(
                    ErrorKind::Config,
                    format!("the method's profile sets `{field}` otherwise than the client's: it applies to the whole client, set it there"),
                )
                .in_call(spec.name, method.name));
            }
        }
    }
    Ok(())
}

/// The most workers any of the client's pool bulkheads has (its own or a method's): the
/// threads their shared runtime starts.
fn most_pool_workers(client: &Settings, methods: &[(&MethodSpec, Settings)]) -> u32 {
    std::iter::once(client)
        .chain(methods.iter().map(|(_, settings)| settings))
        .filter_map(|settings| match settings.isolation {
            IsolationSettings::Pool { workers, .. } => Some(workers),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// The client's settings (the spec's profile, then the builder's), and those of each method
/// with a profile of its own (the client's profile, the method's, the builder's); the other
/// methods' are the client's. An invalid HTTP method or profile is an error that names it.
#[allow(clippy::type_complexity)]
fn settings(
    spec: &'static ClientSpec,
    runtime: Profile,
) -> Result<(Settings, Vec<(&'static MethodSpec, Settings)>), Error> {
    let client_profile =
        Profile::from_yaml_str(spec.profile).map_err(|e| Error::from(e).in_call(spec.name, ""))?;
    let client_settings = Settings::from_profile(&client_profile.clone().layer(runtime.clone()));
    let mut own_settings = Vec::new();
    for &method in spec.methods {
        let in_method = |e: Error| e.in_call(spec.name, method.name);
        reqwest::Method::from_bytes(method.http_method.as_bytes()).map_err(|_| {
            in_method(Error::new(
                ErrorKind::Config,
                format!("invalid HTTP method `{}`", method.http_method),
            ))
        })?;
        if method.profile.is_empty() {
            continue;
        }
        let own = Profile::from_yaml_str(method.profile).map_err(|e| in_method(e.into()))?;
        own_settings.push((
            method,
            Settings::from_profile(&client_profile.clone().layer(own).layer(runtime.clone())),
        ));
    }
    Ok((client_settings, own_settings))
}

/// The HTTP client the profile describes: its connect timeout, TLS, and a redirect policy that
/// keeps secrets on their origin when any settings carry one.
fn http_client(
    spec: &ClientSpec,
    client: &Settings,
    own: &[(&'static MethodSpec, Settings)],
) -> Result<reqwest::Client, Error> {
    let carries_secrets = std::iter::once(client)
        .chain(own.iter().map(|(_, s)| s))
        .any(|s| {
            s.auth.is_some()
                || s.headers.values().any(|h| h.secret)
                || s.query.values().any(|q| q.secret)
        });
    let mut builder = reqwest::Client::builder()
        .connect_timeout(client.connect_timeout)
        .redirect(redirect_policy(carries_secrets));
    // reqwest sends `Accept-Encoding` and decompresses as the body is read, so the size limit
    // counts the decompressed bytes and a small bomb stops at the limit.
    if client.compression == remcall_profile::Compression::Off {
        builder = builder.no_gzip().no_brotli().no_zstd().no_deflate();
    }
    tls::configure(builder, &client.tls, spec.name)?
        .build()
        .map_err(|e| Error::new(ErrorKind::Config, "cannot build the HTTP client").with_source(e))
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

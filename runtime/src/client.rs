//! The shared state of one client, built from its spec and profile.

use std::sync::Arc;

use remcall_profile::{Auth, Layer, Profile, Scope, Settings, vars};
use reqwest::header::{AUTHORIZATION, HeaderMap};
use tokio::time::Instant;

use crate::breaker::Breaker;
use crate::budget::RetryBudget;
use crate::bulkhead::Bulkhead;
use crate::endpoints::Endpoints;
use crate::error::{Error, ErrorKind};
use crate::rate_limit::RateLimiter;
use crate::request::{header_name, header_value};
use crate::spec::ClientSpec;
use crate::stats::{ClientStats, Counters};

/// Redirects followed before a call fails; more is a loop or a misconfiguration.
const MAX_REDIRECTS: usize = 5;

/// The runtime half of a generated client. Cheap to clone: clones share one state, and two
/// clients built separately share nothing.
#[derive(Clone, Debug)]
pub struct Client {
    pub(crate) shared: Arc<Shared>,
}

#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) spec: &'static ClientSpec,
    pub(crate) http: reqwest::Client,
    pub(crate) endpoints: Endpoints,
    pub(crate) methods: Vec<MethodState>,
    pub(crate) budget: RetryBudget,
}

/// What one method needs at call time, computed once when the client is built.
#[derive(Debug)]
pub(crate) struct MethodState {
    pub(crate) settings: Settings,
    pub(crate) http_method: reqwest::Method,
    /// Profile headers and credentials, placeholders resolved.
    pub(crate) headers: HeaderMap,
    pub(crate) counters: Counters,
    /// The method's own breaker, or the client's when `scope: client`.
    pub(crate) breaker: Arc<Breaker>,
    /// The client's bulkhead, or the method's own when its profile sets another `isolation`.
    pub(crate) bulkhead: Arc<Bulkhead>,
    /// Likewise for the rate limiter.
    pub(crate) rate_limit: Option<Arc<RateLimiter>>,
}

/// Builds a [`Client`]; generated builders wrap this one.
#[derive(Debug)]
pub struct ClientBuilder {
    spec: &'static ClientSpec,
    base_urls: Option<Vec<String>>,
    profile: Option<Profile>,
    http: Option<reqwest::Client>,
}

impl ClientBuilder {
    /// A builder for the client `spec` describes.
    pub fn new(spec: &'static ClientSpec) -> ClientBuilder {
        ClientBuilder {
            spec,
            base_urls: None,
            profile: None,
            http: None,
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

    /// Resolves profiles, environment placeholders and endpoints.
    pub fn build(self) -> Result<Client, Error> {
        let spec = self.spec;
        let named = |e: Error| e.in_call(spec.name, "");
        let client_profile = Profile::from_yaml_str(spec.profile).map_err(|e| named(e.into()))?;
        let runtime = self.profile.unwrap_or_default();
        let client_settings =
            Settings::from_profile(&client_profile.clone().layer(runtime.clone()));

        // Policies built from the client-level settings are shared by every method whose
        // settings match; a method that overrides one gets its own.
        let now = Instant::now();
        let client_bulkhead = Arc::new(
            Bulkhead::new(&client_settings.isolation, spec.name).map_err(|e| {
                named(
                    Error::new(ErrorKind::Config, "cannot start the isolation pool").with_source(e),
                )
            })?,
        );
        let client_limiter = client_settings
            .rate_limit
            .as_ref()
            .map(|r| Arc::new(RateLimiter::new(r, now)));
        let client_breaker = Arc::new(Breaker::new(
            client_settings.breaker.clone(),
            spec.name,
            "*",
            now,
        ));

        let methods = spec
            .methods
            .iter()
            .map(|method| {
                let in_method = |e: Error| e.in_call(spec.name, method.name);
                let own =
                    Profile::from_yaml_str(method.profile).map_err(|e| in_method(e.into()))?;
                let profile = client_profile.clone().layer(own).layer(runtime.clone());
                let settings = Settings::from_profile(&profile);
                let headers = resolve_headers(&settings).map_err(in_method)?;
                let http_method = reqwest::Method::from_bytes(method.http_method.as_bytes())
                    .map_err(|_| {
                        in_method(Error::new(
                            ErrorKind::Config,
                            format!("invalid HTTP method `{}`", method.http_method),
                        ))
                    })?;
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
                    Arc::new(Bulkhead::new(&settings.isolation, spec.name).map_err(|e| {
                        in_method(
                            Error::new(ErrorKind::Config, "cannot start the isolation pool")
                                .with_source(e),
                        )
                    })?)
                };
                let rate_limit = match &settings.rate_limit {
                    Some(limit) if Some(limit) == client_settings.rate_limit.as_ref() => {
                        client_limiter.clone()
                    }
                    Some(limit) => Some(Arc::new(RateLimiter::new(limit, now))),
                    None => None,
                };
                Ok(MethodState {
                    settings,
                    http_method,
                    headers,
                    counters: Counters::new(now),
                    breaker,
                    bulkhead,
                    rate_limit,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let budget = RetryBudget::new(
            client_settings.retry.budget_ratio,
            client_settings.retry.budget_min_per_second,
            now,
        );

        let base_urls = match self.base_urls {
            Some(urls) => urls,
            None => spec.base_urls.iter().map(|u| (*u).to_owned()).collect(),
        };
        let endpoints = Endpoints::new(&base_urls, spec.base_path).map_err(named)?;
        let http = match self.http {
            Some(http) => http,
            None => reqwest::Client::builder()
                .connect_timeout(client_settings.connect_timeout)
                .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
                .build()
                .map_err(|e| {
                    named(
                        Error::new(ErrorKind::Config, "cannot build the HTTP client")
                            .with_source(e),
                    )
                })?,
        };
        Ok(Client {
            shared: Arc::new(Shared {
                spec,
                http,
                endpoints,
                methods,
                budget,
            }),
        })
    }
}

/// The profile's headers and credentials as header values, `${VAR}`s resolved now: at build time,
/// never at generation time.
fn resolve_headers(settings: &Settings) -> Result<HeaderMap, Error> {
    let expand = |field: &str, text: &str| {
        vars::expand_env(text).map_err(|e| Error::new(ErrorKind::Config, format!("{field}: {e}")))
    };
    let mut headers = HeaderMap::new();
    for (name, value) in &settings.headers {
        let value = expand(&format!("header `{name}`"), value)?;
        headers.insert(header_name(name)?, header_value(name, &value)?);
    }
    let credentials = match &settings.auth {
        None => None,
        Some(Auth::Bearer(bearer)) => Some(format!(
            "Bearer {}",
            expand("auth.bearer.token", &bearer.token)?
        )),
        Some(Auth::Basic(basic)) => {
            let user = expand("auth.basic.username", &basic.username)?;
            let password = expand("auth.basic.password", &basic.password)?;
            Some(format!(
                "Basic {}",
                base64(format!("{user}:{password}").as_bytes())
            ))
        }
        Some(Auth::Oauth2(_)) => {
            return Err(Error::new(
                ErrorKind::Config,
                "auth.oauth2 is not available in this version of the runtime",
            ));
        }
    };
    if let Some(credentials) = credentials {
        let mut value = header_value("Authorization", &credentials)?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    Ok(headers)
}

/// Standard base64 with padding, for the Basic scheme (ten lines beat a dependency).
fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

impl Client {
    /// A snapshot of every method's figures.
    pub fn stats(&self) -> ClientStats {
        let shared = &self.shared;
        ClientStats {
            client: shared.spec.name,
            methods: shared
                .spec
                .methods
                .iter()
                .map(|m| {
                    let state = &shared.methods[m.index];
                    (
                        m.name,
                        state
                            .counters
                            .snapshot(state.breaker.state(), Instant::now()),
                    )
                })
                .collect(),
        }
    }

    /// The client's name.
    pub fn name(&self) -> &'static str {
        self.shared.spec.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }
}

//! Where calls go and what they carry: endpoints, TLS, headers, logging.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Layer;
use crate::units::duration;

partial! {
    /// Load balancing over a client's endpoints (client level).
    pub struct EndpointsPolicy {
        /// `round_robin` (default), `random`, `least_in_flight` or `p2c`.
        strategy: Strategy,
        /// Relative weights, in the order of the base URLs (default 1 each).
        weights: Vec<u32>,
        /// Passive health: when to take a failing endpoint out of rotation.
        eject: Eject,
        /// Resolve each base URL's host to all its addresses, again every `refresh`.
        dns: Dns,
    }
}

partial! {
    /// Outlier ejection.
    pub struct Eject {
        /// Consecutive connect, timeout or 5xx failures that eject an endpoint.
        after: u32,
        /// How long the first ejection lasts; each repeat doubles it.
        #[serde(rename = "for", with = "duration")]
        #[cfg_attr(feature = "schema", schemars(rename = "for", with = "Option<crate::units::DurationText>"))]
        duration: Duration,
        /// Never more than this percentage of the endpoints is ejected at once.
        max_percent: u32,
    }
}

partial! {
    /// DNS discovery.
    pub struct Dns {
        /// How often the names are resolved again.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::units::DurationText>"))]
        refresh: Duration,
    }
}

/// How an endpoint is chosen for each attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// In turn (weighted).
    RoundRobin,
    /// At random (weighted).
    Random,
    /// The one with the fewest calls in flight.
    LeastInFlight,
    /// The less busy of two picked at random (power of two choices).
    P2c,
}

partial! {
    /// TLS settings (client level). Certificate checks are on unless `insecure: true`.
    pub struct Tls {
        /// `native` (the platform's verifier and roots, the default) or `webpki` (Mozilla's roots,
        /// built in).
        roots: Roots,
        /// A PEM file of extra CA certificates to trust; `${VAR}` allowed.
        ca_file: String,
        /// A PEM client certificate (chain) for mutual TLS; `${VAR}` allowed.
        client_cert: String,
        /// The PEM private key of `client_cert`; `${VAR}` allowed.
        client_key: String,
        /// The lowest TLS version accepted: `"1.2"` or `"1.3"`.
        min_version: String,
        /// Accept any certificate. Only for tests against self-signed servers; logged at WARN.
        insecure: bool,
    }
}

/// Which certificate roots a client trusts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Roots {
    /// The platform's verifier and trust store.
    Native,
    /// Mozilla's roots, compiled in: the same everywhere, containers without a trust store too.
    Webpki,
}

/// How much of a call is logged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    /// Nothing.
    None,
    /// Method, URL template, status, time.
    Basic,
    /// Basic plus headers (secrets redacted).
    Headers,
    /// Headers plus bodies (secrets redacted).
    Full,
}

/// Headers added to each request. `Debug` shows their names only: values may be API keys.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Headers(pub BTreeMap<String, HeaderDef>);

/// Query parameters added to each request: for APIs that take an API key in the URL
/// (`api_key: { value: "${KEY}", secret: true }`). `Debug` shows their names only.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct QueryParams(pub BTreeMap<String, HeaderDef>);

/// Cookies sent with each request, in one `Cookie` header: for APIs that take an API key as a
/// cookie (`session: { value: "${SESSION}", secret: true }`). `Debug` shows their names only.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Cookies(pub BTreeMap<String, HeaderDef>);

impl Layer for Cookies {
    fn layer(self, over: Self) -> Self {
        Cookies(self.0.layer(over.0))
    }
}

impl fmt::Debug for Cookies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|k| (k, "<redacted>")))
            .finish()
    }
}

/// One profile header or query parameter: `X-App: crm`, or
/// `X-Api-Key: { value: "${KEY}", secret: true }` for a value that is redacted from logs and
/// errors.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(from = "HeaderRepr", into = "HeaderRepr")]
pub struct HeaderDef {
    /// The value; `${VAR}` allowed.
    pub value: String,
    /// Redacted in logs, `Debug` and errors.
    pub secret: bool,
}

#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
enum HeaderRepr {
    Plain(String),
    Detailed {
        value: String,
        #[serde(default)]
        secret: bool,
    },
}

impl fmt::Debug for HeaderDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value: &dyn fmt::Debug = if self.secret {
            &"<redacted>"
        } else {
            &self.value
        };
        f.debug_struct("HeaderDef")
            .field("value", value)
            .field("secret", &self.secret)
            .finish()
    }
}

impl From<HeaderRepr> for HeaderDef {
    fn from(repr: HeaderRepr) -> Self {
        match repr {
            HeaderRepr::Plain(value) => HeaderDef {
                value,
                secret: false,
            },
            HeaderRepr::Detailed { value, secret } => HeaderDef { value, secret },
        }
    }
}

impl From<HeaderDef> for HeaderRepr {
    fn from(def: HeaderDef) -> Self {
        if def.secret {
            HeaderRepr::Detailed {
                value: crate::vars::shown_secret_header(&def.value).to_owned(),
                secret: true,
            }
        } else {
            HeaderRepr::Plain(def.value)
        }
    }
}

impl Layer for Headers {
    fn layer(self, over: Self) -> Self {
        Headers(self.0.layer(over.0))
    }
}

impl fmt::Debug for Headers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|k| (k, "<redacted>")))
            .finish()
    }
}

impl Layer for QueryParams {
    fn layer(self, over: Self) -> Self {
        QueryParams(self.0.layer(over.0))
    }
}

impl fmt::Debug for QueryParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|k| (k, "<redacted>")))
            .finish()
    }
}

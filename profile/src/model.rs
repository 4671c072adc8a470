//! The profile model: every part optional, so profiles layer field by field.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::units::{ByteSize, duration};

/// Layers one partial value over another: what `over` sets wins, the rest is kept.
pub trait Layer {
    /// Returns `self` with every part that `over` sets replaced by `over`'s.
    fn layer(self, over: Self) -> Self;
}

impl<T: Layer> Layer for Option<T> {
    fn layer(self, over: Self) -> Self {
        match (self, over) {
            (Some(base), Some(over)) => Some(base.layer(over)),
            (base, None) => base,
            (None, over) => over,
        }
    }
}

impl<V> Layer for BTreeMap<String, V> {
    fn layer(mut self, over: Self) -> Self {
        self.extend(over);
        self
    }
}

macro_rules! replace_on_layer {
    ($($ty:ty),*) => {$(
        impl Layer for $ty {
            fn layer(self, over: Self) -> Self { over }
        }
    )*};
}
replace_on_layer!(
    Duration,
    ByteSize,
    u32,
    f64,
    bool,
    String,
    Vec<String>,
    Vec<Condition>,
    Jitter,
    Scope,
    Window,
    LogLevel,
    Auth,
    Roots,
    Strategy,
    Vec<u32>
);

/// Declares a partial struct: each field optional, `deny_unknown_fields`, layered field by field.
macro_rules! partial {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $(
                $(#[$fmeta])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$ty>,
            )*
        }

        impl Layer for $name {
            fn layer(self, over: Self) -> Self {
                Self { $( $field: self.$field.layer(over.$field), )* }
            }
        }
    };
}

partial! {
    /// A named set of call policies: timeouts, retries, breaker, isolation, limits, auth, logging.
    ///
    /// Every part is optional; what a profile leaves out comes from the profile under it (the
    /// spec's, then remcall's defaults). Build one at run time with [`Profile::from_yaml_str`] to
    /// retune a generated client without regenerating it.
    pub struct Profile {
        /// Another profile of the same spec to start from (spec files only).
        extends: String,
        /// Connect, per-attempt and whole-call deadlines.
        timeout: Timeouts,
        /// When and how failed attempts are tried again.
        retry: Retry,
        /// When to stop calling a failing downstream for a while.
        breaker: Breaker,
        /// How many calls may be in flight at once.
        isolation: Isolation,
        /// How many calls may start per second.
        rate_limit: RateLimit,
        /// Credentials added to each request.
        auth: Auth,
        /// Headers added to each request.
        headers: Headers,
        /// Rust paths of interceptor types (spec files only; at run time use the builder).
        interceptors: Vec<String>,
        /// How much of each call is logged through `tracing`.
        log: LogLevel,
        /// Responses above this size fail with `BodyTooLarge`.
        max_response_bytes: ByteSize,
        /// Certificate roots, extra CAs, client certificates, TLS versions.
        tls: Tls,
        /// How calls are spread over the endpoints, ejection of failing ones, DNS discovery.
        endpoints: EndpointsPolicy,
    }
}

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
        #[cfg_attr(feature = "schema", schemars(rename = "for", with = "Option<crate::schema::DurationText>"))]
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
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
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

partial! {
    /// Deadlines of one call.
    pub struct Timeouts {
        /// Establishing a connection (TCP and TLS).
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        connect: Duration,
        /// One attempt: sending the request and reading the whole response.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        attempt: Duration,
        /// The whole logical call, retries and their sleeps included.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        total: Duration,
    }
}

partial! {
    /// The retry policy.
    pub struct Retry {
        /// Attempts in all, the first included; 1 disables retries.
        max_attempts: u32,
        /// Sleep between attempts.
        backoff: Backoff,
        /// Outcomes that may be retried.
        on: Vec<Condition>,
        /// Honouring the server's `Retry-After`.
        retry_after: RetryAfter,
        /// A cap on retries relative to calls, so a failing downstream never gets N× its load.
        budget: RetryBudget,
    }
}

partial! {
    /// Exponential backoff between attempts.
    pub struct Backoff {
        /// The first sleep.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        initial: Duration,
        /// No sleep is longer than this.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        max: Duration,
        /// Each sleep is the previous one times this.
        multiplier: f64,
        /// Randomisation of each sleep.
        jitter: Jitter,
    }
}

partial! {
    /// `Retry-After` handling.
    pub struct RetryAfter {
        /// The longest wait honoured; `0s` ignores the header.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        max: Duration,
    }
}

partial! {
    /// The retry budget.
    pub struct RetryBudget {
        /// Retries allowed per call made (0.2: one retry per five calls).
        ratio: f64,
        /// Retries allowed per second whatever the ratio says.
        min_per_second: u32,
    }
}

partial! {
    /// The circuit breaker.
    pub struct Breaker {
        /// One breaker per method, or one for the whole client.
        scope: Scope,
        /// The calls the failure rate is computed over.
        window: Window,
        /// No opening before the window holds this many calls.
        min_calls: u32,
        /// Opens at or above this failure percentage.
        failure_rate: f64,
        /// Slow successes that count against the breaker.
        slow_call: SlowCall,
        /// How long the breaker stays open before letting trials through.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        open_for: Duration,
        /// Consecutive re-opens double `open_for` up to this.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        open_for_max: Duration,
        /// Trial calls let through when half-open.
        half_open_calls: u32,
        /// Outcomes that count as failures.
        record: Vec<Condition>,
    }
}

partial! {
    /// Slow-call detection.
    pub struct SlowCall {
        /// A call slower than this is slow.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        over: Duration,
        /// Opens at or above this slow-call percentage.
        rate: f64,
    }
}

partial! {
    /// The semaphore bulkhead.
    pub struct Semaphore {
        /// Calls in flight at once.
        max_concurrent: u32,
        /// How long a call waits for a free slot before it is rejected.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        max_wait: Duration,
    }
}

partial! {
    /// The pool bulkhead: a dedicated runtime per client.
    pub struct Pool {
        /// Worker threads.
        workers: u32,
        /// Calls waiting for a worker.
        queue: u32,
        /// How long a call waits in the queue before it is rejected.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        queue_timeout: Duration,
    }
}

partial! {
    /// The rate limiter.
    pub struct RateLimit {
        /// Calls allowed per second on average.
        per_second: f64,
        /// Calls allowed at once above the average.
        burst: u32,
        /// How long a call waits for a token before it fails with `RateLimited`.
        #[serde(with = "duration")]
        #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::DurationText>"))]
        max_wait: Duration,
    }
}

/// How calls are kept from exhausting the caller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(try_from = "IsolationRepr", into = "IsolationRepr")]
pub enum Isolation {
    /// A semaphore: at most `max_concurrent` calls in flight.
    Semaphore(Semaphore),
    /// A dedicated runtime with its own workers and queue.
    Pool(Pool),
    /// No isolation.
    None,
}

impl Layer for Isolation {
    fn layer(self, over: Self) -> Self {
        match (self, over) {
            (Isolation::Semaphore(a), Isolation::Semaphore(b)) => Isolation::Semaphore(a.layer(b)),
            (Isolation::Pool(a), Isolation::Pool(b)) => Isolation::Pool(a.layer(b)),
            (_, over) => over,
        }
    }
}

/// Credentials a client adds to each request. `Debug` never shows a secret.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(try_from = "AuthRepr", into = "AuthRepr")]
pub enum Auth {
    /// `Authorization: Bearer <token>`.
    Bearer(Bearer),
    /// `Authorization: Basic …`.
    Basic(Basic),
    /// OAuth2 client credentials.
    Oauth2(OAuth2),
}

/// Bearer-token settings.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Bearer {
    /// The token, usually `${TOKEN}`.
    pub token: String,
}

/// Basic-auth settings.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Basic {
    /// User name.
    pub username: String,
    /// Password, usually `${PASSWORD}`.
    pub password: String,
}

/// OAuth2 client-credentials settings.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OAuth2 {
    /// The token endpoint.
    pub token_url: String,
    /// The client id.
    pub client_id: String,
    /// The client secret, usually `${CLIENT_SECRET}`.
    pub client_secret: String,
    /// Scopes requested.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Extra form parameters of the token request (e.g. `audience`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, String>,
    /// How the client authenticates to the token endpoint: `basic` (an Authorization header, the
    /// default) or `body` (client_id and client_secret in the form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_auth: Option<ClientAuth>,
    /// A token is refreshed this long before it expires (default 30s).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "duration")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::schema::DurationText>")
    )]
    pub refresh_before: Option<Duration>,
}

/// OAuth2 client authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClientAuth {
    /// HTTP Basic with client id and secret.
    Basic,
    /// `client_id` and `client_secret` form fields.
    Body,
}

impl Auth {
    /// The values that are secrets, with the field they sit in (for checks and redaction).
    pub fn secrets(&self) -> Vec<(&'static str, &str)> {
        match self {
            Auth::Bearer(b) => vec![("token", &b.token)],
            Auth::Basic(b) => vec![("password", &b.password)],
            Auth::Oauth2(o) => vec![("client_secret", &o.client_secret)],
        }
    }
}

impl fmt::Debug for Bearer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bearer")
            .field("token", &"<redacted>")
            .finish()
    }
}

impl fmt::Debug for Basic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Basic")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

impl fmt::Debug for OAuth2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth2")
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("scopes", &self.scopes)
            .field("params", &self.params.keys().collect::<Vec<_>>())
            .field("client_auth", &self.client_auth)
            .field("refresh_before", &self.refresh_before)
            .finish()
    }
}

/// Randomisation of backoff sleeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
    /// Exactly the computed sleep.
    None,
    /// Uniform in `[0, sleep]`.
    Full,
    /// Uniform in `[sleep/2, sleep]`.
    Equal,
}

/// Breaker granularity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// One breaker per method.
    Method,
    /// One breaker for all methods of a client.
    Client,
}

/// A sliding window of calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(try_from = "WindowRepr", into = "WindowRepr")]
pub enum Window {
    /// The calls of the last period.
    Time(Duration),
    /// The last N calls.
    Calls(u32),
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

/// An outcome class named in `retry.on` and `breaker.record`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Condition {
    /// The connection could not be made.
    Connect,
    /// An attempt or the call ran out of time.
    Timeout,
    /// One HTTP status, e.g. `503`.
    Status(u16),
    /// A class of statuses, e.g. `5xx` (holds the leading digit).
    StatusClass(u8),
}

impl Condition {
    /// True when the condition covers this HTTP status.
    pub fn matches_status(self, status: u16) -> bool {
        match self {
            Condition::Status(s) => s == status,
            Condition::StatusClass(c) => status / 100 == u16::from(c),
            Condition::Connect | Condition::Timeout => false,
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Connect => f.write_str("connect"),
            Condition::Timeout => f.write_str("timeout"),
            Condition::Status(s) => write!(f, "{s}"),
            Condition::StatusClass(c) => write!(f, "{c}xx"),
        }
    }
}

impl std::str::FromStr for Condition {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let help = || {
            format!(
                "unknown condition `{text}`: expected connect, timeout, a status such as 503, or a class such as 5xx"
            )
        };
        match text {
            "connect" => Ok(Condition::Connect),
            "timeout" => Ok(Condition::Timeout),
            _ => {
                if let Some(class) = text.strip_suffix("xx") {
                    match class.parse::<u8>() {
                        Ok(c @ 1..=5) if class.len() == 1 => Ok(Condition::StatusClass(c)),
                        _ => Err(help()),
                    }
                } else {
                    match text.parse::<u16>() {
                        Ok(s @ 100..=599) => Ok(Condition::Status(s)),
                        _ => Err(help()),
                    }
                }
            }
        }
    }
}

impl Serialize for Condition {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Condition::Status(code) => s.serialize_u16(*code),
            other => s.serialize_str(&other.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Condition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Condition;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("connect, timeout, a status such as 503, or a class such as 5xx")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Condition, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Condition, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Condition, E> {
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(Text)
    }
}

/// Headers added to each request. `Debug` shows their names only: values may be API keys.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Headers(pub BTreeMap<String, HeaderDef>);

/// One profile header: `X-App: crm`, or `X-Api-Key: { value: "${KEY}", secret: true }` for a
/// value that is redacted from logs and errors.
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
                value: def.value,
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

// YAML writes a one-of choice as a one-key map (`{ semaphore: {..} }`, `{ time: 10s }`); these
// representations read and write that form, with serde's own errors for unknown keys.

/// Reads a one-key map form of a choice, or a bare word for a choice without settings.
fn one_of<T>(choices: &[(&'static str, Option<T>)], what: &str) -> Result<T, String>
where
    T: Clone,
{
    let set: Vec<_> = choices.iter().filter(|(_, v)| v.is_some()).collect();
    match set.as_slice() {
        [(_, Some(value))] => Ok(value.clone()),
        [] => Err(format!(
            "{what} needs one of: {}",
            choices
                .iter()
                .map(|(k, _)| *k)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => Err(format!(
            "{what} takes exactly one of {}, found {}",
            choices
                .iter()
                .map(|(k, _)| *k)
                .collect::<Vec<_>>()
                .join(", "),
            set.iter()
                .map(|(k, _)| *k)
                .collect::<Vec<_>>()
                .join(" and ")
        )),
    }
}

#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IsolationMap {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    semaphore: Option<Semaphore>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pool: Option<Pool>,
}

/// `none`, `{ semaphore: {..} }` or `{ pool: {..} }`.
pub(crate) struct IsolationRepr(Isolation);

impl<'de> Deserialize<'de> for IsolationRepr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IsolationRepr;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("none, { semaphore: {..} } or { pool: {..} }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<IsolationRepr, E> {
                match v {
                    "none" => Ok(IsolationRepr(Isolation::None)),
                    "semaphore" => Ok(IsolationRepr(Isolation::Semaphore(Semaphore::default()))),
                    "pool" => Ok(IsolationRepr(Isolation::Pool(Pool::default()))),
                    other => Err(E::custom(format!(
                        "unknown isolation `{other}`: expected none, semaphore or pool"
                    ))),
                }
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<IsolationRepr, A::Error> {
                let m = IsolationMap::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let choice = one_of(
                    &[
                        ("semaphore", m.semaphore.map(Isolation::Semaphore)),
                        ("pool", m.pool.map(Isolation::Pool)),
                    ],
                    "isolation",
                );
                choice.map(IsolationRepr).map_err(de::Error::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for IsolationRepr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Isolation::None => s.serialize_str("none"),
            Isolation::Semaphore(sem) => IsolationMap {
                semaphore: Some(sem.clone()),
                pool: None,
            }
            .serialize(s),
            Isolation::Pool(pool) => IsolationMap {
                semaphore: None,
                pool: Some(pool.clone()),
            }
            .serialize(s),
        }
    }
}

impl TryFrom<IsolationRepr> for Isolation {
    type Error = String;
    fn try_from(repr: IsolationRepr) -> Result<Self, String> {
        Ok(repr.0)
    }
}

impl From<Isolation> for IsolationRepr {
    fn from(value: Isolation) -> Self {
        IsolationRepr(value)
    }
}

#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct AuthRepr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bearer: Option<Bearer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    basic: Option<Basic>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    oauth2: Option<OAuth2>,
}

impl TryFrom<AuthRepr> for Auth {
    type Error = String;
    fn try_from(r: AuthRepr) -> Result<Self, String> {
        one_of(
            &[
                ("bearer", r.bearer.map(Auth::Bearer)),
                ("basic", r.basic.map(Auth::Basic)),
                ("oauth2", r.oauth2.map(Auth::Oauth2)),
            ],
            "auth",
        )
    }
}

impl From<Auth> for AuthRepr {
    fn from(auth: Auth) -> Self {
        let mut repr = AuthRepr {
            bearer: None,
            basic: None,
            oauth2: None,
        };
        match auth {
            Auth::Bearer(b) => repr.bearer = Some(b),
            Auth::Basic(b) => repr.basic = Some(b),
            Auth::Oauth2(o) => repr.oauth2 = Some(o),
        }
        repr
    }
}

#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct WindowRepr {
    #[serde(default, skip_serializing_if = "Option::is_none", with = "duration")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::schema::DurationText>")
    )]
    time: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    calls: Option<u32>,
}

impl TryFrom<WindowRepr> for Window {
    type Error = String;
    fn try_from(r: WindowRepr) -> Result<Self, String> {
        one_of(
            &[
                ("time", r.time.map(Window::Time)),
                ("calls", r.calls.map(Window::Calls)),
            ],
            "window",
        )
    }
}

impl From<Window> for WindowRepr {
    fn from(window: Window) -> Self {
        match window {
            Window::Time(t) => WindowRepr {
                time: Some(t),
                calls: None,
            },
            Window::Calls(c) => WindowRepr {
                time: None,
                calls: Some(c),
            },
        }
    }
}

//! The profile model: every part optional, so profiles layer field by field. One file per
//! policy; this one holds the [`Profile`] that gathers them and the layering they share.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::units::ByteSize;

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
    DecodeMode,
    Compression,
    TraceContext,
    QuotaHeaders,
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

        /// Setters, for a profile written in code: each sets its key as YAML would.
        impl $name {
            $(
                #[doc = concat!("Sets `", stringify!($field), "` (see the field).")]
                #[must_use]
                pub fn $field(mut self, value: impl Into<$ty>) -> Self {
                    self.$field = Some(value.into());
                    self
                }
            )*
        }
    };
}

partial! {
    /// A named set of call policies: timeouts, retries, breaker, isolation, limits, auth, logging.
    ///
    /// Every part is optional; what a profile leaves out comes from the profile under it (the
    /// spec's, then remcall's defaults). Build one at run time with [`Profile::from_yaml_str`] to
    /// retune a generated client without regenerating it.
    ///
    /// Each field's type documents its keys: [`Timeouts`], [`RetryPolicy`], [`BreakerPolicy`],
    /// [`Isolation`], [`RateLimitPolicy`], [`QuotaPolicy`], [`HedgePolicy`], [`DeadlinePolicy`], [`Auth`], [`Headers`], [`LogLevel`], [`Tls`],
    /// [`EndpointsPolicy`]. The values a client runs with, defaults filled in, are
    /// [`Settings::from_profile`](crate::Settings::from_profile); the defaults are also listed in
    /// docs/resilience.md and docs/spec.md.
    pub struct Profile {
        /// Another profile of the same spec to start from (spec files only).
        extends: String,
        /// Connect, per-attempt and whole-call deadlines.
        timeout: Timeouts,
        /// When and how failed attempts are tried again.
        retry: RetryPolicy,
        /// When to stop calling a failing downstream for a while.
        breaker: BreakerPolicy,
        /// How many calls may be in flight at once.
        isolation: Isolation,
        /// How many calls may start per second.
        rate_limit: RateLimitPolicy,
        /// Pacing by the quota the server announces on its answers (on by default).
        quota: QuotaPolicy,
        /// Answers to GET kept and revalidated by RFC 9111 (off unless set).
        cache: CachingPolicy,
        /// Backup requests for a slow answer (idempotent methods only).
        hedge: HedgePolicy,
        /// Sending the time a call has left; a `remcall::deadline` scope caps it.
        deadline: DeadlinePolicy,
        /// Credentials added to each request.
        auth: Auth,
        /// Headers added to each request.
        headers: Headers,
        /// Query parameters added to each request (API keys some servers take in the URL).
        query: QueryParams,
        /// Cookies sent with each request (API keys some servers take as a cookie).
        cookies: Cookies,
        /// Rust paths of interceptor types (spec files only; at run time use the builder).
        interceptors: Vec<String>,
        /// How much of each call is logged through `tracing`.
        log: LogLevel,
        /// `strict` (the default) or `lax`: an answer that does not fit its type is a `Decode`
        /// error, or repaired with the nearest value and counted as drift.
        decode: DecodeMode,
        /// `on` (the default): answers may come compressed (gzip, br, zstd, deflate) and are
        /// decompressed as they are read; `off`: not asked for. The whole client's.
        compression: Compression,
        /// `on` (the default): with the runtime's `otel` feature, each attempt carries the
        /// caller's trace (`traceparent`); `trusted`: its `tracestate` and `baggage` too (the
        /// servers are the service's own trust domain); `off`: nothing.
        trace_context: TraceContext,
        /// What an error's message shows of the server's answer (`body_in_message`).
        errors: ErrorsPolicy,
        /// Responses above this size fail with `BodyTooLarge` (their decompressed size).
        max_response_bytes: ByteSize,
        /// A paginated method stops with an error after this many empty pages in a row, each
        /// pointing at another (a server must not hold a stream that yields nothing for ever).
        max_empty_pages: u32,
        /// An event of a stream (or a JSON line) above this size ends the stream with
        /// `BodyTooLarge`: a server that never ends an event cannot fill the client's memory.
        max_event_bytes: ByteSize,
        /// Certificate roots, extra CAs, client certificates, TLS versions.
        tls: Tls,
        /// How calls are spread over the endpoints, ejection of failing ones, DNS discovery.
        endpoints: EndpointsPolicy,
        /// The real exchanges of chosen methods written to a JSON Lines file (off unless set).
        record: RecordPolicy,
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

// After the macros, which the policy files use.
mod auth;
mod breaker;
mod cache;
mod decode;
mod endpoints;
mod errors;
mod isolation;
mod overload;
mod quota;
mod record;
mod redis_url;
mod retry;
mod secret;

pub use auth::{Auth, Basic, Bearer, ClientAuth, OAuth2};
pub use breaker::{BreakerPolicy, Condition, Scope, SlowCall, Window};
pub use cache::{CachingPolicy, DEFAULT_CACHE_BYTES};
pub use decode::{Compression, DecodeMode, TraceContext};
pub use endpoints::{
    Cookies, Dns, Eject, EndpointsPolicy, HeaderDef, Headers, LogLevel, QueryParams, Roots,
    Strategy, Tls,
};
pub use errors::ErrorsPolicy;
#[cfg(feature = "schema")]
pub(crate) use isolation::IsolationRepr;
pub use isolation::{Isolation, PoolPolicy, RateLimitPolicy, SemaphorePolicy};
pub use overload::{
    AdaptivePolicy, DeadlinePolicy, HedgeDelay, HedgePolicy, LimitAlgorithm, OnRedisError,
    SharedLimit, SharedStore,
};
pub use quota::{QuotaHeaders, QuotaPolicy};
pub use record::RecordPolicy;
pub use redis_url::RedisUrl;
pub use retry::{Backoff, Jitter, RetryAfter, RetryBudgetPolicy, RetryPolicy, Timeouts};
pub use secret::Secret;

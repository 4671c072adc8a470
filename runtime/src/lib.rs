//! The runtime of remcall-generated HTTP clients.
//!
//! A generated client runs every call through one pipeline: rate limit, circuit breaker,
//! bulkhead, then attempts with deadlines, retries and size limits, the outcome recorded once,
//! and a fallback for failures it may answer. What a user touches is documented here: the
//! [`Error`] every call returns (with its [`ErrorKind`]), the [`Profile`] that tunes the
//! policies at run time, [`Interceptor`]s, endpoint discovery ([`Discover`]), the statistics
//! ([`ClientStats`]) and [`NoFallback`]. What only generated code calls is in a hidden module.
//!
//! A crate that uses generated code depends on `remcall` (and tokio) only: everything generated
//! code names is re-exported here.

// A function past 80 lines (clippy.toml) does several things: split it by what they are.
#![warn(clippy::too_many_lines)]

mod call;
mod client;
#[cfg(feature = "dashboard")]
pub mod dashboard;
mod decode;
mod error;
mod fleet;
#[cfg(feature = "webhooks")]
mod inbound;
mod observe;
pub mod origin;
mod outbound;
mod outcome;
mod period;
mod policy;
mod spec;
mod stream;
pub mod stub;
mod wire;

pub use policy::deadline;

/// Recorded exchanges (`record:` in a profile): the JSON Lines format a client writes, that
/// `remcall learn` reads and the stub replays.
pub mod recording {
    pub use crate::observe::recording::{Body, Exchange, read};
}

pub use call::download::ByteStream;
pub use call::paginate::Pages;
pub use client::{Observe, Observer};
pub use error::{BODY_SNIPPET_BYTES, Error, ErrorKind};
pub use outbound::endpoints::{Discover, DiscoveredEndpoint, DnsDiscover, Resolve, SystemResolver};
pub use outbound::interceptor::{BoxError, CallInfo, Interceptor, Outgoing};
pub use remcall_profile::{Profile, ProfileError};
pub use stream::{Event, Events, Lines};
pub use wire::multipart::File;
pub use wire::nullable::Nullable;

#[cfg(feature = "metrics")]
pub use client::facade as metrics;
#[cfg(feature = "otel")]
pub use client::otel;
pub use client::prometheus;
pub use decode::response::{Response, WithHeaders};
/// Webhook deliveries: their signatures verified before anything is decoded, each handled once
/// (feature `webhooks`).
#[cfg(feature = "webhooks")]
pub mod webhooks {
    pub use crate::inbound::delivery::{Delivery, Failure, Handling};
    pub use crate::inbound::events::{EventSpec, Events};
    pub use crate::inbound::inbox::{DEFAULT_MAX_BODY, Inbox};
    pub use crate::inbound::replays::{DEFAULT_CAPACITY, Replays, Seen};
    pub use crate::inbound::router::router;
    pub use crate::inbound::sender::{Outgoing, Sender, Sent};
    pub use crate::inbound::signature::{DEFAULT_TOLERANCE, Encoding, Refusal, Verified, Verifier};
    pub use crate::inbound::stats::InboxStats;
    /// The router a generated receiver returns.
    pub use axum::Router;
}
pub use observe::stats::{BreakerState, ClientStats, EndpointStats, MethodStats, QuotaStats};
pub use origin::Origin;
/// The profile's parts, each a type of its own with its keys documented ([`Profile`]'s fields
/// link here), for building or inspecting a profile in code; the defaults and what each policy
/// does are in the user guide (docs/resilience.md, docs/spec.md).
#[doc(inline)]
pub use remcall_profile as profile;

// What generated code names, so user crates need no dependency of their own.
pub use bytes;
pub use reqwest;
pub use serde;
pub use serde_json;

/// What generated code calls, and nothing a user needs: the static description of a client and
/// its methods, the request a method fills, the runtime half of a client and its builder, and the
/// decoders. Not a stable API: it changes with the generator, which always comes in the same
/// version as this crate.
#[doc(hidden)]
pub mod __codegen {
    pub use crate::call::paginate::{NextPage, Paging};
    pub use crate::client::{Client, ClientBuilder};
    pub use crate::decode::enums::{read as int_enum, read_str as str_enum};
    pub use crate::decode::response::decode;
    pub use crate::error::Detail;
    pub use crate::spec::{ClientSpec, MethodSpec};
    pub use crate::stream::{
        ErrorEvents, EventDecoder, EventsSpec, LinesSpec, event_json, event_text, line_json,
        line_text,
    };
    pub use crate::wire::constant::{Const, constant};
    pub use crate::wire::multipart::{Files, Form, Multipart};
    pub use crate::wire::request::Request;
    /// Each generated type's serde impls, one invocation per type (`wire/derive.rs`).
    pub use crate::{
        __serde_constant as serde_constant, __serde_events as serde_events,
        __serde_int_enum as serde_int_enum, __serde_str_enum as serde_str_enum,
        __serde_struct as serde_struct, __serde_union as serde_union,
    };
    /// Reading and writing structs: what generated code does instead of deriving serde's traits.
    pub mod record {
        pub use crate::decode::record::{
            FieldOut, Optional, Record, Unfinished, flattened, other, read, slot, write,
            write_flattened, write_with_others,
        };
    }
    /// Reading `one_of:` unions, with errors that say what was tried, and writing a tag the
    /// alternative does not hold.
    pub mod union {
        pub use crate::decode::owned::Owned;
        pub use crate::decode::tag_only::TagOnly;
        pub use crate::decode::union::{
            Alternative, Candidate, Fits, adjacent, read, tagged, untagged,
        };
        pub use crate::wire::tag_first::{write_adjacent, write_tagged};
    }
}

/// The policies one by one, for remcall's own benchmarks (`bench/`). Not a stable API: use the
/// generated clients and profiles.
#[doc(hidden)]
pub mod __bench {
    pub use crate::observe::latency::Latencies;
    pub use crate::outcome::{AttemptFailure, is_retryable};
    pub use crate::policy::breaker::{Breaker, Outcome, Permit};
    pub use crate::policy::budget::RetryBudget;
    pub use crate::policy::bulkhead::{Bulkhead, Full, PoolThreads, Slot};
    pub use crate::policy::rate_limit::{RateLimiter, Reservation};
    pub use crate::policy::retry::backoff;
    pub use remcall_profile::{
        BreakerSettings, IsolationSettings, RateLimitSettings, RetrySettings, Settings,
    };
}

/// The fallback of a client built without one: every method passes its error through.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFallback;

/// The methods every operation of a generated stub has, delegated to the
/// [`stub::Stubbing`] it wraps (`Self(Stubbing)`): answers, counts and faults.
#[doc(hidden)]
#[macro_export]
macro_rules! __stub_common {
    () => {
        /// Answers `status` with no body.
        pub fn returns_status(self, status: u16) -> Self {
            Self(self.0.returns_status(status))
        }
        /// Answers `status` with `body` of `content_type` (an error body, say).
        pub fn returns_body(
            self,
            status: u16,
            content_type: &str,
            body: impl Into<remcall::bytes::Bytes>,
        ) -> Self {
            Self(self.0.returns_body(status, content_type, body))
        }
        /// Adds a response header.
        pub fn header(self, name: &str, value: &str) -> Self {
            Self(self.0.header(name, value))
        }
        /// Answers with `ETag: "<tag>"`, and a request naming it in `If-None-Match` with 304.
        pub fn etag(self, tag: &str) -> Self {
            Self(self.0.etag(tag))
        }
        /// Answers compressed with the coding the request asks for first (gzip, br, zstd or
        /// deflate), with `Content-Encoding`.
        pub fn compressed(self) -> Self {
            Self(self.0.compressed())
        }
        /// Answers compressed with `encoding` whatever the request asks for.
        pub fn compressed_as(self, encoding: remcall::stub::Encoding) -> Self {
            Self(self.0.compressed_as(encoding))
        }
        /// Answers after `delay`.
        pub fn after(self, delay: std::time::Duration) -> Self {
            Self(self.0.after(delay))
        }
        /// Takes the next `n` matching requests, then no more.
        pub fn times(self, n: u32) -> Self {
            Self(self.0.times(n))
        }
        /// Must have taken exactly `n` requests when the stub is dropped.
        pub fn expect(self, n: u32) -> Self {
            Self(self.0.expect(n))
        }
        /// Faults for this operation: `fail(503).times(2)`, `reset_connection()`, ….
        pub fn faults(&self) -> remcall::stub::Faults<'_> {
            self.0.faults()
        }
        /// Only requests with header `name` (any case) set to `value`, a header the spec need
        /// not declare (`Last-Event-ID` of a resumed stream, say).
        pub fn with_request_header(self, name: &str, value: &str) -> Self {
            Self(self.0.with_header(name, value))
        }
    };
}

/// A setter of a named call's optional parameter: `#[doc = ".."] per_page => per_page: i64`
/// takes the value, `labels => labels: into String` anything that converts (a `&str`, a slice
/// for a `Vec`). Integers are taken as they are: `impl Into<u64>` would refuse a plain `50`.
#[doc(hidden)]
#[macro_export]
macro_rules! __option_setter {
    ($(#[$meta:meta])* $setter:ident => $field:ident: into $ty:ty) => {
        $(#[$meta])*
        pub fn $setter(mut self, value: impl Into<$ty>) -> Self {
            self.options.$field = Some(value.into());
            self
        }
    };
    ($(#[$meta:meta])* $setter:ident => $field:ident: $ty:ty) => {
        $(#[$meta])*
        pub fn $setter(mut self, value: $ty) -> Self {
            self.options.$field = Some(value);
            self
        }
    };
}

/// Includes a client generated by `remcall_codegen::Builder` in a build script:
/// `remcall::include_client!("user_client");` brings `UserClient` and its types into the current
/// module (wrap it in `pub mod user_client { .. }` to keep them apart, and to include two clients
/// in one crate).
///
/// The generated items sit in a module of their own, so the lint allowances generated code needs
/// are written once (the same as `remcall gen` writes into its `mod.rs`).
#[macro_export]
macro_rules! include_client {
    ($name:literal) => {
        #[doc(hidden)]
        #[allow(
            dead_code,
            missing_docs,
            clippy::too_many_arguments,
            clippy::type_complexity,
            clippy::large_enum_variant,
            clippy::doc_lazy_continuation,
            clippy::doc_overindented_list_items,
            clippy::disallowed_names,
            unused_variables
        )]
        mod __remcall_generated {
            include!(concat!(env!("OUT_DIR"), "/", $name, ".rs"));
        }
        pub use self::__remcall_generated::*;
    };
}

//! How answers are read: `decode: strict | lax`, and `compression: on | off`; and whether the
//! caller's trace goes with each request: `trace_context: on | trusted | off`.

use serde::{Deserialize, Serialize};

/// How an answer that does not fit its type is met.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DecodeMode {
    /// A `Decode` error (the default).
    #[default]
    Strict,
    /// The nearest value: a required field that is null or missing takes its type's default,
    /// another JSON kind where text is declared is kept as its JSON text; each repair is drift,
    /// counted and logged. For a vendor whose description is known to lie, never for payments.
    Lax,
}

/// Whether answers may come compressed: `Accept-Encoding` sent (gzip, br, zstd, deflate) and
/// a compressed answer decompressed as it is read, `max_response_bytes` counting what it
/// decompresses to. Applies to the whole client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    /// Asked for and decompressed (the default).
    #[default]
    On,
    /// Not asked for; an answer compressed anyway stays as it came (and fails to decode).
    Off,
}

/// Whether each attempt carries the caller's trace (W3C `traceparent`, or what the propagator
/// the service installed writes), so the server's spans join the caller's trace; and whether it
/// also carries what the caller's trace holds for its own trust domain (`tracestate`,
/// `baggage`). Only with the runtime's `otel` feature; without it nothing is sent either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TraceContext {
    /// The trace's identity (`traceparent`), never `tracestate` or `baggage` (the default): the
    /// server's spans join the trace, and the caller's vendor state and baggage stay home.
    #[default]
    On,
    /// Everything the propagator writes, `tracestate` and `baggage` included: the client's
    /// servers are of the service's own trust domain.
    Trusted,
    /// Nothing: a third party's API that has no business with the service's trace ids.
    Off,
}

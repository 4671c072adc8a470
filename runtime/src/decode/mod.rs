//! Decoding, the response half of the wire format: how a response becomes its result.
//!
//! A body is read strictly first (`response.rs`: JSON, text, bytes; `record.rs` structs,
//! `union.rs` unions read by best fit, `enums.rs`). When that fails, it is read again to say
//! where (`located.rs`: the JSON path, the declared type, what came), and under `decode: lax`
//! repaired (`lax.rs`) and the repairs counted as drift. What a decode needs beside its input —
//! the mode, the field that failed, the unions' budget, a value handed to a union — is one
//! [`context::DecodeContext`] per thread, set for the decode's duration by its scope functions.

pub(crate) mod context;
pub(crate) mod enums;
pub(crate) mod lax;
pub(crate) mod located;
pub(crate) mod owned;
pub(crate) mod record;
pub(crate) mod response;
pub(crate) mod undeclared;
pub(crate) mod union;

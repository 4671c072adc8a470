//! Decoding, the response half of the wire format: how a response becomes its result.
//!
//! A body is read strictly first (`response.rs`: JSON, text, bytes; `record.rs` structs,
//! `union.rs` unions read by best fit, `enums.rs`). When that fails, it is read again to say
//! where (`located.rs`: the JSON path, the declared type, what came), and under `decode: lax`
//! repaired (`lax.rs`) and the repairs counted as drift. What a decode needs beside its input —
//! the mode, the field that failed, the unions' budget, a value handed to a union — is one
//! sealed context per thread (`context.rs`), set for the decode's duration. The call's pipeline
//! enters it through one door, [`answer`].

pub(crate) mod context;
pub(crate) mod enums;
pub(crate) mod lax;
pub(crate) mod located;
pub(crate) mod owned;
pub(crate) mod record;
pub(crate) mod response;
pub(crate) mod tag_only;
pub(crate) mod undeclared;
pub(crate) mod union;

use context::Drift;

/// The drift one decode saw.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// Keys no type declares, and objects that shared no key with their struct.
    pub(crate) undeclared: Vec<Drift>,
    /// What lax mode repaired.
    pub(crate) repairs: Vec<Drift>,
}

impl Seen {
    /// Nothing was seen: the answer is what the description says.
    pub(crate) fn is_empty(&self) -> bool {
        self.undeclared.is_empty() && self.repairs.is_empty()
    }
}

/// One item of a stream (an event's data, a line) as a `T`: strictly, else repaired when lax
/// mode is on, else the error saying where it does not fit.
pub(crate) fn item<T: serde::de::DeserializeOwned>(data: &[u8]) -> Result<T, String> {
    serde_json::from_slice(data)
        .or_else(|e| lax::repaired::<T>(data).ok_or(e))
        .map_err(|e| located::locate::<T>(data).unwrap_or_else(|| e.to_string()))
}

/// How the call's pipeline decodes what a server sent (an answer, an error's body, a stream's
/// chunk), and the one way into lax mode: `decode` runs noticing keys no type declares and, when
/// `lax` (the method's `decode: lax`), repairing what does not fit; its result and what was seen.
pub(crate) fn answer<R>(lax: bool, decode: impl FnOnce() -> R) -> (R, Seen) {
    let noticed = || undeclared::noticing(decode);
    let ((result, undeclared), repairs) = if lax {
        lax::decoding(noticed)
    } else {
        (noticed(), Vec::new())
    };
    (
        result,
        Seen {
            undeclared,
            repairs,
        },
    )
}

//! What a failed call's error shows: `errors: { body_in_message: 512B }`.

use serde::{Deserialize, Serialize};

use super::Layer;
use crate::units::ByteSize;

partial! {
    /// What an error's message (`Display`, `Debug`) shows of the server's answer. A server that
    /// echoes the request in its error body (FastAPI's 422 does) would otherwise put the
    /// caller's data into every log that writes the error; `Error::body()` keeps the first
    /// 512 bytes whatever this says, for code that asks.
    pub struct ErrorsPolicy {
        /// How many bytes of the answer's body the message shows (512B by default; 0: none).
        body_in_message: ByteSize,
    }
}

//! Recording real exchanges: `record: { file: recordings/api.jsonl, methods: [get_user] }`.

use serde::{Deserialize, Serialize};

use super::Layer;
use crate::units::ByteSize;

partial! {
    /// The real exchanges of chosen methods written to a JSON Lines file, one line an
    /// exchange (the method, the request as sent, the answer), credentials, secret query
    /// values, cookies and `Set-Cookie` removed, bodies cut at `max_body`, the file readable by
    /// its owner alone: a fixture a test replays through the stub, and what `remcall learn`
    /// learns a description's mistakes from. The whole client's; off unless set.
    pub struct RecordPolicy {
        /// The file, appended to (`${VAR}` allowed), relative to the process's directory; empty
        /// (`"${REMCALL_RECORD:-}"` with the variable unset) records nothing.
        file: String,
        /// The methods recorded, by their spec names (none: every method).
        methods: Vec<String>,
        /// The most of each body written (1MiB); a longer one is cut and marked so.
        max_body: ByteSize,
    }
}

//! What a streamed method fixes, written once beside its route rather than in every call: how
//! an item reads, the data that ends the stream, and the server's error events.

use super::{ErrorEvents, EventDecoder};

/// How an event stream's items read (a generated method's `static`, beside its
/// [`MethodSpec`](crate::__codegen::MethodSpec)).
pub struct EventsSpec<T> {
    /// Reads an event's data (with its `event:` name) as an item.
    pub decode: EventDecoder<T>,
    /// The data that ends the stream (`[DONE]`), when the method declares one.
    pub end: Option<&'static str>,
    /// The server's error events, when the method declares them.
    pub errors: Option<ErrorEvents>,
}

/// How a JSON Lines stream's items read (a generated method's `static`).
pub struct LinesSpec<T> {
    /// Reads a line as an item.
    pub decode: fn(&[u8]) -> Result<T, String>,
    /// The server's error lines, when the method declares them.
    pub errors: Option<ErrorEvents>,
}

// By hand: a derive would ask `T: Debug` of a type the spec only names.
impl<T> std::fmt::Debug for EventsSpec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventsSpec")
            .field("end", &self.end)
            .field("errors", &self.errors)
            .finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for LinesSpec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinesSpec")
            .field("errors", &self.errors)
            .finish_non_exhaustive()
    }
}

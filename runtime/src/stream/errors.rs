//! A stream's error events (`returns: { error: .. }`). Servers report a failure mid-answer as an
//! item of the 200 stream: OpenAI's `event: error`, `data: {"error": "…out of memory"}`, a
//! JSON line `{"type": "error", ..}`. One is told by its `event:` name, or, when an item does
//! not read as the stream's type, by being an object with a key the error type declares that
//! reads as it. It ends the stream with an [`ErrorKind::ErrorEvent`] error carrying the decoded
//! error, so that code skipping bad items cannot take a partial answer for a whole one.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::de::{DeserializeOwned, IgnoredAny};

use crate::error::{Detail, Error, ErrorKind};

/// How a method's stream tells and reads its error events; generated code makes one with
/// [`ErrorEvents::of`].
#[derive(Clone, Copy)]
pub struct ErrorEvents {
    event: Option<&'static str>,
    keys: &'static [&'static str],
    decode: fn(&[u8]) -> Result<Detail, String>,
}

impl std::fmt::Debug for ErrorEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ErrorEvents")
            .field("event", &self.event)
            .field("keys", &self.keys)
            .finish_non_exhaustive()
    }
}

impl ErrorEvents {
    /// Error events whose data is an `E`: each event named `event`, and each item that does not
    /// read as the stream's type but is an object with one of `keys` (the wire names `E`
    /// declares) that reads as an `E`.
    pub const fn of<E: DeserializeOwned + Send + Sync + 'static>(
        event: Option<&'static str>,
        keys: &'static [&'static str],
    ) -> ErrorEvents {
        ErrorEvents {
            event,
            keys,
            decode: detail::<E>,
        }
    }

    /// An event of this `event:` name is an error event, whatever its data.
    pub(crate) fn names(&self, event: Option<&str>) -> bool {
        self.event.is_some() && self.event == event
    }

    /// The error an item that did not read as the stream's type holds, when it holds one.
    pub(crate) fn read(&self, data: &[u8]) -> Option<Detail> {
        let keys: BTreeMap<String, IgnoredAny> = serde_json::from_slice(data).ok()?;
        if !self.keys.iter().any(|key| keys.contains_key(*key)) {
            return None;
        }
        (self.decode)(data).ok()
    }

    /// An error event's data as the error type, when it reads as one.
    pub(crate) fn decode(&self, data: &[u8]) -> Option<Detail> {
        (self.decode)(data).ok()
    }
}

fn detail<E: DeserializeOwned + Send + Sync + 'static>(data: &[u8]) -> Result<Detail, String> {
    serde_json::from_slice::<E>(data)
        .map(|error| Arc::new(error) as Detail)
        .map_err(|e| e.to_string())
}

/// The error that ends a stream at an error event: `what` names the event or line, `data` is
/// its data (its first bytes are kept as the error's body).
pub(crate) fn reported(
    what: &str,
    detail: Option<Detail>,
    owner: super::Owner,
    data: &[u8],
) -> Error {
    let message = if detail.is_some() {
        format!("the server reported an error in the stream: its {what}")
    } else {
        format!(
            "the server reported an error in the stream: its {what}, whose data is not the declared error type"
        )
    };
    Error::new(ErrorKind::ErrorEvent, message)
        .in_call(owner.client, owner.method)
        .with_body_snippet(data)
        .showing_body(owner.body_shown)
        .with_detail(detail)
}

/// What one event or line turned out to be.
pub(crate) enum Read<T> {
    /// An item of the stream's type.
    Item(T),
    /// Not the stream's type: why.
    Undecodable(String),
    /// The server's error (decoded when it reads as the declared type).
    Reported(Option<Detail>),
}

/// Reads one event's data or one line: as an error event when `named`; else as the stream's
/// type, strictly first when error events are declared, so that lax repair never turns the
/// server's error into an item; then as the error; then, in lax mode, repaired.
pub(crate) fn read<T>(
    errors: Option<&ErrorEvents>,
    named: bool,
    data: &[u8],
    decode: impl Fn() -> Result<T, String>,
) -> Read<T> {
    let Some(errors) = errors else {
        return decode().map_or_else(Read::Undecodable, Read::Item);
    };
    if named {
        return Read::Reported(errors.decode(data));
    }
    let why = match crate::decode::lax::strictly(&decode) {
        Ok(item) => return Read::Item(item),
        Err(why) => why,
    };
    if let Some(detail) = errors.read(data) {
        return Read::Reported(Some(detail));
    }
    if crate::decode::lax::on() {
        return decode().map_or_else(Read::Undecodable, Read::Item);
    }
    Read::Undecodable(why)
}

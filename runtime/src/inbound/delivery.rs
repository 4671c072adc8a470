//! What a generated receiver's dispatch is handed, and what its methods answer.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::stats::Counters;

/// A verified delivery of a declared event, handed to the generated dispatch.
#[derive(Debug)]
pub struct Delivery {
    pub(crate) event: usize,
    pub(crate) body: Vec<u8>,
    pub(crate) lax: bool,
    pub(crate) counters: Arc<Counters>,
}

impl Delivery {
    /// The index of its event in the receiver's [`Events`](super::events::Events).
    pub fn event(&self) -> usize {
        self.event
    }

    /// The payload as the event's type, read as the client reads an answer: strictly, or
    /// repaired under `lax`; a body that does not read is refused (400) without calling the
    /// receiver. Keys the type does not declare, and what `lax` repaired, are counted as
    /// drift.
    pub fn payload<T: DeserializeOwned>(&self) -> Result<T, Failure> {
        let (read, seen) = crate::decode::answer(self.lax, || crate::decode::item::<T>(&self.body));
        if !seen.is_empty() {
            Counters::add(&self.counters.drifted);
        }
        read.map_err(|located| Failure {
            kind: Kind::Undecodable,
            told: where_of(&located),
        })
    }
}

/// Where a payload does not read (`` `Customer.email` (at `$.data.email`) ``), without what
/// came there: the log names the place, never a value of the sender's.
fn where_of(located: &str) -> String {
    let place = located.split_once(": ").map_or(located, |(place, _)| place);
    format!("the payload does not read {place}")
}

/// Why a receiver's method did not handle its event: answered 500, so the sender delivers it
/// again. Any error converts into it with `?`; its content is not shown to the sender.
pub struct Failure {
    pub(crate) kind: Kind,
    /// What the log says of it: the handler's error, or where the payload does not read.
    pub(crate) told: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The handler failed.
    Failed,
    /// The payload does not read as the event's type.
    Undecodable,
    /// A method the receiver left out: the event is acknowledged, not handled.
    Ignored,
}

impl Failure {
    /// A failure with no error behind it (the handler decided to have the event sent again).
    pub fn retry_later() -> Failure {
        Failure {
            kind: Kind::Failed,
            told: String::from("the receiver asked for the event again"),
        }
    }

    /// What a receiver's method it does not implement answers: acknowledged, counted as
    /// ignored, not sent again.
    pub fn ignored() -> Failure {
        Failure {
            kind: Kind::Ignored,
            told: String::new(),
        }
    }
}

impl std::fmt::Debug for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Failure")
            .field("kind", &self.kind)
            .field("told", &self.told)
            .finish()
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for Failure {
    fn from(error: E) -> Failure {
        Failure {
            kind: Kind::Failed,
            told: error.to_string(),
        }
    }
}

/// The future a generated dispatch returns for one delivery.
pub type Handling = Pin<Box<dyn Future<Output = Result<(), Failure>> + Send>>;

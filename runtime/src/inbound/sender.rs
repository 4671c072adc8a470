//! Deliveries sent as a receiver's real sender sends them, for a service's tests: to the
//! event's path, with the headers that name it, the payload's naming fields filled in, and
//! signed with the scheme and the first secret of a [`Verifier`]. A generated receiver's
//! `Event::send` and the stub's `send_webhook` go through it.

use std::time::SystemTime;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::events::{EventSpec, Events};
use super::signature::Verifier;
use crate::error::{Error, ErrorKind};

/// Sends signed deliveries to one receiver's URL (where its router is mounted).
#[derive(Clone, Debug)]
pub struct Sender {
    url: String,
    verifier: Option<Verifier>,
    http: reqwest::Client,
}

/// One delivery sent: its id, its answer's status, and the delivery itself, to send again.
#[derive(Clone, Debug)]
pub struct Sent {
    /// The delivery's id (what a redelivery repeats).
    pub id: String,
    /// The status the receiver answered.
    pub status: u16,
    /// The event's path under the receiver.
    path: &'static str,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Sender {
    /// A sender to the receiver at `url`, signing as `verifier` checks (none: unsigned).
    pub fn new(url: impl Into<String>, verifier: Option<Verifier>) -> Sender {
        Sender {
            url: url.into(),
            verifier,
            http: reqwest::Client::new(),
        }
    }

    /// Sends `payload` as the event `event` of `events`, signed now.
    pub async fn send(
        &self,
        events: &'static Events,
        event: usize,
        payload: Option<serde_json::Result<Value>>,
    ) -> Result<Sent, Error> {
        let spec = events.events.get(event).ok_or_else(|| {
            Error::fixed(ErrorKind::Encode, "the event is not one of the receiver's")
        })?;
        let body = match payload {
            Some(payload) => body_of(spec, payload)?,
            None => Vec::new(),
        };
        let id = format!("msg_{}", uuid::Uuid::new_v4().simple());
        let mut headers = match &self.verifier {
            Some(verifier) => verifier.sign(&id, SystemTime::now(), &body),
            None => HeaderMap::new(),
        };
        for (name, value) in spec.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                headers.insert(name, value);
            }
        }
        if spec.payload {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        let mut sent = Sent {
            id,
            status: 0,
            path: spec.path,
            headers,
            body,
        };
        sent.status = self.deliver(&sent).await?;
        Ok(sent)
    }

    /// Sends `sent` again, byte for byte, to this sender's receiver (another replica, say), as
    /// a sender redelivers: the status it gets.
    pub async fn resend(&self, sent: &Sent) -> Result<u16, Error> {
        self.deliver(sent).await
    }

    async fn deliver(&self, sent: &Sent) -> Result<u16, Error> {
        let url = match sent.path {
            "/" => self.url.clone(),
            path => format!("{}{path}", self.url.trim_end_matches('/')),
        };
        let answer = self
            .http
            .post(url)
            .headers(sent.headers.clone())
            .body(sent.body.clone())
            .send()
            .await
            .map_err(|e| {
                Error::fixed(ErrorKind::Connect, "the receiver could not be reached").with_source(e)
            })?;
        Ok(answer.status().as_u16())
    }
}

/// The payload's JSON with the fields that name its event filled in; one that holds another
/// value is refused (the receiver would take the delivery for another event).
fn body_of(spec: &EventSpec, payload: serde_json::Result<Value>) -> Result<Vec<u8>, Error> {
    let encode = |e: serde_json::Error| {
        Error::fixed(ErrorKind::Encode, "the event's payload does not encode").with_source(e)
    };
    let mut value = payload.map_err(encode)?;
    for (path, want) in spec.fields {
        set_if_absent(&mut value, path, want)?;
    }
    serde_json::to_vec(&value).map_err(encode)
}

fn set_if_absent(value: &mut Value, path: &str, want: &str) -> Result<(), Error> {
    let mut at = value;
    let mut keys = path.split('.').peekable();
    while let Some(key) = keys.next() {
        let Value::Object(object) = at else {
            return Err(Error::fixed(
                ErrorKind::Encode,
                "the event's payload is not an object where its name goes",
            ));
        };
        if keys.peek().is_none() {
            match object.get(key) {
                None | Some(Value::Null) => {
                    object.insert(key.to_owned(), Value::String(want.to_owned()));
                }
                Some(Value::String(held)) if held == want => {}
                Some(held)
                    if !held.is_string()
                        && serde_json::from_str::<Value>(want).ok().as_ref() == Some(held) => {}
                Some(_) => {
                    return Err(Error::new(
                        ErrorKind::Encode,
                        format!("the event's payload names another event at `{path}`"),
                    ));
                }
            }
            return Ok(());
        }
        at = object
            .entry(key.to_owned())
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
    }
    Ok(())
}

/// What a generated `Event` hands the sender: its index and its payload as JSON.
pub trait Outgoing {
    /// The index of its event.
    fn event(&self) -> usize;
    /// Its payload, if the event has one.
    fn payload(&self) -> Option<serde_json::Result<Value>>;
}

impl Sender {
    /// Sends a generated receiver's `Event`.
    pub async fn send_event(
        &self,
        events: &'static Events,
        event: &impl Outgoing,
    ) -> Result<Sent, Error> {
        self.send(events, event.event(), event.payload()).await
    }
}

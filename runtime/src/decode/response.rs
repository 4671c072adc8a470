//! A whole response, read within the size limit, and the decoders generated methods pick from.

use bytes::{Bytes, BytesMut};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

use crate::error::{Error, ErrorKind};

/// A response whose body has been read completely; or, the answer of a download or a stream,
/// whose body is still to come: its status and headers, and the live response the caller reads
/// the body from. It travels as the call's value, so no step holds it for another.
#[derive(Debug)]
pub struct Response {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body (empty while it is still to come).
    pub body: Bytes,
    /// A download's or a stream's success, its body unread.
    live: Option<Box<reqwest::Response>>,
}

impl Response {
    /// A response of `status`, `headers` and a whole `body`.
    pub fn new(status: StatusCode, headers: HeaderMap, body: Bytes) -> Response {
        Response {
            status,
            headers,
            body,
            live: None,
        }
    }

    /// The answer of a download or a stream: `response`'s status and headers, its body left to
    /// be read from it.
    pub(crate) fn live(response: reqwest::Response) -> Response {
        Response {
            status: response.status(),
            headers: response.headers().clone(),
            body: Bytes::new(),
            live: Some(Box::new(response)),
        }
    }

    /// The live response whose body is still to come; an error for one read whole (a kept
    /// answer, which a download never is).
    pub(crate) fn into_live(self) -> Result<reqwest::Response, Error> {
        self.live
            .map(|live| *live)
            .ok_or_else(|| Error::fixed(ErrorKind::Decode, "the response has no body to stream"))
    }

    /// Reads `response`'s body, failing with `BodyTooLarge` as soon as it passes `limit` bytes
    /// (before reading anything when `Content-Length` already says so), so memory stays bounded.
    pub(crate) async fn read(
        mut response: reqwest::Response,
        limit: u64,
    ) -> Result<Response, Unread> {
        let too_large = || {
            Unread::TooLarge(Error::new(
                ErrorKind::BodyTooLarge,
                format!("the response body is larger than max_response_bytes ({limit} bytes)"),
            ))
        };
        let declared = response.content_length();
        if declared.is_some_and(|len| len > limit) {
            return Err(too_large());
        }
        // One chunk (the common case for small answers) is kept as it is; more are copied into
        // one buffer, pre-sized from Content-Length but never for more than the limit or 64 KiB.
        let mut first: Option<Bytes> = None;
        let mut joined: Option<BytesMut> = None;
        let mut length = 0_u64;
        while let Some(chunk) = response.chunk().await.map_err(Unread::Transport)? {
            length += chunk.len() as u64;
            if length > limit {
                return Err(too_large());
            }
            if let Some(buffer) = &mut joined {
                buffer.extend_from_slice(&chunk);
            } else if let Some(head) = first.take() {
                let capacity = declared.unwrap_or(0).min(limit).min(64 << 10).max(length);
                let mut buffer = BytesMut::with_capacity(usize::try_from(capacity).unwrap_or(0));
                buffer.extend_from_slice(&head);
                buffer.extend_from_slice(&chunk);
                joined = Some(buffer);
            } else {
                first = Some(chunk);
            }
        }
        let body = match joined {
            Some(buffer) => buffer.freeze(),
            None => first.unwrap_or_default(),
        };
        Ok(Response::new(
            response.status(),
            std::mem::take(response.headers_mut()),
            body,
        ))
    }
}

/// Why a body was not read whole.
#[derive(Debug)]
pub(crate) enum Unread {
    /// It is larger than the limit: the error says so.
    TooLarge(Error),
    /// The connection failed while it was read.
    Transport(reqwest::Error),
}

/// A response body with the response headers its method declares (`response_headers:`).
#[derive(Debug, Clone, PartialEq)]
pub struct WithHeaders<B, H> {
    /// The decoded body.
    pub body: B,
    /// The declared headers, typed.
    pub headers: H,
}

/// Decoders: how a generated method turns a successful [`Response`] into its return type.
pub mod decode {
    use super::*;

    /// The body as JSON.
    pub fn json<T: DeserializeOwned>(response: Response) -> Result<T, Error> {
        let strict = serde_json::from_slice(&response.body);
        if strict.is_err()
            && let Some(repaired) = crate::decode::lax::repaired::<T>(&response.body)
        {
            return Ok(repaired);
        }
        strict.map_err(|e| {
            let mut message = format!(
                "the response body is not a valid `{}`",
                short_type_name::<T>()
            );
            match crate::decode::located::locate::<T>(&response.body) {
                // Where and what: the source would say it again, less clearly.
                Some(located) => {
                    message.push_str(": ");
                    message.push_str(&located);
                    Error::new(ErrorKind::Decode, message).with_hidden_source(e)
                }
                None => Error::new(ErrorKind::Decode, message).with_source(e),
            }
        })
    }

    /// The body as UTF-8 text (`as: text`).
    pub fn text(response: Response) -> Result<String, Error> {
        String::from_utf8(response.body.to_vec()).map_err(|e| {
            Error::new(ErrorKind::Decode, "the response body is not UTF-8 text").with_source(e)
        })
    }

    /// [`text`], except that a 404 (`not_found: none`) is `None`.
    pub fn text_or_none(response: Response) -> Result<Option<String>, Error> {
        or_none(response, text)
    }

    /// The error for a success status a method declares no shape for.
    pub fn unexpected_status(response: &Response, expected: &str) -> Error {
        Error::new(
            ErrorKind::Decode,
            format!(
                "unexpected status {}: the method declares {expected}",
                response.status.as_u16()
            ),
        )
    }

    /// A declared response header as type `T`: a number or `true`/`false` as such, anything
    /// else as text; a missing header is `null` (so an `Option` is `None`, anything else an
    /// error).
    pub fn header<T: DeserializeOwned>(response: &Response, name: &str) -> Result<T, Error> {
        let value = match response.headers.get(name) {
            None => serde_json::Value::Null,
            Some(value) => {
                let text = value.to_str().map_err(|_| {
                    Error::new(
                        ErrorKind::Decode,
                        format!("response header `{name}` is not text"),
                    )
                })?;
                // `42` and `true` read as JSON; `W/"abc"` and `a, b` are text.
                serde_json::from_str::<serde_json::Value>(text)
                    .ok()
                    .filter(|v| v.is_number() || v.is_boolean())
                    .unwrap_or_else(|| serde_json::Value::String(text.to_owned()))
            }
        };
        let read = |value: serde_json::Value| serde_json::from_value::<T>(value);
        read(value.clone())
            .or_else(|e| match &value {
                // A number-like text for a `String` field: the text as sent.
                serde_json::Value::Number(_) | serde_json::Value::Bool(_) => {
                    read(serde_json::Value::String(value.to_string())).map_err(|_| e)
                }
                _ => Err(e),
            })
            .map_err(|e| {
                Error::new(
                    ErrorKind::Decode,
                    format!(
                        "response header `{name}` is not a valid `{}`",
                        short_type_name::<T>()
                    ),
                )
                .with_source(e)
            })
    }

    /// The body by `body`, with the declared headers by `headers` next to it.
    pub fn with_headers<B, H>(
        response: Response,
        headers: fn(&Response) -> Result<H, Error>,
        body: fn(Response) -> Result<B, Error>,
    ) -> Result<WithHeaders<B, H>, Error> {
        let headers = headers(&response)?;
        Ok(WithHeaders {
            body: body(response)?,
            headers,
        })
    }

    /// No value: the body is ignored.
    pub fn unit(_response: Response) -> Result<(), Error> {
        Ok(())
    }

    /// The raw body.
    pub fn bytes(response: Response) -> Result<Bytes, Error> {
        Ok(response.body)
    }

    /// [`json`], except that a 404 (`not_found: none`) is `None`.
    pub fn json_or_none<T: DeserializeOwned>(response: Response) -> Result<Option<T>, Error> {
        or_none(response, json)
    }

    /// [`unit`], except that a 404 (`not_found: none`) is `None`.
    pub fn unit_or_none(response: Response) -> Result<Option<()>, Error> {
        or_none(response, unit)
    }

    /// [`bytes`], except that a 404 (`not_found: none`) is `None`.
    pub fn bytes_or_none(response: Response) -> Result<Option<Bytes>, Error> {
        or_none(response, bytes)
    }

    fn or_none<T>(
        response: Response,
        decode: fn(Response) -> Result<T, Error>,
    ) -> Result<Option<T>, Error> {
        if response.status == StatusCode::NOT_FOUND {
            Ok(None)
        } else {
            decode(response).map(Some)
        }
    }

    fn short_type_name<T>() -> String {
        // `alloc::vec::Vec<my_crate::user_client::User>` → `Vec<User>`: keep each path's last part.
        let full = std::any::type_name::<T>();
        let mut out = String::with_capacity(full.len());
        let mut path_start = 0;
        let mut chars = full.chars().peekable();
        while let Some(c) = chars.next() {
            if c == ':' && chars.peek() == Some(&':') {
                chars.next();
                out.truncate(path_start);
            } else {
                out.push(c);
                if !(c.is_alphanumeric() || c == '_') {
                    path_start = out.len();
                }
            }
        }
        out
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn with_header(name: &'static str, value: &'static str) -> Response {
            let mut headers = HeaderMap::new();
            headers.insert(name, reqwest::header::HeaderValue::from_static(value));
            Response::new(StatusCode::OK, headers, Bytes::new())
        }

        #[test]
        fn declared_headers_read_as_their_types() {
            let response = with_header("x-count", "42");
            assert_eq!(header::<u32>(&response, "X-Count").unwrap(), 42);
            assert_eq!(header::<String>(&response, "x-count").unwrap(), "42");
            assert_eq!(header::<Option<i64>>(&response, "x-other").unwrap(), None);
            let missing = header::<String>(&response, "Request-Id").unwrap_err();
            assert_eq!(missing.kind(), ErrorKind::Decode);
            assert!(
                missing
                    .to_string()
                    .contains("`Request-Id` is not a valid `String`")
            );
            let text = with_header("etag", "W/\"1\"");
            assert!(header::<u32>(&text, "etag").is_err());
            assert_eq!(header::<String>(&text, "etag").unwrap(), "W/\"1\"");
        }

        #[test]
        fn type_names_are_short() {
            assert_eq!(
                super::short_type_name::<Vec<std::string::String>>(),
                "Vec<String>"
            );
            assert_eq!(
                super::short_type_name::<std::collections::HashMap<String, Vec<u8>>>(),
                "HashMap<String, Vec<u8>>"
            );
        }
    }
}

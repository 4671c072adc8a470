//! A whole response, read within the size limit, and the decoders generated methods pick from.

use bytes::{Bytes, BytesMut};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

use crate::error::{Error, ErrorKind, from_transport};
use crate::retry::FailedAttempt;

/// A response whose body has been read completely.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Bytes,
}

impl Response {
    /// Reads `response`'s body, failing with `BodyTooLarge` as soon as it passes `limit` bytes
    /// (before reading anything when `Content-Length` already says so), so memory stays bounded.
    pub(crate) async fn read(
        mut response: reqwest::Response,
        limit: u64,
    ) -> Result<Response, FailedAttempt> {
        let too_large = || {
            FailedAttempt::other(Error::new(
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
        while let Some(chunk) = response.chunk().await.map_err(from_transport)? {
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
        Ok(Response {
            status: response.status(),
            headers: std::mem::take(response.headers_mut()),
            body,
        })
    }
}

/// Decoders: how a generated method turns a successful [`Response`] into its return type.
pub mod decode {
    use super::*;

    /// The body as JSON.
    pub fn json<T: DeserializeOwned>(response: Response) -> Result<T, Error> {
        serde_json::from_slice(&response.body).map_err(|e| {
            Error::new(
                ErrorKind::Decode,
                format!(
                    "the response body is not a valid `{}`",
                    short_type_name::<T>()
                ),
            )
            .with_source(e)
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

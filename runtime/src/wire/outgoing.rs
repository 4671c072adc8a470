//! One attempt's request as interceptors see and change it, and which call it belongs to.

use bytes::Bytes;
use reqwest::header::HeaderMap;

/// Which call an attempt belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallInfo {
    /// The client's name, e.g. `UserClient`.
    pub client: &'static str,
    /// The method's spec name, e.g. `get_user`.
    pub method: &'static str,
    /// 1 for the first attempt.
    pub attempt: u32,
}

/// One attempt's request, as interceptors may change it.
#[derive(Debug)]
pub struct Outgoing {
    /// The call it belongs to.
    pub call: CallInfo,
    /// The HTTP method.
    pub http_method: reqwest::Method,
    /// The full URL, query included.
    pub url: reqwest::Url,
    /// The headers so far (profile headers and credentials included).
    pub headers: HeaderMap,
    /// The body, if any.
    pub body: Option<Bytes>,
}

impl Outgoing {
    /// The request to send, built whole: reqwest's builder would merge this header map into an
    /// empty one, entry by entry.
    pub(crate) fn into_request(self) -> reqwest::Request {
        let mut request = reqwest::Request::new(self.http_method, self.url);
        *request.headers_mut() = self.headers;
        *request.body_mut() = self.body.map(reqwest::Body::from);
        request
    }
}

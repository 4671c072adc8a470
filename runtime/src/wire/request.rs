//! The parts of one request, filled in by a generated method before the pipeline runs.

use std::borrow::Cow;

use bytes::Bytes;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;

use crate::error::{Detail, Error, ErrorKind};
use crate::spec::MethodSpec;
use crate::wire::multipart::{Form, Multipart};
use crate::wire::outgoing::{CallInfo, Outgoing};
use crate::wire::params;
use crate::wire::query;
use crate::wire::query::ProfileQuery;

mod headers;
use headers::{add_profile_query, static_header_name};
pub(crate) use headers::{header_name, header_value};

/// Everything but the unreserved characters of RFC 3986: a path parameter stays one segment
/// whatever it holds (`a/b c` → `a%2Fb%20c`).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A request of one method under construction. Builder methods never fail; the first problem is
/// kept and returned when the call runs, before anything is sent. A clone is the next page's
/// request, with its cursor or URL changed.
///
/// Its parts are boxed: a request is moved through every builder call and every layer of the
/// call's future (the generated method, the fallback's, the call's, its run), and a pointer is
/// cheaper to move, and to keep in each layer's state, than its 184 bytes.
#[derive(Debug, Clone)]
pub struct Request {
    parts: Box<Parts>,
}

/// What a [`Request`] holds (nothing outside this crate can read it).
#[derive(Debug, Clone)]
pub struct Parts {
    pub(crate) method: &'static MethodSpec,
    pub(crate) path_params: Vec<(&'static str, String)>,
    /// Names are the spec's (static), or made from them for an object parameter (`filter[a]`).
    pub(crate) query: Vec<(Cow<'static, str>, String)>,
    /// In the order added; a `Vec`, not a `HeaderMap`: they are copied into each attempt's map
    /// anyway, and most requests have none or one.
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    pub(crate) body: Option<Bytes>,
    pub(crate) error: Option<Error>,
    /// Decodes an error response's whole body as the method's declared error type.
    pub(crate) error_detail: Option<DetailDecoder>,
    /// A next page's URL, path and encoded query, sent to the endpoint in place of the method's
    /// path and query.
    pub(crate) next_url: Option<(String, Option<String>)>,
    /// A download or a stream: a success's body is left unread, handed over live in the
    /// answer ([`Response::live`](crate::decode::response::Response)) for the caller to read.
    pub(crate) download: bool,
}

/// How a method's declared error bodies are read: the status and the whole body in, the decoded
/// value out (none for a status it declares nothing for, or a body that does not decode).
pub type DetailDecoder = fn(u16, &[u8]) -> Option<Detail>;

impl std::ops::Deref for Request {
    type Target = Parts;

    fn deref(&self) -> &Parts {
        &self.parts
    }
}

impl std::ops::DerefMut for Request {
    fn deref_mut(&mut self) -> &mut Parts {
        &mut self.parts
    }
}

impl MethodSpec {
    /// A request of this method, to fill with its parameters and hand to the client's `call`.
    pub fn request(&'static self) -> Request {
        Request::new(self)
    }
}

impl Request {
    /// An empty request of `method`.
    pub fn new(method: &'static MethodSpec) -> Request {
        let parts = Parts {
            method,
            path_params: Vec::new(),
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
            error: None,
            error_detail: None,
            next_url: None,
            download: false,
        };
        Request {
            parts: Box::new(parts),
        }
    }

    /// The same request with the query parameter `name` set to `value` alone (a next page's
    /// cursor).
    pub(crate) fn with_query(mut self, name: &'static str, value: String) -> Request {
        // In the place it had, so a next page's URL reads as the first's with one value changed.
        match self.query.iter().position(|(key, _)| key == name) {
            Some(at) => {
                self.query[at].1 = value;
                let mut index = 0;
                self.query.retain(|(key, _)| {
                    index += 1;
                    index - 1 == at || key != name
                });
            }
            None => self.query.push((Cow::Borrowed(name), value)),
        }
        self
    }

    /// The value of the query parameter `name`, when it is sent once.
    pub(crate) fn query_value(&self, name: &str) -> Option<&str> {
        let mut values = self.query.iter().filter(|(key, _)| key == name);
        match (values.next(), values.next()) {
            (Some((_, value)), None) => Some(value),
            _ => None,
        }
    }

    /// The same request sent to `path?query` on the client's endpoints (a next page's URL).
    pub(crate) fn with_next_url(mut self, path: String, query: Option<String>) -> Request {
        self.next_url = Some((path, query));
        self
    }

    /// What tells this page's request from another: its query, next URL and body (where a
    /// `POST …/filter` keeps its offset).
    pub(crate) fn page_pointer(&self) -> String {
        format!("{:?} {:?} {:?}", self.query, self.next_url, self.body)
    }

    /// The same request with the JSON body's field `name` set to `value` (a next page's offset,
    /// page number or cursor, for a method that pages in its body); a body that is no JSON
    /// object fails the request.
    pub(crate) fn with_body_field(mut self, name: &str, value: serde_json::Value) -> Request {
        let body = self.body.as_deref().unwrap_or(b"{}");
        let set = serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .and_then(|mut object| {
                object.as_object_mut()?.insert(name.to_owned(), value);
                serde_json::to_vec(&object).ok()
            });
        match set {
            Some(body) => self.body = Some(Bytes::from(body)),
            None => self.fail(Error::new(
                ErrorKind::Encode,
                format!("the next page's `{name}` goes in the body, which is no JSON object"),
            )),
        }
        self
    }

    /// The JSON body's field `name`, when the body is a JSON object that has it.
    pub(crate) fn body_field(&self, name: &str) -> Option<serde_json::Value> {
        let body: serde_json::Value = serde_json::from_slice(self.body.as_deref()?).ok()?;
        body.get(name).cloned()
    }

    /// Reads error responses' bodies with `decode` (the method's `errors:`), so the caller and the
    /// fallback find them in [`Error::detail`].
    pub fn errors(mut self, decode: DetailDecoder) -> Request {
        self.error_detail = Some(decode);
        self
    }

    /// Fills the `{name}` placeholder of the path template with one percent-encoded segment: a
    /// list is its values comma-separated, as OpenAPI's `simple` style writes it (`red,green`;
    /// a comma inside a value is encoded).
    pub fn path(mut self, name: &'static str, value: impl Serialize) -> Request {
        let mut segment: Option<String> = None;
        let filled = params::each_text(name, &value, |text| {
            if text == "." || text == ".." {
                return Err(Error::new(
                    ErrorKind::Encode,
                    format!("path parameter `{name}` cannot be `{text}`: it would change the path"),
                ));
            }
            let encoded = utf8_percent_encode(text, SEGMENT).to_string();
            match &mut segment {
                Some(segment) => {
                    segment.push(',');
                    segment.push_str(&encoded);
                }
                None => segment = Some(encoded),
            }
            Ok(())
        });
        match (filled, segment) {
            (Ok(()), Some(segment)) => self.path_params.push((name, segment)),
            (Ok(()), None) => self.fail(Error::new(
                ErrorKind::Encode,
                format!("path parameter `{name}` needs a value"),
            )),
            (Err(e), _) => self.fail(e),
        }
        self
    }

    /// Adds `name=value`; nothing for `None`, one pair per element for a sequence.
    pub fn query(mut self, name: &'static str, value: impl Serialize) -> Request {
        let query = &mut self.query;
        if let Err(e) = params::each_text(name, &value, |text| {
            query.push((Cow::Borrowed(name), text.to_owned()));
            Ok(())
        }) {
            self.fail(e);
        }
        self
    }

    /// Adds an object as `name[field]=value` pairs, nested objects and lists likewise
    /// (OpenAPI's `deepObject`); nothing for `None`.
    pub fn query_deep(self, name: &'static str, value: impl Serialize) -> Request {
        self.query_styled(name, &value, query::Style::Deep)
    }

    /// Adds an object's fields as parameters of their own (an exploded form object).
    pub fn query_object(self, name: &'static str, value: impl Serialize) -> Request {
        self.query_styled(name, &value, query::Style::Object)
    }

    /// Adds a list as one comma-separated value, `name=a,b,c` (`explode: false`).
    pub fn query_csv(self, name: &'static str, value: impl Serialize) -> Request {
        self.query_styled(name, &value, query::Style::Comma)
    }

    fn query_styled(
        mut self,
        name: &'static str,
        value: &impl Serialize,
        style: query::Style,
    ) -> Request {
        match query::pairs(name, value, style) {
            Ok(pairs) => self
                .query
                .extend(pairs.into_iter().map(|(k, v)| (Cow::Owned(k), v))),
            Err(e) => self.fail(e),
        }
        self
    }

    /// Adds a header; nothing for `None`. A value with CR, LF or NUL is refused.
    pub fn header(mut self, name: &'static str, value: impl Serialize) -> Request {
        let headers = &mut self.headers;
        let mut parsed = None;
        if let Err(e) = params::each_text(name, &value, |text| {
            let header = match &parsed {
                Some(header) => header,
                None => parsed.insert(static_header_name(name)?),
            };
            headers.push((header.clone(), header_value(name, text)?));
            Ok(())
        }) {
            self.fail(e);
        }
        self
    }

    /// Sends `body` as JSON.
    pub fn json(self, body: impl Serialize) -> Request {
        let encoded = serde_json::to_vec(&body).map_err(|e| {
            Error::new(ErrorKind::Encode, "the body cannot be encoded as JSON").with_source(e)
        });
        self.with_body(encoded.map(Bytes::from), "application/json")
    }

    /// Sends `body` as JSON with the keys of `sets` set to their values (JSON text), whatever
    /// it held: the spec's `body_sets:`, by which the streaming twin of a JSON-or-stream
    /// operation sets the stream flag (`("stream", "true")`) and its JSON twin clears it. A
    /// body that is not an object is sent as it is.
    pub fn json_setting(self, body: impl Serialize, sets: &[(&str, &str)]) -> Request {
        let encoded = serde_json::to_value(&body)
            .and_then(|mut value| {
                if let serde_json::Value::Object(object) = &mut value {
                    for (key, json) in sets {
                        object.insert((*key).to_owned(), serde_json::from_str(json)?);
                    }
                }
                serde_json::to_vec(&value)
            })
            .map_err(|e| {
                Error::new(ErrorKind::Encode, "the body cannot be encoded as JSON").with_source(e)
            });
        self.with_body(encoded.map(Bytes::from), "application/json")
    }

    /// Sends `body` form-encoded (`application/x-www-form-urlencoded`).
    pub fn form(self, body: impl Serialize) -> Request {
        let encoded = serde_urlencoded::to_string(&body).map_err(|e| {
            Error::new(ErrorKind::Encode, "the body cannot be form-encoded").with_source(e)
        });
        self.with_body(
            encoded.map(Bytes::from),
            "application/x-www-form-urlencoded",
        )
    }

    /// Sends raw bytes (`application/octet-stream`).
    pub fn bytes(self, body: &Bytes) -> Request {
        self.with_body(Ok(body.clone()), "application/octet-stream")
    }

    /// Sends text (`text/plain; charset=utf-8`).
    pub fn text(self, body: &str) -> Request {
        self.with_body(
            Ok(Bytes::copy_from_slice(body.as_bytes())),
            "text/plain; charset=utf-8",
        )
    }

    /// Sends `body` as `multipart/form-data`, its parts encoded once for every attempt.
    pub fn multipart(mut self, body: &impl Multipart) -> Request {
        let mut form = Form::default();
        body.parts(&mut form);
        match form.encode() {
            Ok((bytes, content_type)) => match HeaderValue::from_str(&content_type) {
                Ok(value) => {
                    self.headers.push((CONTENT_TYPE, value));
                    self.body = Some(bytes);
                }
                Err(_) => self.fail(Error::new(
                    ErrorKind::Encode,
                    "the multipart content type is not a valid header value",
                )),
            },
            Err(e) => self.fail(e),
        }
        self
    }

    /// Sends the body with this content type instead of its encoding's
    /// (`application/merge-patch+json` for a JSON body, say).
    pub fn content_type(mut self, content_type: &'static str) -> Request {
        match HeaderValue::from_str(content_type) {
            Ok(value) => {
                self.headers.retain(|(name, _)| name != CONTENT_TYPE);
                self.headers.push((CONTENT_TYPE, value));
            }
            Err(_) => self.fail(Error::new(
                ErrorKind::Encode,
                "the content type is not a valid header value",
            )),
        }
        self
    }

    /// Adds the header `name` with a new UUID (v4): one key per logical call, sent unchanged on
    /// every attempt, so a server that applies each key once applies a retried POST once.
    pub fn idempotency_key(mut self, name: &'static str) -> Request {
        match static_header_name(name) {
            Ok(header) => {
                let key = uuid::Uuid::new_v4().hyphenated().to_string();
                // A UUID's text is always a valid header value.
                if let Ok(value) = HeaderValue::from_str(&key) {
                    self.headers.push((header, value));
                }
            }
            Err(e) => self.fail(e),
        }
        self
    }

    fn with_body(mut self, body: Result<Bytes, Error>, content_type: &'static str) -> Request {
        match body {
            Ok(body) => {
                self.headers
                    .push((CONTENT_TYPE, HeaderValue::from_static(content_type)));
                self.body = Some(body);
            }
            Err(e) => self.fail(e),
        }
        self
    }

    fn fail(&mut self, error: Error) {
        self.error.get_or_insert(error);
    }

    /// One attempt of this request to an endpoint, as interceptors see it: the path filled in
    /// (`url` makes the endpoint's URL of a path), the query added, the headers assembled (`host`
    /// is a discovered endpoint's), the credential (when there is one) last.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn outgoing(
        &self,
        call: CallInfo,
        http_method: &reqwest::Method,
        url: impl FnOnce(&str) -> Result<reqwest::Url, Error>,
        host: Option<&HeaderValue>,
        profile_headers: &HeaderMap,
        profile_query: &ProfileQuery,
        credential: Option<HeaderValue>,
    ) -> Result<Outgoing, Error> {
        let mut url = match &self.next_url {
            Some((path, query)) => {
                let mut url = url("")?;
                url.set_path(path);
                url.set_query(query.as_deref());
                url
            }
            None => url(&self.fill_path()?)?,
        };
        if !self.query.is_empty() && self.next_url.is_none() {
            url.query_pairs_mut()
                .extend_pairs(self.query.iter().map(|(k, v)| (k.as_ref(), v.as_str())));
        }
        add_profile_query(&mut url, profile_query);
        let mut headers = self.headers(profile_headers, host);
        if let Some(credential) = credential {
            headers.insert(AUTHORIZATION, credential);
        }
        Ok(Outgoing {
            call,
            http_method: http_method.clone(),
            url,
            headers,
            body: self.body.clone(),
        })
    }

    /// One attempt's headers: the profile's, then the method's header parameters (which replace
    /// a profile header of the same name), then `Host` for a discovered address, which stands in
    /// for the service's name. Credentials and interceptors come after.
    fn headers(&self, profile: &HeaderMap, host: Option<&HeaderValue>) -> HeaderMap {
        // Sized for everything that may follow (Host, Authorization, reqwest's Accept), so the
        // map never grows while it is filled.
        let mut headers = HeaderMap::with_capacity(profile.len() + self.headers.len() + 3);
        for (name, value) in profile {
            headers.append(name.clone(), value.clone());
        }
        for (i, (name, value)) in self.headers.iter().enumerate() {
            // A repeated parameter header keeps every value; the first replaces the profile's.
            if self.headers[..i].iter().any(|(seen, _)| seen == name) {
                headers.append(name.clone(), value.clone());
            } else {
                headers.insert(name.clone(), value.clone());
            }
        }
        if let Some(host) = host {
            headers.insert(HOST, host.clone());
        }
        headers
    }

    /// Fills a path template with the encoded path parameters.
    pub(crate) fn fill_path(&self) -> Result<String, Error> {
        let template = self.method.path;
        let mut out = String::with_capacity(template.len() + 16);
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = rest[open..].find('}').map(|i| open + i).ok_or_else(|| {
                Error::new(
                    ErrorKind::Config,
                    format!("unclosed `{{` in path `{template}`"),
                )
            })?;
            let name = &rest[open + 1..close];
            let value = self
                .path_params
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Encode,
                        format!("path parameter `{name}` has no value"),
                    )
                })?;
            out.push_str(&value.1);
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

#[cfg(test)]
mod tests;

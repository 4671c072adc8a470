//! What a stub answers: rules that match a request of one operation by its path, query and
//! header values, the answer they give, and the requests they saw.
// Without the `stub` feature there is no server to decide with these.
#![cfg_attr(not(feature = "stub"), allow(dead_code))]

use std::collections::HashMap;
use std::time::Duration;

use bytes::Bytes;

use super::compress::Compression;
use super::faults::Fault;
use crate::spec::MethodSpec;

/// A request as the stub received it, with its path parameters taken out of the path.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    /// The operation it matched.
    pub operation: &'static str,
    /// That operation's position in the client's methods ([`MethodSpec::index`]).
    ///
    /// [`MethodSpec::index`]: crate::spec::MethodSpec::index
    pub index: usize,
    /// `GET`, `POST`, …
    pub method: String,
    /// The path as sent, below the client's base path.
    pub path: String,
    /// Path parameters by their spec name, percent-decoded.
    pub path_params: HashMap<String, String>,
    /// Query pairs in order, decoded.
    pub query: Vec<(String, String)>,
    /// Headers, names lower-case, in order.
    pub headers: Vec<(String, String)>,
    /// The body, or its first [`Stub::keep_body_bytes`](super::Stub::keep_body_bytes) bytes
    /// when it was longer (the typed readers below then say so).
    pub body: Bytes,
    /// The body's length as sent.
    pub body_len: usize,
}

impl Recorded {
    /// The first value of query parameter `name`.
    pub fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Path parameter `name` as a `T` (what a generated stub's typed calls read).
    pub fn path_value<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<T, String> {
        let texts: Vec<&str> = self
            .path_params
            .get(name)
            .map(String::as_str)
            .into_iter()
            .collect();
        typed(&texts).map_err(|why| format!("path parameter `{name}`: {why}"))
    }

    /// Query parameter `name` as a `T`: absent is `None` for an `Option`, every value for a list.
    pub fn query_value<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<T, String> {
        let texts: Vec<&str> = self
            .query
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect();
        typed(&texts).map_err(|why| format!("query parameter `{name}`: {why}"))
    }

    /// Header `name` as a `T`, as `query_value` reads a query parameter.
    pub fn header_value<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<T, String> {
        let texts: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect();
        typed(&texts).map_err(|why| format!("header `{name}`: {why}"))
    }

    /// The body as JSON of type `T` (an empty body is `null`: `None` for an `Option`).
    pub fn json_body<T: serde::de::DeserializeOwned>(&self) -> Result<T, String> {
        let body = self.whole_body()?;
        let text: &[u8] = if body.is_empty() { b"null" } else { body };
        serde_json::from_slice(text).map_err(|e| format!("the JSON body: {e}"))
    }

    /// The body as a form (`application/x-www-form-urlencoded`) of type `T`.
    pub fn form_body<T: serde::de::DeserializeOwned>(&self) -> Result<T, String> {
        serde_urlencoded::from_bytes(self.whole_body()?).map_err(|e| format!("the form body: {e}"))
    }

    /// The body as text.
    pub fn text_body(&self) -> Result<String, String> {
        String::from_utf8(self.whole_body()?.to_vec())
            .map_err(|_| "the body is not UTF-8 text".to_owned())
    }

    /// The body, unless the stub kept only a prefix of it.
    fn whole_body(&self) -> Result<&[u8], String> {
        if self.body.len() < self.body_len {
            return Err(format!(
                "the body was {} bytes, of which the stub kept the first {} \
                 (`Stub::keep_body_bytes` keeps more)",
                self.body_len,
                self.body.len()
            ));
        }
        Ok(&self.body)
    }

    /// Keeps at most the first `limit` bytes of the body, in a buffer of their own (a slice
    /// would hold the whole body's).
    pub(crate) fn keep_body_prefix(&mut self, limit: usize) {
        if self.body.len() > limit {
            self.body = Bytes::copy_from_slice(&self.body[..limit]);
        }
    }
}

/// The wire texts of one parameter as a `T`: none is `null`, one is that value, several a list.
/// Each text is tried as what it reads as (`1`, `true`) and, failing that, as a string.
fn typed<T: serde::de::DeserializeOwned>(texts: &[&str]) -> Result<T, String> {
    use serde_json::Value;
    let scalar = |text: &str| {
        serde_json::from_str::<Value>(text)
            .ok()
            .filter(|v| !v.is_object() && !v.is_array())
    };
    let read = |texts: &[&str], as_text: bool| -> Value {
        let one = |text: &&str| match (as_text, scalar(text)) {
            (false, Some(value)) => value,
            _ => Value::String((*text).to_owned()),
        };
        match texts {
            [] => Value::Null,
            [text] => one(text),
            many => Value::Array(many.iter().map(one).collect()),
        }
    };
    // What each text reads as, then each as a string; one text may also be a list of one.
    let mut candidates = vec![read(texts, false), read(texts, true)];
    if texts.len() == 1 {
        candidates.push(Value::Array(vec![read(texts, false)]));
        candidates.push(Value::Array(vec![read(texts, true)]));
    }
    let mut first_error = None;
    for candidate in candidates {
        match serde_json::from_value::<T>(candidate) {
            Ok(value) => return Ok(value),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(match (texts, first_error) {
        ([], _) | (_, None) => "missing".to_owned(),
        (_, Some(e)) => format!("{texts:?} is not one: {e}"),
    })
}

/// Where a value to match is in the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Path(String),
    Query(String),
    Header(String),
    /// The body: equal as JSON when both are JSON, else byte for byte (a replayed call's).
    Body,
}

/// What a matching request gets.
#[derive(Clone, Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Bytes,
    pub(crate) delay: Duration,
    /// A streamed body's events (or lines), each sent as a chunk of its own: the faults
    /// between events count them.
    pub(crate) frames: Option<Vec<Bytes>>,
    /// The entity tag it carries (quoted): a request that names it is answered 304.
    pub(crate) etag: Option<String>,
    /// Whether and how its body goes compressed.
    pub(crate) compression: Option<Compression>,
}

impl Default for Answer {
    fn default() -> Answer {
        Answer {
            status: 200,
            headers: Vec::new(),
            body: Bytes::new(),
            delay: Duration::ZERO,
            frames: None,
            etag: None,
            compression: None,
        }
    }
}

/// What a rule does to the requests it takes.
#[derive(Clone, Debug)]
pub(crate) enum Does {
    Answer(Answer),
    Fault(Fault),
}

/// One stubbed behaviour of an operation (or of all: `operation` `None`).
#[derive(Debug)]
pub(crate) struct Rule {
    pub(crate) operation: Option<&'static MethodSpec>,
    pub(crate) matchers: Vec<(Part, String)>,
    pub(crate) does: Does,
    /// How many more requests it takes; `None`: any number.
    pub(crate) remaining: Option<u32>,
    /// How many it must have taken when the stub is dropped.
    pub(crate) expected: Option<u32>,
    pub(crate) matched: u32,
}

impl Rule {
    pub(crate) fn new(operation: Option<&'static MethodSpec>, does: Does) -> Rule {
        Rule {
            operation,
            matchers: Vec::new(),
            does,
            remaining: None,
            expected: None,
            matched: 0,
        }
    }

    /// Counts a request it took.
    pub(crate) fn took_one(&mut self) {
        self.matched += 1;
        if let Some(n) = &mut self.remaining {
            *n = n.saturating_sub(1);
        }
    }

    /// The first matcher this request of `operation` fails, or `None` when it matches.
    pub(crate) fn mismatch(&self, operation: &MethodSpec, request: &Recorded) -> Option<String> {
        if self
            .operation
            .is_some_and(|own| own.index != operation.index)
        {
            return Some(format!("another operation than `{}`", operation.name));
        }
        if self.remaining == Some(0) {
            return Some("its `times` are used up".to_owned());
        }
        self.matchers.iter().find_map(|(part, wanted)| {
            let (what, got) = match part {
                Part::Path(name) => (
                    format!("path `{name}`"),
                    request.path_params.get(name).map(String::as_str),
                ),
                Part::Query(name) => (format!("query `{name}`"), request.query(name)),
                Part::Header(name) => (format!("header `{name}`"), request.header(name)),
                Part::Body => {
                    return (!same_body(wanted.as_bytes(), &request.body)).then(|| {
                        format!(
                            "the body {}, got {}",
                            crate::error::cut(wanted, 80),
                            crate::error::cut(&String::from_utf8_lossy(&request.body), 80)
                        )
                    });
                }
            };
            (got != Some(wanted.as_str())).then(|| {
                format!(
                    "{what} = {wanted:?}, got {}",
                    got.map_or("none".to_owned(), |g| format!("{g:?}"))
                )
            })
        })
    }
}

/// Whether two bodies are the same: as JSON values when both read as JSON (key order and
/// spacing aside), else byte for byte.
fn same_body(wanted: &[u8], got: &[u8]) -> bool {
    match (
        serde_json::from_slice::<serde_json::Value>(wanted),
        serde_json::from_slice::<serde_json::Value>(got),
    ) {
        (Ok(wanted), Ok(got)) => wanted == got,
        _ => wanted == got,
    }
}

/// The path parameters of `path` under `template` (`/users/{id}`), or `None` when it is not
/// that template's path. One placeholder a segment, with any literal text around it.
pub(crate) fn path_params(template: &str, path: &str) -> Option<HashMap<String, String>> {
    let wanted: Vec<&str> = template.split('/').collect();
    let got: Vec<&str> = path.split('/').collect();
    if wanted.len() != got.len() {
        return None;
    }
    let mut params = HashMap::new();
    for (pattern, segment) in wanted.iter().zip(&got) {
        match (pattern.find('{'), pattern.find('}')) {
            (Some(open), Some(close)) if open < close => {
                let (prefix, suffix) = (&pattern[..open], &pattern[close + 1..]);
                let value = segment.strip_prefix(prefix)?.strip_suffix(suffix)?;
                if value.is_empty() {
                    return None;
                }
                let decoded = percent_encoding::percent_decode_str(value)
                    .decode_utf8_lossy()
                    .into_owned();
                params.insert(pattern[open + 1..close].to_owned(), decoded);
            }
            _ if pattern == segment => {}
            _ => return None,
        }
    }
    Some(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_texts_read_as_the_types_a_spec_names() {
        let recorded = Recorded {
            operation: "op",
            index: 0,
            method: "GET".to_owned(),
            path: "/x/7".to_owned(),
            path_params: HashMap::from([("id".to_owned(), "7".to_owned())]),
            query: vec![
                ("tag".to_owned(), "1".to_owned()),
                ("tag".to_owned(), "b".to_owned()),
                ("code".to_owned(), "007".to_owned()),
                ("on".to_owned(), "true".to_owned()),
                ("n".to_owned(), "7".to_owned()),
            ],
            headers: vec![("x-n".to_owned(), "42".to_owned())],
            body: Bytes::from_static(br#"{"a":1}"#),
            body_len: 7,
        };
        assert_eq!(recorded.path_value::<i64>("id"), Ok(7));
        assert_eq!(recorded.path_value::<String>("id"), Ok("7".to_owned()));
        assert_eq!(
            recorded.query_value::<Vec<String>>("tag"),
            Ok(vec!["1".to_owned(), "b".to_owned()])
        );
        assert_eq!(recorded.query_value::<String>("code"), Ok("007".to_owned()));
        assert_eq!(recorded.query_value::<Option<bool>>("on"), Ok(Some(true)));
        assert_eq!(recorded.query_value::<Option<bool>>("off"), Ok(None));
        assert_eq!(recorded.query_value::<Vec<i64>>("n"), Ok(vec![7]));
        assert_eq!(recorded.header_value::<u32>("X-N"), Ok(42));
        assert!(
            recorded
                .query_value::<i64>("missing")
                .unwrap_err()
                .contains("missing")
        );
        assert!(recorded.path_value::<bool>("id").is_err());
        assert_eq!(
            recorded.json_body::<HashMap<String, i64>>(),
            Ok(HashMap::from([("a".to_owned(), 1)]))
        );
    }

    #[test]
    fn a_path_gives_its_parameters_by_the_templates_names() {
        let params = path_params(
            "/users/{id}/photos/{photo}.png",
            "/users/7/photos/a%20b.png",
        )
        .unwrap();
        assert_eq!(params["id"], "7");
        assert_eq!(params["photo"], "a b");
        assert!(path_params("/users/{id}", "/users/").is_none());
        assert!(path_params("/users/{id}", "/users/7/x").is_none());
        assert!(path_params("/v1/{name}:cancel", "/v1/op1:cancel").is_some());
    }
}

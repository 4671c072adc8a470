//! Recording real exchanges (`record: { file, methods, max_body }`): each answer a recorded
//! method gets is one line of a JSON Lines file — the method, the request as sent, the answer —
//! written by serde (escaped by construction), with what says who asks taken out first:
//! credential headers and every header marked sensitive, cookies, `Set-Cookie`, the profile's
//! secret query parameters and signed URLs' keys. The file is created readable by its owner
//! alone. A recording is what `remcall learn` learns a description's mistakes from, and what
//! the stub replays (`Stub::replay`). A client without `record:` pays one `Option` test an
//! attempt.

use std::io::Write;
use std::sync::Mutex;

use bytes::Bytes;
use remcall_profile::Settings;
use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};

use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};
use crate::wire::outgoing::Outgoing;

/// Headers a recording never holds, whatever their marking.
const NEVER_RECORDED: [&str; 4] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// One recorded exchange, a line of the file: what a replay matches on and answers with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// The client's name.
    pub client: String,
    /// The method's spec name (`get_user`).
    pub method: String,
    /// When the answer came, as an HTTP date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The HTTP verb.
    pub verb: String,
    /// The method's path template below the base path (`/users/{id}`).
    pub route: String,
    /// The path and query as sent (the base path included), secret query values taken out.
    pub url: String,
    /// The request's headers, names lower-case, those that say who asks taken out.
    #[serde(default)]
    pub request_headers: Vec<(String, String)>,
    /// The request's body, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<Body>,
    /// The answer's status.
    pub status: u16,
    /// The answer's headers, names lower-case, `Set-Cookie` taken out.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// The answer's body, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Body>,
}

/// A body as recorded: JSON as its value, anything else as text; cut at `max_body`, in which
/// case it is kept as text and says so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Body {
    /// A JSON body, whole.
    Json(serde_json::Value),
    /// Any other body (its bytes read as UTF-8, lossily).
    Text(String),
    /// A body longer than `max_body`: its first bytes, as text, and its length.
    Cut {
        /// The first `max_body` bytes.
        text: String,
        /// The whole length.
        bytes: u64,
    },
}

impl Body {
    fn of(bytes: &[u8], max: usize) -> Option<Body> {
        if bytes.is_empty() {
            return None;
        }
        if bytes.len() > max {
            return Some(Body::Cut {
                text: String::from_utf8_lossy(&bytes[..max]).into_owned(),
                bytes: bytes.len() as u64,
            });
        }
        Some(match serde_json::from_slice(bytes) {
            Ok(value) => Body::Json(value),
            Err(_) => Body::Text(String::from_utf8_lossy(bytes).into_owned()),
        })
    }

    /// The body's bytes as a replay sends them again.
    pub fn to_bytes(&self) -> Bytes {
        match self {
            Body::Json(value) => Bytes::from(serde_json::to_vec(value).unwrap_or_default()),
            Body::Text(text) | Body::Cut { text, .. } => Bytes::from(text.clone()),
        }
    }
}

/// A client's recording: its file and what goes in.
pub(crate) struct Recorder {
    file: Mutex<std::fs::File>,
    methods: Vec<String>,
    max_body: usize,
    /// The profile's secret query parameters, whose values are taken out.
    secret_query: Vec<String>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("methods", &self.methods)
            .finish_non_exhaustive()
    }
}

/// The request of a recorded attempt, noted before it is sent (sending takes it).
pub(crate) struct Noted {
    verb: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<Body>,
}

impl Recorder {
    /// The recorder `settings` ask for, its file opened (created readable by its owner alone,
    /// appended to), if they ask for one and name a file (an empty name records nothing).
    pub(crate) fn of(settings: &Settings) -> Result<Option<Recorder>, Error> {
        let Some(record) = &settings.record else {
            return Ok(None);
        };
        let path = remcall_profile::vars::expand_env(&record.file)
            .map_err(|e| Error::new(ErrorKind::Config, format!("record.file: {e}")))?;
        // `file: "${REMCALL_RECORD:-}"`: a spec that records only in the runs that set it.
        if path.is_empty() {
            return Ok(None);
        }
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&path).map_err(|e| {
            Error::new(
                ErrorKind::Config,
                format!("record.file: cannot open it for writing: {e}"),
            )
        })?;
        Ok(Some(Recorder {
            file: Mutex::new(file),
            methods: record.methods.clone(),
            max_body: usize::try_from(record.max_body).unwrap_or(usize::MAX),
            secret_query: settings
                .query
                .iter()
                .filter(|(_, def)| def.secret)
                .map(|(name, _)| name.clone())
                .collect(),
        }))
    }

    /// Whether `method`'s exchanges are recorded.
    pub(crate) fn records(&self, method: &str) -> bool {
        self.methods.is_empty() || self.methods.iter().any(|m| m == method)
    }

    /// The request, as recorded.
    pub(crate) fn note(&self, request: &Outgoing) -> Noted {
        let url = &request.url;
        let mut shown = url.path().to_owned();
        if url.query().is_some() {
            let kept: Vec<(String, String)> = url
                .query_pairs()
                .filter(|(name, _)| !self.is_secret_query(name))
                .map(|(name, value)| (name.into_owned(), value.into_owned()))
                .collect();
            if !kept.is_empty() {
                let mut written = url.clone();
                written.query_pairs_mut().clear().extend_pairs(kept);
                shown.push('?');
                shown.push_str(written.query().unwrap_or_default());
            }
        }
        Noted {
            verb: request.http_method.as_str().to_owned(),
            url: shown,
            headers: kept_headers(&request.headers),
            body: request
                .body
                .as_deref()
                .and_then(|body| Body::of(body, self.max_body)),
        }
    }

    fn is_secret_query(&self, name: &str) -> bool {
        crate::wire::query::is_credential_key(name)
            || self.secret_query.iter().any(|key| key == name)
    }

    /// Writes the exchange of `noted` and its `answer`, one line; a failure to write is
    /// logged once per client, never the call's.
    pub(crate) fn write(
        &self,
        client: &str,
        method: &crate::spec::MethodSpec,
        noted: Noted,
        answer: &Response,
    ) {
        let exchange = Exchange {
            client: client.to_owned(),
            method: method.name.to_owned(),
            at: Some(httpdate::fmt_http_date(std::time::SystemTime::now())),
            verb: noted.verb,
            route: method.path.to_owned(),
            url: noted.url,
            request_headers: noted.headers,
            request_body: noted.body,
            status: answer.status.as_u16(),
            headers: kept_headers(&answer.headers),
            body: Body::of(&answer.body, self.max_body),
        };
        let Ok(mut line) = serde_json::to_vec(&exchange) else {
            return;
        };
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(error) = file.write_all(&line) {
            tracing::warn!(target: crate::observe::outlets::log::TARGET, client, %error, "the recording could not be written");
        }
    }
}

/// `headers` as a recording keeps them: names lower-case, values as text, credentials,
/// cookies and every sensitive value taken out.
fn kept_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, value)| !value.is_sensitive() && !NEVER_RECORDED.contains(&name.as_str()))
        .filter_map(|(name, value)| {
            Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
        })
        .collect()
}

/// Reads a recording: one exchange a line (blank lines skipped); a line that is not one is an
/// error naming its number.
pub fn read(text: &str) -> Result<Vec<Exchange>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line)
                .map_err(|e| format!("line {}: not a recorded exchange: {e}", n + 1))
        })
        .collect()
}

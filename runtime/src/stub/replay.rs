//! A recording replayed (`Stub::replay`): each recorded exchange (`remcall::recording`) becomes
//! a rule of its method that matches the recorded call — its path parameters, query pairs and
//! body — and answers with the recorded status, headers and body. Calls recorded alike are
//! answered in their recorded order, the last again after that, and a call recorded with more
//! parameters is tried before one with fewer; a call that matches none is answered 501 naming
//! what the nearest recorded call wanted. A recording is a fixture a test
//! commits; the same file feeds `remcall learn`.

use bytes::Bytes;

use super::Stub;
use super::rules::{Answer, Does, Part, Rule};
use crate::observe::recording::Exchange;

/// Answer headers a replay does not send again: the body it sends is the recorded one, whole
/// and plain, and the stub frames it.
const NOT_REPLAYED: [&str; 4] = [
    "content-length",
    "transfer-encoding",
    "content-encoding",
    "connection",
];

impl Stub {
    /// Answers each recorded call of this stub's client as it was answered; the number of
    /// exchanges taken. An exchange of a method this client does not have is an error naming
    /// it (a recording of another client, or of a method since renamed).
    pub fn replay(&self, exchanges: &[Exchange]) -> Result<usize, String> {
        let spec = self.shared.spec;
        let mut rules = Vec::with_capacity(exchanges.len());
        for (n, exchange) in exchanges.iter().enumerate() {
            let Some(operation) = spec.methods.iter().find(|m| m.name == exchange.method) else {
                return Err(format!(
                    "exchange {}: `{}` is no method of {}",
                    n + 1,
                    crate::error::cut(&exchange.method, 64),
                    spec.name
                ));
            };
            let mut rule = Rule::new(
                Some(*operation),
                Does::Answer(Answer {
                    status: exchange.status,
                    headers: exchange
                        .headers
                        .iter()
                        .filter(|(name, _)| !NOT_REPLAYED.contains(&name.as_str()))
                        .cloned()
                        .collect(),
                    body: exchange
                        .body
                        .as_ref()
                        .map_or_else(Bytes::new, |body| body.to_bytes()),
                    ..Answer::default()
                }),
            );
            rule.matchers = matchers(spec.base_path, operation.path, exchange);
            rules.push(rule);
        }
        // Each answers once, but the last of its kind, which answers every call after.
        for at in 0..rules.len() {
            let again = rules[at + 1..].iter().any(|later| {
                later.operation.map(|o| o.index) == rules[at].operation.map(|o| o.index)
                    && later.matchers == rules[at].matchers
            });
            if again {
                rules[at].remaining = Some(1);
            }
        }
        // The most particular first: a call recorded without a query parameter must not
        // answer one recorded with it (a rule matches on what it names, not on what it lacks).
        rules.sort_by_key(|rule| std::cmp::Reverse(rule.matchers.len()));
        let taken = rules.len();
        self.shared.state().rules.extend(rules);
        Ok(taken)
    }

    /// [`Stub::replay`] of the recording at `path` (JSON Lines, as `record:` writes it).
    pub fn replay_file(&self, path: impl AsRef<std::path::Path>) -> Result<usize, String> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the recording {}: {e}", path.display()))?;
        let exchanges = crate::observe::recording::read(&text)?;
        self.replay(&exchanges)
    }
}

/// What a recorded call is matched by: its path parameters, its query pairs (the first of
/// each name) and its body.
fn matchers(base_path: &str, route: &str, exchange: &Exchange) -> Vec<(Part, String)> {
    let (path, query) = exchange
        .url
        .split_once('?')
        .unwrap_or((exchange.url.as_str(), ""));
    let below = path.strip_prefix(base_path).unwrap_or(path);
    let mut matchers = Vec::new();
    if let Some(params) = super::rules::path_params(route, below) {
        let mut params: Vec<(String, String)> = params.into_iter().collect();
        params.sort();
        matchers.extend(
            params
                .into_iter()
                .map(|(name, value)| (Part::Path(name), value)),
        );
    }
    let mut seen: Vec<String> = Vec::new();
    for (name, value) in url_pairs(query) {
        if !seen.contains(&name) {
            seen.push(name.clone());
            matchers.push((Part::Query(name), value));
        }
    }
    if let Some(body) = &exchange.request_body {
        let bytes = body.to_bytes();
        matchers.push((Part::Body, String::from_utf8_lossy(&bytes).into_owned()));
    }
    matchers
}

/// The pairs of a query string, decoded.
fn url_pairs(query: &str) -> Vec<(String, String)> {
    let Ok(url) = reqwest::Url::parse(&format!("http://replay.invalid/?{query}")) else {
        return Vec::new();
    };
    url.query_pairs()
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect()
}

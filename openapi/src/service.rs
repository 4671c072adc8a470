//! The client's own keys: its name and doc, its base URL (server variables become `${VAR:-default}`)
//! and its credentials (`security.rs`).

use serde_json::Value;

use crate::Options;
use crate::document::Version;
use crate::names;
use crate::walk::Builder;
use remcall_profile::vars;

impl Builder<'_> {
    pub(crate) fn service(&mut self, options: &Options) {
        // What the service part reads of the top, not the whole description (megabytes).
        let root = self.docs.root_value();
        let top: serde_json::Map<String, Value> =
            ["info", "basePath", "host", "schemes", "servers"]
                .into_iter()
                .filter_map(|key| Some((key.to_owned(), root.get(key)?.clone())))
                .collect();
        let top = Value::Object(top);
        let info = top.get("info").cloned().unwrap_or(Value::Null);
        let title = info.get("title").and_then(Value::as_str).unwrap_or("Api");
        self.spec.client = match &options.client {
            Some(client) => client.clone(),
            None => {
                let name = names::type_name(title);
                if name.ends_with("Client") {
                    name
                } else {
                    format!("{name}Client")
                }
            }
        };
        self.taken_types.extend([
            self.spec.client.clone(),
            format!("{}Builder", self.spec.client),
            format!("{}Fallback", self.spec.client),
        ]);
        self.spec.doc = info
            .get("description")
            .or_else(|| info.get("title"))
            .and_then(Value::as_str)
            .map(|d| d.trim().to_owned())
            .filter(|d| !d.is_empty());
        self.spec.base_url = self.base_url(&top).map(|url| self.checked_base_url(url));
        self.client_credentials();
    }

    /// The base URL as the spec writes it, `${<CLIENT>_URL:-<the description's server>}`: the
    /// server's text escaped (`vars::escape`), so no character of it can form a placeholder,
    /// and its variables as placeholders of their own. A server without a host (a Swagger 2.0
    /// `basePath` alone, a relative OpenAPI 3 server) keeps its path as the spec's `base_path`.
    fn base_url(&mut self, top: &Value) -> Option<String> {
        let prefix = names::env_prefix(&self.spec.client);
        let variable = format!("{prefix}_URL");
        if self.docs.version == Version::Swagger2 {
            let base_path = top.get("basePath").and_then(Value::as_str).unwrap_or("");
            let Some(host) = top.get("host").and_then(Value::as_str) else {
                let path = base_path.trim_end_matches('/');
                if path.is_empty() {
                    return None;
                }
                let at = self.docs.top().child("basePath");
                self.relative_server(&at, path, &variable);
                return Some(vars::with_default(&variable, "http://localhost"));
            };
            let scheme = top
                .get("schemes")
                .and_then(Value::as_array)
                .and_then(|s| {
                    s.iter()
                        .filter_map(Value::as_str)
                        .find(|s| *s == "https")
                        .or_else(|| s.first().and_then(Value::as_str))
                })
                .unwrap_or("https");
            let url = format!("{scheme}://{host}{}", base_path.trim_end_matches('/'));
            let url = self.without_query(&url, &self.docs.top().child("host"));
            return Some(vars::with_default(&variable, &url));
        }
        let server = top.get("servers")?.as_array()?.first()?;
        let at = self.docs.top().child("servers").child("0");
        let url = server.get("url")?.as_str()?.trim_end_matches('/');
        let url = self.without_query(url, &at.child("url"));
        if !(url.starts_with("http://") || url.starts_with("https://") || url.starts_with('{')) {
            self.relative_server(&at, &url, &variable);
            return Some(vars::with_default(&variable, "http://localhost"));
        }
        // Each `{name}` of the URL a placeholder of its own, the text between escaped.
        let variables = server.get("variables").and_then(Value::as_object);
        let mut written = String::new();
        let mut rest = url.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|c| open + c) else {
                break;
            };
            let name = &rest[open + 1..close];
            match variables.and_then(|v| v.get(name)) {
                Some(declared) => {
                    written.push_str(&vars::escape(&rest[..open]));
                    let default = declared
                        .get("default")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    // A base URL has no query or fragment, nor does any part of it.
                    let place = at.child("variables").child(name).child("default");
                    let default = self.without_query(default, &place);
                    let var = format!("{prefix}_{}", names::env_prefix(&names::word(name)));
                    written.push_str(&vars::with_default(&var, &default));
                }
                None => written.push_str(&vars::escape(&rest[..=close])),
            }
            rest = &rest[close + 1..];
        }
        written.push_str(&vars::escape(rest));
        Some(format!("${{{variable}:-{written}}}"))
    }

    /// The base URL as written, or, when `check` would refuse it (a server variable's default
    /// that carries credentials, a query, no scheme), the URL it stands for at its defaults,
    /// those parts left out, as one overridable literal (noted).
    fn checked_base_url(&mut self, written: String) -> String {
        if names::base_url_problem(&written).is_none() {
            return written;
        }
        let variable = format!("{}_URL", names::env_prefix(&self.spec.client));
        let resolved = vars::expand(&written, |_| None).unwrap_or_default();
        let mut url = resolved
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
            .to_owned();
        if let Some((scheme, rest)) = url.split_once("://") {
            let end = rest.find('/').unwrap_or(rest.len());
            let host = rest[..end].rsplit('@').next().unwrap_or_default();
            url = format!("{scheme}://{host}{}", &rest[end..]);
        }
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            url = "http://localhost".to_owned();
        }
        let literal = vars::with_default(&variable, &url);
        let fallback = if names::base_url_problem(&literal).is_none() {
            literal
        } else {
            vars::with_default(&variable, "http://localhost")
        };
        let at = self.docs.top().child("servers").child("0");
        self.note(
            &at,
            true,
            format!(
                "the server URL `{resolved}` cannot be a base URL as it is (credentials, a query or no scheme): the client calls ${{{variable}}}, by default `{}`",
                vars::expand(&fallback, |_| None).unwrap_or_default()
            ),
        );
        fallback
    }

    /// A server's URL without a query or fragment, which a base URL cannot carry (noted).
    fn without_query(&mut self, url: &str, at: &crate::document::Place) -> String {
        match url.find(['?', '#']) {
            Some(cut) => {
                self.note(
                    at,
                    true,
                    format!(
                        "the server URL's query or fragment `{}` is left out: a base URL is an origin and a path (add query parameters in a profile's `query:`)",
                        &url[cut..]
                    ),
                );
                url[..cut].trim_end_matches('/').to_owned()
            }
            None => url.to_owned(),
        }
    }

    /// A server given as a path only (served wherever the description is): the path is the
    /// spec's `base_path`, and the user says where the server is.
    fn relative_server(&mut self, at: &crate::document::Place, path: &str, variable: &str) {
        let path = format!("/{}", path.trim_matches('/'));
        if path != "/" {
            self.spec.base_path = Some(path.clone());
        }
        self.note(
            at,
            false,
            format!(
                "the server is given as the path `{path}` with no host: the client calls it under ${variable} (default http://localhost); set it, or `.base_url(..)`"
            ),
        );
    }
}

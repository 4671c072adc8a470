//! Credentials: the security requirement a request must meet becomes profile credentials, every
//! secret a `${VAR}` named after the client. The description's own requirement is the client's
//! profile; an operation that asks for other schemes gets them in its own `config:` (which
//! layers over the client's: its `auth` replaces the client's, its headers and query add).

use remcall_profile::vars;
use serde_json::Value;

use crate::document::{Place, Version};
use crate::names;
use crate::operations::Operation;
use crate::spec::{Auth, MethodOut, Profile};
use crate::walk::Builder;

mod scheme_word;
use scheme_word::scheme_word;

impl Builder<'_> {
    /// The client's credentials: the description's first requirement it can meet.
    pub(crate) fn client_credentials(&mut self) {
        let requirements = self
            .docs
            .root_value()
            .get("security")
            .cloned()
            .unwrap_or(Value::Null);
        let chosen = self
            .requirement(&requirements)
            .or_else(|| self.schemes().keys().next().map(|k| vec![k.clone()]))
            .unwrap_or_default();
        self.spec.profile = self.credentials(&chosen);
        self.client_requirement = chosen;
    }

    /// An operation's own `security`, when it asks for other schemes than the client's: those
    /// schemes in the method's `config:`. An empty requirement (`security: []` or `{}` among
    /// them) asks for nothing, and the client's credentials do no harm.
    pub(crate) fn operation_credentials(&mut self, operation: &Operation, method: &mut MethodOut) {
        let Some(requirements) = operation.value.get("security") else {
            return;
        };
        let optional = requirements.as_array().is_some_and(|r| {
            r.is_empty()
                || r.iter()
                    .any(|r| r.as_object().is_some_and(|o| o.is_empty()))
        });
        if optional {
            return;
        }
        let Some(chosen) = self.requirement(requirements) else {
            return;
        };
        let mut ours = self.client_requirement.clone();
        ours.sort();
        let mut theirs = chosen.clone();
        theirs.sort();
        if ours == theirs {
            return;
        }
        let mut profile = self.credentials(&chosen);
        // A path key's fixed query and a twin's `Accept`, set before, stay.
        if let Some(before) = method.profile.take() {
            profile.fixed_query = before.fixed_query;
            profile.fixed_headers = before.fixed_headers;
        }
        method.profile = Some(profile);
    }

    /// The description's security schemes, by name (the map itself may be a `$ref`).
    fn schemes(&mut self) -> serde_json::Map<String, Value> {
        let top = self.docs.top();
        let (place, value) = match self.docs.version {
            Version::Swagger2 => (top.child("securityDefinitions"), "/securityDefinitions"),
            _ => (
                top.child("components").child("securitySchemes"),
                "/components/securitySchemes",
            ),
        };
        let Some(map) = self.docs.root_value().pointer(value).cloned() else {
            return serde_json::Map::new();
        };
        match self.docs.follow(&place, &map) {
            Ok((_, Value::Object(schemes))) => schemes,
            Ok(_) => serde_json::Map::new(),
            Err(error) => {
                self.unresolved(error, "no credentials are sent");
                serde_json::Map::new()
            }
        }
    }

    /// The first requirement of a `security` list whose schemes are all defined: a requirement
    /// names the schemes a request needs together (an id header and a secret header, say).
    /// Scheme names a requirement asks for that are not defined are kept, for one note.
    fn requirement(&mut self, requirements: &Value) -> Option<Vec<String>> {
        let schemes = self.schemes();
        let listed: Vec<Vec<String>> = requirements
            .as_array()?
            .iter()
            .filter_map(Value::as_object)
            .map(|requirement| requirement.keys().cloned().collect())
            .collect();
        let defined = |r: &&Vec<String>| !r.is_empty() && r.iter().all(|n| schemes.contains_key(n));
        // The first alternative the client can send whole; else the first defined one (what it
        // cannot send is noted where the scheme is read).
        let found = listed
            .iter()
            .filter(defined)
            .find(|r| r.iter().all(|n| self.sendable(&schemes[n])))
            .or_else(|| listed.iter().find(defined))
            .cloned();
        let sendable: Vec<&Vec<String>> = listed
            .iter()
            .filter(defined)
            .filter(|r| r.iter().all(|n| self.sendable(&schemes[n])))
            .collect();
        if let Some(chosen) = &found
            && sendable.len() > 1
        {
            let others: Vec<String> = sendable
                .iter()
                .filter(|r| *r != &chosen)
                .map(|r| format!("`{}`", r.join(" + ")))
                .collect();
            self.security_choices.push(format!(
                "the client sends `{}`; the description also accepts {}: to send another, give the client a profile with those credentials (`auth:`, `headers:`, `query:` or `cookies:`)",
                chosen.join(" + "),
                others.join(", ")
            ));
        }
        let unsendable: Vec<String> = listed
            .iter()
            .filter(defined)
            .filter(|r| Some(*r) != found.as_ref() && !sendable.contains(r))
            .map(|r| format!("`{}`", r.join(" + ")))
            .collect();
        if found.is_some() && !unsendable.is_empty() {
            self.security_choices.push(format!(
                "the description also accepts {}, which the client cannot send as described (a scheme it does not send, or a header or cookie name HTTP cannot carry): add it with an interceptor",
                unsendable.join(", ")
            ));
        }
        if found.is_none() {
            for name in listed.into_iter().flatten() {
                if !schemes.contains_key(&name) {
                    self.undefined_schemes.insert(name);
                }
            }
        }
        found
    }

    /// True when the client can send a scheme's credentials: HTTP bearer or basic, an API key
    /// in a header, the query or a cookie (with a name HTTP can carry), OAuth2.
    fn sendable(&mut self, scheme: &Value) -> bool {
        let scheme = match self.docs.follow(&self.docs.top(), scheme) {
            Ok((_, scheme)) => scheme,
            Err(_) => return false,
        };
        let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
        let http = scheme
            .get("scheme")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        match kind {
            "http" => matches!(http.as_str(), "bearer" | "basic"),
            "basic" | "oauth2" => true,
            "apiKey" => {
                let name = scheme
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("X-Api-Key");
                match scheme.get("in").and_then(Value::as_str) {
                    Some("header" | "cookie") => names::is_header_name(name),
                    Some("query") => true,
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// One note for every scheme a requirement named that the description does not define.
    pub(crate) fn note_undefined_schemes(&mut self) {
        let top = self.docs.top();
        let mut choices = std::mem::take(&mut self.security_choices);
        let mut seen = std::collections::HashSet::new();
        choices.retain(|c| seen.insert(c.clone()));
        for choice in choices {
            self.note(&top, false, choice);
        }
        if self.undefined_schemes.is_empty() {
            return;
        }
        let names: Vec<String> = self
            .undefined_schemes
            .iter()
            .map(|n| format!("`{n}`"))
            .collect();
        let top = self.docs.top();
        self.note(
            &top,
            true,
            format!(
                "security requirements name {} and the description does not define them: no credentials are sent for them; add them with a profile or an interceptor",
                names.join(", ")
            ),
        );
    }

    /// The credentials of the schemes named, together.
    fn credentials(&mut self, names: &[String]) -> Profile {
        let schemes = self.schemes();
        let mut profile = Profile::default();
        for name in names {
            let Some(scheme) = schemes.get(name) else {
                continue;
            };
            match self.docs.follow(&self.scheme_place(name), scheme) {
                Ok((_, scheme)) => self.scheme(name, &scheme, &mut profile),
                Err(error) => self.unresolved(error, "the scheme's credentials are not sent"),
            }
        }
        profile
    }

    /// One security scheme's credentials, each secret from the environment.
    fn scheme(&mut self, chosen: &str, scheme: &Value, profile: &mut Profile) {
        let prefix = names::env_prefix(&self.spec.client);
        let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
        let http = scheme.get("scheme").and_then(Value::as_str).unwrap_or("");
        match (kind, http.to_ascii_lowercase().as_str()) {
            ("http", "bearer") => {
                profile.auth = Some(Auth::Bearer(format!("${{{prefix}_TOKEN}}")));
            }
            ("http", "basic") | ("basic", _) => {
                profile.auth = Some(Auth::Basic(
                    format!("${{{prefix}_USERNAME}}"),
                    format!("${{{prefix}_PASSWORD}}"),
                ));
            }
            ("apiKey", _) => self.api_key(chosen, scheme, profile),
            ("oauth2", _) => profile.auth = Some(self.oauth2(chosen, scheme, &prefix)),
            _ => {
                let message = format!(
                    "security scheme `{chosen}` ({kind}) is not supported; add credentials with an interceptor"
                );
                self.note(&self.scheme_place(chosen), true, message);
            }
        }
    }

    /// An API key's place: a header, a query parameter or a cookie, its value from the
    /// environment; anywhere else is noted.
    fn api_key(&mut self, chosen: &str, scheme: &Value, profile: &mut Profile) {
        let name = scheme
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("X-Api-Key");
        let reference = format!("${{{}}}", self.key_variable(chosen));
        let key = (name.to_owned(), reference.clone());
        match scheme.get("in").and_then(Value::as_str) {
            Some("header") if !names::is_header_name(name) => {
                let message = format!(
                    "security scheme `{chosen}`: `{name}` is not a header name HTTP can send; add the key with an interceptor"
                );
                self.note(&self.scheme_place(chosen), true, message);
            }
            Some("header") => match scheme_word(scheme) {
                // `Authorization: Token <key>`: the word the description says goes first.
                Some(word) => profile
                    .headers
                    .push((name.to_owned(), format!("{word} {reference}"))),
                None => profile.headers.push(key),
            },
            Some("query") => profile.query.push(key),
            Some("cookie") if names::is_header_name(name) => profile.cookies.push(key),
            other => {
                let message = format!(
                    "security scheme `{chosen}`: an API key in the {} is not supported; add it with an interceptor",
                    other.unwrap_or("?")
                );
                self.note(&self.scheme_place(chosen), true, message);
            }
        }
    }

    /// OAuth2 client credentials (3.x `flows.clientCredentials`, 2.0 `flow: application`); any
    /// other flow hands the client a token, so a bearer token it is.
    fn oauth2(&mut self, chosen: &str, scheme: &Value, prefix: &str) -> Auth {
        let flow = scheme
            .pointer("/flows/clientCredentials")
            .cloned()
            .or_else(|| {
                (scheme.get("flow").and_then(Value::as_str) == Some("application"))
                    .then(|| scheme.clone())
            });
        let token_url = flow
            .as_ref()
            .and_then(|f| f.get("tokenUrl"))
            .and_then(Value::as_str);
        match token_url {
            Some(token_url) => Auth::OAuth2 {
                token_url: self.token_url(token_url, &self.scheme_place(chosen)),
                client_id: format!("${{{prefix}_CLIENT_ID}}"),
                client_secret: format!("${{{prefix}_CLIENT_SECRET}}"),
                scopes: flow
                    .as_ref()
                    .and_then(|f| f.get("scopes"))
                    .and_then(Value::as_object)
                    .map(|s| s.keys().cloned().collect())
                    .unwrap_or_default(),
            },
            None => Auth::Bearer(format!("${{{prefix}_TOKEN}}")),
        }
    }

    /// The variable an API key scheme's secret comes from: the first scheme met is
    /// `CLIENT_API_KEY`, any other is named after itself (`CLIENT_APP_SECRET`); the same scheme
    /// is the same variable wherever it is asked for.
    fn key_variable(&mut self, scheme: &str) -> String {
        if let Some(known) = self.key_variables.get(scheme) {
            return known.clone();
        }
        let prefix = names::env_prefix(&self.spec.client);
        let variable = if self.key_variables.is_empty() {
            format!("{prefix}_API_KEY")
        } else {
            format!("{prefix}_{}", names::env_prefix(&names::word(scheme)))
        };
        self.key_variables
            .insert(scheme.to_owned(), variable.clone());
        variable
    }

    /// A URL a scheme gives (`/v1/oauth2/token`), made absolute as the specification says:
    /// against the origin of the description's first server (its variables at their
    /// defaults), and from `${CLIENT_<NAME>}` when set; with no server to resolve it against,
    /// that variable must be set.
    /// The token URL as the spec writes it: overridable from `${<CLIENT>_TOKEN_URL}` as the
    /// base URL is from its variable, and noted when the client's secret would go over plain
    /// HTTP or to another host than the API's.
    fn token_url(&mut self, url: &str, place: &Place) -> String {
        let (written, resolved) = self.absolute_url(url, "TOKEN_URL");
        let host = |url: &str| {
            let rest = url.split_once("://")?.1;
            let authority = rest.split(['/', '?', '#']).next()?;
            Some(authority.rsplit('@').next()?.to_ascii_lowercase())
        };
        let variable = format!("{}_TOKEN_URL", names::env_prefix(&self.spec.client));
        let resolved = resolved.unwrap_or_default();
        if resolved.starts_with("http://") {
            let message = format!(
                "the token URL `{resolved}` is plain HTTP: the client's secret would cross the network readable; set ${{{variable}}} to an https one"
            );
            self.note(place, false, message);
        }
        let api = self.server_url().and_then(|server| host(&server));
        if let (Some(token_host), Some(api_host)) = (host(&resolved), api)
            && token_host != api_host
        {
            let message = format!(
                "the token URL's host `{token_host}` is not the API's (`{api_host}`): the client's secret goes there, so check it is the provider's (or set ${{{variable}}})"
            );
            self.note(place, false, message);
        }
        written
    }

    /// The description's first server, variables filled with their defaults (2.0: its `host`).
    fn server_url(&self) -> Option<String> {
        let top = self.docs.root_value();
        match self.docs.version {
            Version::Swagger2 => top.get("host").and_then(Value::as_str).map(|host| {
                let https = top
                    .get("schemes")
                    .and_then(Value::as_array)
                    .is_none_or(|s| s.iter().any(|s| s == "https"));
                format!("{}://{host}", if https { "https" } else { "http" })
            }),
            _ => top.pointer("/servers/0").and_then(|server| {
                let mut text = server.get("url")?.as_str()?.to_owned();
                let variables = server.get("variables").and_then(Value::as_object);
                for (variable, spec) in variables.into_iter().flatten() {
                    let default = spec.get("default").and_then(Value::as_str).unwrap_or("");
                    text = text.replace(&format!("{{{variable}}}"), default);
                }
                text.contains("://").then_some(text)
            }),
        }
    }

    /// The URL as the spec writes it (`${<CLIENT>_<NAME>:-<url>}`, the URL's text escaped so
    /// none of it can form a placeholder), and the URL it stands for when the variable is
    /// unset (none, when nothing says what a relative URL is relative to).
    fn absolute_url(&mut self, url: &str, name: &str) -> (String, Option<String>) {
        let prefix = names::env_prefix(&self.spec.client);
        let variable = format!("{prefix}_{name}");
        let resolved = if url.contains("://") {
            Some(url.to_owned())
        } else {
            let server = self.server_url();
            server.map(|server| {
                let after_scheme = server.find("://").map_or(0, |i| i + 3);
                let end = server[after_scheme..]
                    .find('/')
                    .map_or(server.len(), |i| after_scheme + i);
                let origin = &server[..end];
                match url.strip_prefix('/') {
                    Some(path) => format!("{origin}/{path}"),
                    None => format!("{origin}/{url}"),
                }
            })
        };
        match resolved {
            Some(resolved) => (vars::with_default(&variable, &resolved), Some(resolved)),
            None => {
                let top = self.docs.top();
                self.note(
                    &top,
                    false,
                    format!("the URL `{url}` is relative and no server says to what: set ${{{variable}}}"),
                );
                (format!("${{{variable}}}"), None)
            }
        }
    }

    /// Where a security scheme is defined.
    fn scheme_place(&self, name: &str) -> Place {
        let top = self.docs.top();
        match self.docs.version {
            Version::Swagger2 => top.child("securityDefinitions").child(name),
            _ => top.child("components").child("securitySchemes").child(name),
        }
    }
}

#[cfg(test)]
mod tests;

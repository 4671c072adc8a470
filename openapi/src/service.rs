//! The client's own keys: its name and doc, its base URL (server variables become `${VAR:-default}`)
//! and its credentials (every secret a `${VAR}` named after the client).

use serde_json::Value;

use crate::Options;
use crate::document::Version;
use crate::names;
use crate::spec::{Auth, Builder};

impl Builder<'_> {
    pub(crate) fn service(&mut self, options: &Options) {
        let top = self.docs.root_value().clone();
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
        self.spec.base_url = self.base_url(&top);
        self.credentials(&top);
    }

    fn base_url(&mut self, top: &Value) -> Option<String> {
        let prefix = names::env_prefix(&self.spec.client);
        if self.docs.version == Version::Swagger2 {
            let host = top.get("host").and_then(Value::as_str)?;
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
            let base_path = top.get("basePath").and_then(Value::as_str).unwrap_or("");
            let url = format!("{scheme}://{host}{}", base_path.trim_end_matches('/'));
            return Some(format!("${{{prefix}_URL:-{url}}}"));
        }
        let server = top.get("servers")?.as_array()?.first()?;
        let mut url = server
            .get("url")?
            .as_str()?
            .trim_end_matches('/')
            .to_owned();
        for (name, variable) in server
            .get("variables")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let default = variable
                .get("default")
                .and_then(Value::as_str)
                .unwrap_or("");
            let var = format!("{prefix}_{}", names::env_prefix(&names::word(name)));
            url = url.replace(&format!("{{{name}}}"), &format!("${{{var}:-{default}}}"));
        }
        if url.starts_with("http://") || url.starts_with("https://") || url.starts_with("${") {
            Some(format!("${{{prefix}_URL:-{url}}}"))
        } else {
            // A server relative to wherever the description is served: the user says where.
            let at = self.docs.top().child("servers").child("0");
            self.note(
                &at,
                false,
                format!("the server URL `{url}` is relative: set the base URL with ${prefix}_URL or `.base_url(..)`"),
            );
            Some(format!("${{{prefix}_URL:-http://localhost{url}}}"))
        }
    }

    /// The security scheme the description asks for first, as profile credentials.
    fn credentials(&mut self, top: &Value) {
        let schemes = top
            .pointer("/components/securitySchemes")
            .or_else(|| top.get("securityDefinitions"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        // A requirement names the schemes a request needs together (an id header and a secret
        // header, say): the first the description lists whose schemes are all defined.
        let requirements: Vec<Vec<String>> = top
            .get("security")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .map(|requirement| requirement.keys().cloned().collect())
            .collect();
        let chosen: Vec<String> = requirements
            .into_iter()
            .find(|r: &Vec<String>| !r.is_empty() && r.iter().all(|n| schemes.contains_key(n)))
            .or_else(|| schemes.keys().next().map(|k| vec![k.clone()]))
            .unwrap_or_default();
        for name in chosen {
            let place = self.scheme_place(&name);
            match self.docs.follow(&place, &schemes[&name]) {
                Ok((_, scheme)) => self.scheme(&name, &scheme),
                Err(error) => self.unresolved(error, "the scheme's credentials are not sent"),
            }
        }
    }

    /// One security scheme's credentials, each secret from the environment.
    fn scheme(&mut self, chosen: &str, scheme: &Value) {
        let prefix = names::env_prefix(&self.spec.client);
        let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
        let http = scheme.get("scheme").and_then(Value::as_str).unwrap_or("");
        match (kind, http.to_ascii_lowercase().as_str()) {
            ("http", "bearer") => {
                self.spec.profile.auth = Some(Auth::Bearer(format!("${{{prefix}_TOKEN}}")));
            }
            ("http", "basic") | ("basic", _) => {
                self.spec.profile.auth = Some(Auth::Basic(
                    format!("${{{prefix}_USERNAME}}"),
                    format!("${{{prefix}_PASSWORD}}"),
                ));
            }
            ("apiKey", _) => {
                let name = scheme
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("X-Api-Key");
                // The first key is `CLIENT_API_KEY`; another that a request needs beside it is
                // named after its scheme.
                let taken = self.spec.profile.headers.len() + self.spec.profile.query.len();
                let var = if taken == 0 {
                    format!("{prefix}_API_KEY")
                } else {
                    format!("{prefix}_{}", names::env_prefix(&names::word(chosen)))
                };
                let key = (name.to_owned(), format!("${{{var}}}"));
                match scheme.get("in").and_then(Value::as_str) {
                    Some("header") => self.spec.profile.headers.push(key),
                    Some("query") => self.spec.profile.query.push(key),
                    other => {
                        let message = format!(
                            "security scheme `{chosen}`: an API key in the {} is not supported; add it with an interceptor",
                            other.unwrap_or("?")
                        );
                        self.note(&self.scheme_place(chosen), true, message);
                    }
                }
            }
            ("oauth2", _) => {
                // Client credentials: 3.x `flows.clientCredentials`, 2.0 `flow: application`.
                let flow = scheme
                    .pointer("/flows/clientCredentials")
                    .cloned()
                    .or_else(|| {
                        (scheme.get("flow").and_then(Value::as_str) == Some("application"))
                            .then(|| scheme.clone())
                    });
                match flow
                    .as_ref()
                    .and_then(|f| f.get("tokenUrl"))
                    .and_then(Value::as_str)
                {
                    Some(token_url) => {
                        let scopes = flow
                            .as_ref()
                            .and_then(|f| f.get("scopes"))
                            .and_then(Value::as_object)
                            .map(|s| s.keys().cloned().collect())
                            .unwrap_or_default();
                        self.spec.profile.auth = Some(Auth::OAuth2 {
                            token_url: token_url.to_owned(),
                            client_id: format!("${{{prefix}_CLIENT_ID}}"),
                            client_secret: format!("${{{prefix}_CLIENT_SECRET}}"),
                            scopes,
                        });
                    }
                    // Any other flow hands the client a token: a bearer token it is.
                    None => {
                        self.spec.profile.auth = Some(Auth::Bearer(format!("${{{prefix}_TOKEN}}")));
                    }
                }
            }
            _ => {
                let message = format!(
                    "security scheme `{chosen}` ({kind}) is not supported; add credentials with an interceptor"
                );
                self.note(&self.scheme_place(chosen), true, message);
            }
        }
    }

    /// Where a security scheme is defined.
    fn scheme_place(&self, name: &str) -> crate::document::Place {
        let top = self.docs.top();
        match self.docs.version {
            Version::Swagger2 => top.child("securityDefinitions").child(name),
            _ => top.child("components").child("securitySchemes").child(name),
        }
    }
}

//! The client's own keys: its name and doc, its base URL (server variables become `${VAR:-default}`)
//! and its credentials (`security.rs`).

use serde_json::Value;

use crate::Options;
use crate::document::Version;
use crate::names;
use crate::spec::Builder;

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
        self.client_credentials();
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
}

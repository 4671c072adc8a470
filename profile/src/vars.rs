//! `${VAR}` and `${VAR:-default}` placeholders, resolved when a client is built, never at
//! generation time, so no environment value is ever written into generated code.

/// A placeholder whose variable is unset and has no default.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
// No advice to write a default: for a secret that would put it into generated code. The
// build-time check (the runtime's `environment`) gives advice that knows which field it is.
#[error("environment variable `{0}` is not set and has no default")]
pub struct MissingVar(pub String);

/// Checks placeholder syntax; the error says what is wrong, for a diagnostic.
pub fn check(text: &str) -> Result<(), String> {
    expand_with(text, |_| Some(String::new()))
        .map(|_| ())
        .map_err(|e| match e {
            ExpandError::Syntax(message) => message,
            ExpandError::Missing(var) => MissingVar(var).to_string(),
        })
}

/// True when `text` is exactly one reference, `${NAME}`, with no default and nothing around it:
/// the only form a secret may take in a spec, since the spec's profile is written into generated
/// code (a default or a prefix would be the secret, or part of it, written out).
pub fn is_reference(text: &str) -> bool {
    text.strip_prefix("${")
        .and_then(|rest| rest.strip_suffix('}'))
        .is_some_and(|name| {
            let mut chars = name.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// A secret as a profile's serialised form shows it: a `${NAME}` reference as it is (generated
/// code needs it), anything else as `<redacted>`.
pub fn shown_secret(text: &str) -> &str {
    if is_reference(text) {
        text
    } else {
        "<redacted>"
    }
}

/// True when the text holds at least one placeholder.
pub fn has_placeholder(text: &str) -> bool {
    text.contains("${")
}

/// Replaces each placeholder with the variable's value from `lookup`, or its default.
pub fn expand(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, MissingVar> {
    expand_with(text, lookup).map_err(|e| match e {
        // Syntax is checked at generation time; a runtime profile with bad syntax names the text.
        ExpandError::Syntax(message) => MissingVar(message),
        ExpandError::Missing(var) => MissingVar(var),
    })
}

/// [`expand`] against the process environment.
pub fn expand_env(text: &str) -> Result<String, MissingVar> {
    expand(text, |name| std::env::var(name).ok())
}

/// The variables `text` names that `lookup` does not know and that have no default, each once,
/// in order. Malformed placeholders are left to [`check`].
pub fn missing(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let inner = &after[..end];
        if !inner.contains(":-")
            && is_var_name(inner)
            && lookup(inner).is_none()
            && !found.iter().any(|f| f == inner)
        {
            found.push(inner.to_owned());
        }
        rest = &after[end + 1..];
    }
    found
}

/// A setting that may hold `${VAR}`s: where it sits (`auth.oauth2.client_secret`,
/// `headers.X-Api-Key`), its text, and whether it is a secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarField<'a> {
    /// The key's dotted path in a profile.
    pub key: String,
    /// The text as written.
    pub text: &'a str,
    /// A secret: a default for it would be written into generated code.
    pub secret: bool,
}

impl crate::Settings {
    /// Every setting resolved from the environment when a client is built.
    pub fn var_fields(&self) -> Vec<VarField<'_>> {
        use crate::Auth;
        fn field(key: String, text: &str, secret: bool) -> VarField<'_> {
            VarField { key, text, secret }
        }
        let mut fields = Vec::new();
        match &self.auth {
            Some(Auth::Bearer(b)) => fields.push(field("auth.bearer.token".into(), &b.token, true)),
            Some(Auth::Basic(b)) => {
                fields.push(field("auth.basic.username".into(), &b.username, false));
                fields.push(field("auth.basic.password".into(), &b.password, true));
            }
            Some(Auth::Oauth2(o)) => {
                fields.push(field("auth.oauth2.token_url".into(), &o.token_url, false));
                fields.push(field("auth.oauth2.client_id".into(), &o.client_id, false));
                fields.push(field(
                    "auth.oauth2.client_secret".into(),
                    &o.client_secret,
                    true,
                ));
                for (name, value) in &o.params {
                    fields.push(field(format!("auth.oauth2.params.{name}"), value, false));
                }
            }
            None => {}
        }
        for (name, def) in &self.headers {
            fields.push(field(format!("headers.{name}"), &def.value, def.secret));
        }
        for (name, def) in &self.query {
            fields.push(field(format!("query.{name}"), &def.value, def.secret));
        }
        // A Redis URL may carry a password: it is resolved, checked and shown like one.
        if let Some(shared) = &self.rate_limit.as_ref().and_then(|r| r.shared.as_ref()) {
            fields.push(field("rate_limit.shared.redis".into(), &shared.redis, true));
        }
        if let Some(shared) = &self.retry.budget_shared {
            fields.push(field(
                "retry.budget.shared.redis".into(),
                &shared.redis,
                true,
            ));
        }
        let tls = &self.tls;
        for (key, path) in [
            ("tls.ca_file", &tls.ca_file),
            ("tls.client_cert", &tls.client_cert),
            ("tls.client_key", &tls.client_key),
        ] {
            if let Some(path) = path {
                fields.push(field(key.into(), path, false));
            }
        }
        fields
    }
}

enum ExpandError {
    Syntax(String),
    Missing(String),
}

fn expand_with(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or_else(|| {
            ExpandError::Syntax(format!(
                "unclosed `${{` in `{text}`: write ${{NAME}} or ${{NAME:-default}}"
            ))
        })?;
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if !is_var_name(name) {
            return Err(ExpandError::Syntax(format!(
                "`${{{inner}}}` is not a valid placeholder: a variable name is letters, digits and `_`, not starting with a digit"
            )));
        }
        match lookup(name).or_else(|| default.map(str::to_owned)) {
            Some(value) => out.push_str(&value),
            None => return Err(ExpandError::Missing(name.to_owned())),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "HOST").then(|| "example.test".to_owned())
    }

    #[test]
    fn expands_variables_and_defaults() {
        assert_eq!(
            expand("http://${HOST}:80", env).unwrap(),
            "http://example.test:80"
        );
        assert_eq!(expand("${PORT:-8080}", env).unwrap(), "8080");
        assert_eq!(expand("${HOST:-x}", env).unwrap(), "example.test");
        assert_eq!(expand("no vars $HOME", env).unwrap(), "no vars $HOME");
    }

    #[test]
    fn a_missing_variable_is_named() {
        let err = expand("${CLIENT_SECRET}", env).unwrap_err();
        assert_eq!(err.0, "CLIENT_SECRET");
        assert!(err.to_string().contains("`CLIENT_SECRET` is not set"));
    }

    #[test]
    fn missing_lists_every_unset_variable_without_a_default_once() {
        assert_eq!(
            missing("${A}/${HOST}/${B:-b}/${C}/${A}/${1X}/${D", env),
            ["A", "C"]
        );
        assert!(missing("plain", env).is_empty());
    }

    #[test]
    fn malformed_placeholders_are_reported() {
        assert!(check("${HOST").unwrap_err().contains("unclosed"));
        assert!(
            check("${1X}")
                .unwrap_err()
                .contains("not a valid placeholder")
        );
        assert!(check("${}").is_err());
        assert!(check("${A_1:-x} and ${B}").is_ok());
    }
}

//! `${VAR}` and `${VAR:-default}` placeholders, resolved when a client is built, never at
//! generation time, so no environment value is ever written into generated code.

/// A placeholder whose variable is unset and has no default.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "environment variable `{0}` is not set and has no default (write ${{{0}:-default}} to give one)"
)]
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

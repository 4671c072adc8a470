//! A secret as a profile holds it: a credential, or the `${VAR}` that names one. It is never
//! formatted: `Debug` writes `***`, there is no `Display`, and serializing writes a `${VAR}`
//! reference as it is and anything else as `<redacted>`. Only the client reads it, expanding
//! its variables when it is built.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Layer;
use crate::vars;

/// A credential, or the `${VAR}` that names one (a token, a password, a client secret, the
/// fleet's key). Read from YAML or a service's configuration it is the text as written, whose
/// `${VAR}`s the client expands; made in code, [`Secret::value`] is taken as it is and
/// [`Secret::from_env`] names a variable.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// The secret `value` itself, taken literally: a `$` or `${` in it is no variable. An empty
    /// (or blank) value is refused: sent, it would be a header with no credential in it
    /// (`Authorization: Bearer `).
    pub fn value(value: impl AsRef<str>) -> Result<Secret, crate::ProfileError> {
        let value = value.as_ref();
        if value.trim().is_empty() {
            return Err(crate::ProfileError(
                "a secret is empty: give the credential itself, or `Secret::from_env` to name its variable".into(),
            ));
        }
        Ok(Secret(vars::escape(value)))
    }

    /// The value of the environment variable `name` when the client is built (`${name}`); the
    /// build fails naming it when it is unset or empty.
    pub fn from_env(name: &str) -> Secret {
        Secret(format!("${{{name}}}"))
    }

    /// Text as a profile writes it: `${VAR}`s are expanded when the client is built.
    pub fn template(text: impl Into<String>) -> Secret {
        Secret(text.into())
    }

    /// The text as a profile writes it (`${VAR}`s unexpanded, literal text escaped), for the
    /// client that expands it. Never log it.
    pub fn expose_template(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Secret {
    /// As YAML writes it (see [`Secret::template`]).
    fn from(text: &str) -> Secret {
        Secret::template(text)
    }
}

impl From<String> for Secret {
    /// As YAML writes it (see [`Secret::template`]).
    fn from(text: String) -> Secret {
        Secret::template(text)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"***\"")
    }
}

impl Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(vars::shown_secret(&self.0))
    }
}

impl Layer for Secret {
    fn layer(self, over: Self) -> Self {
        over
    }
}

#[cfg(test)]
mod tests {
    use super::Secret;

    #[test]
    fn a_secret_is_never_shown_and_a_literal_value_is_no_variable() {
        let literal = Secret::value("p${a}ss}").unwrap();
        assert_eq!(format!("{literal:?}"), "\"***\"");
        let expanded = crate::vars::expand(literal.expose_template(), |_| Some("X".into()));
        assert_eq!(expanded.unwrap(), "p${a}ss}");
        let named = Secret::from_env("API_KEY");
        let expanded = crate::vars::expand(named.expose_template(), |name| {
            (name == "API_KEY").then(|| "k3y".to_owned())
        });
        assert_eq!(expanded.unwrap(), "k3y");
        assert!(
            serde_yaml::to_string(&named)
                .unwrap()
                .contains("${API_KEY}")
        );
        assert!(
            serde_yaml::to_string(&literal)
                .unwrap()
                .contains("<redacted>")
        );
    }
}

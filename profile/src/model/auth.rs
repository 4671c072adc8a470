//! Credentials: bearer, basic and OAuth2 client credentials. `Debug` never shows a secret.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Secret, one_of};
use crate::units::duration;

/// Credentials a client adds to each request. `Debug` never shows a secret.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(try_from = "AuthRepr", into = "AuthRepr")]
pub enum Auth {
    /// `Authorization: Bearer <token>`.
    Bearer(Bearer),
    /// `Authorization: Basic …`.
    Basic(Basic),
    /// OAuth2 client credentials.
    Oauth2(OAuth2),
}

/// Bearer-token settings.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Bearer {
    /// The token, usually `${TOKEN}`.
    pub token: Secret,
}

/// Basic-auth settings.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Basic {
    /// User name.
    pub username: String,
    /// Password, usually `${PASSWORD}`.
    pub password: Secret,
}

/// OAuth2 client-credentials settings.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OAuth2 {
    /// The token endpoint.
    pub token_url: String,
    /// The client id.
    pub client_id: String,
    /// The client secret, usually `${CLIENT_SECRET}`.
    pub client_secret: Secret,
    /// Scopes requested.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Extra form parameters of the token request (e.g. `audience`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, String>,
    /// How the client authenticates to the token endpoint: `basic` (an Authorization header, the
    /// default) or `body` (client_id and client_secret in the form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_auth: Option<ClientAuth>,
    /// A token is refreshed this long before it expires (default 30s).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "duration")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::units::DurationText>")
    )]
    pub refresh_before: Option<Duration>,
}

/// OAuth2 client authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClientAuth {
    /// HTTP Basic with client id and secret.
    Basic,
    /// `client_id` and `client_secret` form fields.
    Body,
}

impl Auth {
    /// The values that are secrets, with the field they sit in (for checks and redaction).
    pub fn secrets(&self) -> Vec<(&'static str, &str)> {
        match self {
            Auth::Bearer(b) => vec![("token", b.token.expose_template())],
            Auth::Basic(b) => vec![("password", b.password.expose_template())],
            Auth::Oauth2(o) => vec![("client_secret", o.client_secret.expose_template())],
        }
    }
}

impl fmt::Debug for Bearer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bearer")
            .field("token", &"<redacted>")
            .finish()
    }
}

impl fmt::Debug for Basic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Basic")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

impl fmt::Debug for OAuth2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth2")
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("scopes", &self.scopes)
            .field("params", &self.params.keys().collect::<Vec<_>>())
            .field("client_auth", &self.client_auth)
            .field("refresh_before", &self.refresh_before)
            .finish()
    }
}

#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct AuthRepr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bearer: Option<Bearer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    basic: Option<Basic>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    oauth2: Option<OAuth2>,
}

impl TryFrom<AuthRepr> for Auth {
    type Error = String;
    fn try_from(r: AuthRepr) -> Result<Self, String> {
        one_of(
            &[
                ("bearer", r.bearer.map(Auth::Bearer)),
                ("basic", r.basic.map(Auth::Basic)),
                ("oauth2", r.oauth2.map(Auth::Oauth2)),
            ],
            "auth",
        )
    }
}

impl From<Auth> for AuthRepr {
    fn from(auth: Auth) -> Self {
        let mut repr = AuthRepr {
            bearer: None,
            basic: None,
            oauth2: None,
        };
        match auth {
            Auth::Bearer(b) => repr.bearer = Some(b),
            Auth::Basic(b) => repr.basic = Some(b),
            Auth::Oauth2(o) => repr.oauth2 = Some(o),
        }
        repr
    }
}

//! The Redis URL of the fleet's stores (`rate_limit.shared`, `cache.shared`, …): the text as
//! written, `${VAR}`s unexpanded, for the client that connects with it. A password in it is a
//! credential like any other: `Debug` and the serialised form write it `<redacted>` unless it is
//! a `${VAR}` reference, so a service that logs its configuration at start-up logs no password.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

use super::Layer;
use crate::vars;

/// A Redis URL (`redis://`, `rediss://`, `redis+cluster://`) as a profile writes it.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct RedisUrl(String);

impl RedisUrl {
    /// The URL as written, its password included, for the client that connects. Never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The URL as `Debug` and serialisation show it: a password that is no `${VAR}` reference
    /// written `<redacted>`.
    pub fn shown(&self) -> Cow<'_, str> {
        let text = &self.0;
        let Some(scheme_end) = text.find("://").map(|at| at + 3) else {
            return Cow::Borrowed(text);
        };
        let rest = &text[scheme_end..];
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let Some(at) = rest[..authority_end].rfind('@') else {
            return Cow::Borrowed(text);
        };
        let Some(colon) = rest[..at].find(':') else {
            return Cow::Borrowed(text);
        };
        let password = &rest[colon + 1..at];
        if password.is_empty() || vars::is_reference(password) {
            return Cow::Borrowed(text);
        }
        let start = scheme_end + colon + 1;
        Cow::Owned(format!(
            "{}<redacted>{}",
            &text[..start],
            &text[scheme_end + at..]
        ))
    }
}

impl Deref for RedisUrl {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for RedisUrl {
    fn from(text: &str) -> RedisUrl {
        RedisUrl(text.to_owned())
    }
}

impl From<String> for RedisUrl {
    fn from(text: String) -> RedisUrl {
        RedisUrl(text)
    }
}

impl fmt::Debug for RedisUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.shown(), f)
    }
}

impl Serialize for RedisUrl {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.shown())
    }
}

impl Layer for RedisUrl {
    fn layer(self, over: Self) -> Self {
        over
    }
}

#[cfg(test)]
mod tests {
    use super::RedisUrl;

    #[test]
    fn a_password_in_a_redis_url_is_never_shown_unless_it_is_a_reference() {
        let cases = [
            (
                "redis://:hunter2@cache:6379/0",
                "redis://:<redacted>@cache:6379/0",
            ),
            (
                "rediss://app:hunter2@cache:6380",
                "rediss://app:<redacted>@cache:6380",
            ),
            (
                "redis://:${REDIS_PASSWORD}@cache:6379",
                "redis://:${REDIS_PASSWORD}@cache:6379",
            ),
            ("${REDIS_URL}", "${REDIS_URL}"),
            ("redis://cache:6379", "redis://cache:6379"),
            (
                "redis+cluster://:p@ss@node:7000",
                "redis+cluster://:<redacted>@node:7000",
            ),
        ];
        for (written, shown) in cases {
            let url = RedisUrl::from(written);
            assert_eq!(url.shown(), shown);
            assert_eq!(format!("{url:?}"), format!("{shown:?}"));
            assert_eq!(url.expose(), written);
        }
    }

    #[test]
    fn a_profile_logged_at_start_up_shows_no_redis_password() {
        let yaml = "rate_limit: { per_second: 5, shared: { redis: \"redis://:hunter2@cache:6379\", key: api } }\ncache: { shared: { redis: \"rediss://u:hunter2@c:6380\", key: api, secret: \"${FLEET_SECRET}\" } }";
        let profile = crate::Profile::from_yaml_str(yaml).unwrap();
        let settings = crate::Settings::from_profile(&profile);
        for shown in [
            format!("{profile:?}"),
            profile.to_yaml_string(),
            format!("{settings:?}"),
        ] {
            assert!(!shown.contains("hunter2"), "{shown}");
            assert!(shown.contains("<redacted>"), "{shown}");
        }
    }
}

//! A profile's credentials as the spec writes them.

use remcall_profile::vars;
use serde_yaml::{Mapping, Value as Yaml};

use super::values::{pairs, strings};
use crate::spec::{Auth, Profile};

/// A profile's credentials.
pub(super) fn profile(profile: &Profile) -> Yaml {
    let mut out = Mapping::new();
    let mut auth = Mapping::new();
    match &profile.auth {
        Some(Auth::Bearer(token)) => {
            auth.insert("bearer".into(), pairs([("token", token.as_str().into())]));
        }
        Some(Auth::Basic(user, password)) => {
            let basic = pairs([
                ("username", user.as_str().into()),
                ("password", password.as_str().into()),
            ]);
            auth.insert("basic".into(), basic);
        }
        Some(Auth::OAuth2 {
            token_url,
            client_id,
            client_secret,
            scopes,
        }) => {
            let mut oauth2 = Mapping::new();
            oauth2.insert("token_url".into(), token_url.as_str().into());
            oauth2.insert("client_id".into(), client_id.as_str().into());
            oauth2.insert("client_secret".into(), client_secret.as_str().into());
            if !scopes.is_empty() {
                oauth2.insert("scopes".into(), strings(scopes.iter()));
            }
            auth.insert("oauth2".into(), oauth2.into());
        }
        None => {}
    }
    if !auth.is_empty() {
        out.insert("auth".into(), auth.into());
    }
    for (key, secrets) in [
        ("headers", &profile.headers),
        ("query", &profile.query),
        ("cookies", &profile.cookies),
    ] {
        if secrets.is_empty() {
            continue;
        }
        let mut section = Mapping::new();
        for (name, value) in secrets {
            let secret = pairs([("value", value.as_str().into()), ("secret", true.into())]);
            section.insert(name.as_str().into(), secret);
        }
        out.insert(key.into(), section.into());
    }
    for (key, fixed) in [
        ("query", &profile.fixed_query),
        ("headers", &profile.fixed_headers),
    ] {
        if fixed.is_empty() {
            continue;
        }
        let mut section = match out.remove(key) {
            Some(Yaml::Mapping(secrets)) => secrets,
            _ => Mapping::new(),
        };
        for (name, value) in fixed {
            // The description's text, never a placeholder: `$` is written `$$`.
            section.insert(name.as_str().into(), vars::escape(value).into());
        }
        out.insert(key.into(), section.into());
    }
    out.into()
}

//! The `${VAR}`s a client needs, checked all at once when it is built: a deployment missing three
//! variables hears of all three in one error, each with the key that names it and the method it
//! belongs to (none for a client-wide setting), and never with the advice to write a default for
//! a secret, which would put the secret into generated code. A secret whose variables are set to
//! nothing (`API_KEY=`) is refused too: the client would send an empty credential. An empty
//! value written so, or a default that says so (`${API_KEY:-}`), is taken.

use remcall_profile::Settings;
use remcall_profile::vars::{self, VarField};

use crate::error::{Error, ErrorKind};
use crate::spec::{ClientSpec, MethodSpec};

/// One unset variable: which, for which key, of which method (`None`: the client's).
struct Unset {
    var: String,
    key: String,
    method: Option<&'static str>,
    secret: bool,
    /// Set, to nothing, where it makes a secret empty.
    empty: bool,
}

/// Fails with every unset variable of the client's settings, the settings of the methods with a
/// profile of their own, and its base URLs.
pub(crate) fn check(
    spec: &ClientSpec,
    client: &Settings,
    methods: &[(&'static MethodSpec, Settings)],
    base_urls: &[String],
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<(), Error> {
    let mut unset = Vec::new();
    let mut note = |fields: &[VarField<'_>], method: Option<&'static str>| {
        for field in fields {
            let missing = vars::missing(field.text, &lookup);
            let empty = field.secret
                && missing.is_empty()
                && !field.text.contains(":-")
                && vars::expand(field.text, &lookup).is_ok_and(|value| value.is_empty());
            let named = match empty {
                true => vars::missing(field.text, |_| None),
                false => missing,
            };
            for var in named {
                unset.push(Unset {
                    var,
                    key: field.key.clone(),
                    method,
                    secret: field.secret,
                    empty,
                });
            }
        }
    };
    let urls: Vec<VarField<'_>> = base_urls
        .iter()
        .enumerate()
        .map(|(i, url)| VarField {
            key: format!("base_urls.{i}"),
            text: url,
            secret: false,
        })
        .collect();
    note(&urls, None);
    let shared = client.var_fields();
    note(&shared, None);
    for (method, settings) in methods {
        // A method's own: what its profile set differently from the client's.
        let own: Vec<VarField<'_>> = settings
            .var_fields()
            .into_iter()
            .filter(|field| !shared.contains(field))
            .collect();
        note(&own, Some(method.name));
    }
    if unset.is_empty() {
        return Ok(());
    }
    let one_method = unset
        .iter()
        .map(|u| u.method)
        .reduce(|a, b| if a == b { a } else { None })
        .flatten();
    let listed: Vec<String> = unset.iter().map(describe).collect();
    let message = format!(
        "{} {}: {}",
        if unset.len() == 1 {
            "an environment variable is"
        } else {
            "environment variables are"
        },
        if unset.iter().any(|u| u.empty) {
            "not set or empty"
        } else {
            "not set"
        },
        listed.join("; ")
    );
    Err(Error::new(ErrorKind::Config, message).in_call(spec.name, one_method.unwrap_or("")))
}

fn describe(unset: &Unset) -> String {
    let Unset {
        var,
        key,
        method,
        secret,
        empty,
    } = unset;
    let place = match method {
        Some(method) => format!("method `{method}`'s `{key}`"),
        None => format!("`{key}`"),
    };
    if *empty {
        format!(
            "`{var}` for {place} is set to nothing (a secret: an empty one would be sent; write ${{{var}:-}} where empty is meant)"
        )
    } else if *secret {
        format!("`{var}` for {place} (a secret: set it in the environment)")
    } else {
        format!("`{var}` for {place} (set it, or give a default: ${{{var}:-…}})")
    }
}

#[cfg(test)]
mod tests {
    use remcall_profile::{Layer, Profile};

    use super::*;

    static SEARCH: MethodSpec = MethodSpec {
        index: 0,
        name: "search",
        http_method: "GET",
        path: "/search",
        idempotent: true,
        reads: true,
        not_found_none: false,
        streams: false,
        profile: "",
    };
    static LIST: MethodSpec = MethodSpec {
        index: 1,
        name: "list",
        profile: "",
        ..SEARCH
    };
    static SPEC: ClientSpec = ClientSpec {
        name: "Search",
        base_urls: &[],
        base_path: "",
        profile: "",
        methods: &[&SEARCH, &LIST],
    };

    fn settings(yaml: &str) -> Settings {
        layered(yaml, "")
    }

    /// A method's settings: its own profile over the client's.
    fn layered(client: &str, own: &str) -> Settings {
        let profile = |yaml: &str| Profile::from_yaml_str(yaml).unwrap();
        Settings::from_profile(&profile(client).layer(profile(own)))
    }

    fn env(name: &str) -> Option<String> {
        (name == "SET").then(|| "x".to_owned())
    }

    const CLIENT: &str = "auth: { oauth2: { token_url: \"${AUTH_URL}/token\", client_id: \"${SET}\", client_secret: \"${CLIENT_SECRET}\" } }\nheaders: { X-Region: \"${REGION}\" }";

    #[test]
    fn every_unset_variable_is_named_with_its_key_and_method() {
        let client = settings(CLIENT);
        let search = layered(
            CLIENT,
            "headers: { X-Key: { value: \"${SEARCH_KEY}\", secret: true } }",
        );
        let error = check(
            &SPEC,
            &client,
            &[(&SEARCH, search)],
            &["http://${HOST}".to_owned()],
            env,
        )
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config);
        assert_eq!(error.method(), "", "several places: the client's error");
        let text = error.to_string();
        for expected in [
            "environment variables are not set:",
            "`HOST` for `base_urls.0` (set it, or give a default: ${HOST:-…})",
            "`AUTH_URL` for `auth.oauth2.token_url`",
            "`CLIENT_SECRET` for `auth.oauth2.client_secret` (a secret: set it in the environment)",
            "`REGION` for `headers.X-Region`",
            "`SEARCH_KEY` for method `search`'s `headers.X-Key` (a secret",
        ] {
            assert!(text.contains(expected), "{expected:?} in {text}");
        }
        assert_eq!(
            text.matches("REGION").count(),
            2,
            "once, not per method: {text}"
        );
        assert!(
            !text.contains("CLIENT_SECRET:-"),
            "no default for a secret: {text}"
        );
    }

    /// `API_KEY=` in the environment: a client that would send an empty credential is not
    /// built; written empty, or with an empty default, it is.
    #[test]
    fn a_secret_set_to_nothing_is_refused_naming_its_variable() {
        let env = |name: &str| match name {
            "EMPTY" => Some(String::new()),
            "SET" => Some("x".to_owned()),
            _ => None,
        };
        let refused = [
            "auth: { bearer: { token: \"${EMPTY}\" } }",
            "headers: { X-Key: { value: \"${EMPTY}\", secret: true } }",
            "query: { api_key: { value: \"${EMPTY}\", secret: true } }",
            "auth: { basic: { username: \"${SET}\", password: \"${EMPTY}\" } }",
        ];
        for yaml in refused {
            let error = check(&SPEC, &settings(yaml), &[], &[], env).unwrap_err();
            let text = error.to_string();
            assert_eq!(error.kind(), ErrorKind::Config);
            assert!(
                text.contains("an environment variable is not set or empty: `EMPTY` for `")
                    && text.contains("is set to nothing (a secret: an empty one would be sent; write ${EMPTY:-} where empty is meant)"),
                "{yaml}: {text}"
            );
        }
        let taken = [
            "auth: { bearer: { token: \"${SET}\" } }",
            "auth: { basic: { username: \"${SET}\", password: \"\" } }",
            "headers: { X-Key: { value: \"${EMPTY:-}\", secret: true } }",
            "headers: { X-Trace: \"${EMPTY}\" }",
        ];
        for yaml in taken {
            assert!(
                check(&SPEC, &settings(yaml), &[], &[], env).is_ok(),
                "{yaml}"
            );
        }
    }

    #[test]
    fn one_method_alone_missing_one_names_the_method() {
        let client = settings("");
        let search = settings("headers: { X-Key: \"${SEARCH_KEY}\" }");
        let error = check(&SPEC, &client, &[(&SEARCH, search)], &[], env).unwrap_err();
        assert_eq!(error.method(), "search");
        assert!(
            error
                .to_string()
                .contains("an environment variable is not set")
        );
        assert!(check(&SPEC, &client, &[(&LIST, client.clone())], &[], env).is_ok());
    }
}

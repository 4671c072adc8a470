//! The `${VAR}`s a client needs, checked all at once when it is built: a deployment missing three
//! variables hears of all three in one error, each with the key that names it and the method it
//! belongs to (none for a client-wide setting), and never with the advice to write a default for
//! a secret, which would put the secret into generated code.

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
            for var in vars::missing(field.text, &lookup) {
                unset.push(Unset {
                    var,
                    key: field.key.clone(),
                    method,
                    secret: field.secret,
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
        "{} not set: {}",
        if unset.len() == 1 {
            "an environment variable is"
        } else {
            "environment variables are"
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
    } = unset;
    let place = match method {
        Some(method) => format!("method `{method}`'s `{key}`"),
        None => format!("`{key}`"),
    };
    if *secret {
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

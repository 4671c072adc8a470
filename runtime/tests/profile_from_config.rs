//! A profile from the service's own configuration: `Profile` is a serde type, so it sits inside
//! a service's config struct read from TOML (or env, through figment or config) and equals the
//! same profile read from YAML; the builder checks it as `from_yaml_str` checks YAML, so a value
//! out of range fails `build()` with the same words, whatever the source.

use remcall::__codegen::{ClientBuilder, ClientSpec};
use remcall::{ErrorKind, Profile};

static SPEC: ClientSpec = ClientSpec {
    name: "Users",
    base_urls: &["http://127.0.0.1:9"],
    base_path: "",
    profile: "",
    methods: &[],
};

/// A service's configuration, with the client's profile as one of its parts.
#[derive(serde::Deserialize)]
struct ServiceConfig {
    listen: String,
    users: Profile,
}

const TOML: &str = r#"
listen = "0.0.0.0:8080"

[users]
timeout = { attempt = "2s", total = "10s" }
retry = { max_attempts = 3, backoff = { initial = "50ms", max = "1s" } }
headers = { X-Api-Key = { value = "${USERS_KEY:-dev}", secret = false } }
errors = { body_in_message = "0B" }
"#;

const YAML: &str = "timeout: { attempt: 2s, total: 10s }\nretry: { max_attempts: 3, backoff: { initial: 50ms, max: 1s } }\nheaders: { X-Api-Key: { value: \"${USERS_KEY:-dev}\", secret: false } }\nerrors: { body_in_message: 0B }";

#[test]
fn a_profile_read_from_the_services_toml_is_the_yaml_one_and_builds() {
    let config: ServiceConfig = toml::from_str(TOML).unwrap();
    assert_eq!(config.listen, "0.0.0.0:8080");
    assert_eq!(config.users, Profile::from_yaml_str(YAML).unwrap());
    ClientBuilder::new(&SPEC)
        .profile(config.users)
        .build()
        .unwrap();
}

#[test]
fn a_profile_from_toml_out_of_range_fails_build_as_yaml_fails_to_read() {
    let toml = "listen = \"x\"\n[users]\nretry = { max_attempts = 0 }\n";
    let config: ServiceConfig = toml::from_str(toml).unwrap();
    let from_yaml = Profile::from_yaml_str("retry: { max_attempts: 0 }").unwrap_err();
    let error = ClientBuilder::new(&SPEC)
        .profile(config.users)
        .build()
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert!(
        error.to_string().contains(&from_yaml.to_string()),
        "{error} / {from_yaml}"
    );
}

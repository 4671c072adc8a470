//! A profile from the service's own configuration: `Profile` is a serde type, so it sits inside
//! a service's config struct read from TOML (or env, through figment or config) and equals the
//! same profile read from YAML; the builder checks it as `from_yaml_str` checks YAML, so a value
//! out of range fails `build()` with the same words, whatever the source. A profile written in
//! code with the typed setters equals the YAML one, and a secret given as a value is sent as it
//! is (a `$` in it no variable) and shown nowhere.

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

#[test]
fn the_typed_builder_and_yaml_give_equal_profiles_and_equal_refusals() {
    use remcall::profile::{ErrorsPolicy, HeaderDef, Headers, RetryPolicy, Timeouts};
    use std::time::Duration;
    let mut headers = Headers::default();
    headers.0.insert(
        "X-Api-Key".into(),
        HeaderDef {
            value: "${USERS_KEY:-dev}".into(),
            secret: false,
        },
    );
    let typed = Profile::builder()
        .timeout(
            Timeouts::default()
                .attempt(Duration::from_secs(2))
                .total(Duration::from_secs(10)),
        )
        .retry(
            RetryPolicy::default().max_attempts(3u32).backoff(
                remcall::profile::Backoff::default()
                    .initial(Duration::from_millis(50))
                    .max(Duration::from_secs(1)),
            ),
        )
        .headers(headers)
        .errors(ErrorsPolicy::default().body_in_message(remcall::profile::ByteSize(0)))
        .build()
        .unwrap();
    assert_eq!(typed, Profile::from_yaml_str(YAML).unwrap());

    let refused = Profile::builder()
        .retry(RetryPolicy::default().max_attempts(0u32))
        .build()
        .unwrap_err();
    let from_yaml = Profile::from_yaml_str("retry: { max_attempts: 0 }").unwrap_err();
    assert_eq!(refused.to_string(), from_yaml.to_string());
}

#[tokio::test]
async fn a_secret_given_as_a_value_is_sent_as_it_is_and_never_shown() {
    use remcall::__codegen::{MethodSpec, decode};
    use remcall::profile::{Auth, Bearer, Secret};
    static WHO: MethodSpec = MethodSpec {
        index: 0,
        name: "who",
        http_method: "GET",
        path: "/who",
        idempotent: true,
        reads: true,
        not_found_none: false,
        streams: false,
        profile: "",
    };
    static WHO_SPEC: ClientSpec = ClientSpec {
        name: "Who",
        base_urls: &[],
        base_path: "",
        profile: "",
        methods: &[&WHO],
    };
    let router = axum::Router::new().route(
        "/who",
        axum::routing::get(|headers: axum::http::HeaderMap| async move {
            headers["authorization"].to_str().unwrap().to_owned()
        }),
    );
    let server = testkit::Server::start(router).await;
    // A token with what would be a variable in profile text.
    let token = "s3cr${ET}$$x";
    let profile = Profile::builder()
        .auth(Auth::Bearer(Bearer {
            token: Secret::value(token).unwrap(),
        }))
        .build()
        .unwrap();
    let shown = format!("{profile:?} {}", profile.to_yaml_string());
    assert!(!shown.contains("s3cr"), "{shown}");
    let client = ClientBuilder::new(&WHO_SPEC)
        .base_url(&server.url())
        .profile(profile)
        .build()
        .unwrap();
    let sent = client.call(WHO.request(), decode::text).await.unwrap();
    assert_eq!(sent, format!("Bearer {token}"));
    assert!(!format!("{client:?}").contains("s3cr"));
}

//! TLS with certificates made in the test: a private CA, mutual TLS, and `insecure` only when
//! asked for.

use axum::Router;
use axum::routing::get;
use remcall::serde_json::json;
use remcall::{ErrorKind, Profile};
use remcall_example_committed::clients::user_client::UserClient;
use testkit::Server;
use testkit::tls::Pki;

fn router() -> Router {
    Router::new().route(
        "/v1/api/users/{id}",
        get(|| async { axum::Json(json!({ "id": 1, "name": "Ada" })) }),
    )
}

fn client(server: &Server, tls: &str) -> UserClient {
    let profile =
        Profile::from_yaml_str(&format!("retry: {{ max_attempts: 1 }}\ntls: {{ {tls} }}")).unwrap();
    UserClient::builder()
        .base_url(&server.url())
        .profile(profile)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_private_ca_is_refused_until_it_is_trusted() {
    let pki = Pki::new();
    let server = Server::start_tls(router(), pki.server_config(false)).await;

    let err = client(&server, "")
        .get_user(1, None, "r")
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Connect, "{err}");
    assert!(server.received().is_empty());

    let ca = format!("ca_file: \"{}\"", pki.ca_file.display());
    assert_eq!(
        client(&server, &ca)
            .get_user(1, None, "r")
            .await
            .unwrap()
            .unwrap()
            .name,
        "Ada"
    );
    let webpki = format!(
        "roots: webpki, ca_file: \"{}\", min_version: \"1.3\"",
        pki.ca_file.display()
    );
    assert!(
        client(&server, &webpki)
            .get_user(1, None, "r")
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_server_that_requires_a_client_certificate() {
    let pki = Pki::new();
    let server = Server::start_tls(router(), pki.server_config(true)).await;
    let ca = format!("ca_file: \"{}\"", pki.ca_file.display());

    let err = client(&server, &ca)
        .get_user(1, None, "r")
        .await
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Connect), "{err}");
    assert!(
        server.received().is_empty(),
        "no request got past the handshake"
    );

    let mutual = format!(
        "{ca}, client_cert: \"{}\", client_key: \"{}\"",
        pki.client_cert.display(),
        pki.client_key.display()
    );
    assert!(
        client(&server, &mutual)
            .get_user(1, None, "r")
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn insecure_turns_checks_off_only_when_said() {
    let pki = Pki::new();
    let server = Server::start_tls(router(), pki.server_config(false)).await;
    assert!(
        client(&server, "insecure: false")
            .get_user(1, None, "r")
            .await
            .is_err()
    );
    assert!(
        client(&server, "insecure: true")
            .get_user(1, None, "r")
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn bad_tls_settings_fail_the_build_with_config() {
    let server = Server::start(router()).await;
    for (tls, expected) in [
        ("ca_file: /nonexistent/ca.pem", "cannot read"),
        ("min_version: \"1.1\"", "min_version"),
        ("client_cert: /tmp/x.pem", "go together"),
    ] {
        let profile = Profile::from_yaml_str(&format!("tls: {{ {tls} }}")).unwrap();
        let err = UserClient::builder()
            .base_url(&server.url())
            .profile(profile)
            .build()
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Config);
        assert!(err.to_string().contains(expected), "{tls}: {err}");
    }
}

//! Bad input on the wire: what the server receives when parameters try to escape their place,
//! and how redirects treat credentials.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::http::StatusCode;
use axum::response::Redirect;
use axum::routing::get;
use remcall::serde_json::json;
use remcall::{ErrorKind, Profile};
use remcall_example_committed::clients::pet_store::PetStore;
use testkit::Server;

fn pet() -> axum::Json<remcall::serde_json::Value> {
    axum::Json(
        json!({ "id": 1, "name": "Rex", "photoUrls": [], "tags": [], "status": "sold", "attributes": {} }),
    )
}

async fn echo_server() -> Server {
    let router = Router::new()
        .route("/api/v3/pets/{id}", get(|| async { pet() }))
        .route("/api/v3/pets", get(|| async { axum::Json(json!([])) }));
    Server::start(router).await
}

#[tokio::test]
async fn path_parameters_cannot_climb_or_add_a_query() {
    let server = echo_server().await;
    let store = PetStore::new(&server.url()).unwrap();
    store.get_pet("../admin").await.unwrap();
    store.get_pet("a?b=1#frag").await.unwrap();
    store.get_pet("100%").await.unwrap();
    let uris: Vec<String> = server.received().iter().map(|r| r.uri.clone()).collect();
    assert_eq!(
        uris,
        [
            "/api/v3/pets/..%2Fadmin",
            "/api/v3/pets/a%3Fb%3D1%23frag",
            "/api/v3/pets/100%25"
        ]
    );

    for dots in [".", ".."] {
        let err = store.get_pet(dots).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Encode, "{err}");
    }
    assert_eq!(server.received().len(), 3, "the refused calls sent nothing");
}

#[tokio::test]
async fn query_values_are_encoded_and_cannot_add_parameters() {
    let server = echo_server().await;
    let store = PetStore::new(&server.url()).unwrap();
    store
        .find_pets(&[], &["x&admin=true".to_owned()], "acme")
        .name("a b+c")
        .await
        .unwrap();
    assert_eq!(
        server.received()[0].uri,
        "/api/v3/pets?tag=x%26admin%3Dtrue&name=a+b%2Bc"
    );
}

#[tokio::test]
async fn control_characters_in_headers_are_refused_before_sending() {
    let server = echo_server().await;
    let store = PetStore::new(&server.url()).unwrap();
    for bad in ["a\r\nX-Admin: 1", "a\nb", "a\0b"] {
        let err = store.find_pets(&[], &[], bad).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Encode);
        // The header is named as it is sent (lowercase); the value, never.
        assert!(
            err.to_string().contains("`x-tenant`") && !err.to_string().contains("X-Admin"),
            "{err}"
        );
    }
    assert!(server.received().is_empty());
}

#[tokio::test]
async fn a_client_with_credentials_follows_no_redirect_to_another_host() {
    let other = echo_server().await;
    let target = other.url().replace("127.0.0.1", "localhost") + "/api/v3/pets/1";
    let redirecting = Server::start(Router::new().route(
        "/api/v3/pets/{id}",
        get(move || {
            let target = target.clone();
            async move { Redirect::temporary(&target) }
        }),
    ))
    .await;
    let store = PetStore::builder()
        .base_url(&redirecting.url())
        .profile(Profile::from_yaml_str("auth: { bearer: { token: t0k3n } }").unwrap())
        .build()
        .unwrap();
    let err = store.get_pet("1").await.unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(307), "{err}");
    assert_eq!(
        redirecting.received()[0].headers["authorization"],
        "Bearer t0k3n"
    );
    assert!(
        other.received().is_empty(),
        "the other host got neither the request nor its credentials"
    );
}

#[tokio::test]
async fn a_redirect_loop_stops_after_five_redirects() {
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let server = Server::start(Router::new().route(
        "/api/v3/pets/{id}",
        get(move || {
            h.fetch_add(1, Ordering::SeqCst);
            async { (StatusCode::FOUND, [("location", "/api/v3/pets/again")]) }
        }),
    ))
    .await;
    let store = PetStore::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
        .build()
        .unwrap();
    let err = store.get_pet("1").await.unwrap_err();
    assert!(err.to_string().contains("redirect"), "{err}");
    assert_eq!(
        hits.load(Ordering::SeqCst),
        6,
        "the first request and five redirects"
    );
}

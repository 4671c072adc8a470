//! The committed clients against a real loopback server: every request part and every failure
//! class of the foundation.

use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{any, get, post};
use remcall::serde_json::json;
use remcall::{ErrorKind, Profile};
use remcall_example_committed::clients::pet_store::{NewPet, Order, PetForm, PetStore, Status};
use remcall_example_committed::clients::user_client::{User, UserClient};
use testkit::Server;

fn pet_json(id: i64) -> remcall::serde_json::Value {
    json!({ "id": id, "name": "Rex", "photoUrls": [], "tags": ["dog"], "status": "available", "attributes": {}, "extra": "ignored" })
}

async fn pet_server() -> Server {
    let router = Router::new()
        .route(
            "/api/v3/pets",
            get(|| async { axum::Json(json!([pet_json(1), pet_json(2)])) })
                .post(|| async { axum::Json(pet_json(3)) }),
        )
        .route(
            "/api/v3/pets/{id}",
            get(|| async { axum::Json(pet_json(1)) }).delete(|| async { StatusCode::NO_CONTENT }),
        )
        .route("/api/v3/pets/{id}/form", post(|| async { StatusCode::OK }))
        .route(
            "/api/v3/pets/{id}/photo",
            get(|| async { vec![0_u8, 1, 2, 255] }),
        )
        .route(
            "/api/v3/store/orders",
            post(
                |axum::Json(order): axum::Json<remcall::serde_json::Value>| async move {
                    axum::Json(order)
                },
            ),
        );
    Server::start(router).await
}

#[tokio::test]
async fn get_sends_path_query_and_header_params() {
    let server = pet_server().await;
    let store = PetStore::new(&server.url()).unwrap();
    let pets = store
        .find_pets(
            &[Status::Available, Status::Sold],
            &["a b".to_owned(), "c".to_owned()],
            "acme",
        )
        .limit(10)
        .await
        .unwrap();
    assert_eq!(pets.len(), 2);
    assert_eq!(pets[0].status, Status::Available);

    let received = server.received();
    assert_eq!(received[0].method, "GET");
    assert_eq!(
        received[0].uri,
        "/api/v3/pets?status=available&status=sold&tag=a+b&tag=c&limit=10"
    );
    assert_eq!(received[0].headers["x-tenant"], "acme");
    assert!(
        received[0].headers.get("x-trace-id").is_none(),
        "None headers are left out"
    );
    assert_eq!(
        received[0].headers["x-app"], "remcall-demo",
        "profile headers are sent"
    );
}

#[tokio::test]
async fn a_path_parameter_is_one_segment() {
    let server = pet_server().await;
    let store = PetStore::new(&server.url()).unwrap();
    // The route matches one segment only: a slash that escaped encoding would miss it.
    let pet = store.get_pet("a/b c").await.unwrap();
    assert!(pet.is_some());
    assert_eq!(server.received()[0].uri, "/api/v3/pets/a%2Fb%20c");
}

#[tokio::test]
async fn post_json_form_bytes_and_delete() {
    let server = pet_server().await;
    let store = PetStore::new(&server.url()).unwrap();

    let new_pet = NewPet {
        name: "Rex".to_owned(),
        status: Status::Pending,
        tags: vec![],
    };
    assert_eq!(store.add_pet(&new_pet).await.unwrap().id, 3);
    let order = Order {
        pet_id: 3,
        quantity: 2,
        ship_date: None,
    };
    assert_eq!(store.place_order(&order).await.unwrap(), order);
    store
        .update_pet_form(
            7,
            &PetForm {
                name: "Rex Jr".to_owned(),
                status: Status::Sold,
            },
        )
        .await
        .unwrap();
    let () = store.delete_pet(7, Some("k")).await.unwrap();
    assert_eq!(store.pet_photo(7).await.unwrap().as_ref(), [0, 1, 2, 255]);

    let received = server.received();
    assert_eq!(received[0].headers["content-type"], "application/json");
    assert_eq!(
        received[0].body.as_ref(),
        br#"{"name":"Rex","status":"pending","tags":[]}"#
    );
    assert_eq!(
        received[1].body.as_ref(),
        br#"{"petId":3,"quantity":2}"#,
        "renamed fields; None skipped"
    );
    assert_eq!(
        received[2].headers["content-type"],
        "application/x-www-form-urlencoded"
    );
    assert_eq!(received[2].body.as_ref(), b"name=Rex+Jr&status=sold");
    assert_eq!(
        (received[3].method.as_str(), received[3].uri.as_str()),
        ("DELETE", "/api/v3/pets/7")
    );
    assert_eq!(received[3].headers["x-api-key"], "k");
}

#[tokio::test]
async fn a_404_is_none_where_the_spec_says_so() {
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        any(|| async { StatusCode::NOT_FOUND }),
    ))
    .await;
    let users = UserClient::new(&server.url()).unwrap();
    assert_eq!(users.get_user(5, None, "r-1").await.unwrap(), None);
    // delete_user has no not_found: a 404 is an error there.
    let err = users.delete_user(5).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Status);
    assert_eq!(err.status(), Some(remcall::reqwest::StatusCode::NOT_FOUND));
}

#[tokio::test]
async fn a_500_is_a_status_error_naming_client_method_and_body() {
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        any(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "database is on fire") }),
    ))
    .await;
    let users = UserClient::new(&server.url()).unwrap();
    let err = users.delete_user(1).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Status);
    assert_eq!(err.status().map(|s| s.as_u16()), Some(500));
    assert_eq!(err.body(), Some(&b"database is on fire"[..]));
    assert_eq!((err.client(), err.method()), ("UserClient", "delete_user"));
    assert_eq!(
        err.to_string(),
        "UserClient.delete_user: HTTP 500 Internal Server Error: database is on fire"
    );
}

#[tokio::test]
async fn an_undecodable_body_is_a_decode_error() {
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(|| async { axum::Json(json!({ "id": "not a number" })) }),
    ))
    .await;
    let users = UserClient::new(&server.url()).unwrap();
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode);
    assert_eq!(
        err.to_string(),
        "UserClient.get_user: the response body is not a valid `User`: `User.id` (at `$.id`): \
         string \"not a number\", where the description says i64"
    );
}

/// A body that does not fit says where: the JSON path through lists, maps and nested
/// structs, the struct and field, what came and what the description says; a key that is the
/// server's odd text is escaped in the path.
#[tokio::test]
async fn a_decode_error_names_the_json_path_and_the_field() {
    let bodies = [
        (
            json!({ "users": [{ "id": 1, "name": "Ada" }, { "id": 2, "name": null }], "has_more": false }),
            "`User.name` (at `$.users[1].name`): null, where the description says a string",
        ),
        (
            json!({ "users": [{ "id": 1 }], "has_more": false }),
            "`User.name` (at `$.users[0]`): missing field `name`",
        ),
        (
            json!({ "users": {}, "has_more": false }),
            "`UserPage.users` (at `$.users`): map, where the description says a sequence",
        ),
    ];
    for (body, expected) in bodies {
        let server = Server::start(Router::new().route(
            "/v1/api/users",
            get(move || async move { axum::Json(body) }),
        ))
        .await;
        let users = UserClient::new(&server.url()).unwrap();
        let err = users.list_users().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Decode);
        let text = err.to_string();
        assert!(text.ends_with(expected), "{text}\nwanted: {expected}");
        assert!(
            text.starts_with(
                "UserClient.list_users: the response body is not a valid `UserPage`: "
            ),
            "{text}"
        );
    }
}

#[tokio::test]
async fn a_slow_server_runs_into_the_attempt_timeout() {
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(|| testkit::slow(Duration::from_secs(10), StatusCode::OK)),
    ))
    .await;
    let users = UserClient::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("timeout: { attempt: 150ms }").unwrap())
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn the_total_deadline_cuts_a_slow_attempt_and_a_hanging_interceptor() {
    struct Hang;
    impl remcall::Interceptor for Hang {
        async fn before_send(&self, _: &mut remcall::Outgoing) -> Result<(), remcall::BoxError> {
            std::future::pending().await
        }
    }
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(|| testkit::slow(Duration::from_secs(10), StatusCode::OK)),
    ))
    .await;
    let profile = || Profile::from_yaml_str("timeout: { attempt: 5s, total: 200ms }").unwrap();
    let slow = UserClient::builder()
        .base_url(&server.url())
        .profile(profile())
        .build()
        .unwrap();
    let hanging = UserClient::builder()
        .base_url(&server.url())
        .profile(profile())
        .interceptor(Hang)
        .build()
        .unwrap();
    for (client, sent) in [(slow, 1), (hanging, 0)] {
        let before = server.received().len();
        let started = std::time::Instant::now();
        let err = client.get_user(1, None, "r").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
        assert!(err.to_string().contains("total deadline of 200ms"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(3));
        assert_eq!(server.received().len() - before, sent);
    }
}

#[tokio::test]
async fn a_header_parameter_replaces_the_profile_header_of_that_name() {
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(|| async { axum::Json(json!({ "id": 1, "name": "Ada" })) }),
    ))
    .await;
    let users = UserClient::builder()
        .base_url(&server.url())
        .profile(
            Profile::from_yaml_str("headers: { X-Request-Id: from-profile, X-App: demo }").unwrap(),
        )
        .build()
        .unwrap();
    users.get_user(1, None, "from-call").await.unwrap();
    let received = server.received();
    let ids: Vec<_> = received[0].headers.get_all("x-request-id").iter().collect();
    assert_eq!(ids, ["from-call"]);
    assert_eq!(received[0].headers["x-app"], "demo");
}

#[tokio::test]
async fn a_body_in_several_chunks_is_read_whole() {
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(|| async {
            testkit::chunked_body(
                vec![r#"{"id": 1, "#, r#""name": "#, r#""Ada"}"#],
                Duration::from_millis(20),
            )
        }),
    ))
    .await;
    let users = UserClient::new(&server.url()).unwrap();
    let user = users.get_user(1, None, "r").await.unwrap().unwrap();
    assert_eq!(user.name, "Ada");
}

#[tokio::test]
async fn an_oversized_body_fails_without_being_read_whole() {
    // 256 MiB streamed without Content-Length; the limit is 64 KiB.
    let server = Server::start(Router::new().route(
        "/api/v3/pets/{id}/photo",
        get(|| async { testkit::endless_body(256 << 20).into_response() }),
    ))
    .await;
    let store = PetStore::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("max_response_bytes: 64KiB").unwrap())
        .build()
        .unwrap();
    let err = store.pet_photo(1).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BodyTooLarge, "{err}");

    // A declared Content-Length above the limit is refused before reading.
    let big = Server::start(Router::new().route(
        "/api/v3/pets/{id}/photo",
        get(|| async { vec![7_u8; 100 << 10] }),
    ))
    .await;
    let store = PetStore::builder()
        .base_url(&big.url())
        .profile(Profile::from_yaml_str("max_response_bytes: 64KiB").unwrap())
        .build()
        .unwrap();
    assert_eq!(
        store.pet_photo(1).await.unwrap_err().kind(),
        ErrorKind::BodyTooLarge
    );
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error() {
    let url = testkit::refused_url().await;
    let users = UserClient::builder()
        .base_url(&url)
        .profile(Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
        .build()
        .unwrap();
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Connect, "{err}");
    assert_eq!(err.method(), "get_user");
}

#[tokio::test]
async fn a_header_with_crlf_is_refused_before_sending() {
    let server = pet_server().await;
    let store = PetStore::new(&server.url()).unwrap();
    let err = store
        .find_pets(&[], &[], "acme\r\nX-Admin: true")
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Encode);
    assert!(server.received().is_empty(), "nothing reached the server");
}

#[tokio::test]
async fn a_fallback_answers_with_the_cause_in_hand() {
    struct Cached;
    impl remcall_example_committed::clients::user_client::UserClientFallback for Cached {
        async fn get_user(
            &self,
            id: i64,
            _: Option<bool>,
            _: &str,
            cause: remcall::Error,
        ) -> Result<Option<User>, remcall::Error> {
            assert_eq!(cause.kind(), ErrorKind::Connect);
            Ok(Some(User {
                id,
                name: "cached".to_owned(),
                email: None,
                created_at: None,
            }))
        }
    }
    let url = testkit::refused_url().await;
    let users = UserClient::builder()
        .base_url(&url)
        .fallback(Cached)
        .build()
        .unwrap();
    let user = users.get_user(9, None, "r").await.unwrap().unwrap();
    assert_eq!(user.name, "cached");
    // query_user is not overridden: the cause passes through.
    let example = User {
        id: 0,
        name: String::new(),
        email: None,
        created_at: None,
    };
    assert_eq!(
        users.query_user(&example).await.unwrap_err().kind(),
        ErrorKind::Connect
    );
    let stats = users.stats();
    assert_eq!(stats.method("get_user").unwrap().fallbacks, 1);
    assert_eq!(stats.method("get_user").unwrap().failures, 1);
}

#[tokio::test]
async fn a_missing_environment_variable_is_a_config_error_naming_it() {
    let spec_default = UserClient::builder().build();
    // The spec's base_url is ${USER_SERVICE_URL:-http://localhost:8080}: the default applies.
    assert!(spec_default.is_ok());
    let err = UserClient::builder()
        .base_url("http://${REMCALL_TEST_SURELY_UNSET_VAR}")
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
    assert!(
        err.to_string().contains("REMCALL_TEST_SURELY_UNSET_VAR"),
        "{err}"
    );
}

#[tokio::test]
async fn clients_are_send_and_their_futures_can_be_spawned() {
    let server = pet_server().await;
    let store = PetStore::new(&server.url()).unwrap();
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move { store.get_pet(&i.to_string()).await })
        })
        .collect();
    for handle in handles {
        assert!(handle.await.unwrap().unwrap().is_some());
    }
    assert_eq!(store.stats().method("get_pet").unwrap().calls, 8);
}

/// A profile's cookies go out in one `Cookie` header (an API key a server takes as a cookie);
/// a value that would end its cookie and start another is refused when the client is built.
#[tokio::test]
async fn profile_cookies_are_one_cookie_header_and_cannot_smuggle_another() {
    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(|| async { axum::Json(json!({ "id": 1, "name": "Ada" })) }),
    ))
    .await;
    let users = UserClient::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("cookies: { session: s3cr3t-1, theme: dark }").unwrap())
        .build()
        .unwrap();
    users.get_user(1, None, "r").await.unwrap();
    let received = server.received();
    assert_eq!(
        received[0].headers["cookie"],
        "session=s3cr3t-1; theme=dark"
    );
    let smuggled = UserClient::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("cookies: { session: \"a; admin=1\" }").unwrap())
        .build();
    let Err(error) = smuggled else {
        panic!("a cookie that sets another is refused")
    };
    assert_eq!(error.kind(), remcall::ErrorKind::Config);
    assert!(error.to_string().contains("cookie `session`"), "{error}");
}

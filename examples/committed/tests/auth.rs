//! OAuth2 client credentials against a real loopback token endpoint, and what logs show.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use remcall::serde_json::json;
use remcall::{ErrorKind, Profile};
use remcall_example_committed::clients::user_client::UserClient;
use testkit::Server;

const SECRET: &str = "s3cr3t-client-value";

/// A token endpoint that issues `tok-1`, `tok-2`, … and a user service that accepts the tokens
/// not revoked.
#[derive(Clone, Default)]
struct Auth {
    issued: Arc<AtomicUsize>,
    revoked: Arc<Mutex<HashSet<String>>>,
    expires_in: Arc<AtomicUsize>,
    last_token_request: Arc<Mutex<Option<(HeaderMap, String)>>>,
}

async fn token(
    State(auth): State<Auth>,
    headers: HeaderMap,
    body: String,
) -> axum::Json<remcall::serde_json::Value> {
    // Slow enough that concurrent first calls really overlap.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let n = auth.issued.fetch_add(1, Ordering::SeqCst) + 1;
    *auth.last_token_request.lock().unwrap() = Some((headers, body));
    axum::Json(
        json!({ "access_token": format!("tok-{n}"), "token_type": "Bearer", "expires_in": auth.expires_in.load(Ordering::SeqCst) }),
    )
}

async fn user(
    State(auth): State<Auth>,
    headers: HeaderMap,
) -> (StatusCode, axum::Json<remcall::serde_json::Value>) {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .trim_start_matches("Bearer ")
        .to_owned();
    if !token.starts_with("tok-")
        || auth.revoked.lock().unwrap().contains(&token)
        || auth.revoked.lock().unwrap().contains("*")
    {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({ "error": "invalid_token" })),
        );
    }
    (
        StatusCode::OK,
        axum::Json(json!({ "id": 1, "name": "Ada" })),
    )
}

async fn servers() -> (Auth, Server) {
    let auth = Auth::default();
    auth.expires_in.store(3600, Ordering::SeqCst);
    let router = Router::new()
        .route("/oauth/token", post(token))
        .route("/v1/api/users/{id}", get(user))
        .with_state(auth.clone());
    (auth, Server::start(router).await)
}

fn client(server: &Server, extra: &str) -> UserClient {
    let token_url = format!("{}/oauth/token", server.url());
    oauth2_client(
        server,
        &token_url,
        &format!(", scopes: [users.read, users.write] {extra}"),
    )
}

/// `count` calls of `get_user` at once, each of which must succeed.
async fn get_users_at_once(users: &UserClient, count: usize) {
    let calls: Vec<_> = (0..count)
        .map(|_| {
            let users = users.clone();
            tokio::spawn(async move { users.get_user(1, None, "r").await })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_first_calls_fetch_one_token() {
    let (auth, server) = servers().await;
    let users = client(&server, "");
    get_users_at_once(&users, 100).await;
    assert_eq!(auth.issued.load(Ordering::SeqCst), 1);

    // The token request: client credentials grant, scopes, client authenticated by Basic.
    let (headers, body) = auth.last_token_request.lock().unwrap().clone().unwrap();
    assert_eq!(
        body,
        "grant_type=client_credentials&scope=users.read+users.write"
    );
    assert_eq!(
        headers["authorization"],
        "Basic YXBwOnMzY3IzdC1jbGllbnQtdmFsdWU="
    );
}

#[tokio::test]
async fn client_authentication_can_go_in_the_form_body() {
    let (auth, server) = servers().await;
    let users = client(
        &server,
        ", client_auth: body, params: { audience: users-api }",
    );
    users.get_user(1, None, "r").await.unwrap();
    let (headers, body) = auth.last_token_request.lock().unwrap().clone().unwrap();
    assert!(headers.get("authorization").is_none());
    assert!(
        body.contains("audience=users-api")
            && body.contains("client_id=app")
            && body.contains("client_secret="),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expiring_token_is_refreshed_once() {
    let (auth, server) = servers().await;
    auth.expires_in.store(1, Ordering::SeqCst);
    let users = client(&server, ", refresh_before: 0s");
    users.get_user(1, None, "r").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let calls: Vec<_> = (0..20)
        .map(|_| {
            let users = users.clone();
            tokio::spawn(async move { users.get_user(1, None, "r").await })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
    assert_eq!(
        auth.issued.load(Ordering::SeqCst),
        2,
        "one fetch, then exactly one refresh"
    );
}

#[tokio::test]
async fn a_401_refreshes_the_token_and_retries_once() {
    let (auth, server) = servers().await;
    let users = client(&server, "");
    users.get_user(1, None, "r").await.unwrap();
    auth.revoked.lock().unwrap().insert("tok-1".to_owned());
    users.get_user(1, None, "r").await.unwrap();
    assert_eq!(auth.issued.load(Ordering::SeqCst), 2);
    let user_requests = server
        .received()
        .iter()
        .filter(|r| r.uri.starts_with("/v1/api/users"))
        .count();
    assert_eq!(user_requests, 3, "the refused call was sent twice");

    // A second 401 after the refresh is an Auth error.
    auth.revoked.lock().unwrap().insert("*".to_owned());
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    assert_eq!(err.status().map(|s| s.as_u16()), Some(401));
    assert_eq!(
        auth.issued.load(Ordering::SeqCst),
        3,
        "one refresh, not a loop"
    );
}

#[tokio::test]
async fn a_token_endpoint_that_is_down_gives_auth_errors_without_hanging() {
    let refused = testkit::refused_url().await;
    let service =
        Server::start(Router::new().route("/v1/api/users/{id}", get(|| async { StatusCode::OK })))
            .await;
    let yaml = format!(
        "auth: {{ oauth2: {{ token_url: \"{refused}/token\", client_id: app, client_secret: \"{SECRET}\" }} }}"
    );
    let users = UserClient::builder()
        .base_url(&service.url())
        .profile(Profile::from_yaml_str(&yaml).unwrap())
        .build()
        .unwrap();
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth, "{err}");
    assert!(!err.to_string().contains(SECRET) && !format!("{err:?}").contains(SECRET));
    assert!(
        service.received().is_empty(),
        "no call went out without a token"
    );

    // A token endpoint that hangs: the call ends at its total deadline.
    let hanging = Server::start(Router::new().route(
        "/token",
        post(|| testkit::slow(Duration::from_secs(30), "never")),
    ))
    .await;
    let yaml = format!(
        "auth: {{ oauth2: {{ token_url: \"{}/token\", client_id: app, client_secret: \"{SECRET}\" }} }}\ntimeout: {{ total: 300ms }}",
        hanging.url()
    );
    let users = UserClient::builder()
        .base_url(&service.url())
        .profile(Profile::from_yaml_str(&yaml).unwrap())
        .build()
        .unwrap();
    let started = Instant::now();
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Auth | ErrorKind::Timeout),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_token_endpoint_error_code_is_reported_without_the_secret() {
    let endpoint = Server::start(Router::new().route(
        "/token",
        post(|| async { (StatusCode::UNAUTHORIZED, axum::Json(json!({ "error": "invalid_client", "error_description": format!("bad secret {SECRET}") }))) }),
    ))
    .await;
    let yaml = format!(
        "auth: {{ oauth2: {{ token_url: \"{}/token\", client_id: app, client_secret: \"{SECRET}\" }} }}",
        endpoint.url()
    );
    let users = UserClient::builder()
        .base_url(&endpoint.url())
        .profile(Profile::from_yaml_str(&yaml).unwrap())
        .build()
        .unwrap();
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    assert!(err.to_string().contains("invalid_client"), "{err}");
    assert!(
        !err.to_string().contains(SECRET) && !format!("{err:?}").contains(SECRET),
        "{err:?}"
    );
}

/// A client of the user service at `service` whose token endpoint is `token_url`.
fn client_with_token_url(service: &Server, token_url: &str) -> UserClient {
    oauth2_client(service, token_url, "")
}

/// A client of the user service at `service` with OAuth2 against `token_url`, `more` added to
/// the `oauth2:` settings, and no retries.
fn oauth2_client(service: &Server, token_url: &str, more: &str) -> UserClient {
    let yaml = format!(
        "auth: {{ oauth2: {{ token_url: \"{token_url}\", client_id: app, client_secret: \"{SECRET}\" {more} }} }}\nretry: {{ max_attempts: 1 }}"
    );
    UserClient::builder()
        .base_url(&service.url())
        .profile(Profile::from_yaml_str(&yaml).unwrap())
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_token_endpoint_that_redirects_gets_no_secret_to_the_other_origin() {
    // Another origin that would take the secret if the 307 were followed (a 307 keeps the body).
    let elsewhere = Server::start(Router::new().route(
        "/token",
        post(|| async { axum::Json(json!({ "access_token": "tok-stolen" })) }),
    ))
    .await;
    let target = format!("{}/token", elsewhere.url());
    let redirecting = Server::start(Router::new().route(
        "/token",
        post(move || {
            let target = target.clone();
            async move { (StatusCode::TEMPORARY_REDIRECT, [("location", target)]) }
        }),
    ))
    .await;
    let service =
        Server::start(Router::new().route("/v1/api/users/{id}", get(|| async { StatusCode::OK })))
            .await;
    let users = client_with_token_url(&service, &format!("{}/token", redirecting.url()));
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth, "{err}");
    assert!(
        elsewhere.received().is_empty(),
        "the token request followed the redirect"
    );
    assert!(
        service.received().is_empty(),
        "no call went out without a token"
    );
}

#[tokio::test]
async fn an_oversized_token_response_is_refused_without_being_read_whole() {
    let huge = Server::start(
        Router::new().route("/token", post(|| async { testkit::endless_body(8 << 20) })),
    )
    .await;
    let service =
        Server::start(Router::new().route("/v1/api/users/{id}", get(|| async { StatusCode::OK })))
            .await;
    let users = client_with_token_url(&service, &format!("{}/token", huge.url()));
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth, "{err}");
    assert!(err.to_string().contains("larger than 64 KiB"), "{err}");

    // A token of 60 KiB in a small enough answer is refused too: it would be a header on
    // every call.
    let long = Server::start(Router::new().route(
        "/token",
        post(|| async { axum::Json(json!({ "access_token": "t".repeat(60 << 10) })) }),
    ))
    .await;
    let users = client_with_token_url(&service, &format!("{}/token", long.url()));
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert!(err.to_string().contains("longer than 16 KiB"), "{err}");
    assert!(service.received().is_empty());
}

/// A token that expires as it is issued is still fetched once for the calls that waited for
/// it: one request per refresh, whatever the lifetime (it made 50 for 50 calls).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_that_expires_at_once_is_fetched_once_for_every_waiting_call() {
    let (auth, server) = servers().await;
    auth.expires_in.store(0, Ordering::SeqCst);
    let users = client(&server, "");
    get_users_at_once(&users, 50).await;
    assert_eq!(auth.issued.load(Ordering::SeqCst), 1, "one flight for all");
    // The next call finds it expired and refreshes: one more.
    users.get_user(1, None, "r").await.unwrap();
    assert_eq!(auth.issued.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_shorter_lived_than_the_refresh_margin_is_fetched_once_and_used() {
    let (auth, server) = servers().await;
    // Lives 10 s; the margin (`refresh_before`) is the default 30 s.
    auth.expires_in.store(10, Ordering::SeqCst);
    let users = client(&server, "");
    get_users_at_once(&users, 50).await;
    assert_eq!(auth.issued.load(Ordering::SeqCst), 1, "one token for all");
    users.get_user(1, None, "r").await.unwrap();
    assert_eq!(
        auth.issued.load(Ordering::SeqCst),
        1,
        "and used again later"
    );
}

#[tokio::test]
async fn a_token_endpoint_cannot_put_text_of_its_own_into_errors() {
    let endpoint = Server::start(Router::new().route(
        "/token",
        post(|| async {
            (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({ "error": format!("{SECRET}\nforged log line") })),
            )
        }),
    ))
    .await;
    let users = client_with_token_url(&endpoint, &format!("{}/token", endpoint.url()));
    let err = users.get_user(1, None, "r").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    let shown = format!("{err} {err:?}");
    assert!(
        !shown.contains(SECRET) && !shown.contains("forged"),
        "{shown}"
    );
    assert!(err.to_string().contains("error `unknown`"), "{err}");
}

#[tokio::test]
async fn an_api_key_in_the_query_goes_on_every_attempt_and_shows_nowhere() {
    const KEY: &str = "q-k3y-value";
    let profile = |url: &str| {
        UserClient::builder()
            .base_url(url)
            .profile(
                Profile::from_yaml_str(&format!(
                    "retry: {{ max_attempts: 2, backoff: {{ initial: 1ms }} }}\nquery: {{ api_key: {{ value: {KEY}, secret: true }} }}"
                ))
                .unwrap(),
            )
            .build()
            .unwrap()
    };
    let seen = Arc::new(AtomicUsize::new(0));
    let first_fails = move || {
        let seen = seen.clone();
        async move {
            let status = match seen.fetch_add(1, Ordering::SeqCst) {
                0 => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::OK,
            };
            (status, axum::Json(json!({ "id": 7, "name": "Ada" })))
        }
    };
    let server = Server::start(Router::new().route("/v1/api/users/{id}", get(first_fails))).await;
    let users = profile(&server.url());
    users.get_user(7, None, "r").await.unwrap();
    let received = server.received();
    assert_eq!(received.len(), 2, "the 503, then the retry");
    for request in &received {
        assert!(
            request.uri.ends_with("/users/7?api_key=q-k3y-value"),
            "{}",
            request.uri
        );
    }
    assert!(!format!("{users:?}").contains(KEY));

    let err = profile(&testkit::refused_url().await)
        .get_user(7, None, "r")
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Connect);
    let shown = format!("{err} {err:?} {:?}", std::error::Error::source(&err));
    assert!(!shown.contains(KEY), "{shown}");
}

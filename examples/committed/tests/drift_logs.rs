//! What a hostile server writes in its keys reaches the caller's logs as text: a key holding a
//! whole fake log line, or a terminal escape sequence, is logged escaped on the drift warning's
//! one line, and a 1 MB key is not logged whole (its own process: one global subscriber).

use axum::Router;
use axum::routing::get;
use remcall::serde_json::{Map, Value, json};
use remcall_example_committed::clients::user_client::UserClient;
use testkit::Server;
use testkit::logs::Captured;

#[tokio::test]
async fn a_servers_keys_reach_the_logs_escaped_and_bounded() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let mut user = Map::new();
    user.insert("id".into(), json!(7));
    user.insert("name".into(), json!("Ada"));
    user.insert(
        "x\n2026-12-06T00:00:00Z  INFO remcall: forged line".into(),
        json!(1),
    );
    user.insert("y\u{1b}[2J\u{1b}[31mred".into(), json!(2));
    user.insert("z".repeat(1 << 20), json!(3));
    let body = Value::Object(user).to_string();
    // An object with none of `User`'s fields, all its keys the server's: read under `lax`.
    let stranger = json!({
        "w\n2026-12-06T00:00:01Z  INFO remcall: forged too": 1,
        "v\u{1b}]0;title\u{7}": 2,
    })
    .to_string();
    let router = Router::new()
        .route(
            "/v1/api/users/7",
            get(move || {
                let body = body.clone();
                async move { ([("content-type", "application/json")], body) }
            }),
        )
        .route(
            "/v1/api/users/8",
            get(move || {
                let body = stranger.clone();
                async move { ([("content-type", "application/json")], body) }
            }),
        );
    let server = Server::start(router).await;
    let users = UserClient::new(&server.url()).unwrap();
    let user = users.get_user(7, None, "r").await.unwrap().unwrap();
    assert_eq!(user.name, "Ada");
    let lax = UserClient::builder()
        .base_url(&server.url())
        .profile(remcall::Profile::from_yaml_str("decode: lax").unwrap())
        .build()
        .unwrap();
    lax.get_user(8, None, "r").await.unwrap();
    let refused = users.get_user(8, None, "r").await.unwrap_err();
    assert!(!refused.to_string().contains('\n'), "{refused}");
    let logged = captured.take();
    assert!(logged.contains("none of the fields"), "{logged}");
    assert!(logged.contains("does not declare"), "{logged}");
    assert!(
        !logged
            .lines()
            .any(|line| line.starts_with("2026-12-06T00:00:0")),
        "a forged line: {logged}"
    );
    assert!(!logged.contains('\u{1b}'), "an escape sequence: {logged:?}");
    assert!(logged.len() < 64 * 1024, "{} bytes logged", logged.len());
    assert!(users.stats().method("get_user").unwrap().undeclared >= 2);
}

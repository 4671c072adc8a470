//! Optional parameters by name: `list_users` has four, so its call names them
//! (`.name("a").limit(2)`), is awaited, pages as a stream and reaches the fallback with them.

use std::collections::HashMap;

use axum::Router;
use axum::extract::Query;
use axum::http::StatusCode;
use axum::routing::get;
use remcall::serde_json::{Value, json};
use remcall::{Error, Profile};
use remcall_example_committed::clients::user_client::{
    ListUsersOptions, User, UserClient, UserClientFallback, UserPage, UserSort,
};
use testkit::Server;

/// Five users, `limit` (default 2) a page, starting after the id in `after`.
async fn user_list_server() -> Server {
    let list = |Query(query): Query<HashMap<String, String>>| async move {
        let after: i64 = query.get("after").map_or(0, |a| a.parse().unwrap());
        let limit: usize = query.get("limit").map_or(2, |l| l.parse().unwrap());
        let users: Vec<Value> = (after + 1..=5)
            .take(limit)
            .map(|id| json!({ "id": id, "name": format!("user {id}") }))
            .collect();
        let last = users.last().and_then(|u| u["id"].as_i64()).unwrap_or(5);
        axum::Json(json!({ "users": users, "hasMore": last < 5 }))
    };
    Server::start(Router::new().route("/v1/api/users", get(list))).await
}

fn uris(server: &Server) -> Vec<String> {
    server.received().iter().map(|r| r.uri.clone()).collect()
}

#[tokio::test]
async fn only_the_optional_parameters_named_are_sent() {
    let server = user_list_server().await;
    let users = UserClient::new(&server.url()).unwrap();

    let page = users.list_users().name("user").limit(3).await.unwrap();
    assert_eq!(page.users.len(), 3);
    assert!(page.has_more);
    users
        .list_users()
        .sort(UserSort::Name)
        .after(4)
        .send()
        .await
        .unwrap();
    users.list_users().await.unwrap();
    let options = ListUsersOptions {
        limit: Some(1),
        ..Default::default()
    };
    users.list_users_with(&options).await.unwrap();
    // The call is `Send`: spawned, as a service would.
    let spawned = users.clone();
    tokio::spawn(async move { spawned.list_users().limit(5).await })
        .await
        .unwrap()
        .unwrap();

    assert_eq!(
        uris(&server),
        [
            "/v1/api/users?name=user&limit=3",
            "/v1/api/users?sort=name&after=4",
            "/v1/api/users",
            "/v1/api/users?limit=1",
            "/v1/api/users?limit=5",
        ]
    );
    assert_eq!(users.stats().method("list_users").unwrap().calls, 5);
}

#[tokio::test]
async fn a_named_call_streams_its_pages_with_its_options() {
    let server = user_list_server().await;
    let users = UserClient::new(&server.url()).unwrap();
    let mut pages = users.list_users().name("user").stream();
    let mut ids = Vec::new();
    while let Some(user) = pages.next().await {
        ids.push(user.unwrap().id);
    }
    assert_eq!(ids, [1, 2, 3, 4, 5]);
    assert_eq!(
        uris(&server),
        [
            "/v1/api/users?name=user",
            "/v1/api/users?name=user&after=2",
            "/v1/api/users?name=user&after=4",
        ],
        "three pages, each with the named option, then it stops"
    );
}

/// Answers a failed list with what it was asked for: the options reach the fallback.
struct EmptyList;

impl UserClientFallback for EmptyList {
    async fn list_users(
        &self,
        options: &ListUsersOptions,
        cause: Error,
    ) -> Result<UserPage, Error> {
        assert_eq!(cause.method(), "list_users");
        let name = options.name.clone().unwrap_or_default();
        Ok(UserPage {
            users: vec![User {
                id: 0,
                name: format!("cached {name} ({:?})", options.limit),
                email: None,
                created_at: None,
            }],
            has_more: false,
        })
    }
}

#[tokio::test]
async fn the_fallback_of_a_named_call_sees_its_options_and_the_cause() {
    let server = Server::start(Router::new().route(
        "/v1/api/users",
        get(|| async { StatusCode::SERVICE_UNAVAILABLE }),
    ))
    .await;
    let users = UserClient::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
        .fallback(EmptyList)
        .build()
        .unwrap();
    let page = users.list_users().name("ada").limit(7).await.unwrap();
    assert_eq!(page.users[0].name, "cached ada (Some(7))");
    let stats = users.stats();
    let stats = stats.method("list_users").unwrap();
    assert_eq!((stats.calls, stats.fallbacks), (1, 1));
}

//! A tiny user service on loopback, speaking the envelope format of `specs/user_service.yaml`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use remcall::serde_json::{Value, json};

type Users = Arc<Mutex<BTreeMap<i64, Value>>>;

/// The service's routes, with two users to start with.
pub fn router() -> Router {
    let users: Users = Arc::new(Mutex::new(BTreeMap::from([
        (
            1,
            json!({ "id": 1, "name": "Ada", "email": "ada@example.test", "createdAt": "2026-01-01T00:00:00Z" }),
        ),
        (2, json!({ "id": 2, "name": "Grace" })),
    ])));
    Router::new()
        .route("/v1/api/queryUser", post(query_user))
        .route("/v1/api/users", get(list_users))
        .route("/v1/api/users/{id}", get(get_user).delete(delete_user))
        .with_state(users)
}

/// Serves the routes on an ephemeral loopback port; returns the base URL.
pub async fn start() -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move {
        let _ = axum::serve(listener, router()).await;
    });
    Ok(url)
}

async fn query_user(State(users): State<Users>, Json(example): Json<Value>) -> Json<Value> {
    let users = users.lock().map(|u| u.clone()).unwrap_or_default();
    let matches: Vec<Value> = users
        .values()
        .filter(|user| {
            example
                .get("name")
                .is_none_or(|name| user.get("name") == Some(name))
        })
        .cloned()
        .collect();
    Json(json!({ "code": 0, "message": "ok", "data": matches }))
}

/// `name` (contained in the user's), `limit` (default 20) and `after` (an id), as the spec's
/// `list_users` sends them.
async fn list_users(
    State(users): State<Users>,
    Query(query): Query<BTreeMap<String, String>>,
) -> Json<Value> {
    let users = users.lock().map(|u| u.clone()).unwrap_or_default();
    let after: i64 = query.get("after").and_then(|a| a.parse().ok()).unwrap_or(0);
    let limit: usize = query
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(20);
    let name = query.get("name").map(String::as_str).unwrap_or("");
    let mut matching = users.iter().filter(|(id, user)| {
        **id > after && user["name"].as_str().is_some_and(|n| n.contains(name))
    });
    let page: Vec<Value> = matching
        .by_ref()
        .take(limit)
        .map(|(_, u)| u.clone())
        .collect();
    let has_more = matching.next().is_some();
    Json(json!({ "users": page, "hasMore": has_more }))
}

async fn get_user(
    State(users): State<Users>,
    Path(id): Path<i64>,
) -> Result<Json<Value>, StatusCode> {
    let user = users.lock().ok().and_then(|u| u.get(&id).cloned());
    user.map(Json).ok_or(StatusCode::NOT_FOUND)
}

async fn delete_user(State(users): State<Users>, Path(id): Path<i64>) -> StatusCode {
    if let Ok(mut users) = users.lock() {
        users.remove(&id);
    }
    StatusCode::NO_CONTENT
}

//! The live page, fetched over HTTP like a browser would.

use std::sync::Arc;

use remcall_demo::user_client::UserClient;
use remcall_demo::{dashboard, service};

#[tokio::test]
async fn the_page_shows_methods_figures_and_breaker_states() {
    let url = service::start().await.unwrap();
    let client = UserClient::new(&url).unwrap();
    client.get_user(1, None, "a").await.unwrap();
    client.get_user(99, None, "b").await.unwrap(); // 404 → None, still a success
    let stats_client = client.clone();
    let page = testkit::Server::start(dashboard::router(Arc::new(move || {
        vec![stats_client.stats()]
    })))
    .await;

    let html = remcall::reqwest::get(format!("{}/", page.url()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("http-equiv=\"refresh\""),
        "the page refreshes itself"
    );
    assert!(html.contains("<h2>UserClient</h2>"));
    for method in ["query_user", "get_user", "delete_user"] {
        assert!(
            html.contains(&format!("<td>{method}</td>")),
            "{method} missing"
        );
    }
    assert!(
        html.contains("<tr><td>get_user</td><td>2</td><td>2</td><td>0</td>"),
        "{html}"
    );
    assert!(html.contains("class=\"closed\">closed"));
    assert!(
        html.contains(&format!("{url}/v1/api")),
        "the endpoint is listed"
    );

    let body = remcall::reqwest::get(format!("{}/stats.json", page.url()))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let json: remcall::serde_json::Value = remcall::serde_json::from_slice(&body).unwrap();
    assert_eq!(json[0]["methods"]["get_user"]["calls"], 2);
}

//! The dashboard's routes over HTTP: a self-contained page, `/stats.json` with the last two
//! minutes, `/metrics` in the Prometheus text format, GET only, and a client that disappears
//! from them when it is dropped.

use remcall::Observe;
use remcall::serde_json::Value;
use remcall_demo::service;
use remcall_demo::user_client::UserClient;

async fn get(url: &str) -> (u16, String) {
    let response = remcall::reqwest::get(url).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn the_routes_serve_a_self_contained_page_figures_and_metrics() {
    let url = service::start().await.unwrap();
    let users = UserClient::new(&url).unwrap();
    users.get_user(1, None, "a").await.unwrap();
    users.get_user(99, None, "b").await.unwrap();
    let gone = UserClient::new(&url).unwrap();
    let page = testkit::Server::start(remcall::dashboard::router(vec![
        users.observe(),
        gone.observe(),
    ]))
    .await;

    let (status, html) = get(&format!("{}/", page.url())).await;
    assert_eq!(status, 200);
    // Nothing outside the page: no script, style, font or image from anywhere, no absolute
    // URL but the SVG namespace (the figures it is served with hold the endpoints' URLs: data).
    let (before, rest) = html
        .split_once("<script id=\"figures\" type=\"application/json\">")
        .unwrap();
    let html = format!("{before}{}", rest.split_once("</script>").unwrap().1);
    for outside in ["src=", "href=", "url(", "@import", "https://"] {
        assert!(!html.contains(outside), "`{outside}` in the page");
    }
    assert_eq!(
        html.matches("http://").count(),
        html.matches("http://www.w3.org/2000/svg").count()
    );

    let (_, body) = get(&format!("{}/stats.json", page.url())).await;
    let json: Value = remcall::serde_json::from_str(&body).unwrap();
    assert_eq!(json["clients"].as_array().unwrap().len(), 2);
    let get_user = &json["clients"][0]["methods"]["get_user"];
    assert_eq!(get_user["calls"], 2);
    assert_eq!(get_user["history"].as_array().unwrap().len(), 120);
    assert!(get_user["last_10s"]["calls"].is_number());
    assert_eq!(json["clients"][0]["methods"]["delete_user"]["used"], false);
    // The bulkhead's use (none in flight of 128), and no breaker change yet.
    assert_eq!(get_user["bulkhead"], remcall::serde_json::json!([0, 128]));
    assert!(get_user.get("breaker_changed_ms_ago").is_none());

    let (status, metrics) = get(&format!("{}/metrics", page.url())).await;
    assert_eq!(status, 200);
    assert!(metrics.contains("# TYPE remcall_method_calls_total counter"));
    assert!(
        metrics.contains("remcall_method_calls_total{client=\"UserClient\",method=\"get_user\"} 2")
    );
    assert!(
        metrics
            .contains("remcall_method_breaker_state{client=\"UserClient\",method=\"get_user\"} 0")
    );
    assert!(metrics.contains("remcall_endpoint_in_flight{client=\"UserClient\",endpoint=\""));
    assert!(
        metrics.contains(
            "remcall_method_bulkhead_limit{client=\"UserClient\",method=\"get_user\"} 128"
        )
    );

    // GET only.
    let post = remcall::reqwest::Client::new()
        .post(format!("{}/stats.json", page.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status().as_u16(), 405);

    // A client dropped while the page is open leaves it.
    drop(gone);
    let (_, body) = get(&format!("{}/stats.json", page.url())).await;
    let json: Value = remcall::serde_json::from_str(&body).unwrap();
    assert_eq!(json["clients"].as_array().unwrap().len(), 1);
}

/// The status of a GET of `path` with this `Host` header, over a raw connection (a client
/// library writes the Host of the URL).
async fn status_with_host(addr: std::net::SocketAddr, path: &str, host: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn the_served_page_answers_only_its_own_names_not_a_rebound_domain() {
    let url = service::start().await.unwrap();
    let users = UserClient::new(&url).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(remcall::dashboard::serve_listener(
        listener,
        vec![users.observe()],
        &["dash.internal"],
    ));
    let port = addr.port();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "dash.internal".to_owned(),
    ] {
        let status = status_with_host(addr, "/stats.json", &host).await;
        assert!(status.contains(" 200 "), "{host}: {status}");
    }
    for host in [
        format!("evil.example:{port}"),
        "dash.internal.evil.example".to_owned(),
    ] {
        let status = status_with_host(addr, "/stats.json", &host).await;
        assert!(status.contains(" 421 "), "{host}: {status}");
    }
}

/// `serve` binds (port 0: any free port), serves in a task of its own and says where; the page
/// it serves already holds the figures of that moment, with no waiting page.
#[tokio::test]
async fn serve_says_where_it_is_and_the_page_comes_with_its_figures() {
    let url = service::start().await.unwrap();
    let users = UserClient::new(&url).unwrap();
    users.get_user(1, None, "r").await.unwrap();
    let dashboard = remcall::dashboard::serve("127.0.0.1:0", vec![users.observe()])
        .await
        .unwrap();
    assert_ne!(dashboard.addr().port(), 0);
    let (status, html) = get(&dashboard.url()).await;
    assert_eq!(status, 200);
    assert!(!html.contains("waiting"), "no waiting page");
    let figures = html
        .split("<script id=\"figures\" type=\"application/json\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("the figures in the page");
    let figures: remcall::serde_json::Value = remcall::serde_json::from_str(figures).unwrap();
    assert_eq!(figures["clients"][0]["client"], "UserClient");
    assert_eq!(figures["clients"][0]["methods"]["get_user"]["calls"], 1);
    assert_eq!(
        figures["clients"][0]["methods"]["get_user"]["bulkhead_is_clients"],
        true
    );
    dashboard.stop();
}

/// The docs' way to put the page in a service's own app: an app with state of its own, the page
/// at `/remcall` and at `/remcall/`, its figures beside it, the app's own routes untouched.
#[tokio::test]
async fn mounted_in_an_app_with_state_the_page_answers_with_and_without_the_slash() {
    use axum::extract::State;

    #[derive(Clone)]
    struct AppState {
        name: &'static str,
    }
    let url = service::start().await.unwrap();
    let users = UserClient::new(&url).unwrap();
    users.get_user(1, None, "a").await.unwrap();
    let app: axum::Router<AppState> = axum::Router::new().route(
        "/",
        axum::routing::get(|State(state): State<AppState>| async move { state.name }),
    );
    let app = remcall::dashboard::mount(app, "/remcall", vec![users.observe()])
        .with_state(AppState { name: "the app" });
    let server = testkit::Server::start(app).await;

    assert_eq!(
        get(&format!("{}/", server.url())).await,
        (200, "the app".into())
    );
    for path in ["/remcall", "/remcall/"] {
        let (status, html) = get(&format!("{}{path}", server.url())).await;
        assert_eq!(status, 200, "{path}");
        assert!(html.contains("<main id=\"clients\">"), "{path}: {html}");
    }
    let (status, stats) = get(&format!("{}/remcall/stats.json", server.url())).await;
    assert_eq!(status, 200);
    assert!(stats.contains("get_user"), "{stats}");
}

/// A client of a thousand methods, ten of them called, seen by the page each second: the
/// changes it asks for (`?view=changes`) hold the ten used methods with their last seconds and
/// how many methods there are in all, a small part of the whole figures it was served with.
#[tokio::test]
async fn the_page_asks_each_second_only_for_what_changed() {
    use remcall::__codegen::{ClientBuilder, decode};

    let spec = remcall_demo::live::many_methods("ThousandMethods", 1000);
    let methods = spec.methods;
    let server = testkit::Server::start(
        axum::Router::new().route("/ping", axum::routing::get(|| async { "{}" })),
    )
    .await;
    let client = ClientBuilder::new(spec)
        .base_url(&server.url())
        .build()
        .unwrap();
    for called in (0..1000).step_by(100) {
        client
            .call(methods[called].request(), decode::json::<Value>)
            .await
            .unwrap();
    }
    let page = testkit::Server::start(remcall::dashboard::router(vec![client.observe()])).await;
    let (_, whole) = get(&format!("{}/stats.json", page.url())).await;
    let (_, changes) = get(&format!("{}/stats.json?view=changes", page.url())).await;
    let figures: Value = remcall::serde_json::from_str(&changes).unwrap();
    assert_eq!(figures["view"], "changes");
    let client_figures = &figures["clients"][0];
    assert_eq!(client_figures["methods_in_all"], 1000);
    assert!(client_figures["history_end"].as_u64().unwrap() > 0);
    let used = client_figures["methods"].as_object().unwrap();
    assert_eq!(used.len(), 10, "the used methods only");
    assert!(
        used.values()
            .all(|m| m["history"].as_array().unwrap().len() <= 5),
        "their last seconds only"
    );
    println!(
        "a 1,000-method client, 10 used: whole figures {} bytes, each second's changes {} bytes",
        whole.len(),
        changes.len()
    );
    assert!(
        changes.len() * 20 < whole.len(),
        "changes {} bytes, whole {} bytes",
        changes.len(),
        whole.len()
    );
}

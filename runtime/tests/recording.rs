//! Recording real exchanges (`record:`) against a loopback server: each answer of a recorded
//! method is one JSON line — the request as sent, the answer — that holds no credential, no
//! secret query value, no cookie and no `Set-Cookie`, in a file only its owner reads; a method
//! not chosen is not recorded; what is written reads back with `remcall::recording::read`.

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use remcall::__codegen::{ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::Profile;
use remcall::recording::{Body, read};
use remcall::serde_json::{Value, json};
use testkit::Server;

static GET_ITEM: MethodSpec = MethodSpec {
    index: 0,
    name: "get_item",
    http_method: "GET",
    path: "/items/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static ADD_ITEM: MethodSpec = MethodSpec {
    index: 1,
    name: "add_item",
    http_method: "POST",
    path: "/items",
    idempotent: false,
    reads: false,
    not_found_none: false,
    streams: false,
    profile: "",
};

static PING: MethodSpec = MethodSpec {
    index: 2,
    name: "ping",
    http_method: "GET",
    path: "/ping",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Items",
    base_urls: &[],
    base_path: "/api",
    profile: "",
    methods: &[&GET_ITEM, &ADD_ITEM, &PING],
};

/// The credentials the test sends, each of which must stay out of the file.
const SENT_SECRETS: [&str; 5] = [
    "token-in-the-header-7f3a",
    "key-in-the-query-91bc",
    "session-cookie-5e2d",
    "server-set-cookie-c0ff",
    "signature-in-the-url-aa11",
];

async fn items() -> Server {
    let router = Router::new()
        .route(
            "/api/items/{id}",
            get(|| async {
                let mut headers = HeaderMap::new();
                headers.insert(
                    "set-cookie",
                    HeaderValue::from_static("sid=server-set-cookie-c0ff; HttpOnly"),
                );
                (
                    headers,
                    axum::Json(json!({ "id": 7, "name": "lamp", "extra": [1, 2] })),
                )
            }),
        )
        .route(
            "/api/items",
            post(|body: axum::Json<Value>| async move {
                (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    axum::Json(json!({ "detail": [{ "loc": ["body", "name"], "got": body.0 }] })),
                )
                    .into_response()
            }),
        )
        .route("/api/ping", get(|| async { "pong" }));
    Server::start(router).await
}

#[tokio::test]
async fn a_recording_holds_the_exchanges_of_the_chosen_methods_and_no_secret() {
    let server = items().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("items.jsonl");
    let profile = format!(
        "record: {{ file: \"{}\", methods: [get_item, add_item] }}
auth: {{ bearer: {{ token: token-in-the-header-7f3a }} }}
query: {{ key: {{ value: key-in-the-query-91bc, secret: true }} }}
cookies: {{ session: {{ value: session-cookie-5e2d, secret: true }} }}",
        file.display()
    );
    let client = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .profile(Profile::from_yaml_str(&profile).unwrap())
        .build()
        .unwrap();
    let item: Value = client
        .call(
            GET_ITEM
                .request()
                .path("id", 7)
                .query("sig", Some("signature-in-the-url-aa11"))
                .query("verbose", Some(true)),
            decode::json,
        )
        .await
        .unwrap();
    assert_eq!(item["name"], "lamp");
    let refused = client
        .call(
            ADD_ITEM.request().json(json!({ "name": 3 })),
            decode::json::<Value>,
        )
        .await
        .unwrap_err();
    assert_eq!(refused.status(), Some(StatusCode::UNPROCESSABLE_ENTITY));
    client.call(PING.request(), decode::text).await.unwrap();

    let text = std::fs::read_to_string(&file).unwrap();
    for secret in SENT_SECRETS {
        assert!(!text.contains(secret), "`{secret}` recorded: {text}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the recording is readable by others: {mode:o}");
    }
    let exchanges = read(&text).unwrap();
    assert_eq!(exchanges.len(), 2, "ping is not recorded: {text}");
    let got = &exchanges[0];
    assert_eq!(
        (got.client.as_str(), got.method.as_str(), got.verb.as_str()),
        ("Items", "get_item", "GET")
    );
    assert_eq!(got.route, "/items/{id}");
    assert_eq!(got.url, "/api/items/7?verbose=true");
    assert_eq!(got.status, 200);
    assert_eq!(
        got.body,
        Some(Body::Json(
            json!({ "id": 7, "name": "lamp", "extra": [1, 2] })
        ))
    );
    assert!(got.headers.iter().all(|(name, _)| name != "set-cookie"));
    let refused = &exchanges[1];
    assert_eq!((refused.method.as_str(), refused.status), ("add_item", 422));
    assert_eq!(refused.request_body, Some(Body::Json(json!({ "name": 3 }))));
    assert!(
        matches!(&refused.body, Some(Body::Json(body)) if body["detail"][0]["got"]["name"] == 3),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_body_past_max_body_is_cut_and_says_so() {
    let server = items().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.jsonl");
    let profile = format!("record: {{ file: \"{}\", max_body: 10B }}", file.display());
    let client = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .profile(Profile::from_yaml_str(&profile).unwrap())
        .build()
        .unwrap();
    client
        .call(GET_ITEM.request().path("id", 1), decode::json::<Value>)
        .await
        .unwrap();
    let exchanges = read(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(
        matches!(&exchanges[0].body, Some(Body::Cut { text, bytes }) if text.len() == 10 && *bytes > 10),
        "{:?}",
        exchanges[0].body
    );
}

#[test]
fn a_recording_file_that_cannot_be_opened_fails_the_build() {
    let profile = "record: { file: /nonexistent-dir-of-remcall/x.jsonl }";
    let error = ClientBuilder::new(&SPEC)
        .base_url("http://127.0.0.1:1")
        .profile(Profile::from_yaml_str(profile).unwrap())
        .build()
        .unwrap_err();
    assert_eq!(error.kind(), remcall::ErrorKind::Config, "{error}");
    assert!(error.to_string().contains("record.file"), "{error}");
}

/// A recording replays through the stub with no server: each recorded call gets its recorded
/// answer (a 422 included), one recorded twice its answers in order and the last again, and a
/// call nobody recorded a 501 naming what the nearest recorded call had.
#[cfg(feature = "stub")]
#[tokio::test]
async fn a_recording_replays_through_the_stub_without_the_server() {
    use remcall::stub::Stub;
    let server = items().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("replay.jsonl");
    let recording = ClientBuilder::new(&SPEC)
        .base_url(&server.url())
        .profile(
            Profile::from_yaml_str(&format!("record: {{ file: \"{}\" }}", file.display())).unwrap(),
        )
        .build()
        .unwrap();
    let get = |client: &remcall::__codegen::Client, id: u32| {
        let client = client.clone();
        async move {
            client
                .call(GET_ITEM.request().path("id", id), decode::json::<Value>)
                .await
        }
    };
    let live = get(&recording, 7).await.unwrap();
    let refused = recording
        .call(
            ADD_ITEM.request().json(json!({ "name": 3 })),
            decode::json::<Value>,
        )
        .await
        .unwrap_err();
    drop(server);

    let stub = Stub::start(&SPEC).await.unwrap();
    assert_eq!(stub.replay_file(&file), Ok(2));
    let replayed = ClientBuilder::new(&SPEC)
        .base_url(&stub.url())
        .build()
        .unwrap();
    assert_eq!(get(&replayed, 7).await.unwrap(), live);
    assert_eq!(
        get(&replayed, 7).await.unwrap(),
        live,
        "the last answers again"
    );
    let again = replayed
        .call(
            ADD_ITEM.request().json(json!({ "name": 3 })),
            decode::json::<Value>,
        )
        .await
        .unwrap_err();
    assert_eq!(again.status(), refused.status());
    assert_eq!(again.body(), refused.body());
    let unrecorded = get(&replayed, 8).await.unwrap_err();
    assert_eq!(unrecorded.status(), Some(StatusCode::NOT_IMPLEMENTED));
    let said = String::from_utf8_lossy(unrecorded.body().unwrap_or_default()).into_owned();
    assert!(said.contains("path `id` = \"7\""), "{said}");
    let other_body = replayed
        .call(
            ADD_ITEM.request().json(json!({ "name": 4 })),
            decode::json::<Value>,
        )
        .await
        .unwrap_err();
    assert_eq!(other_body.status(), Some(StatusCode::NOT_IMPLEMENTED));
}

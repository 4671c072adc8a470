//! Where an answer came from, as a caller reads it with `remcall::origin::observed`: the
//! server's, a stale kept answer standing in for a failure, a fallback's; the least fresh of
//! several calls; none when nothing answered. Against a loopback server that fails on demand.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::origin::observed;
use remcall::serde_json::{Value, json};
use remcall::{Origin, Profile};
use testkit::Server;

static GET_DOC: MethodSpec = MethodSpec {
    index: 0,
    name: "get_doc",
    http_method: "GET",
    path: "/docs/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Docs",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_DOC],
};

/// A server whose documents may be kept but are stale at once, failing with 503 while `down`.
async fn server(down: Arc<AtomicBool>) -> Server {
    let router = Router::new().route(
        "/docs/{id}",
        get(move || {
            let down = down.load(Ordering::SeqCst);
            async move {
                if down {
                    return StatusCode::SERVICE_UNAVAILABLE.into_response();
                }
                ([("cache-control", "max-age=0")], "{\"from\":\"server\"}").into_response()
            }
        }),
    );
    Server::start(router).await
}

fn client(url: &str, yaml: &str) -> Client {
    ClientBuilder::new(&SPEC)
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

async fn get_doc(client: &Client, id: u32) -> Result<Value, remcall::Error> {
    client
        .call(GET_DOC.request().path("id", id), decode::json)
        .await
}

/// As a generated method with a fallback calls it: the fallback answers every failure.
async fn get_doc_or_default(client: &Client, id: u32) -> Result<Value, remcall::Error> {
    client
        .call_or_fallback(GET_DOC.request().path("id", id), decode::json, |_| async {
            Ok(json!({ "from": "fallback" }))
        })
        .await
}

#[tokio::test]
async fn a_caller_tells_the_servers_answer_from_a_stale_one_and_a_fallbacks() {
    let down = Arc::new(AtomicBool::new(false));
    let server = server(down.clone()).await;
    let docs = client(
        &server.url(),
        "cache: { stale_if_error: 10m }\nretry: { max_attempts: 1 }",
    );

    let (doc, origin) = observed(get_doc(&docs, 1)).await;
    assert_eq!(doc.unwrap()["from"], "server");
    assert_eq!(origin, Some(Origin::Server));

    down.store(true, Ordering::SeqCst);
    // The same body as the server's: only the origin tells it is a kept answer past its age.
    let (doc, origin) = observed(get_doc(&docs, 1)).await;
    assert_eq!(doc.unwrap()["from"], "server");
    assert_eq!(origin, Some(Origin::Stale));

    let (doc, origin) = observed(get_doc_or_default(&docs, 2)).await;
    assert_eq!(doc.unwrap()["from"], "fallback");
    assert_eq!(origin, Some(Origin::Fallback));

    // Nothing answered: no origin.
    let (doc, origin) = observed(get_doc(&docs, 3)).await;
    assert!(doc.is_err());
    assert_eq!(origin, None);

    // Several calls: the least fresh of their answers.
    down.store(false, Ordering::SeqCst);
    let (_, origin) = observed(async {
        get_doc(&docs, 4).await.unwrap();
        down.store(true, Ordering::SeqCst);
        get_doc(&docs, 4).await.unwrap();
        down.store(false, Ordering::SeqCst);
        get_doc(&docs, 5).await.unwrap();
    })
    .await;
    assert_eq!(origin, Some(Origin::Stale));

    // Outside a scope nothing is noted, and a scope sees only its own calls.
    get_doc_or_default(&docs, 6).await.unwrap();
    let (_, origin) = observed(get_doc(&docs, 7)).await;
    assert_eq!(origin, Some(Origin::Server));
}

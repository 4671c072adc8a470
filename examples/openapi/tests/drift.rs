//! A description that lies, end to end: `api/drifty.yaml` says a file's `content` is always
//! text and its `size` always there; the loopback server sends null for an empty file, a list
//! for a directory and no size for it. Strict decoding says where; `decode: lax` keeps going
//! and counts the drift; the drift becomes an overlay (committed as `api/drifty-fix.json`),
//! and the client generated with it decodes the same answers strictly. The server also sends
//! keys the description does not declare (a file's `mode` and `owner`), and refuses a name with
//! a 422 in a shape of its own rather than the declared `Problem { detail }`: each is noticed,
//! counted, logged, and declared by the overlay, so the fixed client keeps them.

use axum::Router;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::routing::get;
use remcall::serde_json::{Value, json};
use remcall::{ErrorKind, Observe, Profile};
use remcall_example_openapi::drifty::{Drifty, GetContentsError, Problem};
use remcall_example_openapi::drifty_fixed::{
    ContentsContent, DriftyFixed, GetContentsError as DriftyFixedError,
};
use testkit::Server;

async fn server() -> Server {
    let router = Router::new().route(
        "/api/contents/{name}",
        get(|Path(name): Path<String>| async move {
            let answer = match name.as_str() {
                "empty.txt" => json!({ "name": "empty.txt", "content": null, "size": 0 }),
                "docs" => json!({ "name": "docs", "content": [{ "name": "a.md" }] }),
                "moved" => json!({ "title": "Moved", "pages": 3, "href": "/v2/moved" }),
                "bad name" => {
                    let refusal = json!({
                        "exception_message": "Invalid request received.",
                        "exception_detail": [{ "loc": ["path", "name"], "msg": "no spaces" }],
                    });
                    return (StatusCode::UNPROCESSABLE_ENTITY, axum::Json(refusal));
                }
                _ => json!({
                    "name": name, "content": "hello", "size": 5,
                    "mode": "0644", "owner": { "name": "ann" },
                }),
            };
            (StatusCode::OK, axum::Json(answer))
        }),
    );
    Server::start(router).await
}

fn url(server: &Server) -> String {
    format!("{}/api", server.url())
}

#[tokio::test]
async fn strict_decoding_says_where_the_description_lies() {
    let server = server().await;
    let drifty = Drifty::new(&url(&server)).unwrap();
    assert_eq!(drifty.get_contents("a.txt").await.unwrap().content, "hello");
    let error = drifty.get_contents("empty.txt").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    assert_eq!(
        error.to_string(),
        "Drifty.get_contents: the response body is not a valid `Contents`: `Contents.content` \
         (at `$.content`): null, where the description says a string"
    );
}

/// Strict is strict about shape: an object with keys, none of them the struct's, is no
/// `Contents` (all-optional fields would read it as an empty one, every value lost), and a 422
/// in a shape of the server's own is no declared `Problem`. The error names the struct and the
/// keys that came.
#[tokio::test]
async fn strict_decoding_refuses_an_object_that_shares_no_key_with_its_struct() {
    let server = server().await;
    let drifty = Drifty::new(&url(&server)).unwrap();
    let error = drifty.get_contents("moved").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode, "{error}");
    let said = error.to_string();
    assert!(
        said.contains("shares no key with `Contents`")
            && said.contains("`href`, `pages`, `title`")
            && said.contains("`name`"),
        "{said}"
    );
    let refused = drifty.get_contents("bad name").await.unwrap_err();
    assert_eq!(refused.status(), Some(StatusCode::UNPROCESSABLE_ENTITY));
    assert_eq!(refused.detail::<GetContentsError>(), None, "{refused}");
    assert!(refused.to_string().contains("no spaces"), "{refused}");
}

#[tokio::test]
async fn lax_decoding_keeps_going_counts_drift_and_writes_the_overlay_that_fixes_it() {
    let server = server().await;
    let drifty = Drifty::builder()
        .base_url(&url(&server))
        .profile(Profile::from_yaml_str("decode: lax").unwrap())
        .build()
        .unwrap();
    let empty = drifty.get_contents("empty.txt").await.unwrap();
    assert_eq!((empty.content.as_str(), empty.size), ("", 0));
    let docs = drifty.get_contents("docs").await.unwrap();
    assert_eq!(
        docs.content, r#"[{"name":"a.md"}]"#,
        "a list kept as its JSON text"
    );
    assert_eq!(docs.size, 0, "a missing size takes its type's default");
    // Keys the description does not declare: skipped, noticed.
    let file = drifty.get_contents("a.txt").await.unwrap();
    assert_eq!(file.content, "hello");
    // A refusal in a shape of its own: the declared error reads nothing of it; the server's
    // text is in the error, and the keys it had are noticed too.
    let refused = drifty.get_contents("bad name").await.unwrap_err();
    assert_eq!(
        refused.detail::<GetContentsError>(),
        Some(&GetContentsError::UnprocessableEntity(Problem::default()))
    );
    assert!(refused.to_string().contains("no spaces"), "{refused}");
    let stats = drifty.stats();
    let method = stats.method("get_contents").unwrap();
    assert_eq!(method.drift, 3);
    // `mode`, `owner`, the refusal's two keys, and the refusal sharing no key with `Problem`.
    assert_eq!(method.undeclared, 5);

    let written: Value =
        remcall::serde_json::from_str(&drifty.observe().drift_overlay().unwrap()).unwrap();
    let committed: Value = remcall::serde_json::from_str(include_str!("../api/drifty-fix.json"))
        .expect("api/drifty-fix.json is JSON");
    assert_eq!(
        written,
        committed,
        "the drift's overlay is what api/drifty-fix.json holds:\n{}",
        remcall::serde_json::to_string_pretty(&written).unwrap()
    );
}

#[tokio::test]
async fn the_client_built_with_the_overlay_decodes_the_same_answers_strictly() {
    let server = server().await;
    let fixed = DriftyFixed::new(&url(&server)).unwrap();
    let empty = fixed.get_contents("empty.txt").await.unwrap();
    assert_eq!(empty.content, None);
    // The overlay widened `content` to text or a list, nullable; `size` optional.
    let docs = fixed.get_contents("docs").await.unwrap();
    assert_eq!(
        docs.content,
        Some(ContentsContent::ValueList(vec![json!({ "name": "a.md" })]))
    );
    assert_eq!(docs.size, None);
    let file = fixed.get_contents("a.txt").await.unwrap();
    assert_eq!(
        file.content,
        Some(ContentsContent::String("hello".to_owned()))
    );
    assert_eq!(file.size, Some(5));
    // The keys the overlay declared, kept.
    assert_eq!(file.mode.as_deref(), Some("0644"));
    assert_eq!(file.owner, Some(json!({ "name": "ann" })));
    let refused = fixed.get_contents("bad name").await.unwrap_err();
    let Some(DriftyFixedError::UnprocessableEntity(problem)) = refused.detail() else {
        panic!("{refused:?}");
    };
    assert_eq!(
        problem.exception_message.as_deref(),
        Some("Invalid request received.")
    );
    let method = fixed.stats().method("get_contents").unwrap().clone();
    assert_eq!((method.drift, method.undeclared), (0, 0));
}

/// Resident memory of this process, in bytes.
fn resident() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// A server that names a new 1 MB map key in every answer, each value drifting (a struct's
/// field null, a map's integer null): lax decoding repairs and counts every one, and what the
/// client remembers of the drift stays small — one place for the struct field however its key
/// is spelled, a path cut to its first characters for the map value — so memory stays flat.
#[tokio::test]
async fn drift_under_new_large_map_keys_keeps_memory_flat() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let answers = Arc::new(AtomicUsize::new(0));
    let key = move |answers: &AtomicUsize| {
        format!(
            "{}{}",
            answers.fetch_add(1, Ordering::Relaxed),
            "k".repeat(1 << 20)
        )
    };
    let (contents, sizes) = (answers.clone(), answers);
    let router =
        Router::new()
            .route(
                "/api/contents",
                get(move || {
                    let key = key(&contents);
                    async move {
                        axum::Json(json!({ key: { "name": "a", "content": null, "size": 1 } }))
                    }
                }),
            )
            .route(
                "/api/sizes",
                get(move || {
                    let key = key(&sizes);
                    async move { axum::Json(json!({ key: null })) }
                }),
            );
    let server = Server::start(router).await;
    let drifty = Drifty::builder()
        .base_url(&url(&server))
        .profile(Profile::from_yaml_str("decode: lax").unwrap())
        .build()
        .unwrap();
    for _ in 0..4 {
        drifty.list_contents().await.unwrap();
        drifty.list_sizes().await.unwrap();
    }
    let before = resident();
    const CALLS: u64 = 64;
    for _ in 0..CALLS {
        let listing = drifty.list_contents().await.unwrap();
        assert_eq!(listing.values().next().unwrap().content, "");
        let sizes = drifty.list_sizes().await.unwrap();
        assert_eq!(sizes.values().next(), Some(&0));
    }
    let grown = resident().saturating_sub(before);
    let stats = drifty.stats();
    assert_eq!(stats.method("list_contents").unwrap().drift, CALLS + 4);
    assert_eq!(stats.method("list_sizes").unwrap().drift, CALLS + 4);
    // Before drift was bounded, each answer's key stayed twice: ~256 MB here.
    assert!(grown < 32 << 20, "memory grew by {} MB", grown >> 20);
    let overlay = drifty.observe().drift_overlay().unwrap();
    assert!(overlay.len() < 4096, "{overlay}");
    assert_eq!(overlay.matches("\"nullable\"").count(), 1, "{overlay}");
}

//! The loop on a server whose description lies in every way (`api/inventory.yaml`): a run of
//! the client recorded against a loopback server that answers as the real one did; `remcall
//! learn` over the recording writes the overlay the client is generated with
//! (`api/inventory-learned.yaml`, committed: the test checks a fresh learn writes the same);
//! that client decodes every answer strictly, values and typed errors included; and the
//! committed recording (`api/inventory.jsonl`) replays through the generated stub with no
//! server at all.

use axum::Router;
use axum::extract::{Path as Route, Query};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use remcall::Profile;
use remcall::serde_json::{Value, json};
use remcall_example_openapi::inventory::stub::InventoryStub;
use remcall_example_openapi::inventory::{GetItemError, Inventory, ListItemsError};
use testkit::Server;

fn item(id: i64, detail: bool) -> Value {
    let mut item = json!({
        "id": id, "name": format!("item {id}"), "prediction_count": id * 2,
        "tags": [{ "label": "red" }], "owner": null,
    });
    if detail {
        item["detail"] = json!({ "weight": 1.5 });
    }
    item
}

/// A server that answers as a DRF server did, whatever its description says: the list's items
/// are items, not pages; `prediction_count` for `predictions_count`; `tags` a list of objects;
/// a `cursor` and an `owner` nobody declared, `detail` only when asked for; a 400 of another
/// shape, and a 404 nobody declared.
async fn lying_server() -> Server {
    #[derive(remcall::serde::Deserialize)]
    #[serde(crate = "remcall::serde")]
    struct Flags {
        detail: Option<String>,
    }
    let list = |Query(flags): Query<Flags>| async move {
        match flags.detail.as_deref() {
            Some("false") => (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({ "detail": { "detail": ["Must be a valid boolean."] } })),
            )
                .into_response(),
            detail => {
                let detail = detail == Some("true");
                let cursor = if detail { "c2" } else { "c1" };
                axum::Json(json!({
                    "count": 2, "results": [item(1, detail), item(2, detail)], "cursor": cursor,
                }))
                .into_response()
            }
        }
    };
    let one = |Route(id): Route<i64>| async move {
        if id == 9 {
            return (
                StatusCode::NOT_FOUND,
                axum::Json(json!({ "detail": "Not found." })),
            )
                .into_response();
        }
        axum::Json(item(id, false)).into_response()
    };
    let router = Router::new()
        .route("/items/", get(list))
        .route("/items/{id}", get(one));
    Server::start(router).await
}

/// The calls the test makes, against any base URL.
async fn run(inventory: &Inventory) {
    let page = inventory.list_items(None).await.unwrap();
    assert_eq!(page.cursor, "c1");
    assert_eq!(page.results.len(), 2);
    let first = &page.results[0];
    assert_eq!((first.id, first.prediction_count), (1, 2));
    assert_eq!(first.tags.as_ref().unwrap()[0].label, "red");
    let detailed = inventory.list_items(Some(true)).await.unwrap();
    assert_eq!(detailed.results[1].detail.as_ref().unwrap().weight, 1.5);
    let refused = inventory.list_items(Some(false)).await.unwrap_err();
    let Some(ListItemsError::BadRequest(bad)) = refused.detail::<ListItemsError>() else {
        panic!("a typed 400: {refused}");
    };
    assert_eq!(bad.detail.detail, ["Must be a valid boolean."]);
    let item = inventory.get_item(1).await.unwrap();
    assert_eq!(item.name, "item 1");
    let missing = inventory.get_item(9).await.unwrap_err();
    let Some(GetItemError::NotFound(gone)) = missing.detail::<GetItemError>() else {
        panic!("a typed 404: {missing}");
    };
    assert_eq!(gone.detail, "Not found.");
}

/// The overlay without the lines that change with the run (when it was first seen).
fn stable(overlay: &str) -> String {
    overlay
        .lines()
        .filter(|line| !line.contains("first_seen:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn recorded_learned_and_then_every_answer_decodes_strictly() {
    let server = lying_server().await;
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("inventory.jsonl");
    let record = format!("record: {{ file: \"{}\" }}", recording.display());
    let inventory = Inventory::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str(&record).unwrap())
        .build()
        .unwrap();
    // Generated with the committed learned overlay: strict decoding takes every answer.
    run(&inventory).await;
    let api = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("api");
    let out = dir.path().join("inventory-learned.yaml");
    let report =
        remcall_codegen::learn::learn(&api.join("inventory.yaml"), &recording, &[], Some(&out))
            .unwrap();
    assert!(report.passes(), "{report:?}");
    let learned = std::fs::read_to_string(&out).unwrap();
    // To refresh the committed fixtures after a change to `learn`: set REMCALL_KEEP_LEARNED
    // to a folder, and review what lands there.
    if let Some(keep) = std::env::var_os("REMCALL_KEEP_LEARNED") {
        let keep = std::path::Path::new(&keep);
        std::fs::copy(&out, keep.join("inventory-learned.yaml")).unwrap();
        std::fs::copy(&recording, keep.join("inventory.jsonl")).unwrap();
    }
    let committed = std::fs::read_to_string(api.join("inventory-learned.yaml")).unwrap();
    assert_eq!(
        stable(&learned),
        stable(&committed),
        "a fresh learn writes the committed overlay"
    );
}

#[tokio::test]
async fn the_recording_replays_through_the_stub_without_a_server() {
    let stub = InventoryStub::start().await.unwrap();
    let api = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("api");
    let taken = stub
        .inner()
        .replay_file(api.join("inventory.jsonl"))
        .unwrap();
    assert_eq!(taken, 5);
    let inventory = Inventory::new(&stub.url()).unwrap();
    run(&inventory).await;
    // A call nobody recorded: 501, naming what the nearest recorded one had.
    let unrecorded = inventory.get_item(3).await.unwrap_err();
    assert_eq!(unrecorded.status(), Some(StatusCode::NOT_IMPLEMENTED));
}

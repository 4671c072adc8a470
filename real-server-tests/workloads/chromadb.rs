//! Chroma's workload: a database, three collections paged through two at a time, one renamed,
//! records added, read, counted and deleted, and the answers a collection that is gone gets.
//! Run by `tests/chromadb.rs` with the client generated from the server's own description;
//! `CHROMA_URL` is the server. Each step asserts what the server did, and says what it did.

use std::collections::HashMap;

use crate::api::chroma::{
    AddCollectionRecordsPayload, ApiHashMapValue, Chroma, CreateCollectionPayload,
    CreateDatabasePayload, DeleteCollectionRecordsPayload, EmbeddingsPayload,
    GetCollectionByIdError, GetRequestPayload, UpdateCollectionPayload,
};
use remcall::ErrorKind;

const TENANT: &str = "default_tenant";
const DATABASE: &str = "remcall";

#[tokio::main]
pub async fn main() -> Result<(), remcall::Error> {
    let url = std::env::var("CHROMA_URL").expect("CHROMA_URL");
    // The description's API key header is Chroma's; this server runs without authentication.
    let profile = remcall::Profile::from_yaml_str(
        "headers: { x-chroma-token: { value: unused, secret: true } }",
    )?;
    let chroma = Chroma::builder().base_url(&url).profile(profile).build()?;

    chroma.heartbeat().await?;
    chroma
        .create_database(
            TENANT,
            &CreateDatabasePayload {
                name: DATABASE.into(),
            },
        )
        .await?;
    let databases = chroma.list_databases(TENANT, None, None).await?;
    assert!(
        databases.iter().any(|d| d.name == DATABASE),
        "{databases:?}"
    );
    println!("create_database, list_databases: {DATABASE} is there");

    let mut ids = Vec::new();
    for name in ["alpha", "beta", "gamma"] {
        let metadata = HashMap::from([("owner".to_owned(), ApiHashMapValue::String(name.into()))]);
        let created = chroma
            .create_collection(
                TENANT,
                DATABASE,
                &CreateCollectionPayload {
                    metadata: metadata.into(),
                    ..CreateCollectionPayload::new(name)
                },
            )
            .await?;
        assert_eq!(created.name, name);
        ids.push(created.id);
    }
    println!("create_collection: 3 collections");

    // `{collection_id}` in this route is the collection's name (the description says its id).
    let got = chroma.get_collection(TENANT, DATABASE, "beta").await?;
    assert_eq!(got.id, ids[1]);
    assert_eq!(
        got.metadata.as_ref().and_then(|m| m.get("owner")),
        Some(&ApiHashMapValue::String("beta".into()))
    );
    println!("get_collection: beta, by name, with its metadata");

    chroma
        .update_collection(
            TENANT,
            DATABASE,
            &ids[1],
            &UpdateCollectionPayload {
                new_name: "beta-renamed".into(),
                ..Default::default()
            },
        )
        .await?;
    let renamed = chroma
        .get_collection_by_id(TENANT, DATABASE, &ids[1])
        .await?;
    assert_eq!(renamed.name, "beta-renamed");
    println!("update_collection: beta is beta-renamed");

    let first_page = chroma
        .list_collections(TENANT, DATABASE, Some(2), None)
        .await?;
    assert_eq!(first_page.len(), 2, "a page of two");
    let mut pages = chroma.list_collections_stream(TENANT, DATABASE, Some(2), None);
    let mut names = Vec::new();
    while let Some(collection) = pages.next().await {
        names.push(collection?.name);
    }
    names.sort();
    assert_eq!(names, ["alpha", "beta-renamed", "gamma"]);
    println!("list_collections_stream: {names:?}, two to a page");

    let records = AddCollectionRecordsPayload {
        documents: vec![Some("one".into()), Some("two".into()), Some("three".into())].into(),
        ..AddCollectionRecordsPayload::new(
            EmbeddingsPayload::F64ListList(vec![
                vec![1.0, 0.0, 0.0],
                vec![0.0, 1.0, 0.0],
                vec![0.0, 0.0, 1.0],
            ]),
            vec!["r1".to_owned(), "r2".to_owned(), "r3".to_owned()],
        )
    };
    chroma
        .collection_add(TENANT, DATABASE, &ids[0], &records)
        .await?;
    assert_eq!(
        chroma
            .collection_count(TENANT, DATABASE, &ids[0], None)
            .await?,
        3
    );
    let read = chroma
        .collection_get(
            TENANT,
            DATABASE,
            &ids[0],
            &GetRequestPayload {
                ids: vec!["r2".to_owned()].into(),
                ..Default::default()
            },
        )
        .await?;
    assert_eq!(read.ids, ["r2"]);
    assert_eq!(read.documents, Some(vec![Some("two".to_owned())]));
    chroma
        .collection_delete(
            TENANT,
            DATABASE,
            &ids[0],
            &DeleteCollectionRecordsPayload {
                ids: vec!["r1".to_owned()].into(),
                ..Default::default()
            },
        )
        .await?;
    assert_eq!(
        chroma
            .collection_count(TENANT, DATABASE, &ids[0], None)
            .await?,
        2
    );
    println!("collection_add, collection_get, collection_delete: 3 records, r2 read, r1 gone");

    chroma.delete_collection(TENANT, DATABASE, "gamma").await?;
    let gone = chroma
        .get_collection_by_id(TENANT, DATABASE, &ids[2])
        .await
        .unwrap_err();
    assert_eq!(gone.kind(), ErrorKind::Status, "{gone}");
    match gone.detail::<GetCollectionByIdError>() {
        Some(GetCollectionByIdError::NotFound(problem)) => {
            println!(
                "delete_collection, then get_collection_by_id: 404 {}",
                problem.message
            )
        }
        other => panic!("a typed 404, not {other:?}: {gone}"),
    }
    let names: Vec<String> = chroma
        .list_collections(TENANT, DATABASE, None, None)
        .await?
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    Ok(())
}

//! Kinto's workload: a bucket and a collection created, five records created, one read, edited,
//! refused an edit made on a stale version, all five paged through two at a time by the
//! `Next-Page` header, and one deleted, with the answer a record that is gone gets; then a record
//! of a public collection read twice through the cache, the second time a 304. Run by
//! `tests/kinto.rs` with the client generated from the server's own description;
//! `KINTO_URL` is the server (with `/v1`), and the credentials are `KINTO_USERNAME` and
//! `KINTO_PASSWORD`, which the imported profile reads. Each step asserts what the server did,
//! and says what it did.

use crate::api::kinto::{
    CreateBucketBody, CreateCollectionBody, CreateRecordResponse, DeleteUserDataResult,
    GetRecordError, GetRecordsOptions, Kinto, PatchRecordError,
};
use remcall::ErrorKind;
use remcall::serde_json::{Value, json};

/// A record, as it is sent and comes back (the importer named the shape after its first use).
type Record = DeleteUserDataResult;

const BUCKET: &str = "remcall";
const COLLECTION: &str = "notes";

#[tokio::main]
pub async fn main() -> Result<(), remcall::Error> {
    let url = std::env::var("KINTO_URL").expect("KINTO_URL");
    let kinto = Kinto::builder().base_url(&url).build()?;

    kinto
        .update_bucket(BUCKET, None, None, &CreateBucketBody::default())
        .await?;
    kinto
        .update_collection(
            BUCKET,
            COLLECTION,
            None,
            None,
            &CreateCollectionBody::default(),
        )
        .await?;
    println!("update_bucket, update_collection: {BUCKET}/{COLLECTION} created");

    let mut ids = Vec::new();
    for n in 1..=5 {
        let note = Record {
            data: Some(json!({ "title": format!("note {n}"), "n": n })),
            ..Default::default()
        };
        let created = kinto
            .create_record(BUCKET, COLLECTION, None, None, &note)
            .await?;
        let (CreateRecordResponse::Ok(created) | CreateRecordResponse::Created(created)) = created;
        let id = data_of(created.data)["id"].as_str().map(str::to_owned);
        ids.push(id.expect("a created record has an id"));
    }
    println!("create_record: 5 records");

    let read = kinto.get_record(BUCKET, COLLECTION, &ids[2]).await?;
    let read = data_of(read.data);
    assert_eq!(read["title"], "note 3");
    let version = read["last_modified"].as_i64().expect("a version");
    println!("get_record: note 3, version {version}");

    let edit = Record {
        data: Some(json!({ "title": "note 3, edited" })),
        ..Default::default()
    };
    let edited = kinto
        .patch_record(BUCKET, COLLECTION, &ids[2], &edit)
        .if_match(format!("\"{version}\""))
        .await?;
    assert_eq!(data_of(edited.data)["title"], "note 3, edited");
    // The same edit on the version it replaced: Kinto refuses it, 412 as declared.
    let stale = kinto
        .patch_record(BUCKET, COLLECTION, &ids[2], &edit)
        .if_match(format!("\"{version}\""))
        .await
        .unwrap_err();
    match stale.detail::<PatchRecordError>() {
        Some(PatchRecordError::PreconditionFailed(problem)) => {
            assert_eq!(problem.code, 412);
            println!(
                "patch_record: edited; again on version {version}: 412, errno {}",
                problem.errno
            );
        }
        other => panic!("a typed 412, not {other:?}: {stale}"),
    }

    let options = GetRecordsOptions {
        limit: Some(2),
        sort: Some(vec!["n".to_owned()]),
        ..Default::default()
    };
    let first = kinto.get_records_with(BUCKET, COLLECTION, &options).await?;
    assert_eq!(first.data.map(|page| page.len()), Some(2), "a page of two");
    let mut pages = kinto.get_records_stream(BUCKET, COLLECTION, &options);
    let mut titles = Vec::new();
    while let Some(record) = pages.next().await {
        titles.push(record?["title"].as_str().unwrap_or_default().to_owned());
    }
    assert_eq!(
        titles,
        ["note 1", "note 2", "note 3, edited", "note 4", "note 5"]
    );
    println!(
        "get_records_stream: {} records, two to a page",
        titles.len()
    );

    kinto
        .delete_record(BUCKET, COLLECTION, &ids[0], None, None)
        .await?;
    let gone = kinto
        .get_record(BUCKET, COLLECTION, &ids[0])
        .await
        .unwrap_err();
    assert_eq!(gone.kind(), ErrorKind::Status, "{gone}");
    match gone.detail::<GetRecordError>() {
        Some(GetRecordError::NotFound(problem)) => {
            println!(
                "delete_record, then get_record: 404, errno {}",
                problem.errno
            )
        }
        other => panic!("a typed 404, not {other:?}: {gone}"),
    }
    public_read_revalidates(&url, &kinto).await
}

/// A collection everyone may read, whose records Kinto says may be kept for a second
/// (`cache_expires`, sent to anonymous readers only): an anonymous client with `cache: {}`
/// reads a record, and past that second reads it again through a revalidation Kinto answers
/// with a 304, the body kept.
async fn public_read_revalidates(url: &str, kinto: &Kinto) -> Result<(), remcall::Error> {
    let public: CreateCollectionBody = remcall::serde_json::from_value(json!({
        "data": { "cache_expires": 1 },
        "permissions": { "read": ["system.Everyone"] }
    }))
    .expect("a collection body");
    kinto
        .update_collection(BUCKET, "public", None, None, &public)
        .await?;
    let note = Record {
        data: Some(json!({ "title": "public note" })),
        ..Default::default()
    };
    let created = kinto
        .create_record(BUCKET, "public", None, None, &note)
        .await?;
    let (CreateRecordResponse::Ok(created) | CreateRecordResponse::Created(created)) = created;
    let id = data_of(created.data)["id"].as_str().map(str::to_owned);
    let id = id.expect("a created record has an id");

    let reader = Kinto::builder()
        .base_url(url)
        .profile(remcall::Profile::from_yaml_str("cache: {}").expect("a profile"))
        .interceptor(Anonymous)
        .build()?;
    let first = data_of(reader.get_record(BUCKET, "public", &id).await?.data);
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    let again = data_of(reader.get_record(BUCKET, "public", &id).await?.data);
    assert_eq!(first, again);
    let stats = reader.stats();
    let (_, read) = stats
        .methods
        .iter()
        .find(|(name, _)| *name == "get_record")
        .expect("get_record's figures");
    assert_eq!(
        (read.revalidated, read.cache_hits),
        (1, 0),
        "the second read is a revalidation Kinto answers with a 304"
    );
    println!(
        "get_record, anonymous, cache: {{}}: read again past its second: a 304, the body kept"
    );
    Ok(())
}

/// Reads as nobody: the profile's credentials are taken off each request.
struct Anonymous;

impl remcall::Interceptor for Anonymous {
    async fn before_send(&self, request: &mut remcall::Outgoing) -> Result<(), remcall::BoxError> {
        request.headers.remove("authorization");
        Ok(())
    }
}

/// A record's data: an object, as Kinto sends it.
fn data_of(data: Option<Value>) -> Value {
    data.filter(Value::is_object).expect("a record's data")
}

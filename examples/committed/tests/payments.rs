//! The payments client (specs/payments.yaml) against a loopback server: the wire form of each
//! type capability, as the server received it and as the caller got it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use remcall::serde_json::{Value, json};
use remcall::{ErrorKind, Nullable};
use remcall_example_committed::clients::payments::{
    Amount, BankAccount, Card, Charge, Customer, CustomerPatch, CustomerStatus, PaymentSource,
    PaymentSourceSepaDebit, Payments, Tier, Vote,
};
use testkit::Server;

/// What the server received, body by body.
type Received = Arc<Mutex<Vec<Value>>>;

fn customer() -> Value {
    json!({
        "id": "cus_1", "created": 1700000000, "livemode": false,
        "email": "ada@example.com", "description": null, "balance": -250,
        "status": "frozen", "tier": 7, "metadata": { "plan": "gold" },
        "discount": { "percent": 10 }
    })
}

fn source(id: &str) -> Value {
    let entity =
        |object: &str| json!({ "id": id, "created": 1, "livemode": true, "object": object });
    let mut value = match id {
        "card_1" => entity("card"),
        "ba_1" => entity("bank_account"),
        "wallet_1" => entity("wallet"),
        "broken_1" | "bad_brand_1" => entity("card"),
        "sepa_1" => json!({ "object": "sepa_debit" }),
        "cash_1" => json!({ "object": "cash" }),
        "cash_2" => json!({ "object": "cash", "counter": 3 }),
        _ => json!({ "id": id }),
    };
    let extra = match id {
        "card_1" => json!({ "brand": "visa", "last4": "4242" }),
        "ba_1" => json!({ "bank_name": "Ledger Bank", "last4": "6789" }),
        "bad_brand_1" => json!({ "brand": 7, "last4": "4242" }),
        "sepa_1" => json!({ "iban": "DE89370400440532013000" }),
        _ => json!({}),
    };
    value
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    value
}

async fn server(received: Received) -> Server {
    let router = Router::new()
        .route(
            "/v1/customers/{id}",
            get(|| async { axum::Json(customer()) }).patch(
                |State(received): State<Received>, body: Bytes| async move {
                    received
                        .lock()
                        .unwrap()
                        .push(remcall::serde_json::from_slice(&body).unwrap());
                    axum::Json(customer())
                },
            ),
        )
        .route(
            "/v1/sources/{id}",
            get(|Path(id): Path<String>| async move { axum::Json(source(&id)) }),
        )
        .route(
            "/v1/charges",
            post(|State(received): State<Received>, body: Bytes| async move {
                let mut charge: Value = remcall::serde_json::from_slice(&body).unwrap();
                received.lock().unwrap().push(charge.clone());
                if charge["amount"] == json!("bad") {
                    charge["amount"] = json!(true);
                } else {
                    charge["risk_level"] = json!("normal");
                }
                axum::Json(charge)
            }),
        )
        .with_state(received);
    Server::start(router).await
}

async fn client() -> (Payments, Received, Server) {
    let received = Received::default();
    let server = server(received.clone()).await;
    let payments = Payments::new(&server.url()).unwrap();
    (payments, received, server)
}

#[tokio::test]
async fn composition_open_enums_integer_enums_and_required_nulls_decode() {
    let (payments, _, _server) = client().await;
    let customer = payments.get_customer("cus_1").await.unwrap();
    // all_of: Entity's fields are the customer's own.
    assert_eq!(
        (customer.id.as_str(), customer.created),
        ("cus_1", 1700000000)
    );
    // A status and a tier this client does not know are kept, not refused.
    assert_eq!(customer.status, CustomerStatus::Other("frozen".into()));
    assert_eq!(customer.tier, Tier::Other(7));
    assert_eq!(customer.description, None);
    assert_eq!(customer.metadata["plan"], "gold");
    // Written back, the required-and-null field is sent as null, the unknown values as they came.
    let wire = remcall::serde_json::to_value(&customer).unwrap();
    assert_eq!(wire["description"], Value::Null);
    assert_eq!(
        (&wire["status"], &wire["tier"]),
        (&json!("frozen"), &json!(7))
    );
    assert_eq!(
        remcall::serde_json::to_value([Tier::Premium, Tier::Free]).unwrap(),
        json!([2, 0])
    );
}

#[tokio::test]
async fn a_patch_sends_null_to_clear_and_nothing_to_keep() {
    let (payments, received, _server) = client().await;
    // Every field of a patch can be absent: it derives `Default`, so a patch names only what it
    // changes.
    let patch = CustomerPatch {
        email: Nullable::Null,
        balance: Some(5),
        ..Default::default()
    };
    assert_eq!(patch.description, Nullable::Absent);
    payments.update_customer("cus_1", &patch).await.unwrap();
    let set = CustomerPatch {
        email: Nullable::Value("new@example.com".into()),
        ..patch
    };
    payments.update_customer("cus_1", &set).await.unwrap();
    assert_eq!(
        *received.lock().unwrap(),
        [
            json!({ "email": null, "balance": 5 }),
            json!({ "email": "new@example.com", "balance": 5 })
        ]
    );
}

/// A struct with required fields and optional ones has `new(required..)`, each as
/// `impl Into<..>`; the optional ones start absent and are set by name.
#[test]
fn a_struct_is_built_from_its_required_fields_alone() {
    let customer = Customer {
        email: Some("ada@example.com".into()),
        ..Customer::new(
            "cus_1",
            1_700_000_000,
            false,
            0,
            CustomerStatus::Active,
            Tier::Free,
            HashMap::new(),
        )
    };
    assert_eq!(
        remcall::serde_json::to_value(&customer).unwrap(),
        json!({ "id": "cus_1", "created": 1_700_000_000, "livemode": false, "email": "ada@example.com",
                "description": null, "balance": 0, "status": "active", "tier": 0, "metadata": {} })
    );
}

#[tokio::test]
async fn a_tagged_union_reads_each_alternative_by_its_tag_and_keeps_an_unknown_one() {
    let (payments, _, _server) = client().await;
    let card = payments.get_source("card_1").await.unwrap();
    assert!(
        matches!(&card, PaymentSource::Card(Card { brand, last4, .. }) if brand == "visa" && last4 == "4242"),
        "{card:?}"
    );
    let bank = payments.get_source("ba_1").await.unwrap();
    assert!(
        matches!(&bank, PaymentSource::BankAccount(BankAccount { bank_name, .. }) if bank_name == "Ledger Bank"),
        "{bank:?}"
    );
    // The tag stays in the alternative: written back, the value is what came.
    assert_eq!(
        remcall::serde_json::to_value(&card).unwrap(),
        source("card_1")
    );
    // `object` is a constant of `Card`: written as "card" whatever, read only as "card".
    let PaymentSource::Card(read) = &card else {
        unreachable!()
    };
    assert_eq!(
        remcall::serde_json::to_value(read).unwrap()["object"],
        "card"
    );
    let mut wrong = source("card_1");
    wrong["object"] = json!("bank_account");
    let refused = remcall::serde_json::from_value::<Card>(wrong).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains(r#"expected the constant "card", found "bank_account""#),
        "{refused}"
    );
    let wallet = payments.get_source("wallet_1").await.unwrap();
    assert_eq!(wallet, PaymentSource::Other(source("wallet_1")));
    // A known tag whose value does not fit: a Decode error naming client, method and the field.
    let error = payments.get_source("broken_1").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    let text = error.to_string();
    assert!(
        text.starts_with("Payments.get_source: ")
            && text.contains("`PaymentSource` (object: card): missing field `brand`"),
        "{text}"
    );
    // A field inside an alternative: its path in the body, through the union.
    let error = payments.get_source("bad_brand_1").await.unwrap_err();
    let text = error.to_string();
    assert!(
        text.ends_with(
            "`Card.brand` (at `$`): `PaymentSource` (object: card): at `$.brand`: \
             invalid type: integer `7`, expected a string"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn an_alternative_without_the_tag_field_is_read_by_it_and_written_with_it() {
    let (payments, received, _server) = client().await;
    let sepa = payments.get_source("sepa_1").await.unwrap();
    let iban = "DE89370400440532013000";
    assert_eq!(
        sepa,
        PaymentSource::SepaDebit(PaymentSourceSepaDebit { iban: iban.into() })
    );
    // The union writes the tag the struct has no field for: the value is what came.
    assert_eq!(
        remcall::serde_json::to_value(&sepa).unwrap(),
        source("sepa_1")
    );
    // Sent in a body and echoed: the server stores the tag, and the answer reads as it was sent.
    let charge = Charge {
        id: "ch_2".into(),
        created: 3,
        livemode: false,
        amount: Amount::I64(900),
        source: sepa.clone(),
        vote: None,
        additional_properties: Default::default(),
    };
    let answer = payments.create_charge(&charge).await.unwrap();
    assert_eq!(answer.source, sepa);
    let stored = received.lock().unwrap()[0].clone();
    assert_eq!(
        stored["source"],
        json!({ "object": "sepa_debit", "iban": iban })
    );
    // The tag first, as a server reading a stream of keys wants it.
    let text = remcall::serde_json::to_string(&sepa).unwrap();
    assert_eq!(
        text,
        format!(r#"{{"object":"sepa_debit","iban":"{iban}"}}"#)
    );
}

/// An alternative that holds nothing but its tag is a plain variant: read from its tag, written
/// as its tag alone, stored so by the server; a key beside the tag is drift, not an error.
#[tokio::test]
async fn a_tag_only_alternative_is_a_plain_variant_read_and_written_as_its_tag() {
    let (payments, received, _server) = client().await;
    let cash = payments.get_source("cash_1").await.unwrap();
    assert_eq!(cash, PaymentSource::Cash);
    assert_eq!(
        remcall::serde_json::to_value(&cash).unwrap(),
        source("cash_1")
    );
    let charge = Charge {
        id: "ch_3".into(),
        created: 4,
        livemode: false,
        amount: Amount::I64(500),
        source: PaymentSource::Cash,
        vote: None,
        additional_properties: Default::default(),
    };
    let answer = payments.create_charge(&charge).await.unwrap();
    assert_eq!(answer.source, PaymentSource::Cash);
    assert_eq!(
        received.lock().unwrap()[0]["source"],
        json!({ "object": "cash" })
    );
    let counted = payments.get_source("cash_2").await.unwrap();
    assert_eq!(
        counted,
        PaymentSource::Cash,
        "an undeclared key beside the tag"
    );
    let stats = payments.stats();
    let read = stats.method("get_source").expect("get_source's statistics");
    assert_eq!(read.undeclared, 1, "the counter, not the tag: {read:?}");
}

#[tokio::test]
async fn an_untagged_union_takes_what_fits_and_says_what_it_tried() {
    let (payments, received, _server) = client().await;
    let charge = |amount: Amount, vote: Option<Vote>| Charge {
        id: "ch_1".into(),
        created: 2,
        livemode: false,
        amount,
        source: PaymentSource::Other(json!({ "object": "voucher" })),
        vote,
        additional_properties: [("note".to_owned(), json!("first"))].into(),
    };
    let sent = charge(Amount::I64(1250), Some(Vote::Minus1));
    let answer = payments.create_charge(&sent).await.unwrap();
    let named = payments
        .create_charge(&charge(Amount::String("ten".into()), Some(Vote::Empty)))
        .await
        .unwrap();
    assert_eq!(answer.amount, Amount::I64(1250));
    assert_eq!(named.amount, Amount::String("ten".into()));
    assert_eq!(
        (answer.vote, named.vote),
        (Some(Vote::Minus1), Some(Vote::Empty))
    );
    // Undeclared keys: sent from the map, and what the server adds comes back in it.
    assert_eq!(answer.additional_properties["note"], json!("first"));
    assert_eq!(answer.additional_properties["risk_level"], json!("normal"));
    let first = received.lock().unwrap()[0].clone();
    assert_eq!(
        first,
        json!({
            "id": "ch_1", "created": 2, "livemode": false, "amount": 1250,
            "source": { "object": "voucher" }, "vote": "-1", "note": "first"
        })
    );
    let error = payments
        .create_charge(&charge(Amount::String("bad".into()), None))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    assert!(
        error.to_string().contains(
            "no alternative of `Amount` matches (`I64`: expected a number, found a boolean; `String`: expected a string, found a boolean)"
        ),
        "{error}"
    );
}

/// A server of the request side: what it parsed of each body, and what it applied.
mod requests {
    use std::collections::HashMap;

    use axum::extract::Multipart;
    use axum::http::{HeaderMap, StatusCode};

    use super::*;

    /// Idempotency keys the server has applied, and the refunds it made.
    #[derive(Clone, Default)]
    pub struct Ledger {
        pub applied: Arc<Mutex<HashMap<String, Value>>>,
        pub effects: Arc<Mutex<usize>>,
        pub attempts: Arc<Mutex<usize>>,
    }

    pub async fn server(parsed: Received, ledger: Ledger) -> Server {
        let router = Router::new()
            .route(
                "/v1/files",
                post(
                    |State((parsed, _)): State<(Received, Ledger)>, mut form: Multipart| async move {
                        // multer, a real parser: every part with its name, file name and type.
                        let mut parts = Vec::new();
                        while let Some(field) = form.next_field().await.unwrap() {
                            let name = field.name().map(str::to_owned);
                            let file = field.file_name().map(str::to_owned);
                            let kind = field.content_type().map(str::to_owned);
                            let data = field.bytes().await.unwrap();
                            parts.push(json!([name, file, kind, String::from_utf8_lossy(&data)]));
                        }
                        parsed.lock().unwrap().push(Value::Array(parts));
                        axum::Json(json!({ "id": "file_1", "size": 3, "purpose": "dispute" }))
                    },
                ),
            )
            .route(
                "/v1/customers/{id}/note",
                axum::routing::put(|| async { StatusCode::NO_CONTENT }),
            )
            .route(
                "/v1/customers/{id}",
                axum::routing::patch(|| async { axum::Json(customer()) })
                    .delete(|| async { StatusCode::NO_CONTENT }),
            )
            .route("/v1/charges", get(|| async { axum::Json(json!([])) }))
            .route(
                "/v1/refunds",
                post(
                    |State((_, ledger)): State<(Received, Ledger)>,
                     headers: HeaderMap,
                     axum::Json(refund): axum::Json<Value>| async move {
                        *ledger.attempts.lock().unwrap() += 1;
                        let key = headers["idempotency-key"].to_str().unwrap().to_owned();
                        let mut applied = ledger.applied.lock().unwrap();
                        if let Some(done) = applied.get(&key) {
                            return (StatusCode::OK, axum::Json(done.clone()));
                        }
                        // Applied once per key; the first answer is lost on the way back.
                        *ledger.effects.lock().unwrap() += 1;
                        let done = json!({ "id": "re_1", "charge": refund["charge"], "amount": refund["amount"] });
                        applied.insert(key, done.clone());
                        (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({})))
                    },
                ),
            )
            .with_state((parsed, ledger));
        Server::start(router).await
    }
}

async fn request_side() -> (Payments, Received, requests::Ledger, Server) {
    let parsed = Received::default();
    let ledger = requests::Ledger::default();
    let server = requests::server(parsed.clone(), ledger.clone()).await;
    let payments = Payments::builder()
        .base_url(&server.url())
        .profile(
            remcall::Profile::from_yaml_str("retry: { backoff: { initial: 1ms, max: 1ms } }")
                .unwrap(),
        )
        .build()
        .unwrap();
    (payments, parsed, ledger, server)
}

#[tokio::test]
async fn a_multipart_body_reaches_a_real_parser_part_by_part() {
    use remcall::File;
    use remcall_example_committed::clients::payments::FileUpload;
    let (payments, parsed, _, server) = request_side().await;
    let upload = FileUpload {
        purpose: "dispute".into(),
        file: File::new(&b"PDF"[..])
            .filename("evidence \"1\".pdf")
            .content_type("application/pdf"),
        attachments: vec![File::new(&b"a"[..]).filename("a.txt"), File::new(&b"b"[..])],
        tags: vec!["x".into(), "y".into()],
        note: None,
    };
    let stored = payments.upload_file(&upload).await.unwrap();
    assert_eq!(stored.id, "file_1");
    let received = &server.received()[0];
    assert!(
        received.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("multipart/form-data; boundary="),
    );
    assert_eq!(
        parsed.lock().unwrap()[0],
        json!([
            ["purpose", null, null, "dispute"],
            ["file", "evidence %221%22.pdf", "application/pdf", "PDF"],
            ["attachments", "a.txt", "application/octet-stream", "a"],
            ["attachments", null, "application/octet-stream", "b"],
            ["tags", null, null, "x"],
            ["tags", null, null, "y"]
        ])
    );
}

#[tokio::test]
async fn text_a_custom_content_type_and_a_delete_with_a_body_go_out_as_declared() {
    use remcall_example_committed::clients::payments::DeleteOptions;
    let (payments, _, _, server) = request_side().await;
    payments
        .set_note("cus_1", "line one\nline two")
        .await
        .unwrap();
    let patch = CustomerPatch {
        email: Nullable::Null,
        description: Nullable::Absent,
        balance: None,
    };
    payments.merge_customer("cus_1", &patch).await.unwrap();
    let options = DeleteOptions {
        reason: "requested".into(),
        grace_seconds: Some(30),
    };
    payments.delete_customer("cus_1", &options).await.unwrap();
    let received = server.received();
    let seen: Vec<(&str, &str, &str, String)> = received
        .iter()
        .map(|r| {
            (
                r.method.as_str(),
                r.uri.as_str(),
                r.headers["content-type"].to_str().unwrap(),
                String::from_utf8_lossy(&r.body).into_owned(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "PUT",
                "/v1/customers/cus_1/note",
                "text/plain; charset=utf-8",
                "line one\nline two".to_owned()
            ),
            (
                "PATCH",
                "/v1/customers/cus_1",
                "application/merge-patch+json",
                r#"{"email":null}"#.to_owned()
            ),
            (
                "DELETE",
                "/v1/customers/cus_1",
                "application/json",
                r#"{"reason":"requested","grace_seconds":30}"#.to_owned()
            ),
        ]
    );
}

#[tokio::test]
async fn query_objects_go_deep_exploded_or_comma_separated() {
    use remcall_example_committed::clients::payments::{ChargeFilter, Page, Range};
    let (payments, _, _, server) = request_side().await;
    let filter = ChargeFilter {
        status: Some("succeeded".into()),
        created: Some(Range {
            gte: Some(10),
            lt: None,
        }),
    };
    let page = Page {
        limit: 2,
        starting_after: Some("ch_9".into()),
    };
    let expand = ["customer".to_owned(), "source".to_owned()];
    payments
        .list_charges(Some(&filter), &expand, &page)
        .await
        .unwrap();
    payments.list_charges(None, &[], &page).await.unwrap();
    let uris: Vec<String> = server.received().iter().map(|r| r.uri.clone()).collect();
    let (path, query) = uris[0].split_once('?').unwrap();
    assert_eq!(path, "/v1/charges");
    let mut pairs: Vec<&str> = query.split('&').collect();
    pairs.sort();
    assert_eq!(
        pairs,
        [
            "expand=customer%2Csource",
            "filter%5Bcreated%5D%5Bgte%5D=10",
            "filter%5Bstatus%5D=succeeded",
            "limit=2",
            "starting_after=ch_9"
        ]
    );
    // No filter: nothing of it; an empty list: the key with no value.
    let mut second: Vec<&str> = uris[1].split_once('?').unwrap().1.split('&').collect();
    second.sort();
    assert_eq!(second, ["expand=", "limit=2", "starting_after=ch_9"]);
}

#[tokio::test]
async fn an_idempotency_key_makes_a_retried_post_take_effect_once() {
    use remcall_example_committed::clients::payments::NewRefund;
    let (payments, _, ledger, server) = request_side().await;
    let refund = payments
        .create_refund(&NewRefund {
            charge: "ch_1".into(),
            amount: 500,
        })
        .await
        .unwrap();
    assert_eq!((refund.id.as_str(), refund.amount), ("re_1", 500));
    // The POST was retried after the 503 (the key made it safe), with the same key.
    assert_eq!(*ledger.attempts.lock().unwrap(), 2);
    assert_eq!(*ledger.effects.lock().unwrap(), 1, "applied once");
    let keys: Vec<String> = server
        .received()
        .iter()
        .map(|r| r.headers["idempotency-key"].to_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys[0], keys[1]);
    assert_eq!(keys[0].len(), 36, "a UUID: {}", keys[0]);
    // A second logical call gets a key of its own.
    payments
        .create_refund(&NewRefund {
            charge: "ch_2".into(),
            amount: 1,
        })
        .await
        .unwrap();
    let third = server.received()[2].headers["idempotency-key"].clone();
    assert_ne!(third.to_str().unwrap(), keys[0]);
}

/// A server of the response side: several success shapes, error bodies, headers, text.
async fn response_side() -> Server {
    use axum::http::StatusCode;
    let error = |kind: &str| json!({ "error": { "type": kind, "message": "no such customer", "code": null } });
    let router = Router::new()
        .route(
            "/v1/customers/{id}",
            get(move |Path(id): Path<String>| async move {
                match id.as_str() {
                    "gone" => (
                        StatusCode::NOT_FOUND,
                        axum::Json(json!({ "missing": "gone" })),
                    ),
                    "bad" => (
                        StatusCode::BAD_REQUEST,
                        axum::Json(error("invalid_request")),
                    ),
                    "down" => (
                        StatusCode::SERVICE_UNAVAILABLE,
                        axum::Json(error("maintenance")),
                    ),
                    "odd" => (
                        StatusCode::IM_A_TEAPOT,
                        axum::Json(json!("not an ApiError")),
                    ),
                    _ => (StatusCode::OK, axum::Json(customer())),
                }
            }),
        )
        .route(
            "/v1/customers",
            post(|axum::Json(new): axum::Json<Value>| async move {
                match new["email"].as_str() {
                    Some("later@example.com") => (
                        StatusCode::ACCEPTED,
                        axum::Json(json!({ "job_id": "job_1", "status_url": "/v1/jobs/job_1" })),
                    ),
                    Some("weird@example.com") => (StatusCode::OK, axum::Json(customer())),
                    _ => (StatusCode::CREATED, axum::Json(customer())),
                }
            }),
        )
        .route(
            "/v1/balance",
            get(|| async {
                (
                    [
                        ("etag", "W/\"b-1\""),
                        ("x-ratelimit-remaining", "99"),
                        ("request-id", "req_42"),
                    ],
                    axum::Json(json!({ "available": 100, "pending": 5 })),
                )
            }),
        )
        .route(
            "/v1/customers/{id}/statement",
            get(|| async { "Statement\nTotal: 12.50 €" }),
        );
    Server::start(router).await
}

#[tokio::test]
async fn several_success_shapes_become_one_enum_and_another_2xx_is_an_error() {
    use remcall_example_committed::clients::payments::{CreateCustomerResponse, NewCustomer};
    let server = response_side().await;
    let payments = Payments::new(&server.url()).unwrap();
    let new = |email: &str| NewCustomer {
        email: email.into(),
    };
    let created = payments
        .create_customer(&new("ada@example.com"))
        .await
        .unwrap();
    assert!(matches!(created, CreateCustomerResponse::Created(c) if c.id == "cus_1"));
    let accepted = payments
        .create_customer(&new("later@example.com"))
        .await
        .unwrap();
    assert!(
        matches!(&accepted, CreateCustomerResponse::Accepted(job) if job.job_id == "job_1"),
        "{accepted:?}"
    );
    let odd = payments
        .create_customer(&new("weird@example.com"))
        .await
        .unwrap_err();
    assert_eq!(odd.kind(), ErrorKind::Decode);
    assert!(
        odd.to_string()
            .contains("unexpected status 200: the method declares 201 or 202"),
        "{odd}"
    );
}

#[tokio::test]
async fn declared_error_bodies_are_typed_for_the_caller_and_the_fallback() {
    use remcall_example_committed::clients::payments::{
        ApiError, Customer, GetCustomerError, Missing, PaymentsFallback,
    };
    let server = response_side().await;
    let payments = Payments::new(&server.url()).unwrap();
    let gone = payments.get_customer("gone").await.unwrap_err();
    assert_eq!(gone.kind(), ErrorKind::Status);
    assert_eq!(
        gone.detail::<GetCustomerError>(),
        Some(&GetCustomerError::NotFound(Missing {
            missing: "gone".into()
        }))
    );
    let bad = payments.get_customer("bad").await.unwrap_err();
    assert!(
        matches!(bad.detail::<GetCustomerError>(), Some(GetCustomerError::ClientError(ApiError { error })) if error.r#type == "invalid_request"),
        "{bad:?}"
    );
    // A body that is not the declared type: no detail, the error as before.
    let odd = payments.get_customer("odd").await.unwrap_err();
    assert_eq!(odd.status().map(|s| s.as_u16()), Some(418));
    assert!(odd.detail::<GetCustomerError>().is_none());
    assert!(odd.detail::<String>().is_none(), "only the declared type");

    // The fallback sees the decoded body of a 503 and answers from what it says.
    struct Cached;
    impl PaymentsFallback for Cached {
        async fn get_customer(
            &self,
            id: &str,
            cause: remcall::Error,
        ) -> Result<Customer, remcall::Error> {
            match cause.detail::<GetCustomerError>() {
                Some(GetCustomerError::Other(ApiError { error }))
                    if error.r#type == "maintenance" =>
                {
                    let mut cached: Customer = remcall::serde_json::from_value(customer()).unwrap();
                    cached.id = format!("cached-{id}");
                    Ok(cached)
                }
                _ => Err(cause),
            }
        }
    }
    let with_fallback = Payments::builder()
        .base_url(&server.url())
        .profile(remcall::Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
        .fallback(Cached)
        .build()
        .unwrap();
    let answered = with_fallback.get_customer("down").await.unwrap();
    assert_eq!(answered.id, "cached-down");
    assert_eq!(
        with_fallback
            .stats()
            .method("get_customer")
            .unwrap()
            .fallbacks,
        1
    );
}

#[tokio::test]
async fn declared_response_headers_come_typed_next_to_the_body_and_text_as_text() {
    let server = response_side().await;
    let payments = Payments::new(&server.url()).unwrap();
    let balance = payments.get_balance().await.unwrap();
    assert_eq!((balance.body.available, balance.body.pending), (100, 5));
    assert_eq!(balance.headers.etag.as_deref(), Some("W/\"b-1\""));
    assert_eq!(balance.headers.remaining, Some(99));
    assert_eq!(balance.headers.request_id, "req_42");
    let statement = payments.get_statement("cus_1").await.unwrap();
    assert_eq!(statement, "Statement\nTotal: 12.50 €");
}

/// A server of pages in every style; `/v1/payouts` fails on its second page when told to.
async fn pages_side() -> Server {
    use axum::extract::Query;
    use axum::http::StatusCode;
    use std::collections::HashMap;
    type Params = Query<HashMap<String, String>>;
    let customer_page = |Query(q): Params| async move {
        let all: Vec<Value> = (1..=5)
            .map(|i| {
                let mut c = customer();
                c["id"] = json!(format!("cus_{i}"));
                c
            })
            .collect();
        let limit: usize = q.get("limit").map_or(10, |l| l.parse().unwrap());
        let start = q.get("starting_after").map_or(0, |after| {
            all.iter().position(|c| c["id"] == **after).unwrap() + 1
        });
        let page: Vec<Value> = all.iter().skip(start).take(limit).cloned().collect();
        axum::Json(json!({ "data": page, "has_more": start + limit < all.len() }))
    };
    let event_page = |Query(q): Params| async move {
        let (events, next) = match q.get("cursor").map(String::as_str) {
            None => (vec!["e1", "e2"], json!("c2")),
            Some("c2") => (vec![], json!("c3")),
            Some("c3") => (vec!["e3"], Value::Null),
            // Two pages that point at each other.
            Some("a") => (vec!["from a"], json!("b")),
            Some("b") => (vec!["from b"], json!("a")),
            Some("loop") | Some(_) => (vec!["again"], json!("loop")),
        };
        let events: Vec<Value> = events
            .iter()
            .map(|e| json!({ "id": e, "kind": "ping" }))
            .collect();
        axum::Json(json!({ "events": events, "meta": { "next_cursor": next } }))
    };
    let router = Router::new()
        .route("/v1/customers", get(customer_page))
        .route("/v1/events", get(event_page))
        .route(
            "/v1/invoices",
            get(|Query(q): Params, headers: axum::http::HeaderMap| async move {
                let own = format!("http://{}", headers["host"].to_str().unwrap());
                let (id, next) = match q.get("page").map(String::as_str) {
                    None => ("in_1", json!("/v1/invoices?page=2")),
                    Some("2") => ("in_2", json!(format!("{own}/v1/invoices?page=3"))),
                    Some("3") => ("in_3", json!("http://user:pw@elsewhere.test/v1/invoices?api_key=sk_live_echoed&page=4#f")),
                    _ => ("in_9", Value::Null),
                };
                axum::Json(json!({ "invoices": [{ "id": id, "total": 1 }], "next_page_uri": next }))
            }),
        )
        .route(
            "/v1/payouts",
            get(|Query(q): Params, headers: axum::http::HeaderMap| async move {
                let own = format!("http://{}", headers["host"].to_str().unwrap());
                let per_page = q.get("per_page").cloned().unwrap_or_else(|| "1".to_owned());
                match q.get("page").map(String::as_str) {
                    None => (
                        StatusCode::OK,
                        [("link", format!("<{own}/v1/payouts?page=2&per_page={per_page}>; rel=\"next\", <{own}/v1/payouts?page=9>; rel=\"last\""))],
                        axum::Json(json!([{ "id": "po_1", "kind": "payout" }])),
                    ),
                    // Page two of 13 a page is broken.
                    Some("2") if per_page == "13" => (
                        StatusCode::SERVICE_UNAVAILABLE,
                        [("link", String::new())],
                        axum::Json(json!({})),
                    ),
                    _ => (
                        StatusCode::OK,
                        [("link", String::new())],
                        axum::Json(json!([{ "id": "po_2", "kind": "payout" }])),
                    ),
                }
            }),
        );
    Server::start(router).await
}

async fn all<T: remcall::serde::de::DeserializeOwned + Send + 'static>(
    mut pages: remcall::Pages<T>,
) -> Vec<Result<T, remcall::Error>> {
    let mut out = Vec::new();
    while let Some(item) = pages.next().await {
        out.push(item);
    }
    out
}

#[tokio::test]
async fn a_cursor_from_the_last_item_walks_every_page_lazily() {
    let server = pages_side().await;
    let payments = Payments::new(&server.url()).unwrap();
    let mut pages = payments.list_customers_stream(Some(2), None);
    // Lazy: two items are one page.
    for expected in ["cus_1", "cus_2"] {
        assert_eq!(pages.next().await.unwrap().unwrap().id, expected);
    }
    assert_eq!(
        server.received().len(),
        1,
        "the second page is fetched when it is needed"
    );
    let rest: Vec<String> = all(pages)
        .await
        .into_iter()
        .map(|c| c.unwrap().id)
        .collect();
    assert_eq!(rest, ["cus_3", "cus_4", "cus_5"]);
    let uris: Vec<String> = server.received().iter().map(|r| r.uri.clone()).collect();
    assert_eq!(
        uris,
        [
            "/v1/customers?limit=2",
            "/v1/customers?limit=2&starting_after=cus_2",
            "/v1/customers?limit=2&starting_after=cus_4"
        ]
    );
    assert_eq!(
        payments.stats().method("list_customers").unwrap().calls,
        3,
        "a call per page"
    );
}

#[tokio::test]
async fn a_cursor_in_the_page_goes_on_past_an_empty_page_and_a_cycle_stops() {
    let server = pages_side().await;
    let payments = Payments::new(&server.url()).unwrap();
    let ids: Vec<String> = all(payments.list_events_stream(None))
        .await
        .into_iter()
        .map(|e| e.unwrap().id)
        .collect();
    assert_eq!(ids, ["e1", "e2", "e3"]);
    let looping = all(payments.list_events_stream(Some("loop"))).await;
    assert_eq!(looping.len(), 2, "{looping:?}");
    assert_eq!(looping[0].as_ref().unwrap().id, "again");
    let error = looping[1].as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    assert!(
        error
            .to_string()
            .starts_with("Payments.list_events: the server pointed at a page it had already given"),
        "{error}"
    );
    // a → b → a: the cycle is caught at the first page seen again, not only a page pointing at
    // itself.
    let cycle = all(payments.list_events_stream(Some("a"))).await;
    let ids: Vec<&str> = cycle
        .iter()
        .filter_map(|e| e.as_ref().ok())
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(ids, ["from a", "from b"], "{cycle:?}");
    assert_eq!(cycle.len(), 3, "{cycle:?}");
    assert_eq!(cycle[2].as_ref().unwrap_err().kind(), ErrorKind::Decode);
}

#[tokio::test]
async fn a_next_url_is_followed_on_the_clients_endpoints_and_refused_elsewhere() {
    let server = pages_side().await;
    let payments = Payments::new(&server.url()).unwrap();
    let results = all(payments.list_invoices_stream()).await;
    let ids: Vec<&str> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(
        ids,
        ["in_1", "in_2", "in_3"],
        "a relative and an absolute URL of this server: {results:?}"
    );
    let error = results.last().unwrap().as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    // Origin and path only: the query (here echoing a key) and the userinfo are not shown.
    assert!(
        error.to_string().contains(
            "`http://…@elsewhere.test/v1/invoices?…` is not on the client's endpoints; not followed"
        ),
        "{error}"
    );
    for shown in [error.to_string(), format!("{error:?}")] {
        for secret in ["sk_live_echoed", "pw", "page=4"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
    }
    assert_eq!(server.received().len(), 3);
}

#[tokio::test]
async fn a_link_header_leads_on_and_a_failing_page_ends_the_stream_with_its_error() {
    let server = pages_side().await;
    let payments = Payments::new(&server.url()).unwrap();
    let ids: Vec<String> = all(payments.list_payouts_stream(None))
        .await
        .into_iter()
        .map(|p| p.unwrap().id)
        .collect();
    assert_eq!(ids, ["po_1", "po_2"]);
    assert_eq!(server.received()[1].uri, "/v1/payouts?page=2&per_page=1");

    // The next page fails (503, retried and failing again): page one's items, then the error,
    // named, then the end.
    let failing = Payments::builder()
        .base_url(&server.url())
        .profile(
            remcall::Profile::from_yaml_str(
                "retry: { max_attempts: 2, backoff: { initial: 1ms, max: 1ms } }",
            )
            .unwrap(),
        )
        .build()
        .unwrap();
    let before = server.received().len();
    let results = all(failing.list_payouts_stream(Some(13))).await;
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(results[0].as_ref().unwrap().id, "po_1");
    let error = results[1].as_ref().unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    assert!(
        error.to_string().starts_with("Payments.list_payouts: "),
        "{error}"
    );
    assert_eq!(
        server.received().len() - before,
        3,
        "page one, and page two twice (retried)"
    );
}

/// Reports: 256 KiB in 64 KiB chunks, a body that breaks off, one that trickles.
async fn reports_side() -> Server {
    use axum::body::Body;
    let router = Router::new().route(
        "/v1/reports/{id}",
        get(|Path(id): Path<String>| async move {
            match id.as_str() {
                "broken" => Body::from_stream_broken(),
                "slow" => testkit::chunked_body(
                    vec!["a", "b", "c", "d"],
                    std::time::Duration::from_millis(120),
                ),
                "missing" => {
                    return (
                        axum::http::StatusCode::NOT_FOUND,
                        Body::from("no such report"),
                    );
                }
                _ => testkit::endless_body(256 << 10),
            }
            .into_pair()
        }),
    );
    Server::start(router).await
}

/// Builds the test bodies above in one expression each.
trait TestBody {
    fn from_stream_broken() -> axum::body::Body;
    fn into_pair(self) -> (axum::http::StatusCode, axum::body::Body);
}

impl TestBody for axum::body::Body {
    fn from_stream_broken() -> axum::body::Body {
        testkit::broken_body(vec!["first part,", " second part"])
    }
    fn into_pair(self) -> (axum::http::StatusCode, axum::body::Body) {
        (axum::http::StatusCode::OK, self)
    }
}

fn small_limit(server: &Server, extra: &str) -> Payments {
    Payments::builder()
        .base_url(&server.url())
        .profile(
            remcall::Profile::from_yaml_str(&format!("max_response_bytes: 1KiB\n{extra}")).unwrap(),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_download_streams_past_max_response_bytes_that_a_whole_read_refuses() {
    let server = reports_side().await;
    let payments = small_limit(&server, "");
    let whole = payments.get_report("big").await.unwrap_err();
    assert_eq!(whole.kind(), ErrorKind::BodyTooLarge);
    let mut body = payments.download_report("big").await.unwrap();
    assert_eq!(body.status().as_u16(), 200);
    let (mut total, mut chunks) = (0, 0);
    while let Some(chunk) = body.next().await {
        total += chunk.unwrap().len();
        chunks += 1;
    }
    assert_eq!(total, 256 << 10);
    assert!(chunks >= 4, "read chunk by chunk: {chunks}");
    // An error status is an error as ever, its body read within the limit.
    let missing = payments.download_report("missing").await.unwrap_err();
    assert_eq!(
        (missing.kind(), missing.status().map(|s| s.as_u16())),
        (ErrorKind::Status, Some(404))
    );
    assert_eq!(missing.body(), Some(&b"no such report"[..]));
}

#[tokio::test]
async fn a_body_that_breaks_off_or_runs_past_the_deadline_ends_with_a_named_error() {
    let server = reports_side().await;
    let payments = small_limit(&server, "");
    let mut broken = payments.download_report("broken").await.unwrap();
    let mut read = Vec::new();
    let error = loop {
        match broken.next().await.expect("an error before the end") {
            Ok(chunk) => read.extend_from_slice(&chunk),
            Err(error) => break error,
        }
    };
    assert!(
        error.to_string().starts_with("Payments.download_report: "),
        "{error}"
    );
    assert!(
        broken.next().await.is_none(),
        "the stream ends after its error"
    );
    assert!(read.len() < "first part, second part".len() + 1);

    let hurried = small_limit(&server, "timeout: { total: 300ms }");
    let mut slow = hurried.download_report("slow").await.unwrap();
    let mut chunks = 0;
    let error = loop {
        match slow
            .next()
            .await
            .expect("the deadline comes before the end")
        {
            Ok(_) => chunks += 1,
            Err(error) => break error,
        }
    };
    assert_eq!(error.kind(), ErrorKind::Timeout);
    assert!(
        error
            .to_string()
            .contains("ran past the call's total deadline of 300ms"),
        "{error}"
    );
    assert!(chunks < 4, "{chunks}");
}

/// An adjacently tagged union (`tag: kind`, `content: value`): the tag names the alternative,
/// whatever its type, and `value` holds it; each reads and writes back as it came, an unknown
/// tag is kept (`open: true`), a key beside the two is counted as undeclared, and a value its
/// alternative cannot read names the union and tag.
#[tokio::test]
async fn an_adjacently_tagged_union_reads_the_alternative_its_tag_names_from_its_content() {
    use remcall_example_committed::clients::payments::Adjustment;
    let card = json!({
        "id": "card_1", "created": 1, "livemode": false,
        "object": "card", "brand": "visa", "last4": "4242",
    });
    let adjustments = json!([
        { "kind": "credit", "value": 500 },
        { "kind": "note", "value": "waived" },
        { "kind": "memo", "value": "see ticket 7" },
        { "kind": "refund", "value": card },
        { "kind": "gift", "value": { "code": "x" } },
    ]);
    // A key beside the tag and the content is no alternative's: drift, counted.
    let mut served = adjustments.clone();
    served[1]["by"] = json!("ann");
    let router = Router::new().route(
        "/v1/balance",
        get(move || {
            let served = served.clone();
            async move {
                (
                    [("request-id", "req_1")],
                    axum::Json(json!({ "available": 1, "pending": 0, "adjustments": served })),
                )
            }
        }),
    );
    let server = Server::start(router).await;
    let payments = Payments::new(&server.url()).unwrap();
    let balance = payments.get_balance().await.unwrap().body;
    let read = balance.adjustments.expect("the adjustments");
    assert_eq!(read[0], Adjustment::Credit(500));
    assert_eq!(read[1], Adjustment::Note("waived".into()));
    assert_eq!(read[2], Adjustment::Memo("see ticket 7".into()));
    assert!(
        matches!(&read[3], Adjustment::Refunded(Card { brand, .. }) if brand == "visa"),
        "{:?}",
        read[3]
    );
    assert_eq!(read[4], Adjustment::Other(adjustments[4].clone()));
    // Written back, each is the object it came as.
    assert_eq!(remcall::serde_json::to_value(&read).unwrap(), adjustments);
    let stats = payments.stats();
    let counted = stats.method("get_balance").expect("its statistics");
    assert_eq!(counted.undeclared, 1, "{counted:?}");
    let broken =
        remcall::serde_json::from_value::<Adjustment>(json!({ "kind": "credit", "value": "five" }))
            .unwrap_err()
            .to_string();
    assert!(
        broken.starts_with("`Adjustment` (kind: credit): "),
        "{broken}"
    );
}

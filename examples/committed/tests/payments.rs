//! The payments client (specs/payments.yaml) against a loopback server: the wire form of each
//! type capability, as the server received it and as the caller got it.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use remcall::serde_json::{Value, json};
use remcall::{ErrorKind, Nullable};
use remcall_example_committed::clients::payments::{
    Amount, BankAccount, Card, Charge, CustomerPatch, CustomerStatus, PaymentSource, Payments,
    Tier, Vote,
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
        "broken_1" => entity("card"),
        _ => json!({ "id": id }),
    };
    let extra = match id {
        "card_1" => json!({ "brand": "visa", "last4": "4242" }),
        "ba_1" => json!({ "bank_name": "Ledger Bank", "last4": "6789" }),
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
    let patch = CustomerPatch {
        email: Nullable::Null,
        description: Nullable::Absent,
        balance: Some(5),
    };
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
            "no alternative of `Amount` matches (`I64`: invalid type: boolean `true`, expected i64; `String`: invalid type: boolean `true`, expected a string)"
        ),
        "{error}"
    );
}

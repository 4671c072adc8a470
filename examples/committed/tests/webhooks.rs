//! The generated receiver of payments.yaml's webhooks (`payments::webhooks`), served over
//! loopback and driven by the generated `WebhookEvent`s, signed as Stripe signs them: each
//! event reaches its typed method once, and what must be refused is, before anything decodes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use remcall::profile::Secret;
use remcall::webhooks::{Failure, Inbox, Sender, Verifier};
use remcall_example_committed::clients::payments::webhooks::{
    self, EVENTS, Receiver, WebhookEvent,
};
use remcall_example_committed::clients::payments::{
    Amount, Charge, Customer, CustomerStatus, Notice, PaymentSource, PaymentSourceSepaDebit, Tier,
};
use testkit::Server;

const SECRET: &str = "whsec_test_payments";

fn secrets() -> Vec<Secret> {
    vec![Secret::value(SECRET).unwrap()]
}

/// What the receiver's methods were handed.
#[derive(Default)]
struct Ledger {
    customers: Mutex<Vec<Notice<Customer>>>,
    charges: Mutex<Vec<Notice<Charge>>>,
    verified: Mutex<u32>,
    /// Charges whose handler fails this many more times before it succeeds.
    failures_left: Mutex<u32>,
}

#[derive(Clone, Default)]
struct Books(Arc<Ledger>);

impl Receiver for Books {
    async fn customer_updated(&self, event: Notice<Customer>) -> Result<(), Failure> {
        if event.data.email.as_deref() == Some("panic@example.com") {
            panic!("a handler's own bug");
        }
        self.0.customers.lock().unwrap().push(event);
        Ok(())
    }

    async fn charge_succeeded(&self, event: Notice<Charge>) -> Result<(), Failure> {
        {
            let mut left = self.0.failures_left.lock().unwrap();
            if *left > 0 {
                *left -= 1;
                return Err(std::io::Error::other("the ledger is down").into());
            }
        }
        self.0.charges.lock().unwrap().push(event);
        Ok(())
    }

    async fn endpoint_verified(&self) -> Result<(), Failure> {
        *self.0.verified.lock().unwrap() += 1;
        Ok(())
    }
}

fn customer(email: &str) -> Notice<Customer> {
    let customer = Customer {
        email: Some(email.to_owned()),
        ..Customer::new(
            "cus_1",
            1_700_000_000,
            false,
            -250,
            CustomerStatus::Active,
            Tier::Free,
            HashMap::new(),
        )
    };
    // The Notice's `type` is the event's own: the sender fills it in.
    Notice::new(
        "evt_customer_1",
        "customer.updated",
        1_700_000_001,
        customer,
    )
}

fn charge(id: &str) -> Notice<Charge> {
    let charge = Charge {
        id: "ch_1".into(),
        created: 1,
        livemode: false,
        amount: Amount::I64(1999),
        source: PaymentSource::SepaDebit(PaymentSourceSepaDebit {
            iban: "DE89370400440532013000".into(),
        }),
        vote: None,
        additional_properties: Default::default(),
    };
    Notice::new(id, "charge.succeeded", 1_700_000_002, charge)
}

async fn serve(books: &Books, inbox: Inbox) -> (Server, String) {
    let router =
        axum::Router::new().nest("/hooks/payments", webhooks::router(books.clone(), inbox));
    let server = Server::start(router).await;
    let url = format!("{}/hooks/payments", server.url());
    (server, url)
}

#[tokio::test]
async fn each_event_reaches_its_typed_method_once() {
    let books = Books::default();
    let inbox = webhooks::inbox(&secrets()).unwrap();
    let (_server, url) = serve(&books, inbox.clone()).await;
    let sender = Sender::new(&url, Some(webhooks::verifier(&secrets()).unwrap()));

    let sent = WebhookEvent::CustomerUpdated(customer("ada@example.com"))
        .send(&sender)
        .await
        .unwrap();
    assert_eq!(sent.status, 200);
    let again = sender.resend(&sent).await.unwrap();
    assert_eq!(again, 200, "a redelivery is answered as the first was");
    let paid = WebhookEvent::ChargeSucceeded(charge("evt_charge_1"))
        .send(&sender)
        .await
        .unwrap();
    assert_eq!(paid.status, 200);
    let verified = WebhookEvent::EndpointVerified.send(&sender).await.unwrap();
    assert_eq!(verified.status, 204, "the event's own answer");

    let customers = books.0.customers.lock().unwrap().clone();
    assert_eq!(
        customers,
        vec![customer("ada@example.com")],
        "handled once, typed"
    );
    let charges = books.0.charges.lock().unwrap().clone();
    assert_eq!(charges, vec![charge("evt_charge_1")]);
    assert_eq!(*books.0.verified.lock().unwrap(), 1);
    let stats = inbox.stats();
    assert_eq!(
        (stats.client, stats.received, stats.handled, stats.replayed),
        ("Payments", 4, 3, 1)
    );
}

#[tokio::test]
async fn a_payload_naming_another_event_is_not_sent() {
    let books = Books::default();
    let (_server, url) = serve(&books, webhooks::inbox(&secrets()).unwrap()).await;
    let sender = Sender::new(&url, Some(webhooks::verifier(&secrets()).unwrap()));
    let mut wrong = customer("ada@example.com");
    wrong.r#type = "charge.succeeded".into();
    let refused = WebhookEvent::CustomerUpdated(wrong)
        .send(&sender)
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), remcall::ErrorKind::Encode);
}

/// Posts `body` with `headers`, as a stranger or a broken sender would.
async fn post(url: &str, headers: reqwest_headers::HeaderMap, body: Vec<u8>) -> u16 {
    remcall::reqwest::Client::new()
        .post(url)
        .headers(headers)
        .body(body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

mod reqwest_headers {
    pub use remcall::reqwest::header::HeaderMap;
}

#[tokio::test]
async fn what_is_not_the_senders_is_refused_before_it_decodes() {
    let books = Books::default();
    let inbox = webhooks::inbox(&secrets()).unwrap().max_body(64 * 1024);
    let (_server, url) = serve(&books, inbox.clone()).await;
    let verifier = webhooks::verifier(&secrets()).unwrap();
    let stranger = Verifier::stripe(&[Secret::value("whsec_someone_else").unwrap()]).unwrap();
    let body = remcall::serde_json::to_vec(&customer("ada@example.com")).unwrap();
    let now = SystemTime::now();

    let tampered = String::from_utf8(body.clone())
        .unwrap()
        .replace("ada@", "eve@")
        .into_bytes();
    assert_eq!(
        post(&url, verifier.sign("x", now, &body), tampered).await,
        401,
        "tampered"
    );
    let old = now - Duration::from_secs(3600);
    assert_eq!(
        post(&url, verifier.sign("x", old, &body), body.clone()).await,
        401,
        "stale"
    );
    assert_eq!(
        post(&url, stranger.sign("x", now, &body), body.clone()).await,
        401,
        "a stranger's secret"
    );
    assert_eq!(
        post(&url, Default::default(), body.clone()).await,
        401,
        "unsigned"
    );
    let big = vec![b' '; 65 * 1024];
    assert_eq!(
        post(&url, verifier.sign("x", now, &big), big).await,
        413,
        "too large"
    );
    let not_a_customer =
        br#"{"id":"evt_9","type":"customer.updated","created":1,"data":{"id":7}}"#.to_vec();
    assert_eq!(
        post(
            &url,
            verifier.sign("x", now, &not_a_customer),
            not_a_customer
        )
        .await,
        400,
        "does not read"
    );
    let unknown = br#"{"id":"evt_10","type":"customer.deleted","created":1,"data":{}}"#.to_vec();
    assert_eq!(
        post(&url, verifier.sign("x", now, &unknown), unknown).await,
        202,
        "an event the description does not declare"
    );

    assert!(
        books.0.customers.lock().unwrap().is_empty(),
        "nothing reached the receiver"
    );
    let stats = inbox.stats();
    assert_eq!(stats.refused_signature, 4);
    assert_eq!(stats.refused_size, 1);
    assert_eq!(stats.refused_decode, 1);
    assert_eq!(stats.unknown, 1);
    assert_eq!(stats.handled, 0);
}

#[tokio::test]
async fn a_failed_or_panicking_handler_answers_500_and_its_redelivery_is_handled() {
    let books = Books::default();
    *books.0.failures_left.lock().unwrap() = 1;
    let inbox = webhooks::inbox(&secrets()).unwrap();
    let (_server, url) = serve(&books, inbox.clone()).await;
    let sender = Sender::new(&url, Some(webhooks::verifier(&secrets()).unwrap()));

    let sent = WebhookEvent::ChargeSucceeded(charge("evt_charge_2"))
        .send(&sender)
        .await
        .unwrap();
    assert_eq!(
        sent.status, 500,
        "the handler failed: the sender must deliver it again"
    );
    assert_eq!(
        sender.resend(&sent).await.unwrap(),
        200,
        "the redelivery is handled, not taken for a replay"
    );
    assert_eq!(books.0.charges.lock().unwrap().len(), 1);

    let panicking = WebhookEvent::CustomerUpdated(customer("panic@example.com"))
        .send(&sender)
        .await
        .unwrap();
    assert_eq!(panicking.status, 500);
    let after = WebhookEvent::CustomerUpdated(customer("ada@example.com"))
        .send(&sender)
        .await;
    assert_eq!(after.unwrap().status, 200, "the service lives on");
    let stats = inbox.stats();
    assert_eq!((stats.failed, stats.panicked, stats.handled), (1, 1, 2));
}

/// A receiver that implements nothing acknowledges every event without handling it.
struct Nothing;
impl Receiver for Nothing {}

#[tokio::test]
async fn an_event_a_receiver_leaves_out_is_acknowledged_and_counted_as_ignored() {
    let inbox = webhooks::inbox(&secrets()).unwrap();
    let router = axum::Router::new().merge(webhooks::router(Nothing, inbox.clone()));
    let server = Server::start(router).await;
    let sender = Sender::new(server.url(), Some(webhooks::verifier(&secrets()).unwrap()));
    let sent = WebhookEvent::ChargeSucceeded(charge("evt_3"))
        .send(&sender)
        .await
        .unwrap();
    assert_eq!(sent.status, 200);
    assert_eq!(inbox.stats().ignored, 1);
    assert_eq!(EVENTS.events.len(), 3);
}

#[tokio::test]
async fn keys_the_description_does_not_declare_are_read_and_counted_as_drift() {
    let books = Books::default();
    let inbox = webhooks::inbox(&secrets()).unwrap();
    let (_server, url) = serve(&books, inbox.clone()).await;
    let verifier = webhooks::verifier(&secrets()).unwrap();
    let mut body = remcall::serde_json::to_value(customer("ada@example.com")).unwrap();
    body["api_version"] = "2026-11-01".into();
    let body = remcall::serde_json::to_vec(&body).unwrap();
    assert_eq!(
        post(&url, verifier.sign("x", SystemTime::now(), &body), body).await,
        200
    );
    assert_eq!(books.0.customers.lock().unwrap().len(), 1);
    assert_eq!(inbox.stats().drifted, 1);
}

/// Two replicas behind one URL share the ids they saw in Redis: a redelivery that reaches the
/// other replica is answered, not handled again. Without Redis each decides from its own memory.
#[tokio::test]
async fn two_replicas_handle_a_redelivery_once_between_them_through_redis() {
    let mut redis = testkit::redis::RedisServer::start().await;
    let books = Books::default();
    let replica = || {
        webhooks::inbox(&secrets())
            .unwrap()
            .shared_replays(&redis.url(), "payments-hooks")
            .unwrap()
    };
    let (first, second) = (replica(), replica());
    let (_a, url_a) = serve(&books, first.clone()).await;
    let (_b, url_b) = serve(&books, second.clone()).await;
    let to_a = Sender::new(&url_a, Some(webhooks::verifier(&secrets()).unwrap()));
    let to_b = Sender::new(&url_b, Some(webhooks::verifier(&secrets()).unwrap()));

    let sent = WebhookEvent::ChargeSucceeded(charge("evt_shared_1"))
        .send(&to_a)
        .await
        .unwrap();
    assert_eq!(sent.status, 200);
    assert_eq!(to_b.resend(&sent).await.unwrap(), 200);
    assert_eq!(
        books.0.charges.lock().unwrap().len(),
        1,
        "handled once by the two"
    );
    assert_eq!(
        (first.stats().handled, second.stats().replayed),
        (1, 1),
        "{:?} {:?}",
        first.stats(),
        second.stats()
    );

    redis.stop();
    let alone = WebhookEvent::ChargeSucceeded(charge("evt_shared_2"))
        .send(&to_a)
        .await
        .unwrap();
    assert_eq!(
        alone.status, 200,
        "without Redis a delivery is still handled"
    );
    assert_eq!(to_a.resend(&alone).await.unwrap(), 200);
    assert_eq!(
        books.0.charges.lock().unwrap().len(),
        2,
        "and its redelivery to the same replica is not"
    );
}

/// The API's stub sends its events too: a service's test drives its receiver and the client
/// against one stand-in of the API.
#[tokio::test]
async fn the_apis_stub_sends_its_webhooks() {
    let stub = remcall_example_committed::clients::payments::stub::PaymentsStub::start()
        .await
        .unwrap();
    let books = Books::default();
    let (_server, url) = serve(&books, webhooks::inbox(&secrets()).unwrap()).await;
    let to = Sender::new(&url, Some(webhooks::verifier(&secrets()).unwrap()));
    let sent = stub
        .send_webhook(&to, &WebhookEvent::EndpointVerified)
        .await
        .unwrap();
    assert_eq!(sent.status, 204);
    assert_eq!(*books.0.verified.lock().unwrap(), 1);
}

/// The dashboard shows a receiver's counts beside the clients: in `/stats.json` and as
/// `remcall_webhook_deliveries_total` by outcome in `/metrics`.
#[tokio::test]
async fn the_dashboard_counts_a_receivers_deliveries() {
    let books = Books::default();
    let inbox = webhooks::inbox(&secrets()).unwrap();
    let (_server, url) = serve(&books, inbox.clone()).await;
    let sender = Sender::new(&url, Some(webhooks::verifier(&secrets()).unwrap()));
    WebhookEvent::EndpointVerified.send(&sender).await.unwrap();
    let forged = remcall::reqwest::Client::new()
        .post(&url)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 401);

    let watched = remcall::dashboard::Watched::from(Vec::new()).inbox(inbox.clone());
    let page = Server::start(remcall::dashboard::router(watched)).await;
    let figures = remcall::reqwest::get(format!("{}/stats.json", page.url()))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let figures: remcall::serde_json::Value = remcall::serde_json::from_slice(&figures).unwrap();
    let counts = &figures["webhooks"][0];
    assert_eq!(counts["client"], "Payments");
    assert_eq!(
        (
            counts["received"].as_u64(),
            counts["handled"].as_u64(),
            counts["refused_signature"].as_u64()
        ),
        (Some(2), Some(1), Some(1))
    );
    let metrics = remcall::reqwest::get(format!("{}/metrics", page.url()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics
            .contains(r#"remcall_webhook_deliveries_total{client="Payments",outcome="handled"} 1"#),
        "{metrics}"
    );
    assert!(
        metrics.contains(
            r#"remcall_webhook_deliveries_total{client="Payments",outcome="refused_signature"} 1"#
        ),
        "{metrics}"
    );
}

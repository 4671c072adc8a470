//! What the logs say of a payments.yaml receiver's refused or unread deliveries (its own
//! binary: the subscriber is global).

use std::time::SystemTime;

use remcall::profile::Secret;
use remcall_example_committed::clients::payments::webhooks::{self, Receiver};
use testkit::Server;

const SECRET: &str = "whsec_test_payments";

/// A receiver that handles nothing itself.
struct Quiet;
impl Receiver for Quiet {}

/// Posts `body` with `headers`, as a stranger or a broken sender would.
async fn post(url: &str, headers: remcall::reqwest::header::HeaderMap, body: Vec<u8>) -> u16 {
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

/// What the logs say of a refused or unread delivery: which check, and where a payload does not
/// read, never a value of the sender's.
#[tokio::test]
async fn the_logs_name_the_check_and_the_place_never_a_value() {
    let captured = testkit::logs::Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    // The only test of its binary, with a global subscriber: a scoped one loses events whose
    // callsite another test's thread met first without one (tracing caches that interest).
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let secrets = [Secret::value(SECRET).unwrap()];
    let router = webhooks::router(Quiet, webhooks::inbox(&secrets).unwrap());
    let server = Server::start(router).await;
    let url = server.url();
    let verifier = webhooks::verifier(&secrets).unwrap();
    let now = SystemTime::now();
    let unread = br#"{"id":"evt_11","type":"customer.updated","created":1,"data":{"id":"cus_1","created":"sk_live_SECRETVALUE"}}"#.to_vec();
    assert_eq!(
        post(&url, verifier.sign("x", now, &unread), unread.clone()).await,
        400
    );
    let forged = unread.clone();
    assert_eq!(post(&url, Default::default(), forged).await, 401);

    let logs = captured.take();
    assert!(logs.contains("webhook delivery refused"), "{logs}");
    assert!(logs.contains("webhook payload does not read"), "{logs}");
    assert!(logs.contains("$.data.created"), "the place: {logs}");
    assert!(
        !logs.contains("SECRETVALUE"),
        "no value of the sender's: {logs}"
    );
}

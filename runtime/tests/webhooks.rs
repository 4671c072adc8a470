//! A receiving route as a service writes one with `remcall::webhooks`, over real HTTP on
//! loopback: deliveries signed as their sender signs them are handled once; a tampered body, a
//! stale timestamp, a wrong secret and a redelivery are each told apart, and a refusal answers
//! with no detail.
#![cfg(feature = "webhooks")]

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use remcall::profile::Secret;
use remcall::webhooks::{Replays, Seen, Verifier};
use testkit::Server;

/// The receiver's state: its verifier, the ids it has seen, the events it handled.
struct Receiver {
    verifier: Verifier,
    replays: Replays,
    handled: Mutex<Vec<String>>,
}

async fn receive(
    State(receiver): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let now = SystemTime::now();
    let verified = match receiver.verifier.verify(&headers, &body, now) {
        Ok(verified) => verified,
        Err(_) => return StatusCode::BAD_REQUEST,
    };
    let id = verified.id.unwrap_or_default();
    if receiver.replays.check(&id, now) == Seen::Again {
        return StatusCode::OK;
    }
    receiver
        .handled
        .lock()
        .unwrap()
        .push(String::from_utf8_lossy(&body).into_owned());
    StatusCode::NO_CONTENT
}

fn secret(text: &str) -> Secret {
    Secret::value(text).unwrap()
}

#[tokio::test]
async fn signed_deliveries_are_handled_once_and_the_rest_refused() {
    let ours = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let receiver = Arc::new(Receiver {
        verifier: Verifier::standard_webhooks(&[secret(ours)]).unwrap(),
        replays: Replays::default(),
        handled: Mutex::default(),
    });
    let server = Server::start(
        Router::new()
            .route("/hooks", post(receive))
            .with_state(receiver.clone()),
    )
    .await;
    let sender = Verifier::standard_webhooks(&[secret(ours)]).unwrap();
    let stranger =
        Verifier::standard_webhooks(&[secret("whsec_c2VjcmV0LW9mLWFub3RoZXItc2VuZGVy")]).unwrap();
    let http = remcall::reqwest::Client::new();
    let url = format!("{}/hooks", server.url());
    let send = |headers: remcall::reqwest::header::HeaderMap, body: &'static str| {
        http.post(&url).headers(headers).body(body).send()
    };
    let paid = r#"{"type":"invoice.paid","id":"in_1"}"#;
    let now = SystemTime::now();

    let first = send(sender.sign("msg_1", now, paid.as_bytes()), paid)
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::NO_CONTENT);
    let again = send(sender.sign("msg_1", now, paid.as_bytes()), paid)
        .await
        .unwrap();
    assert_eq!(
        again.status(),
        StatusCode::OK,
        "a redelivery is acknowledged, not handled"
    );

    let tampered = send(
        sender.sign("msg_2", now, paid.as_bytes()),
        r#"{"type":"invoice.paid","id":"in_2"}"#,
    )
    .await
    .unwrap();
    assert_eq!(tampered.status(), StatusCode::BAD_REQUEST);
    let stale = now - Duration::from_secs(600);
    let old = send(sender.sign("msg_3", stale, paid.as_bytes()), paid)
        .await
        .unwrap();
    assert_eq!(old.status(), StatusCode::BAD_REQUEST);
    let forged = send(stranger.sign("msg_4", now, paid.as_bytes()), paid)
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::BAD_REQUEST);
    assert!(forged.text().await.unwrap().is_empty(), "no detail");
    let unsigned = http.post(&url).body(paid).send().await.unwrap();
    assert_eq!(unsigned.status(), StatusCode::BAD_REQUEST);

    assert_eq!(*receiver.handled.lock().unwrap(), [paid]);
}

//! The HMAC interceptor of examples/committed/src/signing.rs, wired through `specs/ledger.yaml`'s
//! `interceptors:`, against a gateway that checks request signatures and signs its answers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use remcall::ErrorKind;
use remcall_example_committed::clients::ledger_client::{Entry, LedgerClient};
use remcall_example_committed::signing::{DEMO_KEY, HmacSigner, body_digest};
use testkit::Server;

/// A gateway: refuses unsigned or mis-signed requests, signs every answer; `tamper` changes the
/// body after signing, as a man in the middle would.
async fn gateway(tamper: Arc<AtomicBool>) -> Server {
    let signer = Arc::new(HmacSigner::new(DEMO_KEY.as_bytes()));
    let handler = move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
        let (signer, tamper) = (signer.clone(), tamper.clone());
        async move {
            let header = |name: &str| {
                headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned()
            };
            let digest = body_digest(&body);
            let message = HmacSigner::request_message(
                method.as_str(),
                &uri.to_string(),
                &header("x-timestamp"),
                &digest,
            );
            let (status, answer) = if header("x-content-sha256") != digest
                || header("x-signature") != signer.sign(&message)
            {
                (
                    StatusCode::UNAUTHORIZED,
                    r#"{"error":"bad signature"}"#.to_owned(),
                )
            } else if method == Method::POST {
                (
                    StatusCode::OK,
                    r#"{"id":42,"balance_cents":1250}"#.to_owned(),
                )
            } else {
                (
                    StatusCode::OK,
                    r#"{"account":"acme","cents":1250,"memo":"coffee"}"#.to_owned(),
                )
            };
            let signature = signer.sign(&HmacSigner::response_message(
                status.as_u16(),
                answer.as_bytes(),
            ));
            let sent = if tamper.load(Ordering::SeqCst) {
                answer.replace("1250", "9999")
            } else {
                answer
            };
            let mut response: Response =
                (status, [("content-type", "application/json")], sent).into_response();
            response
                .headers_mut()
                .insert("x-signature", signature.parse().unwrap());
            response
        }
    };
    Server::start(
        Router::new()
            .route("/entries", any(handler.clone()))
            .route("/entries/{id}", any(handler)),
    )
    .await
}

/// A ledger client of the gateway at `url`. The spec's API key is `${LEDGER_API_KEY}`: a secret
/// reaches a client at run time, here through a runtime profile, as a vault's would.
fn ledger_at(url: &str) -> LedgerClient {
    LedgerClient::builder()
        .base_url(url)
        .profile(
            remcall::Profile::from_yaml_str(
                "headers: { X-Ledger-Key: { value: test-ledger-key, secret: true } }",
            )
            .unwrap(),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn signed_requests_pass_and_signed_answers_verify() {
    let gateway = gateway(Arc::default()).await;
    let ledger = ledger_at(&gateway.url());
    let entry = Entry {
        account: "acme".to_owned(),
        cents: 1250,
        memo: Some("coffee".to_owned()),
    };
    let receipt = ledger.append(&entry).await.unwrap();
    assert_eq!((receipt.id, receipt.balance_cents), (42, 1250));
    assert_eq!(ledger.entry(42).await.unwrap(), entry);

    let received = gateway.received();
    for request in &received {
        for header in [
            "x-timestamp",
            "x-content-sha256",
            "x-signature",
            "x-ledger-key",
        ] {
            assert!(request.headers.contains_key(header), "{header} missing");
        }
    }
}

#[tokio::test]
async fn a_tampered_response_fails_verification() {
    let tamper = Arc::new(AtomicBool::new(true));
    let gateway = gateway(tamper).await;
    let ledger = ledger_at(&gateway.url());
    let err = ledger.entry(42).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Interceptor, "{err}");
    assert!(
        err.to_string().contains("signature does not match"),
        "{err}"
    );
    assert_eq!(
        gateway.received().len(),
        1,
        "an interceptor error is not retried"
    );
}

#[tokio::test]
async fn a_builder_interceptor_runs_after_the_spec_ones() {
    // Changing the body after signing breaks the signature: the gateway refuses.
    #[derive(Default)]
    struct Meddler;
    impl remcall::Interceptor for Meddler {
        async fn before_send(
            &self,
            request: &mut remcall::Outgoing,
        ) -> Result<(), remcall::BoxError> {
            request.body = Some(remcall::bytes::Bytes::from_static(
                br#"{"account":"evil","cents":1}"#,
            ));
            Ok(())
        }
    }
    let gateway = gateway(Arc::default()).await;
    let ledger = LedgerClient::builder()
        .base_url(&gateway.url())
        .profile(
            remcall::Profile::from_yaml_str(
                "headers: { X-Ledger-Key: { value: test-ledger-key, secret: true } }",
            )
            .unwrap(),
        )
        .interceptor(Meddler)
        .build()
        .unwrap();
    let entry = Entry {
        account: "acme".to_owned(),
        cents: 1,
        memo: None,
    };
    let err = ledger.append(&entry).await.unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(401), "{err}");
}

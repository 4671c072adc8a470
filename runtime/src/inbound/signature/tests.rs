use super::*;

fn at(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(seconds)
}

fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.insert(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    map
}

/// The Standard Webhooks specification's published vector.
#[test]
fn standard_webhooks_verifies_its_published_vector_and_refuses_what_differs() {
    let secret = Secret::value("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
    let verifier = Verifier::standard_webhooks(&[secret]).unwrap();
    let body = br#"{"test": 2432232314}"#;
    let signed = headers(&[
        ("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek"),
        ("webhook-timestamp", "1614265330"),
        (
            "webhook-signature",
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ),
    ]);
    let verified = verifier.verify(&signed, body, at(1_614_265_330)).unwrap();
    assert_eq!(verified.id.as_deref(), Some("msg_p5jXN8AQM9LWM0D4loKWxJek"));
    assert_eq!(
        verifier.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", at(1_614_265_330), body)["webhook-signature"],
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    );
    let tampered = br#"{"test": 2432232315}"#;
    assert_eq!(
        verifier.verify(&signed, tampered, at(1_614_265_330)),
        Err(Refusal::Mismatch)
    );
    assert_eq!(
        verifier.verify(&signed, body, at(1_614_265_330 + 301)),
        Err(Refusal::Stale),
        "replayed six minutes later"
    );
    let other = Secret::value("whsec_c2VjcmV0LW9mLWFub3RoZXItZW5kcG9pbnQ=").unwrap();
    let wrong = Verifier::standard_webhooks(std::slice::from_ref(&other)).unwrap();
    assert_eq!(
        wrong.verify(&signed, body, at(1_614_265_330)),
        Err(Refusal::Mismatch)
    );
    // During a rotation the sender signs with both secrets, and either verifies.
    let rotating = headers(&[
        ("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek"),
        ("webhook-timestamp", "1614265330"),
        (
            "webhook-signature",
            "v1,bm90IHRoaXMgb25lIG5vdCB0aGlzIG9uZSBub3QgdGhpcw== v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ),
    ]);
    assert!(verifier.verify(&rotating, body, at(1_614_265_330)).is_ok());
    assert_eq!(
        verifier.verify(&HeaderMap::new(), body, at(1_614_265_330)),
        Err(Refusal::Missing)
    );
}

/// GitHub's documented example (docs.github.com, "Validating webhook deliveries").
#[test]
fn github_verifies_its_documented_example() {
    let verifier =
        Verifier::github(&[Secret::value("It's a Secret to Everybody").unwrap()]).unwrap();
    let signed = headers(&[(
        "x-hub-signature-256",
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    )]);
    assert!(verifier.verify(&signed, b"Hello, World!", at(0)).is_ok());
    assert_eq!(
        verifier.verify(&signed, b"Hello, World?", at(0)),
        Err(Refusal::Mismatch)
    );
    assert_eq!(
        verifier.sign("", at(0), b"Hello, World!")["x-hub-signature-256"],
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    );
}

/// Stripe's scheme; the signature computed apart, by Python's `hmac` module.
#[test]
fn stripe_verifies_a_signature_computed_apart_and_refuses_an_old_one() {
    let verifier =
        Verifier::stripe(&[Secret::value("whsec_test_secret_for_remcall").unwrap()]).unwrap();
    let body = br#"{"id":"evt_1","type":"invoice.paid"}"#;
    let signed = headers(&[(
        "stripe-signature",
        "t=1700000000,v1=0e5685d68ab43acf718ad068d7fd3d8092b915c4a8fcd7306882063fac40126f,v0=ignored",
    )]);
    assert!(verifier.verify(&signed, body, at(1_700_000_100)).is_ok());
    assert_eq!(
        verifier.verify(&signed, body, at(1_700_000_000 + 3_600)),
        Err(Refusal::Stale)
    );
    assert_eq!(
        verifier.verify(&signed, b"{}", at(1_700_000_000)),
        Err(Refusal::Mismatch)
    );
    assert_eq!(
        verifier.sign("", at(1_700_000_000), body)["stripe-signature"],
        "t=1700000000,v1=0e5685d68ab43acf718ad068d7fd3d8092b915c4a8fcd7306882063fac40126f"
    );
}

#[test]
fn a_generic_hmac_header_is_read_in_its_encoding() {
    let secret = Secret::value("It's a Secret to Everybody").unwrap();
    let hex = Verifier::hmac_sha256(
        "x-signature",
        "",
        Encoding::Hex,
        std::slice::from_ref(&secret),
    )
    .unwrap();
    let signed = headers(&[(
        "x-signature",
        "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    )]);
    assert!(hex.verify(&signed, b"Hello, World!", at(0)).is_ok());
    let base64 =
        Verifier::hmac_sha256("x-signature", "sha256=", Encoding::Base64, &[secret]).unwrap();
    let signed = base64.sign("", at(0), b"Hello, World!");
    assert!(base64.verify(&signed, b"Hello, World!", at(0)).is_ok());
    assert_eq!(
        base64.verify(&signed, b"Hello", at(0)),
        Err(Refusal::Mismatch)
    );
}

#[test]
fn a_verifier_says_nothing_of_its_secrets() {
    let verifier =
        Verifier::github(&[Secret::value("It's a Secret to Everybody").unwrap()]).unwrap();
    let shown = format!("{verifier:?}");
    assert!(!shown.contains("Secret to"), "{shown}");
    assert!(Verifier::github(&[]).is_err(), "no secret");
}

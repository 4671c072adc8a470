//! The generated stub (`stubs: true` in specs/user_service.yaml), used as a user would: a
//! service function that calls `UserClient`, tested against `UserClientStub`; and a breaker
//! recipe tested with the stub's faults.

use remcall::{BreakerState, ErrorKind, Profile};
use remcall_example_committed::clients::user_client::stub::UserClientStub;
use remcall_example_committed::clients::user_client::{User, UserClient, UserPage, UserSort};

/// The code under test: a user's name for a page, "(unknown)" for one that is not there.
async fn display_name(users: &UserClient, id: i64) -> Result<String, remcall::Error> {
    Ok(match users.get_user(id, None, "page").await? {
        Some(user) => user.name,
        None => "(unknown)".to_owned(),
    })
}

fn ada() -> User {
    User {
        id: 1,
        name: "Ada".to_owned(),
        email: None,
        created_at: None,
    }
}

#[tokio::test]
async fn a_service_function_is_tested_against_typed_answers() {
    let stub = UserClientStub::start().await.unwrap();
    stub.get_user().with_id(1).returns(&ada()).expect(1);
    stub.get_user().with_id(2).returns_status(404);
    let users = UserClient::new(&stub.url()).unwrap();

    assert_eq!(display_name(&users, 1).await.unwrap(), "Ada");
    assert_eq!(display_name(&users, 2).await.unwrap(), "(unknown)");

    // The calls, read as the spec's types.
    let calls = stub.get_user().calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].id, 1);
    assert_eq!(calls[0].request_id, "page");
    assert_eq!(calls[0].verbose, None);
    assert_eq!(calls[1].id, 2);
    // A request the stub was not told about: 501, with what the closest rule wanted.
    let error = display_name(&users, 3).await.unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(501));
}

#[tokio::test]
async fn typed_matchers_write_values_as_the_client_does() {
    let stub = UserClientStub::start().await.unwrap();
    stub.get_user()
        .with_id(7)
        .with_verbose(true)
        .with_request_id("r-9")
        .returns(&ada())
        .expect(1);
    let users = UserClient::new(&stub.url()).unwrap();
    let user = users.get_user(7, Some(true), "r-9").await.unwrap();
    assert_eq!(user.unwrap().name, "Ada");
}

/// A matcher takes its value as the call's setter does, and by reference as well: an enum by
/// value (`.sort(UserSort::Name)` ↔ `.with_sort(UserSort::Name)`), text as `&str` or `String`.
#[tokio::test]
async fn matchers_take_values_as_the_calls_setters_do() {
    let stub = UserClientStub::start().await.unwrap();
    let page = |users: Vec<User>| UserPage {
        users,
        has_more: false,
    };
    stub.list_users()
        .with_sort(UserSort::Name)
        .returns(&page(vec![ada()]))
        .expect(2);
    // As matchers took it before: by reference.
    #[allow(clippy::needless_borrows_for_generic_args)]
    stub.list_users()
        .with_sort(&UserSort::Id)
        .returns(&page(vec![]));
    let users = UserClient::new(&stub.url()).unwrap();
    for _ in 0..2 {
        let by_name = users.list_users().sort(UserSort::Name).await.unwrap();
        assert_eq!(by_name.users.len(), 1);
    }
    let by_id = users.list_users().sort(UserSort::Id).await.unwrap();
    assert!(by_id.users.is_empty());
    stub.get_user()
        .with_id(7)
        .with_request_id(String::from("r-9"))
        .returns(&ada());
    assert!(users.get_user(7, None, "r-9").await.unwrap().is_some());
}

/// The recipe: a breaker that opens after half of 10 calls fail, for 30 s, with no retries.
/// The stub fails every call; after the tenth the breaker refuses without calling.
#[tokio::test]
async fn a_breaker_recipe_opens_on_the_faults_it_is_for() {
    let stub = UserClientStub::start().await.unwrap();
    stub.get_user().faults().fail(503).times(10);
    stub.get_user().returns(&ada());
    let users = UserClient::builder()
        .base_url(&stub.url())
        .profile(
            Profile::from_yaml_str(
                "retry: { max_attempts: 1 }\nbreaker: { window: { calls: 10 }, min_calls: 10, failure_rate: 50, open_for: 30s }",
            )
            .unwrap(),
        )
        .build()
        .unwrap();
    for _ in 0..10 {
        let error = display_name(&users, 1).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Status);
    }
    let error = display_name(&users, 1).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BreakerOpen);
    assert_eq!(
        stub.get_user().calls().len(),
        10,
        "refused calls never arrive"
    );
    let stats = users.stats();
    assert_eq!(
        stats.method("get_user").unwrap().breaker,
        BreakerState::Open
    );
}

/// Retries of a flaky read: two resets, then an answer; the client's retry policy (from the
/// spec's profile) gets through, each attempt visible in the calls.
#[tokio::test]
async fn resets_are_retried_by_the_specs_retry_policy() {
    let stub = UserClientStub::start().await.unwrap();
    stub.get_user().faults().reset_connection().times(2);
    stub.get_user().returns(&ada()).expect(1);
    let users = UserClient::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str("retry: { backoff: { initial: 1ms, max: 1ms } }").unwrap())
        .build()
        .unwrap();
    assert_eq!(display_name(&users, 1).await.unwrap(), "Ada");
    assert_eq!(stub.get_user().calls().len(), 3);
    assert_eq!(users.stats().method("get_user").unwrap().retries, 2);
}

/// A declared error body, answered typed and read typed: the fallback and the caller see the
/// same `GetCustomerError` the API would send.
#[tokio::test]
async fn a_typed_error_answer_reaches_the_caller_as_its_declared_type() {
    use remcall_example_committed::clients::payments::stub::PaymentsStub;
    use remcall_example_committed::clients::payments::{GetCustomerError, Missing, Payments};

    let stub = PaymentsStub::start().await.unwrap();
    let missing = GetCustomerError::NotFound(Missing {
        missing: "cus_9".to_owned(),
    });
    stub.get_customer()
        .with_id("cus_9")
        .returns_error(&missing)
        .expect(1);
    let payments = Payments::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
        .build()
        .unwrap();
    let error = payments.get_customer("cus_9").await.unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(404));
    assert_eq!(error.detail::<GetCustomerError>(), Some(&missing));
}

/// Two methods that declare the same error statuses and types share one enum; each method's
/// own name is an alias of it, so either reads the other's error.
#[tokio::test]
async fn methods_that_declare_the_same_errors_share_one_type() {
    use remcall_example_committed::clients::payments::stub::PaymentsStub;
    use remcall_example_committed::clients::payments::{
        ApiError, CustomerPatch, ErrorDetail, GetCustomerError, MissingOrApiErrorByStatus,
        Payments, UpdateCustomerError,
    };

    let stub = PaymentsStub::start().await.unwrap();
    let refused = UpdateCustomerError::ClientError(ApiError {
        error: ErrorDetail {
            r#type: "invalid_request".to_owned(),
            message: "no such field".to_owned(),
            code: None,
        },
    });
    stub.update_customer().returns_error(&refused).expect(1);
    let payments = Payments::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
        .build()
        .unwrap();
    let error = payments
        .update_customer("cus_1", &CustomerPatch::default())
        .await
        .unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(400));
    assert_eq!(error.detail::<UpdateCustomerError>(), Some(&refused));
    assert_eq!(error.detail::<GetCustomerError>(), Some(&refused));
    assert!(matches!(
        error.detail::<MissingOrApiErrorByStatus>(),
        Some(MissingOrApiErrorByStatus::ClientError(_))
    ));
}

/// A request that does not fit the spec (a path parameter that is no `i64`) is answered 400
/// with the reason, and the stub's drop fails the test saying so.
#[tokio::test]
async fn a_request_the_spec_does_not_allow_fails_the_test_with_the_reason() {
    let stub = UserClientStub::start().await.unwrap();
    stub.get_user().returns(&ada());
    let answer = remcall::reqwest::Client::new()
        .get(format!("{}/v1/api/users/not-a-number", stub.url()))
        .header("X-Request-Id", "r")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 400);
    let reason = answer.text().await.unwrap();
    assert!(
        reason.contains("`get_user`: path parameter `id`"),
        "{reason}"
    );
    let message = testkit::panic_message(|| drop(stub)).expect("the drop fails the test");
    assert!(
        message.contains("a request that does not fit the spec: `get_user`: path parameter `id`"),
        "{message}"
    );
}

/// A POST's body is read back as the spec's type.
#[tokio::test]
async fn a_body_is_read_back_as_its_type() {
    let stub = UserClientStub::start().await.unwrap();
    stub.query_user().returns(
        &remcall_example_committed::clients::user_client::ResponseDto {
            code: 0,
            message: "ok".to_owned(),
            data: Some(vec![ada()]),
        },
    );
    let users = UserClient::new(&stub.url()).unwrap();
    users.query_user(&ada()).await.unwrap();
    assert_eq!(stub.query_user().calls()[0].body, ada());
}

/// "Retried twice with the same key": a POST with an idempotency key is retried through two
/// 503s, and the stub's calls show three attempts carrying one key and the same body.
#[tokio::test]
async fn a_keyed_post_is_retried_with_the_same_key() {
    use remcall_example_committed::clients::payments::stub::PaymentsStub;
    use remcall_example_committed::clients::payments::{NewRefund, Payments, Refund};

    let stub = PaymentsStub::start().await.unwrap();
    stub.create_refund().faults().fail(503).times(2);
    stub.create_refund()
        .returns(&Refund {
            id: "re_1".to_owned(),
            charge: "ch_1".to_owned(),
            amount: 500,
        })
        .expect(1);
    let payments = Payments::builder()
        .base_url(&stub.url())
        .profile(
            Profile::from_yaml_str(
                "retry: { max_attempts: 3, backoff: { initial: 1ms, max: 1ms } }",
            )
            .unwrap(),
        )
        .build()
        .unwrap();
    let refund = NewRefund {
        charge: "ch_1".to_owned(),
        amount: 500,
    };
    assert_eq!(payments.create_refund(&refund).await.unwrap().id, "re_1");
    let calls = stub.create_refund().calls();
    assert_eq!(calls.len(), 3, "two 503s, then the answer");
    let keys: Vec<&str> = calls
        .iter()
        .map(|call| call.raw.header("Idempotency-Key").unwrap_or_default())
        .collect();
    assert!(!keys[0].is_empty());
    assert!(keys.iter().all(|key| *key == keys[0]), "{keys:?}");
    assert!(calls.iter().all(|call| call.body == refund));
}

#[tokio::test]
async fn two_routes_with_quotas_of_their_own_pace_one_client_without_a_refusal() {
    let stub = UserClientStub::start().await.unwrap();
    stub.get_user().returns(&ada());
    stub.list_users().returns(&UserPage {
        users: vec![ada()],
        has_more: false,
    });
    // A code host's two buckets: `core` for reading a user, a smaller `search` for listing.
    let second = std::time::Duration::from_secs(1);
    stub.inner()
        .announce_quota_of(&["get_user"], "core", 10, second);
    stub.inner()
        .announce_quota_of(&["list_users"], "search", 2, second);
    let users = UserClient::new(&stub.url()).unwrap();
    // The first answer says the API announces quotas; then both routes at once, six callers
    // at a time: `search`'s first calls neither go at once nor take `core`'s pace.
    display_name(&users, 1).await.unwrap();
    for _ in 0..4 {
        let calls: Vec<_> = (0..6)
            .map(|i| {
                let users = users.clone();
                tokio::spawn(async move {
                    if i % 2 == 0 {
                        display_name(&users, i).await.map(|_| ())
                    } else {
                        users.list_users().await.map(|_| ())
                    }
                })
            })
            .collect();
        for call in calls {
            call.await.unwrap().unwrap();
        }
    }
    assert_eq!(
        stub.inner().quota_refusals(),
        0,
        "paced by each route's quota"
    );
    let names: Vec<Option<String>> = users.stats().quotas.into_iter().map(|q| q.name).collect();
    assert_eq!(names, [Some("core".to_owned()), Some("search".to_owned())]);
}

#[tokio::test]
async fn the_stub_announces_a_quota_and_a_client_that_paces_by_it_stays_under() {
    let stub = UserClientStub::start().await.unwrap();
    stub.get_user().returns(&ada());
    // 10 calls a second, announced on every answer; a call past it would be a 429.
    stub.inner()
        .announce_quota(10, std::time::Duration::from_secs(1));
    let users = UserClient::new(&stub.url()).unwrap();
    for id in 0..25 {
        display_name(&users, id).await.unwrap();
    }
    assert_eq!(
        stub.inner().quota_refusals(),
        0,
        "paced by the announced quota"
    );
    assert_eq!(stub.get_user().calls().len(), 25);
    // A client told to ignore it runs into the limit (and only its retries save it).
    let careless = UserClient::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str("quota: { from_headers: off }").unwrap())
        .build()
        .unwrap();
    let mut refused = 0;
    for id in 0..25 {
        if display_name(&careless, id).await.is_err() {
            refused += 1;
        }
    }
    assert!(stub.inner().quota_refusals() > 0, "{refused} calls failed");
}

#[tokio::test]
async fn the_stub_answers_a_revalidation_with_a_304_and_the_cache_keeps_the_body() {
    let stub = UserClientStub::start().await.unwrap();
    stub.get_user()
        .returns(&ada())
        .etag("v1")
        .header("cache-control", "no-cache");
    let users = UserClient::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str("cache: {}").unwrap())
        .build()
        .unwrap();
    for _ in 0..3 {
        assert_eq!(display_name(&users, 1).await.unwrap(), "Ada");
    }
    assert_eq!(stub.get_user().calls().len(), 3, "each call asked the stub");
    let stats = users.stats();
    let (_, get_user) = stats
        .methods
        .iter()
        .find(|(name, _)| *name == "get_user")
        .expect("get_user's figures");
    assert_eq!(
        get_user.revalidated, 2,
        "the second and third calls were 304s"
    );
}

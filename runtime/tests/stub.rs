//! The stub server on its own, called by a real client over loopback: answers matched by
//! path, query and header values, a 501 that names the closest rule, recorded requests,
//! `expect` checked on drop, and a test per fault kind.
#![cfg(feature = "stub")]

use std::time::{Duration, Instant};

use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::serde_json::{Value, json};
use remcall::stub::Stub;
use remcall::{ErrorKind, Profile};

static GET_USER: MethodSpec = MethodSpec {
    index: 0,
    name: "get_user",
    http_method: "GET",
    path: "/users/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static ADD_PET: MethodSpec = MethodSpec {
    index: 1,
    name: "add_pet",
    http_method: "POST",
    path: "/pets",
    idempotent: false,
    reads: false,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Stubbed",
    base_urls: &[],
    base_path: "/v1",
    profile: "",
    methods: &[&GET_USER, &ADD_PET],
};

fn client(stub: &Stub, yaml: &str) -> Client {
    ClientBuilder::new(&SPEC)
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

async fn get_user(client: &Client, id: i64) -> Result<Value, remcall::Error> {
    client
        .call(
            GET_USER
                .request()
                .path("id", id)
                .query("verbose", Some(true))
                .header("X-Request-Id", "r-1"),
            decode::json,
        )
        .await
}

const NO_RETRY: &str = "retry: { max_attempts: 1 }";
const RETRY: &str = "retry: { max_attempts: 3, backoff: { initial: 1ms, max: 1ms } }";

#[tokio::test]
async fn answers_match_by_value_and_an_unmatched_request_names_the_closest_rule() {
    let stub = Stub::start(&SPEC).await.unwrap();
    stub.on(&GET_USER)
        .with_path("id", 1)
        .with_query("verbose", true)
        .with_header("x-request-id", "r-1")
        .returns_json(&json!({ "id": 1, "name": "Ada" }));
    let users = client(&stub, NO_RETRY);
    assert_eq!(get_user(&users, 1).await.unwrap()["name"], "Ada");

    let error = get_user(&users, 2).await.unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(501));
    let body = String::from_utf8_lossy(error.body().unwrap()).into_owned();
    assert_eq!(
        body,
        "no stub of `get_user` matches: the closest wants path `id` = \"1\", got \"2\""
    );

    let calls = stub.calls(&GET_USER);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].path_params["id"], "2");
    assert_eq!(calls[1].query("verbose"), Some("true"));
    assert_eq!(calls[1].header("X-Request-Id"), Some("r-1"));
    assert!(stub.calls(&ADD_PET).is_empty());
}

#[tokio::test]
async fn fail_times_makes_the_client_retry_and_then_answers() {
    let stub = Stub::start(&SPEC).await.unwrap();
    stub.faults(&GET_USER).fail(503).times(2).expect(2);
    stub.on(&GET_USER)
        .returns_json(&json!({ "id": 1 }))
        .expect(1);
    let users = client(&stub, RETRY);
    assert_eq!(get_user(&users, 1).await.unwrap()["id"], 1);
    assert_eq!(stub.calls(&GET_USER).len(), 3, "two failures, one answer");
    assert_eq!(users.stats().method("get_user").unwrap().retries, 2);
}

/// A test states a status once, in the type `Error::status()` gives, for the stub and for the
/// comparison; a number works as well.
#[tokio::test]
async fn a_status_is_stated_and_compared_in_one_type() {
    use remcall::reqwest::StatusCode;
    let stub = Stub::start(&SPEC).await.unwrap();
    let down = StatusCode::SERVICE_UNAVAILABLE;
    stub.faults(&GET_USER).fail(down).times(1).expect(1);
    stub.on(&GET_USER)
        .returns_json_status(StatusCode::NOT_FOUND, &json!({ "missing": 1 }))
        .expect(1);
    let users = client(&stub, "retry: { max_attempts: 1 }");
    assert_eq!(get_user(&users, 1).await.unwrap_err().status(), Some(down));
    let missing = get_user(&users, 1).await.unwrap_err();
    assert_eq!(missing.status(), Some(StatusCode::NOT_FOUND));
    assert_eq!(missing.status().unwrap(), 404);
}

#[tokio::test]
async fn a_failure_rate_is_the_same_for_the_same_seed() {
    let run = |seed| async move {
        let stub = Stub::start(&SPEC).await.unwrap();
        stub.seed(seed);
        stub.all().fail_rate(0.3, 500);
        stub.on(&GET_USER).returns_json(&json!({}));
        let users = client(&stub, NO_RETRY);
        let mut outcomes = Vec::new();
        for _ in 0..40 {
            outcomes.push(get_user(&users, 1).await.is_ok());
        }
        outcomes
    };
    let first = run(7).await;
    assert_eq!(
        first,
        run(7).await,
        "seeded: the same failures in the same places"
    );
    let failed = first.iter().filter(|ok| !**ok).count();
    assert!((4..=20).contains(&failed), "{failed} of 40 at 30 %");
    assert_ne!(first, run(8).await, "another seed, another run");
}

#[tokio::test]
async fn latency_delays_the_answer() {
    let stub = Stub::start(&SPEC).await.unwrap();
    stub.faults(&GET_USER)
        .latency(Duration::from_millis(30), Duration::from_millis(30));
    stub.on(&GET_USER).returns_json(&json!({}));
    let users = client(&stub, NO_RETRY);
    let started = Instant::now();
    get_user(&users, 1).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(15),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_reset_connection_is_a_connect_failure_the_client_retries() {
    let stub = Stub::start(&SPEC).await.unwrap();
    stub.faults(&GET_USER).reset_connection().times(1);
    stub.on(&GET_USER).returns_json(&json!({ "id": 1 }));
    let once = client(&stub, NO_RETRY);
    let error = get_user(&once, 1).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Connect, "{error}");
    // The fault is spent: the next call is answered.
    assert_eq!(get_user(&once, 1).await.unwrap()["id"], 1);

    stub.faults(&GET_USER).reset_connection().times(1);
    let retrying = client(&stub, RETRY);
    assert_eq!(get_user(&retrying, 1).await.unwrap()["id"], 1);
}

#[tokio::test]
async fn a_slow_body_runs_into_the_attempt_timeout() {
    let stub = Stub::start(&SPEC).await.unwrap();
    stub.faults(&GET_USER)
        .slow_body(1, Duration::from_millis(40));
    stub.on(&GET_USER)
        .returns_json(&json!({ "name": "a name long enough to be slow" }));
    let users = client(
        &stub,
        "retry: { max_attempts: 1 }\ntimeout: { attempt: 150ms }",
    );
    let error = get_user(&users, 1).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Timeout, "{error}");
}

#[tokio::test]
async fn retry_after_is_sent_with_its_status() {
    let stub = Stub::start(&SPEC).await.unwrap();
    stub.faults(&GET_USER)
        .retry_after(429, Duration::from_millis(1500))
        .times(1);
    stub.on(&GET_USER).returns_json(&json!({}));
    let url = format!("{}/v1/users/1", stub.url());
    let answer = remcall::reqwest::get(&url).await.unwrap();
    assert_eq!(answer.status().as_u16(), 429);
    assert_eq!(
        answer.headers()["retry-after"],
        "2",
        "whole seconds, rounded up"
    );
    assert_eq!(
        remcall::reqwest::get(&url).await.unwrap().status().as_u16(),
        200
    );
}

#[tokio::test]
async fn a_stall_is_ended_by_the_clients_timeout_and_a_retry_gets_through() {
    let stub = Stub::start(&SPEC).await.unwrap();
    stub.faults(&GET_USER).stall().times(1);
    stub.on(&GET_USER).returns_json(&json!({ "id": 1 }));
    let users = client(
        &stub,
        "retry: { max_attempts: 2, backoff: { initial: 1ms, max: 1ms } }\ntimeout: { attempt: 100ms }",
    );
    assert_eq!(get_user(&users, 1).await.unwrap()["id"], 1);
    assert_eq!(stub.calls(&GET_USER).len(), 2);
}

#[tokio::test]
async fn an_unmet_expectation_fails_the_test_when_the_stub_is_dropped() {
    let stub = Stub::start(&SPEC).await.unwrap();
    stub.on(&GET_USER).returns_json(&json!({})).expect(2);
    let users = client(&stub, NO_RETRY);
    get_user(&users, 1).await.unwrap();
    let message = testkit::panic_message(|| drop(stub)).expect("the drop fails the test");
    assert!(
        message.contains("`get_user` expected 2 call(s), got 1"),
        "{message}"
    );
}

#[tokio::test]
async fn a_request_of_no_operation_gets_501() {
    let stub = Stub::start(&SPEC).await.unwrap();
    let answer = remcall::reqwest::get(format!("{}/v1/nothing", stub.url()))
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 501);
    assert_eq!(
        answer.text().await.unwrap(),
        "no operation of Stubbed is `GET /v1/nothing`"
    );
}

/// A breaker recipe against the faults it is for: five failures open it, and the calls it
/// short-circuits never reach the stub.
#[tokio::test]
async fn five_failures_open_the_breaker_and_what_it_refuses_never_arrives() {
    let stub = Stub::start(&SPEC).await.unwrap();
    stub.faults(&GET_USER).fail(503).times(5).expect(5);
    stub.on(&GET_USER).returns_json(&json!({})).expect(0);
    let users = client(
        &stub,
        "retry: { max_attempts: 1 }\nbreaker: { window: { calls: 10 }, min_calls: 5, failure_rate: 50, open_for: 1m }",
    );
    for _ in 0..5 {
        assert_eq!(
            get_user(&users, 1).await.unwrap_err().kind(),
            ErrorKind::Status
        );
    }
    for _ in 0..3 {
        assert_eq!(
            get_user(&users, 1).await.unwrap_err().kind(),
            ErrorKind::BreakerOpen
        );
    }
    assert_eq!(stub.calls(&GET_USER).len(), 5);
}

static LIST_THINGS: MethodSpec = MethodSpec {
    index: 0,
    name: "list_things",
    http_method: "GET",
    path: "/things",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

/// The user's own method beside the imported one, on the same verb and route.
static LIST_MY_THINGS: MethodSpec = MethodSpec {
    index: 1,
    name: "list_my_things",
    http_method: "GET",
    path: "/things",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SHARED_ROUTE: ClientSpec = ClientSpec {
    name: "SharedRoute",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&LIST_THINGS, &LIST_MY_THINGS],
};

async fn list(client: &Client, method: &'static MethodSpec) -> Value {
    client.call(method.request(), decode::json).await.unwrap()
}

#[tokio::test]
async fn two_methods_of_one_route_are_each_answered_and_recorded_as_themselves() {
    let stub = Stub::start(&SHARED_ROUTE).await.unwrap();
    stub.on(&LIST_THINGS).returns_json(&json!(["imported"]));
    stub.on(&LIST_MY_THINGS).returns_json(&json!(["mine"]));
    let things = ClientBuilder::new(&SHARED_ROUTE)
        .base_url(&stub.url())
        .build()
        .unwrap();

    assert_eq!(list(&things, &LIST_MY_THINGS).await, json!(["mine"]));
    assert_eq!(list(&things, &LIST_THINGS).await, json!(["imported"]));
    assert_eq!(list(&things, &LIST_MY_THINGS).await, json!(["mine"]));

    assert_eq!(stub.calls(&LIST_MY_THINGS).len(), 2);
    assert_eq!(stub.calls(&LIST_THINGS).len(), 1);
    let recorded = stub.calls(&LIST_MY_THINGS);
    assert!(
        recorded[0]
            .headers
            .iter()
            .all(|(name, _)| name != remcall::stub::METHOD_HEADER),
        "the stub's own header is not recorded as sent by the method: {:?}",
        recorded[0].headers
    );
}

#[tokio::test]
async fn a_server_that_is_no_stub_never_hears_which_method_called() {
    // A stub runs in the process, so clients look; the server beside it is not one.
    let _stub = Stub::start(&SHARED_ROUTE).await.unwrap();
    let server = testkit::Server::start(
        axum::Router::new().route("/things", axum::routing::get(|| async { "[]" })),
    )
    .await;
    let things = ClientBuilder::new(&SHARED_ROUTE)
        .base_url(&server.url())
        .build()
        .unwrap();
    list(&things, &LIST_MY_THINGS).await;
    let received = server.received();
    assert_eq!(received.len(), 1);
    assert!(
        !received[0]
            .headers
            .contains_key(remcall::stub::METHOD_HEADER),
        "{:?}",
        received[0].headers
    );
}

/// A stub whose runtime ended (its accept task and listener gone) while the `Stub` value lives
/// on is a stub no more: a real server later bound to its port never hears which method calls
/// (`remcall-stub-method`), which only a stub's address gets.
#[test]
fn a_real_server_on_a_gone_stubs_port_never_hears_the_stub_header() {
    let stubs = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stub = stubs.block_on(Stub::start(&SPEC)).unwrap();
    let addr: std::net::SocketAddr = stub.url().trim_start_matches("http://").parse().unwrap();
    // The stub's task ends with its runtime; the `Stub` is still held.
    drop(stubs);
    let calls = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    calls.block_on(async {
        let router = axum::Router::new().route(
            "/v1/users/{id}",
            axum::routing::get(|| async { axum::Json(json!({ "id": 1 })) }),
        );
        let server = testkit::Server::start_on(router, addr).await;
        let real = ClientBuilder::new(&SPEC)
            .base_url(&server.url())
            .build()
            .unwrap();
        get_user(&real, 1).await.unwrap();
        let received = server.received();
        assert_eq!(received.len(), 1);
        assert!(
            !received[0]
                .headers
                .contains_key(remcall::stub::METHOD_HEADER),
            "a real server heard {:?}",
            received[0].headers
        );
    });
    drop(stub);
}

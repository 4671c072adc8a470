//! The edge-case clients make real calls: the generated code is not only valid, it works.

use axum::Router;
use axum::routing::{any, get};
use remcall::serde_json::{self, json};
use remcall_edge_cases::clients::deep_client::DeepClient;
use remcall_edge_cases::clients::model_only::{Money, Ping};
use remcall_edge_cases::clients::reserved::{Keyword, Reserved, ReservedFallback};
use remcall_edge_cases::clients::style_client::StyleClient;
use remcall_edge_cases::clients::tree_client::{self, Node, TreeClient};
use remcall_edge_cases::clients::unicode::Unicode;
use remcall_edge_cases::clients::wide_client::{Filter, Kind, WideClient};
use testkit::Server;

#[tokio::test]
async fn twenty_parameters_land_where_they_belong_seven_of_them_named() {
    let server = Server::start(Router::new().route(
        "/orgs/{org}/teams/{team}/items/{item}",
        any(|| async { axum::Json(json!(["ok"])) }),
    ))
    .await;
    let client = WideClient::new(&server.url()).unwrap();
    let filter = Filter {
        field: "f".to_owned(),
        value: "v".to_owned(),
    };
    let answer = client
        .search(
            "acme corp",
            7,
            Kind::B,
            "one",
            &["x".to_owned(), "y".to_owned()],
            4,
            true,
            &[Kind::A, Kind::B],
            1.5,
            "h-one",
            3,
            Kind::A,
            &["p".to_owned(), "q".to_owned()],
            &filter,
        )
        // Seven optional parameters: named, each one that is set (q2, q7 and h4 are not).
        .q5(5)
        .q9(Kind::A)
        .h2("h-two")
        .await
        .unwrap();
    assert_eq!(answer, ["ok"]);
    let request = &server.received()[0];
    assert_eq!(
        request.uri,
        "/orgs/acme%20corp/teams/7/items/b?q1=one&q3=x&q3=y&q4=4&q5=5&q6=true&q8=a&q8=b&q9=a&q10=1.5"
    );
    assert_eq!(request.headers["x-h1"], "h-one");
    assert_eq!(request.headers["x-h2"], "h-two");
    assert_eq!(request.headers["x-h3"], "3");
    assert!(request.headers.get("x-h4").is_none());
    assert_eq!(request.headers["x-h5"], "a");
    assert_eq!(
        request.headers.get_all("x-h6").iter().collect::<Vec<_>>(),
        ["p", "q"]
    );
    assert_eq!(request.body.as_ref(), br#"{"field":"f","value":"v"}"#);
}

#[tokio::test]
async fn keywords_work_as_method_field_parameter_and_variant_names() {
    let server = Server::start(
        Router::new()
            .route(
                "/types/{id}",
                get(|| async {
                    axum::Json(json!({ "type": "t", "match": 1, "self": true, "crate": "c" }))
                }),
            )
            .route("/match", any(|| async { axum::Json(json!("loop")) })),
    )
    .await;
    let client = Reserved::new(&server.url()).unwrap();
    let found = client
        .r#type("me", Some("m"), &[Keyword::Type, Keyword::Crate])
        .await
        .unwrap();
    assert_eq!(
        (found.r#type.as_str(), found.r#match, found.self_),
        ("t", 1, true)
    );
    assert_eq!(client.r#match(&found).await.unwrap(), Keyword::Loop);
    let received = server.received();
    assert_eq!(received[0].uri, "/types/me?match=m&crate=type&crate=crate");
    let sent: serde_json::Value = serde_json::from_slice(&received[1].body).unwrap();
    assert_eq!(
        sent,
        json!({ "type": "t", "match": 1, "self": true, "crate": "c" })
    );
}

/// Answers `take` with what it was given, to show each argument reached it under its own name.
struct Echo;

impl ReservedFallback for Echo {
    async fn take(
        &self,
        request: &str,
        fallback: Option<i32>,
        cause: Option<&str>,
        failure: remcall::Error,
    ) -> Result<Keyword, remcall::Error> {
        assert_eq!((request, fallback, cause), ("r", Some(2), Some("c")));
        assert_eq!(failure.status().map(|s| s.as_u16()), Some(503));
        Ok(Keyword::Loop)
    }
}

#[tokio::test]
async fn parameters_named_like_the_generated_locals_keep_their_values() {
    let server = Server::start(Router::new().route(
        "/take/{request}",
        any(|| async { axum::http::StatusCode::SERVICE_UNAVAILABLE }),
    ))
    .await;
    let client = Reserved::builder()
        .base_url(&server.url())
        .profile(remcall::Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
        .fallback(Echo)
        .build()
        .unwrap();
    let answer = client.take("r", Some(2), Some("c")).await.unwrap();
    assert_eq!(answer, Keyword::Loop);
    assert_eq!(server.received()[0].uri, "/take/r?fallback=2&cause=c");
    assert_eq!(client.stats().method("take").unwrap().fallbacks, 1);
}

#[tokio::test]
async fn recursive_types_round_trip() {
    let tree = json!({ "value": 1, "next": { "value": 2, "children": [], "by_name": {} }, "children": [{ "value": 3, "children": [], "by_name": {} }], "by_name": {} });
    let boss =
        json!({ "person": { "name": "Ada", "manager": null }, "reports": [{ "name": "Grace" }] });
    let (t, b) = (tree.clone(), boss.clone());
    let server = Server::start(
        Router::new()
            .route("/tree", get(move || async move { axum::Json(t) }))
            .route("/boss", get(move || async move { axum::Json(b) })),
    )
    .await;
    let client = TreeClient::new(&server.url()).unwrap();
    let node: Node = client.tree().await.unwrap();
    assert_eq!(node.next.as_ref().map(|n| n.value), Some(2));
    assert_eq!(node.children[0].value, 3);
    let manager = client.boss().await.unwrap();
    assert_eq!(manager.person.name, "Ada");
    assert_eq!(manager.reports[0].manager, None);
}

/// `depth` filters, each `{"of": [inner], key: leaf}`, around `innermost`.
fn nested_filter(depth: usize, key: &str, leaf: &str, innermost: &str) -> String {
    let mut text = innermost.to_owned();
    for _ in 0..depth {
        text = format!(r#"{{"of": [{text}], "{key}": {leaf}}}"#);
    }
    text
}

/// A recursive union decodes in one pass when a required key tells its alternatives apart; an
/// answer that would make alternatives retry each other exponentially stops within a bounded
/// amount of work, with a short error; a failure deep inside gives a short error too. (Before,
/// the 30-deep answer took 2^30 reads and the error text grew with each level.)
#[tokio::test]
async fn hostile_nested_unions_decode_in_bounded_work_and_bounded_errors() {
    let answers = [
        nested_filter(60, "any", "true", r#"{"of": [], "all": false}"#),
        nested_filter(30, "value", r#""x""#, r#"{"of": [], "value": "x"}"#),
        nested_filter(60, "all", "true", r#"{"of": [], "all": "yes"}"#),
    ];
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let served = calls.clone();
    let server = Server::start(Router::new().route(
        "/filter",
        get(move || {
            let i = served.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let body = answers[i].clone();
            async move { ([("content-type", "application/json")], body) }
        }),
    ))
    .await;
    let client = TreeClient::new(&server.url()).unwrap();

    let mut filter = client.filter().await.unwrap();
    for _ in 0..60 {
        let tree_client::Filter::AnyOf(any) = filter else {
            panic!("{filter:?}")
        };
        filter = any.of.into_iter().next().unwrap();
    }
    assert!(
        matches!(filter, tree_client::Filter::AllOf(_)),
        "{filter:?}"
    );

    let error = client.filter().await.unwrap_err();
    assert_eq!(error.kind(), remcall::ErrorKind::Decode, "{error}");
    let text = error.to_string();
    assert!(text.contains("decoding stopped"), "{text}");
    assert!(
        text.starts_with("TreeClient.filter: "),
        "names the method: {text}"
    );
    assert!(text.len() < 2_000, "{} bytes: {text}", text.len());

    let text = client.filter().await.unwrap_err().to_string();
    assert!(
        text.contains("no alternative of `Filter` matches"),
        "{text}"
    );
    assert!(text.len() < 2_000, "{} bytes: {text}", text.len());
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 3);
}

#[tokio::test]
async fn deep_paths_unicode_and_crlf_specs_call_fine() {
    let server = Server::start(
        Router::new()
            .route("/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/aa/bb/cc/dd/ee/ff/gg/hh/ii/jj/kk/ll/mm/nn/oo/pp/qq/rr/ss/tt/uu/vv/ww/xx/{id}/yy/zz", get(|| async { axum::Json(json!({ "cents": 5, "currency": "EUR" })) }))
            .route("/messungen/{nr}", get(|| async { axum::Json(json!({ "größe": 2.5, "einheit": "µm" })) })),
    )
    .await;
    let deep = DeepClient::new(&server.url()).unwrap();
    assert_eq!(deep.deep(9).await.unwrap().currency, "EUR");
    let unicode = Unicode::new(&server.url()).unwrap();
    let messung = unicode.messen(1).await.unwrap();
    assert_eq!((messung.größe, messung.einheit.as_str()), (2.5, "µm"));
}

#[tokio::test]
async fn each_method_takes_its_optional_parameters_as_its_call_style_says() {
    let server = Server::start(Router::new().fallback(any(|| async { "" }))).await;
    let client = StyleClient::new(&server.url()).unwrap();
    client.one_optional("required").a("named").await.unwrap();
    client
        .four_positional(Some(1), None, Some(3), None)
        .await
        .unwrap();
    client.none_optional(5).await.unwrap();
    client
        .send()
        .send_("s")
        .stream_("t")
        .options(["o", "p"].map(String::from))
        .send()
        .await
        .unwrap();
    let uris: Vec<String> = server.received().iter().map(|r| r.uri.clone()).collect();
    assert_eq!(
        uris,
        [
            "/one?a=named&b=required",
            "/four?a=1&c=3",
            "/none/5",
            "/send?send=s&stream=t&options=o&options=p",
        ]
    );
}

/// A struct without fields is `{}` and ignores whatever keys come; one with fields says which is
/// missing, which came twice, and which has the wrong type, as serde's derive would.
#[test]
fn structs_read_and_write_their_wire_form() {
    assert_eq!(serde_json::to_string(&Ping {}).unwrap(), "{}");
    assert_eq!(
        serde_json::from_str::<Ping>(r#"{"anything": [1, {"deep": true}]}"#).unwrap(),
        Ping {}
    );
    let money: Money = serde_json::from_str(r#"{"currency":"EUR","cents":150}"#).unwrap();
    assert_eq!((money.cents, money.currency.as_str()), (150, "EUR"));
    assert_eq!(
        serde_json::to_string(&money).unwrap(),
        r#"{"cents":150,"currency":"EUR"}"#
    );
    let errors = [
        (r#"{"cents":1}"#, "missing field `currency`"),
        (
            r#"{"cents":1,"cents":2,"currency":"EUR"}"#,
            "duplicate field `cents`",
        ),
        (
            r#"{"cents":"1","currency":"EUR"}"#,
            "invalid type: string \"1\", expected i64",
        ),
        ("[1]", "expected struct Money"),
    ];
    for (body, expected) in errors {
        let error = serde_json::from_str::<Money>(body).unwrap_err().to_string();
        assert!(error.contains(expected), "{body}: {error}");
    }
}

/// Events named by keywords, told apart by a field, signed by a generic HMAC whose sender
/// names each delivery in a header of its own: each reaches its method once.
#[tokio::test]
async fn keyword_events_signed_by_a_generic_hmac_reach_their_methods_once() {
    use remcall_edge_cases::clients::reserved::Event;
    use remcall_edge_cases::clients::reserved::webhooks::{self, Receiver, WebhookEvent};
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Seen(Arc<Mutex<Vec<String>>>);
    impl Receiver for Seen {
        async fn r#type(&self, event: Event) -> Result<(), remcall::webhooks::Failure> {
            self.0.lock().unwrap().push(format!("type {}", event.kind));
            Ok(())
        }
        async fn self_(&self, event: Event) -> Result<(), remcall::webhooks::Failure> {
            self.0.lock().unwrap().push(format!("self {}", event.kind));
            Ok(())
        }
        async fn r#loop(&self) -> Result<(), remcall::webhooks::Failure> {
            self.0.lock().unwrap().push("loop".to_owned());
            Ok(())
        }
    }
    let secrets = [remcall::profile::Secret::value("edge-secret").unwrap()];
    let seen = Seen::default();
    let inbox = webhooks::inbox(&secrets).unwrap();
    let server = Server::start(webhooks::router(seen.clone(), inbox.clone())).await;
    let sender =
        remcall::webhooks::Sender::new(server.url(), Some(webhooks::verifier(&secrets).unwrap()));
    let typed = WebhookEvent::Type(Event {
        kind: "type".into(),
    })
    .send(&sender)
    .await
    .unwrap();
    assert_eq!(typed.status, 200);
    assert_eq!(sender.resend(&typed).await.unwrap(), 200);
    let own = WebhookEvent::Self_(Event {
        kind: "self".into(),
    })
    .send(&sender)
    .await
    .unwrap();
    assert_eq!(own.status, 200);
    assert_eq!(WebhookEvent::Loop.send(&sender).await.unwrap().status, 200);
    assert_eq!(*seen.0.lock().unwrap(), ["type type", "self self", "loop"]);
    assert_eq!(
        inbox.stats().replayed,
        1,
        "the X-Delivery header named the redelivery"
    );
}

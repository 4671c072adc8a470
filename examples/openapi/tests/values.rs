//! Values survive, end to end: a client imported from `api/values.yaml` (build.rs, no hand
//! edits) sends and reads every value its description allows, over loopback. Each shape here
//! once lost values in silence: a chat message whose `allOf` has a `oneOf` part went out as
//! `{"role":"user"}`, keys beside the declared ones vanished, a union took its first branch
//! that decoded, enums of one value each read as the first one's `Other`, an envelope's
//! `result: {}` beside a response's `result: Zone` made the field a `serde_json::Value` (or
//! dropped the response's), and an answer without a schema could not be read at all.

use axum::Router;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::http::StatusCode;
use axum::routing::{any, get, post, put};
use remcall::serde_json::{self, Value, json};
use remcall_example_openapi::values::*;
use testkit::Server;

/// Answers `/chat` with the transcription its `verbose` key asks for, `/things` with what it
/// was sent (PUT) or a free-form object (GET).
async fn server() -> Server {
    let searches = Arc::new(AtomicUsize::new(0));
    let router = Router::new()
        .route(
            "/chat",
            post(|axum::Json(request): axum::Json<Value>| async move {
                let verbose = request.pointer("/trace/verbose") == Some(&json!(true));
                axum::Json(if verbose {
                    json!({ "text": "hi", "language": "en", "duration": 1.5 })
                } else {
                    json!({ "text": "hi" })
                })
            }),
        )
        .route(
            "/search",
            any(move |request: axum::extract::Request| {
                let searches = searches.clone();
                async move {
                    // The first search meets an overloaded server: QUERY is safe to retry.
                    if request.method().as_str() != "QUERY"
                        || searches.fetch_add(1, Ordering::SeqCst) == 0
                    {
                        return (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!([])));
                    }
                    (StatusCode::OK, axum::Json(json!(["found"])))
                }
            }),
        )
        .route("/notes", put(|| async { StatusCode::NO_CONTENT }))
        .route(
            "/zones/{id}",
            get(
                |axum::extract::Path(id): axum::extract::Path<String>| async move {
                    axum::Json(json!({
                        "success": true,
                        "result": { "id": id, "name": "example.com", "version": 1 },
                    }))
                },
            ),
        )
        .route(
            "/things",
            put(|axum::Json(thing): axum::Json<Value>| async move { axum::Json(thing) }).merge(
                get(|| async {
                    axum::Json(json!({ "any": ["shape", 1, null], "at": { "all": true } }))
                }),
            ),
        );
    Server::start(router).await
}

/// Decodes `value` as `T` and encodes it back.
fn round_trip<T: remcall::serde::de::DeserializeOwned + remcall::serde::Serialize>(
    value: &Value,
) -> Value {
    let decoded: T = serde_json::from_value(value.clone()).expect("decodes");
    serde_json::to_value(&decoded).expect("encodes")
}

#[tokio::test]
async fn a_chat_message_goes_on_the_wire_with_its_content() {
    let server = server().await;
    let client = Values::new(&server.url()).unwrap();
    let message = Message::new(
        "user",
        MessageBodyContent {
            content: "What is the weather?".into(),
        },
    );
    let calls = Message::new(
        "assistant",
        MessageBodyToolCalls {
            tool_calls: vec!["weather".into()],
        },
    );
    client
        .chat(&ChatRequest::new(vec![message, calls]))
        .await
        .unwrap();
    let sent: Value = serde_json::from_slice(&server.received()[0].body).unwrap();
    assert_eq!(
        sent,
        json!({ "messages": [
            { "role": "user", "content": "What is the weather?" },
            { "role": "assistant", "tool_calls": ["weather"] },
        ] })
    );
    // Read back, each message is the alternative it was written as.
    let read: ChatRequest = serde_json::from_value(sent).unwrap();
    assert!(matches!(
        &read.messages[1].message_body,
        MessageBody::ToolCalls(calls) if calls.tool_calls == ["weather"]
    ));
}

#[tokio::test]
async fn a_union_reads_as_the_alternative_that_keeps_the_whole_answer() {
    let server = server().await;
    let client = Values::new(&server.url()).unwrap();
    let plain = client.chat(&ChatRequest::new(Vec::new())).await.unwrap();
    assert_eq!(
        plain,
        Transcription::JsonResponse(JsonResponse { text: "hi".into() })
    );
    let mut trace = Trace::default();
    trace
        .additional_properties
        .insert("verbose".into(), json!(true));
    let verbose = client
        .chat(&ChatRequest {
            trace: Some(trace),
            ..ChatRequest::new(Vec::new())
        })
        .await
        .unwrap();
    // `JsonResponse` is listed first and reads this answer too; it would drop all but `text`.
    assert_eq!(
        verbose,
        Transcription::VerboseJsonResponse(VerboseJsonResponse {
            text: "hi".into(),
            language: "en".into(),
            duration: Some(1.5),
        })
    );
}

#[tokio::test]
async fn keys_beside_the_declared_ones_and_free_form_answers_come_back() {
    let server = server().await;
    let client = Values::new(&server.url()).unwrap();
    let sent: Trace =
        serde_json::from_value(json!({ "id": "t1", "user": "ann", "tags": [1, 2] })).unwrap();
    let echoed = client.put_thing(&sent).await.unwrap();
    assert_eq!(
        echoed,
        json!({ "id": "t1", "user": "ann", "tags": [1, 2] }),
        "an object with no properties keeps every key"
    );
    assert_eq!(
        client.get_thing().await.unwrap(),
        json!({ "any": ["shape", 1, null], "at": { "all": true } }),
        "an answer declared as JSON without a schema is readable"
    );
}

#[test]
fn every_value_the_description_allows_reads_back_as_it_was() {
    let requests = [
        json!({ "messages": [{ "role": "user", "name": "ann", "content": "hi" }] }),
        json!({ "messages": [], "tool_choice": "auto" }),
        json!({ "messages": [], "tool_choice": "none" }),
        json!({ "messages": [], "tool_choice": "required" }),
        json!({ "messages": [], "tool_choice": { "function": "weather" } }),
        json!({ "messages": [], "part": { "type": "text", "text": "hi" } }),
        json!({ "messages": [], "part": { "type": "image", "url": "http://x/y.png" } }),
        json!({ "messages": [], "trace": { "id": "t", "extra": { "deep": [1] } } }),
        // The inner union's alternative keeps `resourceId`; its sibling declares `kind` alone.
        json!({ "messages": [], "source": { "kind": "integration", "resourceId": "r1" } }),
        json!({ "messages": [], "source": { "kind": "self-served" } }),
        // Both arrays read these items; only the second keeps `branch`.
        json!({ "messages": [], "routes": [{ "host": "a", "branch": "main" }] }),
        json!({ "messages": [], "routes": [{ "host": "a" }] }),
        // A free-form object that may be null: the null a PATCH sends to clear it survives.
        json!({ "messages": [], "metadata": null }),
        json!({ "messages": [], "metadata": { "any": [1] } }),
        // Adjacently tagged: the kind beside the value, whatever the value's type.
        json!({ "messages": [], "adjustment": { "kind": "credit", "value": 5 } }),
        json!({ "messages": [], "adjustment": { "kind": "note", "value": "waived" } }),
        json!({ "messages": [], "adjustment": { "kind": "memo", "value": "waived" } }),
        json!({ "messages": [], "adjustment": { "kind": "refund", "value": { "card": "c1" } } }),
    ];
    for request in &requests {
        assert_eq!(&round_trip::<ChatRequest>(request), request);
    }
    // `_name` from a part and `name` of its own are two keys, two fields.
    let percolate = json!({ "_name": "q1", "name": "slot", "boost": 2.0 });
    assert_eq!(round_trip::<Percolate>(&percolate), percolate);
    // An adjacently tagged union's alternatives are the values' types, two texts told apart by
    // their kinds.
    let memo: Adjustment =
        serde_json::from_value(json!({ "kind": "memo", "value": "waived" })).unwrap();
    assert_eq!(memo, Adjustment::Memo("waived".into()));
    let refund: Adjustment =
        serde_json::from_value(json!({ "kind": "refund", "value": { "card": "c1" } })).unwrap();
    assert_eq!(
        refund,
        Adjustment::Refund(AdjustmentRefund { card: "c1".into() })
    );
    // Each tool choice is the value it was written as, not the first enum's `Other`.
    let none: ToolChoice = serde_json::from_value(json!("none")).unwrap();
    assert_eq!(none, ToolChoice::Value(ToolChoiceValue::None));
    // A tagged part is the alternative its tag names; the union writes the tag, so a part
    // built cannot say another.
    let image: Part = serde_json::from_value(json!({ "type": "image", "url": "u" })).unwrap();
    assert_eq!(image, Part::Image(PartImage { url: "u".into() }));
    assert_eq!(
        serde_json::to_value(Part::from(PartText { text: "hi".into() })).unwrap(),
        json!({ "type": "text", "text": "hi" })
    );
    // A message whose body fits neither alternative is an error that names them.
    let error = serde_json::from_value::<Message>(json!({ "role": "user" })).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("no alternative of `MessageBody`"),
        "{error}"
    );
}

#[tokio::test]
async fn an_envelope_part_and_the_answer_s_own_field_are_the_narrower_type() {
    let server = server().await;
    let client = Values::new(&server.url()).unwrap();
    // `ZoneId` is a uuid or a name: both text, so a `&str`, not a union of one.
    let zone = client.get_zone("z1").await.unwrap();
    assert!(zone.success);
    let result: Zone = zone.result.expect("the zone");
    assert_eq!((result.id.as_str(), result.version), ("z1", 1.0));
    assert_eq!(result.name.as_deref(), Some("example.com"));
}

#[tokio::test]
async fn a_body_whose_schema_allows_null_can_be_sent_as_null() {
    let server = server().await;
    let client = Values::new(&server.url()).unwrap();
    client.put_note(None).await.unwrap();
    client
        .put_note(Some(&Trace {
            id: Some("n1".into()),
            ..Trace::default()
        }))
        .await
        .unwrap();
    let bodies: Vec<Value> = server
        .received()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect();
    assert_eq!(bodies, [json!(null), json!({ "id": "n1" })]);
}

#[tokio::test]
async fn a_query_operation_is_sent_as_query_with_its_body_and_retried() {
    let server = server().await;
    let client = Values::builder()
        .base_url(&server.url())
        .profile(
            remcall::Profile::from_yaml_str("retry: { backoff: { initial: 1ms, max: 2ms } }")
                .unwrap(),
        )
        .build()
        .unwrap();
    let found = client
        .search(&SearchBody {
            text: "weather".into(),
        })
        .await
        .unwrap();
    assert_eq!(found, ["found"]);
    let received = server.received();
    assert_eq!(received.len(), 2, "one retry after the 503");
    for request in &received {
        assert_eq!(request.method, "QUERY");
        assert_eq!(
            serde_json::from_slice::<Value>(&request.body).unwrap(),
            json!({ "text": "weather" })
        );
    }
    assert_eq!(client.stats().method("search").unwrap().retries, 1);
}

/// pydantic's tag: each alternative's `type` is a constant with a default equal to it, not
/// `required`, and always written by the server. The alternatives have the same keys: only
/// the tag tells an abort from a rejection (read as the first that fit before).
#[test]
fn a_union_is_told_apart_by_a_constant_the_server_writes_by_default() {
    let read = |value: Value| -> OrchestrationResult { serde_json::from_value(value).unwrap() };
    let abort = read(
        json!({ "status": "ABORT", "details": { "type": "abort_details", "reason": "gone" } }),
    );
    assert!(
        matches!(
            abort.details,
            Some(OrchestrationResultDetails::AbortDetails(_))
        ),
        "{abort:?}"
    );
    let reject = read(json!({ "status": "REJECT", "details": { "type": "reject_details" } }));
    assert!(
        matches!(
            reject.details,
            Some(OrchestrationResultDetails::RejectDetails(_))
        ),
        "{reject:?}"
    );
    // Written back as it came.
    assert_eq!(
        serde_json::to_value(&abort).unwrap(),
        json!({ "status": "ABORT", "details": { "type": "abort_details", "reason": "gone" } })
    );
    // A value without the tag still reads, by its keys.
    let untagged = read(json!({ "status": "WAIT", "details": { "reason": "later" } }));
    assert!(untagged.details.is_some(), "{untagged:?}");
}

//! A Django REST framework help desk (`api/helpdesk.yaml`, no operationIds) against a loopback
//! server that answers as DRF does: methods named from the routes as a reviewer writes them,
//! PageNumberPagination followed to its end on an exact multiple of the page size, a bulk create
//! answering a page that is never asked again, `Authorization: Token <key>` from the
//! environment, and error bodies read as their media types say (Django's HTML 404 page as text,
//! a file store's failure as bytes), from the server and from the generated stub.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use remcall::Profile;
use remcall::serde_json::{Value, json};
use remcall_example_openapi::helpdesk::stub::HelpdeskStub;
use remcall_example_openapi::helpdesk::{
    GetTicketAttachmentError, GetTicketError, Helpdesk, TicketEvent, TicketRequest,
};
use std::collections::HashMap;
use testkit::Server;

const KEY: &str = "drf-t0ken-7f3a";
/// The spec's profile reads the key from here (`Token ${HELPDESK_API_KEY}`).
const KEY_VARIABLE: &str = "HELPDESK_API_KEY";

fn ticket(id: usize) -> Value {
    json!({ "id": id, "title": format!("ticket {id}"), "status": "open", "assignee": null })
}

/// Six tickets, DRF's way: pages of `page_size` (2 unless asked) with `count`, an absolute
/// `next` and `previous`, 404 "Invalid page." past the last page, 401 without `Token <key>`.
async fn helpdesk(pages: Arc<AtomicUsize>) -> Server {
    let list = move |headers: HeaderMap, Query(q): Query<HashMap<String, String>>| {
        let pages = pages.clone();
        async move {
            if headers.get("authorization").and_then(|v| v.to_str().ok())
                != Some(&format!("Token {KEY}"))
            {
                let refused = json!({ "detail": "Authentication credentials were not provided." });
                return (StatusCode::UNAUTHORIZED, axum::Json(refused)).into_response();
            }
            pages.fetch_add(1, Ordering::SeqCst);
            let page: usize = q.get("page").map_or(1, |p| p.parse().unwrap());
            let size: usize = q.get("page_size").map_or(2, |p| p.parse().unwrap());
            let from = (page.max(1) - 1) * size;
            if page < 1 || (page > 1 && from >= 6) {
                let invalid = json!({ "detail": "Invalid page." });
                return (StatusCode::NOT_FOUND, axum::Json(invalid)).into_response();
            }
            let host = headers["host"].to_str().unwrap().to_owned();
            let at = |n: usize| format!("http://{host}/api/v1/tickets/?page={n}&page_size={size}");
            let results: Vec<Value> = (from..6.min(from + size)).map(|i| ticket(i + 1)).collect();
            let next = (from + size < 6).then(|| at(page + 1));
            let previous = (page > 1).then(|| at(page - 1));
            let body =
                json!({ "count": 6, "next": next, "previous": previous, "results": results });
            axum::Json(body).into_response()
        }
    };
    let one = |Path(id): Path<usize>| async move {
        if id > 6 {
            // Django's debug page, as HTML.
            let page = "<!DOCTYPE html><title>Page not found</title><h1>Not Found</h1>";
            return (StatusCode::NOT_FOUND, [("content-type", "text/html")], page).into_response();
        }
        axum::Json(ticket(id)).into_response()
    };
    let bulk = |axum::Json(made): axum::Json<Vec<Value>>| async move {
        let results: Vec<Value> = (1..=made.len()).map(ticket).collect();
        // A page of what it made, pointing at more: a pager would create them again.
        let body = json!({ "count": 40, "next": "/api/v1/tickets/bulk/?page=2", "previous": null, "results": results });
        (StatusCode::CREATED, axum::Json(body))
    };
    let attachment = || async {
        let dump: &[u8] = &[0xde, 0xad, 0xbe, 0xef, 0x00];
        (
            StatusCode::BAD_GATEWAY,
            [("content-type", "application/octet-stream")],
            dump,
        )
    };
    // Events with nothing but their tag, as a server writes an event that has no details.
    let events = || async {
        axum::Json(
            json!([{ "type": "opened" }, { "type": "closed", "reason": "fixed" }, { "type": "closed" }]),
        )
    };
    let router = Router::new()
        .route("/api/v1/tickets/", get(list))
        .route("/api/v1/tickets/{id}/events/", get(events))
        .route("/api/v1/tickets/{id}/", get(one))
        .route("/api/v1/tickets/bulk/", post(bulk))
        .route("/api/v1/tickets/{id}/attachment/", get(attachment));
    Server::start(router).await
}

/// The client with the key given by a profile (the test that reads it from the environment
/// runs in a process of its own).
fn client(server: &Server) -> Helpdesk {
    let key = format!("headers: {{ Authorization: {{ value: \"Token {KEY}\", secret: true }} }}");
    Helpdesk::builder()
        .base_url(&server.url())
        .profile(Profile::from_yaml_str(&key).unwrap())
        .build()
        .unwrap()
}

#[tokio::test]
async fn drf_pages_are_followed_to_their_end_on_an_exact_multiple_of_the_page_size() {
    let pages = Arc::new(AtomicUsize::new(0));
    let server = helpdesk(pages.clone()).await;
    let desk = client(&server);
    for size in [2, 3, 6] {
        pages.store(0, Ordering::SeqCst);
        let mut stream = desk.list_tickets().page_size(size).stream();
        let mut ids = Vec::new();
        while let Some(ticket) = stream.next().await {
            ids.push(ticket.unwrap().id.unwrap());
        }
        assert_eq!(ids, [1, 2, 3, 4, 5, 6], "pages of {size}");
        assert_eq!(
            pages.load(Ordering::SeqCst),
            6 / size as usize,
            "the last page's `next` is null: no page past it"
        );
    }
    // One page, by its number.
    let second = desk.list_tickets().page(2).page_size(4).await.unwrap();
    assert_eq!((second.count, second.results.len()), (6, 2));
    assert!(second.next.is_none() && second.previous.is_some());
}

#[tokio::test]
async fn a_bulk_create_answering_a_page_is_sent_once() {
    let server = helpdesk(Arc::new(AtomicUsize::new(0))).await;
    let desk = client(&server);
    let made = desk
        .bulk_tickets(&[
            TicketRequest { title: "a".into() },
            TicketRequest { title: "b".into() },
        ])
        .await
        .unwrap();
    assert_eq!(made.results.len(), 2);
    assert!(made.next.is_some(), "the page points at more");
    let posts = server
        .received()
        .iter()
        .filter(|r| r.uri.starts_with("/api/v1/tickets/bulk/"))
        .count();
    assert_eq!(posts, 1, "nothing follows the page's `next` with the POST");
}

#[tokio::test]
async fn error_bodies_read_as_their_media_types_say() {
    let server = helpdesk(Arc::new(AtomicUsize::new(0))).await;
    let desk = client(&server);
    assert_eq!(desk.get_ticket(3).await.unwrap().title, "ticket 3");
    let missing = desk.get_ticket(99).await.unwrap_err();
    assert_eq!(missing.status(), Some(StatusCode::NOT_FOUND));
    match missing.detail::<GetTicketError>() {
        Some(GetTicketError::NotFound(page)) => assert!(page.contains("<h1>Not Found</h1>")),
        other => panic!("Django's page as text, not {other:?}"),
    }
    let failed = desk.get_ticket_attachment(1).await.unwrap_err();
    assert_eq!(
        failed.detail::<GetTicketAttachmentError>(),
        Some(&GetTicketAttachmentError::Other(
            remcall::bytes::Bytes::from_static(&[0xde, 0xad, 0xbe, 0xef, 0x00])
        ))
    );
}

#[tokio::test]
async fn the_stub_answers_each_error_in_its_own_media_type() {
    let stub = HelpdeskStub::start().await.unwrap();
    let page = GetTicketError::NotFound("<h1>Not Found</h1>".to_owned());
    stub.get_ticket().with_id(5).returns_error(&page);
    let dump = GetTicketAttachmentError::Other(remcall::bytes::Bytes::from_static(b"\x00\x01"));
    stub.get_ticket_attachment().with_id(1).returns_error(&dump);
    // A method answering bytes is stubbed with bytes.
    stub.get_ticket_attachment()
        .with_id(2)
        .returns(&b"%PDF-1.7"[..]);
    let key = format!(
        "headers: {{ Authorization: {{ value: \"Token {KEY}\", secret: true }} }}\nretry: {{ max_attempts: 1 }}"
    );
    let desk = Helpdesk::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str(&key).unwrap())
        .build()
        .unwrap();
    let missing = desk.get_ticket(5).await.unwrap_err();
    assert_eq!(missing.detail::<GetTicketError>(), Some(&page));
    let failed = desk.get_ticket_attachment(1).await.unwrap_err();
    assert_eq!(failed.status(), Some(StatusCode::INTERNAL_SERVER_ERROR));
    assert_eq!(failed.detail::<GetTicketAttachmentError>(), Some(&dump));
    assert_eq!(
        &desk.get_ticket_attachment(2).await.unwrap()[..],
        b"%PDF-1.7"
    );
}

/// The spec's own profile, `Authorization: Token ${HELPDESK_API_KEY}`: the key from the
/// environment after its scheme's word, and nowhere in what the client shows. The variable is
/// set for a child process running this test alone (a test may not change its own process's
/// environment while others read it).
#[tokio::test]
async fn the_token_from_the_environment_goes_after_its_scheme_word_and_shows_nowhere() {
    if std::env::var(KEY_VARIABLE).is_err() {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "the_token_from_the_environment_goes_after_its_scheme_word_and_shows_nowhere",
                "--nocapture",
            ])
            .env(KEY_VARIABLE, KEY)
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&child.stdout) + String::from_utf8_lossy(&child.stderr);
        assert!(child.status.success(), "{shown}");
        assert!(
            shown.contains("1 passed"),
            "the child ran the test: {shown}"
        );
        return;
    }
    let server = helpdesk(Arc::new(AtomicUsize::new(0))).await;
    let desk = Helpdesk::builder().base_url(&server.url()).build().unwrap();
    let page = desk.list_tickets().await.unwrap();
    assert_eq!(page.count, 6);
    let sent = &server.received()[0];
    assert_eq!(sent.headers["authorization"], format!("Token {KEY}"));
    assert!(!format!("{desk:?}").contains(KEY));
    // A refusal's error names the client and method, never the key.
    let refused = Helpdesk::builder()
        .base_url(&server.url())
        .profile(
            Profile::from_yaml_str(
                "headers: { Authorization: { value: \"Token wrong\", secret: true } }",
            )
            .unwrap(),
        )
        .build()
        .unwrap()
        .list_tickets()
        .await
        .unwrap_err();
    assert_eq!(refused.status(), Some(StatusCode::UNAUTHORIZED));
    assert!(!format!("{refused} {refused:?}").contains("wrong"));
}

/// A tagged union's alternative whose struct does not declare the tag (the union writes it),
/// answered with nothing but its tag: strict decoding reads it, the tag being the union's key,
/// not an object that "shares no key" with the struct, nor a key no type declares.
#[tokio::test]
async fn an_event_with_nothing_but_its_tag_reads_strictly() {
    let server = helpdesk(Arc::new(AtomicUsize::new(0))).await;
    let desk = client(&server);
    let events = desk.list_ticket_events(1).await.unwrap();
    assert_eq!(events.len(), 3);
    assert!(matches!(&events[0], TicketEvent::OpenedEvent(opened) if opened.by.is_none()));
    assert!(
        matches!(&events[1], TicketEvent::ClosedEvent(closed) if closed.reason.as_deref() == Some("fixed"))
    );
    assert!(matches!(&events[2], TicketEvent::ClosedEvent(closed) if closed.reason.is_none()));
    let stats = desk.stats();
    let method = stats.method("list_ticket_events").unwrap();
    assert_eq!(
        (method.drift, method.undeclared),
        (0, 0),
        "the tag is no undeclared key"
    );
}

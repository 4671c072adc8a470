//! Offset and page-number paging against a loopback server (the offset in the query, or in the
//! JSON body of a `POST …/filter`): each walks three pages and stops
//! where the page says (a total, a page count, a short page, an empty page), and a server that
//! ignores the offset ends the stream with an error instead of a loop.

use std::collections::HashMap;

use axum::Router;
use axum::extract::Query;
use axum::response::IntoResponse;
use axum::routing::get;
use remcall::ErrorKind;
use remcall::serde_json::{Value, json};
use remcall_example_committed::clients::payments::{Event, EventFilter, Payments};
use testkit::Server;

type Params = Query<HashMap<String, String>>;

fn events(range: impl Iterator<Item = usize>) -> Vec<Value> {
    range
        .map(|i| json!({ "id": format!("ev_{i}"), "kind": "event" }))
        .collect()
}

fn number(q: &HashMap<String, String>, key: &str) -> Option<usize> {
    q.get(key).map(|v| v.parse().unwrap())
}

/// Six events. `/events/search`: `limit` (default 2) from `offset`; the total only when a
/// limit is asked for. `/events/archive`: pages of `per_page` (default 2), numbered from 1; the
/// page count only when no page size is asked for. Below `/stuck`: ignores its offset.
async fn event_server() -> Server {
    let search = |Query(q): Params| async move {
        let offset = number(&q, "offset").unwrap_or(0);
        let limit = number(&q, "limit");
        let page = events((offset..6).take(limit.unwrap_or(2)).map(|i| i + 1));
        match limit {
            Some(_) => axum::Json(json!({ "results": page, "total": 6 })),
            None => axum::Json(json!({ "results": page })),
        }
    };
    let archive = |Query(q): Params| async move {
        let page = number(&q, "page").unwrap_or(1);
        let size = number(&q, "per_page");
        let per_page = size.unwrap_or(2);
        let from = (page - 1) * per_page;
        let items = events((from..6).take(per_page).map(|i| i + 1));
        let paging = match size {
            Some(_) => json!({}),
            None => json!({ "total_pages": 3 }),
        };
        axum::Json(json!({ "events": items, "paging": paging }))
    };
    let stuck = || async { axum::Json(json!({ "results": events(1..=2) })) };
    // `/events/counted`: Django REST framework's `PageNumberPagination` over the six: `count`,
    // `next`, `previous`, `results`, and 404 "Invalid page." past the last page.
    let counted = |Query(q): Params| async move {
        let page = number(&q, "page").unwrap_or(1);
        let size = number(&q, "page_size").unwrap_or(2);
        let from = page.saturating_sub(1) * size;
        if page < 1 || (page > 1 && from >= 6) {
            let invalid = json!({ "detail": "Invalid page." });
            return (axum::http::StatusCode::NOT_FOUND, axum::Json(invalid));
        }
        let items = events((from..6).take(size).map(|i| i + 1));
        let page = json!({ "count": 6, "next": null, "previous": null, "results": items });
        (axum::http::StatusCode::OK, axum::Json(page))
    };
    // `/events/filter`: the search's pages, its offset and size read from the JSON body.
    let filter = |axum::Json(body): axum::Json<Value>| async move {
        let offset = body["offset"].as_u64().unwrap_or(0) as usize;
        let limit = body["limit"].as_u64().unwrap_or(2) as usize;
        let page = events((offset..6).take(limit).map(|i| i + 1));
        axum::Json(json!({ "results": page, "total": 6 }))
    };
    Server::start(
        Router::new()
            .route("/v1/events/filter", axum::routing::post(filter))
            .route("/v1/events/search", get(search))
            .route("/v1/events/archive", get(archive))
            .route("/v1/events/counted", get(counted))
            .route("/stuck/v1/events/search", get(stuck)),
    )
    .await
}

/// Every item's id; an error ends the stream, so it fails the test.
async fn ids(mut pages: remcall::Pages<Event>) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(item) = pages.next().await {
        out.push(item.unwrap().id);
    }
    out
}

fn numbered(range: std::ops::RangeInclusive<usize>) -> Vec<String> {
    range.map(|i| format!("ev_{i}")).collect()
}

fn uris(server: &Server, from: usize) -> Vec<String> {
    server.received()[from..]
        .iter()
        .map(|r| r.uri.clone())
        .collect()
}

#[tokio::test]
async fn an_offset_moves_by_the_items_and_stops_at_the_total() {
    let server = event_server().await;
    let payments = Payments::new(&server.url()).unwrap();
    assert_eq!(
        ids(payments.search_events_stream(None, Some(2))).await,
        numbered(1..=6)
    );
    assert_eq!(
        uris(&server, 0),
        [
            "/v1/events/search?limit=2",
            "/v1/events/search?limit=2&offset=2",
            "/v1/events/search?limit=2&offset=4",
        ],
        "three full pages, and the total says there is no fourth"
    );
}

#[tokio::test]
async fn an_offset_in_the_body_of_a_post_filter_moves_by_the_items() {
    let server = event_server().await;
    let payments = Payments::new(&server.url()).unwrap();
    let filter = EventFilter {
        kind: Some("event".to_owned()),
        limit: Some(2),
        ..Default::default()
    };
    assert_eq!(
        ids(payments.filter_events_stream(&filter)).await,
        numbered(1..=6)
    );
    let bodies: Vec<Value> = server.received()[..]
        .iter()
        .map(|r| remcall::serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(
        bodies,
        [
            json!({ "kind": "event", "limit": 2 }),
            json!({ "kind": "event", "limit": 2, "offset": 2 }),
            json!({ "kind": "event", "limit": 2, "offset": 4 }),
        ],
        "each page the same filter, its offset moved on; the total says there is no fourth"
    );
    assert!(
        uris(&server, 0)
            .iter()
            .all(|uri| uri == "/v1/events/filter")
    );
}

#[tokio::test]
async fn an_offset_without_a_total_stops_at_a_short_or_empty_page() {
    let server = event_server().await;
    let payments = Payments::new(&server.url()).unwrap();
    // No limit sent: the server's pages of two, then an empty one.
    assert_eq!(
        ids(payments.search_events_stream(None, None)).await,
        numbered(1..=6)
    );
    assert_eq!(
        uris(&server, 0),
        [
            "/v1/events/search",
            "/v1/events/search?offset=2",
            "/v1/events/search?offset=4",
            "/v1/events/search?offset=6",
        ]
    );
    // A limit of four, starting at one: pages of four and one; the short one is the last.
    let before = server.received().len();
    assert_eq!(
        ids(payments.search_events_stream(Some(1), Some(4))).await,
        numbered(2..=6)
    );
    assert_eq!(
        uris(&server, before),
        [
            "/v1/events/search?offset=1&limit=4",
            "/v1/events/search?offset=5&limit=4",
        ]
    );
}

#[tokio::test]
async fn a_page_number_counts_up_to_the_page_count_or_a_short_page() {
    let server = event_server().await;
    let payments = Payments::new(&server.url()).unwrap();
    assert_eq!(
        ids(payments.list_archived_events_stream(None, None)).await,
        numbered(1..=6)
    );
    assert_eq!(
        uris(&server, 0),
        [
            "/v1/events/archive",
            "/v1/events/archive?page=2",
            "/v1/events/archive?page=3",
        ],
        "page one is the one without a number; the count says three"
    );
    let before = server.received().len();
    assert_eq!(
        ids(payments.list_archived_events_stream(None, Some(4))).await,
        numbered(1..=6)
    );
    assert_eq!(
        uris(&server, before),
        [
            "/v1/events/archive?per_page=4",
            "/v1/events/archive?per_page=4&page=2",
        ],
        "the second page has two of four: the last"
    );
}

/// Django REST framework's pages on an exact multiple of the page size (six items, pages of two
/// or three): with `total: count` the stream stops at the count and asks for no page past it;
/// without it, the page past the last is a 404 ("Invalid page."), which ends the stream
/// cleanly. A 404 for the first page stays an error.
#[tokio::test]
async fn a_django_pager_ends_cleanly_on_an_exact_multiple_of_the_page_size() {
    let server = event_server().await;
    let payments = Payments::new(&server.url()).unwrap();
    for size in [2, 3] {
        let before = server.received().len();
        let counted = ids(payments.list_counted_events_stream(None, Some(size))).await;
        assert_eq!(counted, numbered(1..=6));
        assert_eq!(
            server.received().len() - before,
            6 / size as usize,
            "the count says when to stop: no page past it"
        );
        let before = server.received().len();
        let numbered_only = ids(payments.list_numbered_events_stream(None, Some(size))).await;
        assert_eq!(numbered_only, numbered(1..=6));
        assert_eq!(
            server.received().len() - before,
            6 / size as usize + 1,
            "one page past the last, answered 404"
        );
    }
    let mut missing = payments.list_numbered_events_stream(Some(0), Some(2));
    let first = missing.next().await.unwrap().unwrap_err();
    assert_eq!(first.status(), Some(axum::http::StatusCode::NOT_FOUND));
}

#[tokio::test]
async fn a_server_that_ignores_the_offset_ends_the_stream_with_an_error() {
    let server = event_server().await;
    let payments = Payments::new(&format!("{}/stuck", server.url())).unwrap();
    let mut pages = payments.search_events_stream(None, None);
    for id in ["ev_1", "ev_2"] {
        assert_eq!(pages.next().await.unwrap().unwrap().id, id);
    }
    let error = pages.next().await.unwrap().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    assert!(
        error.to_string().starts_with(
            "Payments.search_events: the server gave the items of an earlier page again"
        ),
        "{error}"
    );
    assert!(pages.next().await.is_none());
    assert_eq!(server.received().len(), 2, "one page more, no loop");
}

/// A server that answers only empty pages, each with a fresh cursor, would be followed for
/// ever (a consumer's `take(n)` never triggers): the stream stops after `max_empty_pages` empty
/// pages in a row, 100 by default, with an error; an item between empty pages starts the count
/// again.
#[tokio::test]
async fn endless_empty_pages_end_the_stream_with_an_error() {
    let endless = |Query(q): Params| async move {
        let n = number(&q, "cursor").unwrap_or(0);
        // Page 3 has an item; every other page is empty and points at the next.
        let events = if n == 3 { events(1..=1) } else { vec![] };
        axum::Json(json!({ "events": events, "meta": { "next_cursor": (n + 1).to_string() } }))
    };
    let server = Server::start(Router::new().route("/v1/events", get(endless))).await;

    let payments = Payments::new(&server.url()).unwrap();
    let mut pages = payments.list_events_stream(None);
    let first = pages.next().await.unwrap().unwrap();
    assert_eq!(first.id, "ev_1");
    let error = pages.next().await.unwrap().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    assert!(
        error.to_string().starts_with(
            "Payments.list_events: the server gave 101 empty pages in a row, each pointing at another (the profile's `max_empty_pages` is 100)"
        ),
        "{error}"
    );
    assert!(pages.next().await.is_none());
    assert_eq!(
        server.received().len(),
        4 + 101,
        "the pages up to the item, then 101 empty"
    );

    let before = server.received().len();
    let strict = Payments::builder()
        .base_url(&server.url())
        .profile(remcall::Profile::from_yaml_str("max_empty_pages: 2").unwrap())
        .build()
        .unwrap();
    let mut pages = strict.list_events_stream(Some("4"));
    let error = pages.next().await.unwrap().unwrap_err();
    assert!(
        error.to_string().contains("gave 3 empty pages in a row"),
        "{error}"
    );
    assert_eq!(server.received().len() - before, 3);
}

/// `not_found: none` on a paginated method: the single-page call answers `Ok(None)` to a 404,
/// and the stream agrees, ending with no items (on the first page or a later one) rather than
/// failing to read the 404 as a page.
#[tokio::test]
async fn a_404_ends_the_stream_as_the_call_answers_none() {
    let events = |axum::extract::Path(id): axum::extract::Path<String>, Query(q): Params| async move {
        match (id.as_str(), q.get("cursor").map(String::as_str)) {
            ("cus_1", None) => {
                axum::Json(json!({ "events": events(1..=1), "meta": { "next_cursor": "2" } }))
                    .into_response()
            }
            _ => (axum::http::StatusCode::NOT_FOUND, "no such customer").into_response(),
        }
    };
    let server = Server::start(Router::new().route("/v1/customers/{id}/events", get(events))).await;
    let payments = Payments::new(&server.url()).unwrap();

    assert_eq!(
        payments.list_customer_events("cus_9", None).await.unwrap(),
        None
    );
    assert!(
        ids(payments.list_customer_events_stream("cus_9", None))
            .await
            .is_empty()
    );
    assert_eq!(
        ids(payments.list_customer_events_stream("cus_1", None)).await,
        ["ev_1"]
    );
}

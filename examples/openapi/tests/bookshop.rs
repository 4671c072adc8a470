//! The client build.rs generated from an OpenAPI description, against a loopback bookshop:
//! what the description declares (deepObject and comma-separated queries, unions, open enums,
//! allOf, declared errors, an idempotency key, an API key header) and what the spec laid over
//! it (a profile, a fallback, per-method overlays).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use remcall::serde_json::{Value, json};
use remcall::{ErrorKind, Profile};
use remcall_example_openapi::bookshop::{
    Book, Bookshop, BookshopFallback, FindBooksFilter, Format, GetBookError, Order, Price, Problem,
};
use testkit::Server;

/// The API key, given at run time: the spec's profile reads it from `${BOOKSHOP_API_KEY}`.
fn key() -> Profile {
    Profile::from_yaml_str("headers: { X-Api-Key: { value: test-key, secret: true } }").unwrap()
}

async fn bookshop() -> (Server, Arc<AtomicUsize>) {
    let flaky = Arc::new(AtomicUsize::new(0));
    let book = |isbn: &str| json!({ "isbn": isbn, "title": "Dune", "subtitle": null, "format": "audiobook", "price": 1299 });
    let router = Router::new()
        .route(
            "/api/books",
            get(move || async move {
                axum::Json(json!([
                    book("1"),
                    { "isbn": "2", "title": "Free", "format": "ebook", "price": "free" }
                ]))
            }),
        )
        .route(
            "/api/books/{isbn}",
            get(
                move |Path(isbn): Path<String>, State(flaky): State<Arc<AtomicUsize>>| async move {
                    match isbn.as_str() {
                        "missing" => (
                            StatusCode::NOT_FOUND,
                            axum::Json(json!({ "code": "not_found", "message": "no such book" })),
                        ),
                        "down" => (
                            StatusCode::SERVICE_UNAVAILABLE,
                            axum::Json(json!({ "code": "maintenance" })),
                        ),
                        // Fails once, then answers: the overlay gives get_book two attempts.
                        "flaky" if flaky.fetch_add(1, Ordering::SeqCst) == 0 => {
                            (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({})))
                        }
                        _ => (StatusCode::OK, axum::Json(book(&isbn))),
                    }
                },
            ),
        )
        .route(
            "/api/orders",
            post(|axum::Json(order): axum::Json<Value>| async move {
                if order["quantity"] == 0 {
                    return (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({})));
                }
                let mut placed = order;
                placed["id"] = json!("o-1");
                placed["placed_at"] = json!("2026-12-02T10:30:00Z");
                (StatusCode::CREATED, axum::Json(placed))
            }),
        )
        .with_state(flaky.clone());
    (Server::start(router).await, flaky)
}

fn client(server: &Server) -> Bookshop {
    Bookshop::builder()
        .base_url(&format!("{}/api", server.url()))
        .profile(key())
        .build()
        .unwrap()
}

#[tokio::test]
async fn what_the_description_declares_goes_on_the_wire_and_comes_back_typed() {
    let (server, _) = bookshop().await;
    let shop = client(&server);
    // `rename: find_books` renames the method and the types named after it: the filter is a
    // `FindBooksFilter`, not the description's `searchBooks`'s.
    let filter = FindBooksFilter {
        format: Some(Format::Ebook),
        author: None,
    };
    // `search_books` in the description, renamed by the spec. Its `fields` list is optional, as
    // the description says: left out when not given (the last call).
    let books = shop
        .find_books(
            Some(&filter),
            Some(&["isbn".to_owned(), "title".to_owned()]),
        )
        .await
        .unwrap();
    shop.find_books(None, None).await.unwrap();
    assert_eq!(server.received()[1].uri, "/api/books");
    let request = &server.received()[0];
    assert_eq!(
        request.uri,
        "/api/books?filter%5Bformat%5D=ebook&fields=isbn%2Ctitle"
    );
    assert_eq!(request.headers["x-api-key"], "test-key");
    // A union of an integer and a string; an enum value the description does not list.
    assert_eq!(books[0].price, Some(Price::I64(1299)));
    assert_eq!(books[1].price, Some(Price::String("free".into())));
    assert_eq!(books[0].format, Format::Other("audiobook".into()));
    assert_eq!(books[0].subtitle, None);

    let deliver_on = chrono::NaiveDate::from_ymd_opt(2026, 12, 24).unwrap();
    let placed = shop
        .place_order(&Order {
            deliver_on: Some(deliver_on),
            ..Order::new("1", 2)
        })
        .await
        .unwrap();
    // allOf: the order's fields and the id, in one struct.
    assert_eq!(
        (placed.isbn.as_str(), placed.quantity, placed.id.as_str()),
        ("1", 2, "o-1")
    );
    // `dates: chrono`: a date and a date-time as chrono's types, on the wire as RFC 3339.
    assert_eq!(placed.deliver_on, Some(deliver_on));
    assert_eq!(placed.placed_at.to_rfc3339(), "2026-12-02T10:30:00+00:00");
    let sent = server.received().last().unwrap().clone();
    let body: Value = remcall::serde_json::from_slice(&sent.body).unwrap();
    assert_eq!(body["deliver_on"], "2026-12-24");
    assert_eq!(sent.headers["idempotency-key"].len(), 36);
}

#[tokio::test]
async fn declared_errors_overlays_and_the_fallback() {
    let (server, flaky) = bookshop().await;
    let shop = client(&server);
    let missing = shop.get_book("missing").await.unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::Status);
    assert_eq!(
        missing.detail::<GetBookError>(),
        Some(&GetBookError::NotFound(Problem {
            code: Some("not_found".into()),
            message: Some("no such book".into()),
        }))
    );
    // The overlay's `retry: { max_attempts: 2 }`: one failure is retried away.
    let book = shop.get_book("flaky").await.unwrap();
    assert_eq!(book.isbn, "flaky");
    assert_eq!(flaky.load(Ordering::SeqCst), 2);

    // The spec's fallback answers get_book; place_order's overlay says `fallback: false`.
    struct Shelf;
    impl BookshopFallback for Shelf {
        async fn get_book(
            &self,
            isbn: &str,
            cause: remcall::Error,
        ) -> Result<Book, remcall::Error> {
            match cause.detail::<GetBookError>() {
                Some(GetBookError::Other(Problem {
                    code: Some(code), ..
                })) if code == "maintenance" => Ok(Book {
                    isbn: isbn.to_owned(),
                    title: "(from the shelf)".into(),
                    subtitle: None,
                    format: Format::Paperback,
                    price: None,
                }),
                _ => Err(cause),
            }
        }
    }
    let shop = Bookshop::builder()
        .base_url(&format!("{}/api", server.url()))
        .profile(key())
        .fallback(Shelf)
        .build()
        .unwrap();
    assert_eq!(
        shop.get_book("down").await.unwrap().title,
        "(from the shelf)"
    );
    let refused = shop.place_order(&Order::new("1", 0)).await.unwrap_err();
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(503));
}

//! A client generated at build time from `bookshop.yaml`, which takes its methods and types
//! from the OpenAPI description `api/bookshop.json`.

/// The generated client: `Bookshop`, its builder, fallback trait and the description's types.
pub mod bookshop {
    remcall::include_client!("bookshop");
}

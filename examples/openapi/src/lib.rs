//! Clients generated at build time from `bookshop.yaml` and `streaming.yaml`, which take their
//! methods and types from the OpenAPI descriptions `api/bookshop.json` and `api/assistant.yaml`.

/// The generated client: `Bookshop`, its builder, fallback trait and the description's types.
pub mod bookshop {
    remcall::include_client!("bookshop");
}

/// The generated streaming client: `Streaming`, from an OpenAPI 3.2 description.
pub mod streaming {
    remcall::include_client!("streaming");
}

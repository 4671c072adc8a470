//! The user client, generated at build time from `specs/user_service.yaml`, and a small
//! in-process user service to call it against.

/// The generated client: `UserClient`, its builder, fallback trait and types.
pub mod user_client {
    remcall::include_client!("user_client");
}

pub mod live;
pub mod service;

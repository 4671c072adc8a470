//! The inbound half (feature `webhooks`): what the APIs a client calls send back. For now the
//! signatures of their deliveries (`signature.rs`), checked before anything is decoded; typed
//! receivers generated from a description's `webhooks` build on it.

pub mod signature;

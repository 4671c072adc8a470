//! The inbound half (feature `webhooks`): what the APIs a client calls send back. For now the
//! signatures of their deliveries (`signature.rs`), checked before anything is decoded, and the
//! ids of those seen, so each is handled once (`replays.rs`); typed receivers generated from a
//! description's `webhooks` build on them.

pub mod replays;
pub mod signature;

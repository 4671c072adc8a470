//! The inbound half (feature `webhooks`): what the APIs a client calls send back. A generated
//! receiver's static (`events.rs`) and its axum routes (`router.rs`); each delivery read within
//! its limit (`body.rs`), its signature checked before anything is decoded (`signature.rs`),
//! told which declared event it is (`route.rs`), refused when it was seen already
//! (`replays.rs`; across a fleet in Redis, `shared_replays.rs`), then decoded and handed to the receiver (`delivery.rs`, `inbox.rs`), and
//! counted (`stats.rs`). `sender.rs` sends signed deliveries, as the real sender would, for a
//! service's tests.

pub(crate) mod body;
pub mod delivery;
pub mod events;
pub mod inbox;
pub mod replays;
pub(crate) mod route;
pub mod router;
pub mod sender;
#[cfg(feature = "redis")]
pub(crate) mod shared_replays;
pub mod signature;
pub mod stats;

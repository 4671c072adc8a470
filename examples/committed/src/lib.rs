//! Clients generated from `specs/` by `cargo xtask codegen` (the `remcall gen` CLI) and committed.
//! CI regenerates them and fails when the committed code is stale.

// Generated code must carry rustdoc on every public item.
#![warn(missing_docs)]

/// The generated clients, one module per spec.
pub mod clients;
pub mod signing;

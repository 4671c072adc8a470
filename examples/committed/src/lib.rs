//! Clients generated from `specs/` by `cargo xtask codegen` (the `remcall gen` CLI) and committed.
//! CI regenerates them and fails when the committed code is stale.

pub mod clients;
pub mod signing;

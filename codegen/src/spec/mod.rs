//! The YAML model: serde types, loading with includes, and the key → position index.

mod indentation;
mod keys;
mod load;
pub mod model;
mod openapi;
mod shape;
mod spans;

pub(crate) use load::{Spec, load, load_text};

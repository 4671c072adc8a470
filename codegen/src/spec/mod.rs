//! The YAML model: serde types, loading with includes, and the key → position index.

mod load;
pub mod model;
mod spans;

pub use load::{Located, Source, Spec, load, load_text};
pub use spans::SpanIndex;

//! The wire format, the request half: how a method's arguments become a request (path, query,
//! headers, bodies), the types both halves share (`Nullable`, constants) and the serde macros
//! generated types use. The response half is `decode/`.

pub(crate) mod constant;
mod derive;
pub(crate) mod multipart;
pub(crate) mod nullable;
pub(crate) mod outgoing;
pub(crate) mod params;
pub(crate) mod query;
pub(crate) mod request;

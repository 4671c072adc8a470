//! The wire format: how a method's arguments become a request (path, query, headers, bodies)
//! and how a response becomes its result (JSON, enums, unions, downloads, pages).

pub(crate) mod constant;
mod derive;
pub(crate) mod enums;
pub(crate) mod lax;
pub(crate) mod located;
pub(crate) mod multipart;
pub(crate) mod nullable;
pub(crate) mod outgoing;
pub(crate) mod owned;
pub(crate) mod params;
pub(crate) mod query;
pub(crate) mod record;
pub(crate) mod request;
pub(crate) mod response;
pub(crate) mod union;

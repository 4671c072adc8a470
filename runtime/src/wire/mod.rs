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
pub(crate) mod tag_first;

/// A header map of `pairs`, for the unit tests of what reads a server's headers.
#[cfg(test)]
pub(crate) fn header_map(pairs: &[(&str, &str)]) -> reqwest::header::HeaderMap {
    pairs
        .iter()
        .map(|(name, value)| {
            (
                reqwest::header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                reqwest::header::HeaderValue::from_str(value).unwrap(),
            )
        })
        .collect()
}

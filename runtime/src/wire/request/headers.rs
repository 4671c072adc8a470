//! Header names and values from generated code and profiles, checked (no line breaks, no
//! invalid bytes), with errors that name them; and a profile's query parameters.

use reqwest::header::{HeaderName, HeaderValue};

use crate::error::{Error, ErrorKind};
use crate::wire::query::ProfileQuery;

/// Parses a header name, with an error that names it.
pub(crate) fn header_name(name: &str) -> Result<HeaderName, Error> {
    HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
        Error::new(
            ErrorKind::Encode,
            format!("`{name}` is not a valid header name"),
        )
    })
}

/// [`header_name`] for the names generated code passes: a lowercase name is used in place,
/// without the copy `HeaderName` makes of any other.
pub(super) fn static_header_name(name: &'static str) -> Result<HeaderName, Error> {
    let lowercase_token = !name.is_empty()
        && name.len() < 1 << 16
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.!#$%&'*+^`|~".contains(&b)
        });
    if lowercase_token {
        // Cannot panic: `from_static` accepts exactly the lowercase tokens checked above.
        Ok(HeaderName::from_static(name))
    } else {
        header_name(name)
    }
}

/// Parses a header value; the error names the header, never the value (it may be a secret).
pub(crate) fn header_value(name: &str, value: &str) -> Result<HeaderValue, Error> {
    HeaderValue::from_str(value).map_err(|_| {
        Error::new(
            ErrorKind::Encode,
            format!("header `{name}` has an invalid value: CR, LF, NUL and other control characters are not allowed"),
        )
    })
}

/// Adds the profile's query parameters (an API key, say) to `url`, each unless the URL has one of
/// that name already: a method's parameter of the same name wins, and a next page's URL that
/// echoes the key does not get it twice.
pub(super) fn add_profile_query(url: &mut reqwest::Url, profile: &ProfileQuery) {
    let missing: Vec<&(String, String)> = profile
        .0
        .iter()
        .filter(|(name, _)| {
            !url.query_pairs()
                .any(|(present, _)| present == name.as_str())
        })
        .collect();
    if !missing.is_empty() {
        url.query_pairs_mut()
            .extend_pairs(missing.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    }
}

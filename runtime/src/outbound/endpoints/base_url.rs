//! A base URL checked (a scheme, a host, no credentials, no query) with its `${VAR}`s
//! resolved, and URLs as errors show them: without what may be a password or a key.

use crate::error::{Error, ErrorKind};

/// Checks a base URL and resolves its `${VAR}`s.
pub(super) fn parse_base(raw: &str) -> Result<reqwest::Url, Error> {
    let url = remcall_profile::vars::expand_env(raw)
        .map_err(|e| Error::new(ErrorKind::Config, format!("base URL: {e}")))?;
    // Shown in errors without what stands before an `@` (it may be a password) and without a
    // query or fragment (it may be an API key).
    let url_text = url.clone();
    let url = without_query(&without_userinfo(&url_text));
    if !url_text.contains("://") {
        // `localhost:8080` parses, as a URL of scheme `localhost`: say what is missing.
        return Err(Error::new(
            ErrorKind::Config,
            format!("base URL `{url}` has no scheme: write `http://{url}` (or `https://`)"),
        ));
    }
    let parsed = reqwest::Url::parse(&url_text)
        .map_err(|e| Error::new(ErrorKind::Config, format!("invalid base URL `{url}`: {e}")))?;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(Error::new(
            ErrorKind::Config,
            format!(
                "base URL `{url}` carries credentials; put them in the profile's `auth: {{ basic: .. }}`, where they are kept secret"
            ),
        ));
    }
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(Error::new(
            ErrorKind::Config,
            format!("base URL `{url}` must be an http:// or https:// URL with a host"),
        ));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(Error::new(
            ErrorKind::Config,
            format!(
                "base URL `{url}` must not have a query or fragment (not shown: it may hold a key); put query parameters in the profile's `query:`"
            ),
        ));
    }
    Ok(parsed)
}

/// `text` with its query and fragment replaced by `?…`.
pub(crate) fn without_query(text: &str) -> String {
    match text.find(['?', '#']) {
        Some(at) => format!("{}?…", &text[..at]),
        None => text.to_owned(),
    }
}

/// `text` with anything between `://` and an `@` before the path replaced by `…`.
pub(crate) fn without_userinfo(text: &str) -> String {
    let Some(start) = text.find("://").map(|i| i + 3) else {
        return text.to_owned();
    };
    let authority_end = text[start..]
        .find(['/', '?', '#'])
        .map_or(text.len(), |i| start + i);
    match text[start..authority_end].rfind('@') {
        Some(at) => format!("{}…{}", &text[..start], &text[start + at..]),
        None => text.to_owned(),
    }
}

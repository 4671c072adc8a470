//! The endpoints a client spreads its calls over.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, ErrorKind};

/// Base URLs (scheme, host, port and base path), taken in turn.
#[derive(Debug)]
pub(crate) struct Endpoints {
    urls: Vec<String>,
    next: AtomicUsize,
}

impl Endpoints {
    /// Resolves `${VAR}`s, checks each URL and appends the base path.
    pub(crate) fn new(urls: &[String], base_path: &str) -> Result<Endpoints, Error> {
        if urls.is_empty() {
            return Err(Error::new(
                ErrorKind::Config,
                "no base URL: give one with .base_url(..)",
            ));
        }
        let urls = urls
            .iter()
            .map(|raw| {
                let url = remcall_profile::vars::expand_env(raw)
                    .map_err(|e| Error::new(ErrorKind::Config, format!("base URL: {e}")))?;
                let parsed = reqwest::Url::parse(&url).map_err(|e| {
                    Error::new(ErrorKind::Config, format!("invalid base URL `{url}`: {e}"))
                })?;
                if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
                    return Err(Error::new(
                        ErrorKind::Config,
                        format!("base URL `{url}` must be an http:// or https:// URL with a host"),
                    ));
                }
                if parsed.query().is_some() || parsed.fragment().is_some() {
                    return Err(Error::new(
                        ErrorKind::Config,
                        format!("base URL `{url}` must not have a query or fragment"),
                    ));
                }
                Ok(format!(
                    "{}{}",
                    url.trim_end_matches('/'),
                    base_path.trim_end_matches('/')
                ))
            })
            .collect::<Result<_, _>>()?;
        Ok(Endpoints {
            urls,
            next: AtomicUsize::new(0),
        })
    }

    /// The next endpoint in turn.
    pub(crate) fn pick(&self) -> &str {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.urls.len();
        &self.urls[i]
    }
}

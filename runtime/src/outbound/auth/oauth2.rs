//! OAuth2 client credentials: the token is fetched on first use, cached until `refresh_before`
//! ahead of its expiry, fetched by one request however many calls wait for it (whatever its
//! lifetime), and refreshed once more when a call comes back 401.

use std::fmt;
use std::sync::RwLock;
use std::time::Duration;

use remcall_profile::{ClientAuth, OAuth2};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use serde::Deserialize;
use tokio::time::Instant;

use super::{basic_credentials, expand};
use crate::decode::response::{Response, Unread};
use crate::error::{Error, ErrorKind};

/// The largest token response read; token endpoints answer with a few hundred bytes.
const MAX_TOKEN_RESPONSE: u64 = 64 << 10;

/// The error codes RFC 6749 §5.2 defines for a token request.
const RFC_6749_ERRORS: &[&str] = &[
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
    "invalid_scope",
];

/// The longest access token accepted: it is sent as a header on every call.
const MAX_TOKEN_LENGTH: usize = 16 << 10;

/// A shared, self-refreshing token.
pub(crate) struct TokenSource {
    http: reqwest::Client,
    token_url: reqwest::Url,
    client_id: String,
    client_secret: String,
    form: Vec<(String, String)>,
    client_auth: ClientAuth,
    refresh_before: Duration,
    request_timeout: Duration,
    cached: RwLock<Option<Token>>,
    /// Held by the one call that fetches; the others wait on it, then find the new token.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Clone)]
struct Token {
    header: HeaderValue,
    /// When to stop using it (expiry less `refresh_before`); `None`: no expiry given.
    use_until: Option<Instant>,
    generation: u64,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<f64>,
}

#[derive(Deserialize)]
struct TokenError {
    error: String,
}

impl fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSource")
            .field("token_url", &self.token_url.as_str())
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("client_auth", &self.client_auth)
            .finish_non_exhaustive()
    }
}

impl TokenSource {
    pub(crate) fn new(
        settings: &OAuth2,
        http: reqwest::Client,
        request_timeout: Duration,
    ) -> Result<TokenSource, Error> {
        let url = expand("auth.oauth2.token_url", &settings.token_url)?;
        let token_url = reqwest::Url::parse(&url).map_err(|e| {
            Error::new(
                ErrorKind::Config,
                format!("auth.oauth2.token_url `{url}` is not a URL: {e}"),
            )
        })?;
        let client_auth = settings.client_auth.unwrap_or(ClientAuth::Basic);
        let client_id = expand("auth.oauth2.client_id", &settings.client_id)?;
        let client_secret = expand(
            "auth.oauth2.client_secret",
            settings.client_secret.expose_template(),
        )?;
        let mut form = vec![("grant_type".to_owned(), "client_credentials".to_owned())];
        if !settings.scopes.is_empty() {
            form.push(("scope".to_owned(), settings.scopes.join(" ")));
        }
        for (name, value) in &settings.params {
            form.push((
                name.clone(),
                expand(&format!("auth.oauth2.params.{name}"), value)?,
            ));
        }
        if client_auth == ClientAuth::Body {
            form.push(("client_id".to_owned(), client_id.clone()));
            form.push(("client_secret".to_owned(), client_secret.clone()));
        }
        Ok(TokenSource {
            http,
            token_url,
            client_id,
            client_secret,
            form,
            client_auth,
            refresh_before: settings.refresh_before.unwrap_or(Duration::from_secs(30)),
            request_timeout,
            cached: RwLock::new(None),
            fetching: tokio::sync::Mutex::new(()),
        })
    }

    /// `Bearer <token>` and the token's generation, fetching a token when none is fresh.
    pub(crate) async fn header(&self, deadline: Instant) -> Result<(HeaderValue, u64), Error> {
        if let Some(token) = self.fresh(Instant::now()) {
            return Ok((token.header, token.generation));
        }
        let stale = self.read().as_ref().map_or(0, |t| t.generation);
        let _fetching = tokio::time::timeout_at(deadline, self.fetching.lock())
            .await
            .map_err(|_| Error::new(ErrorKind::Timeout, "timed out waiting for an OAuth2 token"))?;
        // Whoever held the lock before may have fetched one already: a token fetched while this
        // call waited is the answer to its wait, fresh or not, so a token that expires at once
        // (`expires_in: 0`) costs one request per refresh, not one per waiting call.
        if let Some(token) = self.read().clone().filter(|t| t.generation > stale) {
            return Ok((token.header, token.generation));
        }
        let generation = self.read().as_ref().map_or(1, |t| t.generation + 1);
        let fetch_deadline = deadline.min(Instant::now() + self.request_timeout);
        let token = tokio::time::timeout_at(fetch_deadline, self.fetch(generation))
            .await
            .map_err(|_| {
                Error::new(
                    ErrorKind::Auth,
                    "the OAuth2 token endpoint did not answer in time",
                )
            })??;
        let answer = (token.header.clone(), token.generation);
        *self
            .cached
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(token);
        Ok(answer)
    }

    /// Forgets the token of `generation` after a 401, unless a newer one replaced it already.
    pub(crate) fn invalidate(&self, generation: u64) {
        let mut cached = self
            .cached
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(token) = cached.as_mut().filter(|t| t.generation == generation) {
            token.use_until = Some(Instant::now() - Duration::from_secs(1));
        }
    }

    /// The token's header while it is fresh, without fetching one.
    pub(crate) fn fresh_header(&self, now: Instant) -> Option<HeaderValue> {
        self.fresh(now).map(|token| token.header)
    }

    fn fresh(&self, now: Instant) -> Option<Token> {
        self.read()
            .clone()
            .filter(|t| t.use_until.is_none_or(|until| now < until))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Option<Token>> {
        self.cached
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn fetch(&self, generation: u64) -> Result<Token, Error> {
        let requested = Instant::now();
        let form = serde_urlencoded::to_string(&self.form).map_err(|_| {
            Error::new(
                ErrorKind::Config,
                "auth.oauth2: the token request cannot be form-encoded",
            )
        })?;
        let mut request = self
            .http
            .post(self.token_url.clone())
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(form);
        if self.client_auth == ClientAuth::Basic {
            let mut value =
                HeaderValue::from_str(&basic_credentials(&self.client_id, &self.client_secret))
                    .map_err(|_| {
                        Error::new(
                            ErrorKind::Config,
                            "auth.oauth2: the client id or secret holds characters a header cannot",
                        )
                    })?;
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
        let response = request.send().await.map_err(|e| {
            Error::new(
                ErrorKind::Auth,
                "the OAuth2 token endpoint cannot be reached",
            )
            .with_source(e.without_url())
        })?;
        let status = response.status();
        // A token answer is small: a bigger one is refused before it is read whole (and before
        // its token would go out as a header on every call).
        let body = Response::read(response, MAX_TOKEN_RESPONSE)
            .await
            .map_err(|unread| {
                let message = if matches!(unread, Unread::TooLarge(_)) {
                    "the OAuth2 token response is larger than 64 KiB"
                } else {
                    "the OAuth2 token response was cut off"
                };
                Error::new(ErrorKind::Auth, message)
            })?
            .body;
        if !status.is_success() {
            // The endpoint's `error` code (RFC 6749 §5.2) says what to fix. Only the codes the RFC
            // defines are shown: the field is the server's text, and could hold anything, the
            // client secret included.
            let code = serde_json::from_slice::<TokenError>(&body)
                .ok()
                .map(|e| e.error)
                .filter(|code| RFC_6749_ERRORS.contains(&code.as_str()))
                .unwrap_or_else(|| "unknown".to_owned());
            return Err(Error::new(
                ErrorKind::Auth,
                format!(
                    "the OAuth2 token endpoint refused the request: HTTP {status}, error `{code}`"
                ),
            ));
        }
        self.token(&body, requested, generation)
    }

    /// The token a successful answer carries, as the header to send, and until when to use it.
    /// (Apart from `fetch`, but not async: a call's future nests this deep already.)
    fn token(&self, body: &[u8], requested: Instant, generation: u64) -> Result<Token, Error> {
        let token: TokenResponse = serde_json::from_slice(body).map_err(|_| {
            Error::new(
                ErrorKind::Auth,
                "the OAuth2 token response has no access_token",
            )
        })?;
        if token.access_token.len() > MAX_TOKEN_LENGTH {
            return Err(Error::new(
                ErrorKind::Auth,
                "the OAuth2 access token is longer than 16 KiB",
            ));
        }
        let mut header =
            HeaderValue::from_str(&format!("Bearer {}", token.access_token)).map_err(|_| {
                Error::new(
                    ErrorKind::Auth,
                    "the OAuth2 access token holds characters a header cannot",
                )
            })?;
        header.set_sensitive(true);
        let use_until = token
            .expires_in
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| {
                // Refreshed `refresh_before` ahead of expiry, but never before half its life:
                // a token shorter-lived than that margin is still used, not fetched per call.
                let lifetime = Duration::from_secs_f64(s.min(1e9));
                requested + lifetime - self.refresh_before.min(lifetime / 2)
            });
        Ok(Token {
            header,
            use_until,
            generation,
        })
    }
}

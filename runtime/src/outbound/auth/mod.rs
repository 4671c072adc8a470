//! Credentials from a profile's `auth:`: a fixed `Authorization` header for `bearer` and `basic`,
//! or OAuth2 client-credentials tokens fetched and cached by [`oauth2::TokenSource`].

mod oauth2;

use std::sync::Arc;

use remcall_profile::{Auth, Settings, vars};
use reqwest::header::HeaderValue;
use tokio::time::Instant;

pub(crate) use oauth2::TokenSource;

use crate::error::{Error, ErrorKind};
use crate::wire::request::header_value;

/// How a method's requests get their `Authorization` header.
#[derive(Debug, Clone)]
pub(crate) enum Credentials {
    /// Bearer or basic: resolved once, when the client is built.
    Fixed(HeaderValue),
    /// OAuth2: a token per call, from a shared cache.
    OAuth2(Arc<TokenSource>),
}

/// The HTTP client of an OAuth2 token endpoint: the profile's TLS settings and connect timeout,
/// and no redirects. A redirect would re-send the client secret to wherever it points (a 307
/// keeps the body), which oauth2-rs fixed as a security issue; a token endpoint that redirects
/// fails with `Auth`.
fn token_client(settings: &Settings, client: &'static str) -> Result<reqwest::Client, Error> {
    let builder = reqwest::Client::builder()
        .connect_timeout(settings.connect_timeout)
        .redirect(reqwest::redirect::Policy::none());
    crate::outbound::tls::configure(builder, &settings.tls, client)?
        .build()
        .map_err(|e| {
            Error::new(
                ErrorKind::Config,
                "cannot build the token endpoint's HTTP client",
            )
            .with_source(e)
        })
}

impl Credentials {
    /// Resolves `${VAR}`s now — at build time, never at generation time.
    pub(crate) fn new(
        auth: &Auth,
        settings: &Settings,
        client: &'static str,
    ) -> Result<Credentials, Error> {
        let header = |text: String| -> Result<Credentials, Error> {
            let mut value = header_value("Authorization", &text)?;
            value.set_sensitive(true);
            Ok(Credentials::Fixed(value))
        };
        match auth {
            Auth::Bearer(bearer) => {
                let token = expand("auth.bearer.token", bearer.token.expose_template())?;
                // `Bearer ` with nothing after it is no credential: refused however it came.
                if token.trim().is_empty() {
                    return Err(Error::fixed(
                        ErrorKind::Config,
                        "auth.bearer.token is empty: a bearer token must hold one",
                    ));
                }
                header(format!("Bearer {token}"))
            }
            Auth::Basic(basic) => {
                let user = expand("auth.basic.username", &basic.username)?;
                let password = expand("auth.basic.password", basic.password.expose_template())?;
                header(basic_credentials(&user, &password))
            }
            Auth::Oauth2(oauth2) => Ok(Credentials::OAuth2(Arc::new(TokenSource::new(
                oauth2,
                token_client(settings, client)?,
                settings.attempt_timeout,
            )?))),
        }
    }

    /// The header value for one attempt, and the token generation it came from (OAuth2).
    pub(crate) async fn header(&self, deadline: Instant) -> Result<(HeaderValue, u64), Error> {
        match self {
            Credentials::Fixed(value) => Ok((value.clone(), 0)),
            Credentials::OAuth2(source) => source.header(deadline).await,
        }
    }
}

/// Resolves placeholders in an auth field; the error names the field, never the value.
pub(crate) fn expand(field: &str, text: &str) -> Result<String, Error> {
    vars::expand_env(text).map_err(|e| Error::new(ErrorKind::Config, format!("{field}: {e}")))
}

/// `Basic base64(user:password)`.
pub(crate) fn basic_credentials(user: &str, password: &str) -> String {
    format!("Basic {}", base64(format!("{user}:{password}").as_bytes()))
}

/// Standard base64 with padding, for the Basic scheme (ten lines beat a dependency).
fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }
}

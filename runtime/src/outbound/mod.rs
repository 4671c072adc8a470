//! What a request goes through on its way out: the endpoint it goes to, TLS, credentials and
//! the user's interceptors.

pub(crate) mod auth;
pub(crate) mod cache;
pub(crate) mod endpoints;
pub(crate) mod interceptor;
pub(crate) mod tls;

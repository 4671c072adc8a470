//! What a request goes through on its way out: the endpoint it goes to, TLS, credentials, the
//! user's interceptors, and the cache that may answer it unsent or stand in when it fails.

pub(crate) mod auth;
pub(crate) mod cache;
pub(crate) mod endpoints;
pub(crate) mod interceptor;
pub(crate) mod tls;

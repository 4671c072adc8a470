//! What finds a kept answer: the key (the method, the URL's path and query, and every request
//! header but those that change on each call without saying who asks), and the request as the
//! cache reads and keeps it, its credentials off.

use remcall_profile::Settings;
use reqwest::header::{AUTHORIZATION, COOKIE, HeaderName, HeaderValue, PROXY_AUTHORIZATION};

use crate::wire::outgoing::Outgoing;

/// Where a kept answer is found.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(super) method: usize,
    pub(super) url: Box<str>,
    pub(super) headers: u64,
    /// Its key in the fleet's Redis (`cache.shared`), the same on every replica.
    pub(super) fleet: Option<Box<str>>,
}

/// The request headers that change on every call without saying who asks: left out of the
/// key, or no answer would ever be found again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unkeyed<'a> {
    /// The deadline's header (`deadline.propagate`), the time left, new on each attempt.
    deadline: Option<&'a str>,
    /// The profile's `cache.unkeyed`, lowercase.
    listed: &'a [String],
}

/// The one trace header new on each call (W3C `traceparent`: a new span id per request). Not
/// `tracestate` nor `baggage`: those carry the caller's context (a tenant, a user, a region),
/// the same on every call of that caller, and an answer kept for one caller must not answer
/// another.
const PER_CALL: [&str; 1] = ["traceparent"];

impl<'a> Unkeyed<'a> {
    /// The headers a method's settings leave out of the key.
    pub(crate) fn of(settings: &'a Settings) -> Unkeyed<'a> {
        Unkeyed {
            deadline: settings.deadline_header.as_deref(),
            listed: settings
                .cache
                .as_ref()
                .map_or(&[][..], |cache| cache.unkeyed.as_slice()),
        }
    }

    pub(super) fn skips(&self, name: &HeaderName) -> bool {
        let name = name.as_str();
        PER_CALL.contains(&name)
            || self
                .deadline
                .is_some_and(|deadline| deadline.eq_ignore_ascii_case(name))
            || self.listed.iter().any(|listed| listed == name)
    }
}

/// A header that says who asks with a secret: it keys the answer (hashed), and is never kept.
pub(super) fn is_credential(name: &HeaderName, value: &HeaderValue) -> bool {
    name == AUTHORIZATION || name == COOKIE || name == PROXY_AUTHORIZATION || value.is_sensitive()
}

/// `request` as the cache reads it and keeps it: its credentials and body off. A query sent with
/// a body is read as the GET it stands for (its body is in the key): RFC 9111 lets no POST answer
/// a later request, and these answers only ever stand in for a failed call.
pub(crate) fn asked(request: &Outgoing) -> Outgoing {
    let http_method = match request.http_method {
        reqwest::Method::GET | reqwest::Method::HEAD => request.http_method.clone(),
        _ => reqwest::Method::GET,
    };
    Outgoing {
        call: request.call,
        http_method,
        url: request.url.clone(),
        headers: request
            .headers
            .iter()
            .filter(|(name, value)| !is_credential(name, value))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect(),
        body: None,
    }
}

//! Interceptors: user code that sees each attempt before it is sent (to add or sign headers,
//! change the query or the body) and each response after it is read (to verify it).
//!
//! Order on the way out: profile headers → auth → the spec's `interceptors:` → the builder's
//! `.interceptor(..)`s. An interceptor's error fails the call with `ErrorKind::Interceptor`,
//! and is not retried.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use reqwest::header::HeaderMap;

use crate::error::{Error, ErrorKind};
use crate::wire::response::Response;

/// An interceptor's error: any error type, boxed.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Which call an attempt belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallInfo {
    /// The client's name, e.g. `UserClient`.
    pub client: &'static str,
    /// The method's spec name, e.g. `get_user`.
    pub method: &'static str,
    /// 1 for the first attempt.
    pub attempt: u32,
}

/// One attempt's request, as interceptors may change it.
#[derive(Debug)]
pub struct Outgoing {
    /// The call it belongs to.
    pub call: CallInfo,
    /// The HTTP method.
    pub http_method: reqwest::Method,
    /// The full URL, query included.
    pub url: reqwest::Url,
    /// The headers so far (profile headers and credentials included).
    pub headers: HeaderMap,
    /// The body, if any.
    pub body: Option<Bytes>,
}

impl Outgoing {
    /// The request to send, built whole: reqwest's builder would merge this header map into an
    /// empty one, entry by entry.
    pub(crate) fn into_request(self) -> reqwest::Request {
        let mut request = reqwest::Request::new(self.http_method, self.url);
        *request.headers_mut() = self.headers;
        *request.body_mut() = self.body.map(reqwest::Body::from);
        request
    }
}

/// Hooks around every attempt of a client's calls. Implement either or both; `async fn` works.
///
/// ```
/// use remcall::{BoxError, Interceptor, Outgoing};
///
/// #[derive(Default)]
/// struct Tenant;
///
/// impl Interceptor for Tenant {
///     async fn before_send(&self, request: &mut Outgoing) -> Result<(), BoxError> {
///         request.headers.insert("x-tenant", "acme".parse()?);
///         Ok(())
///     }
/// }
/// ```
pub trait Interceptor: Send + Sync + 'static {
    /// Called before each attempt is sent.
    fn before_send(
        &self,
        request: &mut Outgoing,
    ) -> impl Future<Output = Result<(), BoxError>> + Send {
        let _ = request;
        async { Ok(()) }
    }

    /// Called after each response is read, whatever its status.
    fn after_receive(
        &self,
        call: &CallInfo,
        response: &Response,
    ) -> impl Future<Output = Result<(), BoxError>> + Send {
        let _ = (call, response);
        async { Ok(()) }
    }
}

type BoxFuture<'a> = Pin<Box<dyn Future<Output = Result<(), BoxError>> + Send + 'a>>;

/// [`Interceptor`] made object-safe, so a client holds a list of different ones.
pub(crate) trait DynInterceptor: Send + Sync + std::fmt::Debug {
    fn before_send<'a>(&'a self, request: &'a mut Outgoing) -> BoxFuture<'a>;
    fn after_receive<'a>(&'a self, call: &'a CallInfo, response: &'a Response) -> BoxFuture<'a>;
}

/// Wraps a user's interceptor; the name is its type's, for Debug.
pub(crate) struct Erased<T>(pub(crate) T);

impl<T> std::fmt::Debug for Erased<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(std::any::type_name::<T>())
    }
}

impl<T: Interceptor> DynInterceptor for Erased<T> {
    fn before_send<'a>(&'a self, request: &'a mut Outgoing) -> BoxFuture<'a> {
        Box::pin(self.0.before_send(request))
    }

    fn after_receive<'a>(&'a self, call: &'a CallInfo, response: &'a Response) -> BoxFuture<'a> {
        Box::pin(self.0.after_receive(call, response))
    }
}

/// Runs every interceptor's `before_send` in order; the first refusal fails the attempt.
pub(crate) async fn before_send(
    interceptors: &[Arc<dyn DynInterceptor>],
    request: &mut Outgoing,
) -> Result<(), Error> {
    for interceptor in interceptors {
        interceptor
            .before_send(request)
            .await
            .map_err(|e| refused("request", e))?;
    }
    Ok(())
}

/// Runs every interceptor's `after_receive` in order; the first refusal fails the attempt.
pub(crate) async fn after_receive(
    interceptors: &[Arc<dyn DynInterceptor>],
    call: &CallInfo,
    response: &Response,
) -> Result<(), Error> {
    for interceptor in interceptors {
        interceptor
            .after_receive(call, response)
            .await
            .map_err(|e| refused("response", e))?;
    }
    Ok(())
}

fn refused(what: &str, error: BoxError) -> Error {
    Error::new(
        ErrorKind::Interceptor,
        format!("an interceptor refused the {what}: {error}"),
    )
}

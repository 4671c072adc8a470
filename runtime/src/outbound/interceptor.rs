//! Interceptors: user code that sees each attempt before it is sent (to add or sign headers,
//! change the query or the body) and each response after it is read (to verify it).
//!
//! Order on the way out: profile headers → auth → the spec's `interceptors:` → the builder's
//! `.interceptor(..)`s. An interceptor's error fails the call with `ErrorKind::Interceptor`,
//! and is not retried.

pub use crate::wire::outgoing::{CallInfo, Outgoing};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};

/// An interceptor's error: any error type, boxed.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

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

//! Where an answer came from: the server, a kept answer past its freshness that stood in for a
//! failure (`cache.stale_if_error`), or a fallback. A generated method hands back the answer
//! alone, so a caller that must say its data may be old (a service answering its own callers)
//! runs its calls in [`observed`] and reads the origin beside their result.
//!
//! ```no_run
//! # async fn handler() {
//! // let (user, origin) = remcall::origin::observed(users.get_user(7, None, "r")).await;
//! let (_, origin) = remcall::origin::observed(async { /* remcall calls */ }).await;
//! if origin.is_some_and(|o| o != remcall::Origin::Server) {
//!     // tell the caller the data may be stale
//! }
//! # }
//! ```

use std::cell::Cell;
use std::future::Future;

/// Where a call's answer came from, from the freshest to the least fresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// The server's answer (or a kept one still fresh by the server's own `Cache-Control`,
    /// which HTTP holds to be the same).
    Server,
    /// A kept answer past its freshness, standing in for a failure (`cache.stale_if_error`);
    /// counted in `MethodStats::served_stale`.
    Stale,
    /// The method's fallback, answering for a failure; counted in `MethodStats::fallbacks`.
    Fallback,
}

tokio::task_local! {
    static SEEN: Cell<Option<Origin>>;
}

/// Runs `calls` and says where the answers of the remcall calls inside came from (on the same
/// task): the least fresh of them, `None` when none answered.
pub async fn observed<F: Future>(calls: F) -> (F::Output, Option<Origin>) {
    SEEN.scope(Cell::new(None), async move {
        let output = calls.await;
        (output, SEEN.with(Cell::get))
    })
    .await
}

/// A call answered from `origin`: noted in the [`observed`] scope it runs in, if any.
pub(crate) fn note(origin: Origin) {
    let _ = SEEN.try_with(|seen| seen.set(seen.get().max(Some(origin))));
}

//! The axum `Router` of a generated receiver: one POST route per path its events are
//! delivered to, each taking deliveries through the [`Inbox`].

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use axum::routing::post;

use super::delivery::{Delivery, Handling};
use super::events::Events;
use super::inbox::Inbox;

/// The routes of `events`, handing each verified delivery to `dispatch` with the `receiver`
/// (what a generated `webhooks::router` calls). Mount it where the sender delivers:
/// `Router::new().nest("/hooks/payments", router)`.
pub fn router<R: Send + Sync + 'static>(
    events: &'static Events,
    inbox: Inbox,
    receiver: Arc<R>,
    dispatch: fn(Arc<R>, Delivery) -> Handling,
) -> Router {
    inbox.serve(events.client);
    events
        .paths()
        .into_iter()
        .fold(Router::new(), |router, path| {
            let inbox = inbox.clone();
            let receiver = receiver.clone();
            router.route(
                path,
                post(move |request: Request<Body>| {
                    let inbox = inbox.clone();
                    let receiver = receiver.clone();
                    async move {
                        inbox
                            .receive(events, path, request, receiver, dispatch)
                            .await
                    }
                }),
            )
        })
}

//! One call as its steps read it: the client, the method's state and the request, made once
//! where the call starts and handed to each step, so that no step looks them up for another.

use crate::client::{Client, MethodState};
use crate::wire::request::Request;

/// The client making a call, its method's state and the request; copied into each step (three
/// references, what each step held before, in one value).
#[derive(Clone, Copy)]
pub(super) struct Call<'a> {
    pub(super) client: &'a Client,
    pub(super) state: &'a MethodState,
    pub(super) request: &'a Request,
}

impl<'a> Call<'a> {
    /// `request`'s call by `client`.
    pub(super) fn of(client: &'a Client, request: &'a Request) -> Call<'a> {
        Call {
            client,
            state: client.shared.method(request.method),
            request,
        }
    }
}

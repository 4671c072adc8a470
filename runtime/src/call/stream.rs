//! Event and JSON Lines streams: a call that stays open. Its opening is a call like any other
//! (rate limit, breaker, bulkhead, the attempts with their retries), recorded once when the
//! response headers come; then the bulkhead slot is held while the body is read, each silence
//! bounded by `timeout.idle`. A stream that breaks (reset, truncated, idle) is resumed when
//! `outcome::stream_resumes` says so: reopened with `Last-Event-ID` after the server's `retry:`
//! or the backoff, within the retry budget; otherwise it ends with an error saying how many
//! items it delivered.

use std::collections::VecDeque;
use std::pin::pin;
use std::task::Poll;

use reqwest::header::{ACCEPT, HeaderName, HeaderValue};
use tokio::time::Instant;
use tracing::Instrument;

use super::admission::{Admission, breaker_permit};
use super::parts::Call;
use super::when::When;
use crate::client::{Client, MethodState};
use crate::decode::response::Response;
use crate::error::Error;
use crate::observe::probe::{self, Decision};
use crate::outcome::{self, StreamBreak};
use crate::policy::retry::backoff;
use crate::stream::lines::LineSplitter;
use crate::stream::sse::SseParser;
use crate::stream::{
    Events, EventsSpec, Feed, Format, Lines, LinesFormat, LinesSpec, Owner, Sender, SseFormat,
};
use crate::wire::request::Request;

const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

impl Client {
    /// Opens a Server-Sent Events stream read as `stream` says: each event's data decoded, the
    /// data that ends it (`[DONE]`) and its error events, when the method declares them.
    pub async fn call_events<T: Send + 'static>(
        &self,
        request: Request,
        stream: &EventsSpec<T>,
    ) -> Result<Events<T>, Error> {
        let settings = &self.shared.method(request.method).settings;
        let format = SseFormat {
            parser: SseParser::new(limit(settings.max_event_bytes)),
            decode: stream.decode,
            end: stream.end,
            errors: stream.errors,
            ended: false,
            reported: false,
            names: Owner {
                client: self.shared.spec.name,
                method: request.method.name,
                body_shown: settings.body_in_message,
            },
        };
        self.open(request, format).await.map(Events::from_feed)
    }

    /// Opens a JSON Lines stream read as `stream` says: each line decoded, and its error lines
    /// when the method declares them.
    pub async fn call_lines<T: Send + 'static>(
        &self,
        request: Request,
        stream: &LinesSpec<T>,
    ) -> Result<Lines<T>, Error> {
        let settings = &self.shared.method(request.method).settings;
        let format = LinesFormat {
            splitter: LineSplitter::new(limit(settings.max_event_bytes)),
            decode: stream.decode,
            errors: stream.errors,
            reported: false,
            names: Owner {
                client: self.shared.spec.name,
                method: request.method.name,
                body_shown: settings.body_in_message,
            },
        };
        self.open(request, format).await.map(Lines::from_feed)
    }

    /// Starts the stream's producer and runs it until the stream is open or has failed to.
    async fn open<F: Format>(
        &self,
        mut request: Request,
        format: F,
    ) -> Result<Feed<F::Item>, Error> {
        // The media types the format reads, unless the call or the method's profile asks for
        // one itself (a twin that a server tells from its JSON sibling by `Accept` only).
        let profile_accepts = self
            .shared
            .method(request.method)
            .headers
            .contains_key(ACCEPT);
        if !profile_accepts && !request.headers.iter().any(|(name, _)| name == ACCEPT) {
            request
                .headers
                .push((ACCEPT, HeaderValue::from_static(format.accept())));
        }
        let method = request.method;
        // One span for the stream's life, entered whenever its consumer polls: the opening's
        // attempts and every resumption log inside it. Not entered when nobody listens.
        let probe = self.shared.method(method).probe.stream();
        let client = self.clone();
        let mut feed = match probe.span() {
            None => Feed::new(move |out| client.produce(request, format, out)),
            Some(span) => {
                let span = span.clone();
                Feed::new(move |out| client.produce(request, format, out).instrument(span))
            }
        };
        feed.open().await?;
        // In the caller's task, where an `origin::observed` scope is (the producer's is its own).
        crate::origin::note(crate::origin::Origin::Server);
        Ok(feed)
    }

    /// The stream's life: opened (steps 1–5, the slot kept), read, resumed, closed.
    async fn produce<F: Format>(self, mut request: Request, mut format: F, out: Sender<F::Item>) {
        let method = request.method;
        let state = self.shared.method(method);
        let named = |e: Error| e.in_call(self.shared.spec.name, method.name);
        request.download = true;
        let call = Call::of(&self, &request);
        let admitted = match Admission::of(call).admit().await {
            Ok(admitted) => admitted,
            Err(error) => {
                let error = named(error);
                probe::stream_ended(0, Some(&error));
                return out.opened(Err(error));
            }
        };
        let answered = Self::isolated(call, &admitted)
            .await
            .map_err(|unanswered| unanswered.error);
        let dropped = outcome::dropped(&answered);
        let opened = answered.and_then(Response::into_live);
        let (bulkhead, rtt) = admitted.settle(state, &opened, Instant::now());
        state.probe.stream_opened(opened.as_ref().err(), rtt);
        let mut response = match opened {
            Ok(response) => response,
            Err(error) => {
                bulkhead.finish(rtt, dropped);
                let error = named(error);
                probe::stream_ended(0, Some(&error));
                return out.opened(Err(error));
            }
        };
        out.opened(Ok(()));
        let _open = state.counters.stream_opened();
        let mut read = Read::default();
        // The opening's request stays borrowed by its admission (the bulkhead slot it holds);
        // a resumption changes a copy, made when the stream first breaks.
        let mut resumed: Option<Request> = None;
        while let Some(broke) = read_body(
            &self,
            &mut response,
            &mut format,
            (method, state),
            &out,
            &mut read,
        )
        .await
        {
            let request = resumed.get_or_insert_with(|| request.clone());
            match self.resume(state, request, &format, broke, &mut read).await {
                Ok(reopened) => {
                    response = reopened;
                    format.reconnected();
                }
                Err(error) => {
                    state.counters.record_stream_broken();
                    let error = named(error);
                    probe::stream_ended(read.delivered, Some(&error));
                    out.push(F::failed(error));
                    return bulkhead.finish(rtt, false);
                }
            }
        }
        // An error event ended it: a partial answer, counted with the broken streams.
        if format.reported() {
            state.counters.record_stream_broken();
        }
        probe::stream_ended(read.delivered, None);
        bulkhead.finish(rtt, false);
    }

    /// Reopens a broken stream from its last event id, or says why it ends.
    async fn resume<F: Format>(
        &self,
        state: &MethodState,
        request: &mut Request,
        format: &F,
        broke: StreamBreak,
        read: &mut Read,
    ) -> Result<reqwest::Response, Error> {
        let method = request.method;
        let retry = &state.settings.retry;
        let failed = outcome::stream_break(broke);
        let delivered = read.delivered;
        let resume_from = format.resume_from().map(str::to_owned);
        if let Err(why) =
            outcome::stream_resumes(retry, &failed, method.idempotent, resume_from.as_deref())
        {
            return Err(failed.error.broke_off(delivered, why));
        }
        // A server that breaks every stream before its first item is not resumed for ever.
        read.in_a_row = if read.delivered > read.at_last_resume {
            1
        } else {
            read.in_a_row + 1
        };
        read.at_last_resume = read.delivered;
        if read.in_a_row >= retry.max_attempts {
            return Err(failed.error.broke_off(
                delivered,
                "resumed as often as `retry.max_attempts` allows, with nothing new",
            ));
        }
        // The server's `retry:` is its wish, bounded as its `Retry-After` is: a stream asking
        // for a day would hold its bulkhead slot outside every timer.
        let wait = format
            .reconnection_time()
            .filter(|_| !retry.retry_after_max.is_zero())
            .map(|asked| asked.min(retry.retry_after_max))
            .unwrap_or_else(|| backoff(retry, read.in_a_row, fastrand::f64()));
        // A stream has no deadline of its own: the fleet is waited on as the link allows.
        if !self.retry_allowed(state, Instant::now(), None).await {
            return Err(failed
                .error
                .broke_off(delivered, "the retry budget is spent"));
        }
        state.decided(Decision::Resuming {
            wait,
            delivered,
            error: &failed.error,
        });
        Box::pin(tokio::time::sleep(wait)).await;
        if let Some(id) = resume_from {
            let value = HeaderValue::from_str(&id).map_err(|_| {
                failed
                    .error
                    .clone()
                    .broke_off(delivered, "its last event id cannot be sent as a header")
            })?;
            request.headers.retain(|(name, _)| name != LAST_EVENT_ID);
            request.headers.push((LAST_EVENT_ID, value));
        }
        let reopened = self.reopen(state, request).await;
        match reopened {
            Ok(response) => {
                state.counters.record_resume();
                Ok(response)
            }
            Err(error) => Err(error.broke_off(delivered, "its resumption failed")),
        }
    }

    /// A resumption's request: through the breaker (its outcome recorded there) and the
    /// attempts, within the method's total deadline; not through the rate limit or the bulkhead,
    /// whose turn and slot the stream already holds.
    async fn reopen(
        &self,
        state: &MethodState,
        request: &Request,
    ) -> Result<reqwest::Response, Error> {
        let now = Instant::now();
        let permit = breaker_permit(state, now)?;
        let when = When {
            attempt: 1,
            sent: now,
            deadline: now + state.settings.total_timeout,
            callers: false,
        };
        // The request reads its answer live (`produce` said so). A download is never kept: no
        // stale answer rides with its failure.
        let result = super::attempts::Retries::of(Call::of(self, request))
            .run(permit.is_trial(), when)
            .await
            .map_err(|unanswered| unanswered.error)
            .and_then(Response::into_live);
        let finished = Instant::now();
        let outcome = outcome::for_breaker(
            &result,
            finished - now,
            &state.settings.breaker,
            state.breaker.slow_over(),
        );
        state.breaker.record(permit, outcome, finished);
        result
    }
}

/// What has been read of a stream, across its resumptions.
#[derive(Default)]
struct Read {
    /// Items handed to the consumer.
    delivered: u64,
    /// `delivered` when it was last resumed.
    at_last_resume: u64,
    /// Resumptions in a row with no new item between them.
    in_a_row: u32,
}

/// Reads the body until it ends (`None`: the stream is over) or breaks. With `decode: lax`,
/// each event's data and each line is repaired as a body is, and its drift counted.
async fn read_body<F: Format>(
    client: &Client,
    response: &mut reqwest::Response,
    format: &mut F,
    (method, state): (&'static crate::spec::MethodSpec, &MethodState),
    out: &Sender<F::Item>,
    read: &mut Read,
) -> Option<StreamBreak> {
    let lax = state.settings.decode == remcall_profile::DecodeMode::Lax;
    let decoded = |decode: &mut dyn FnMut() -> Result<bool, crate::stream::sse::TooLong>| {
        let (result, seen) = crate::decode::answer(lax, decode);
        if !seen.is_empty() {
            let mut noticed = seen.undeclared;
            noticed.extend(seen.repairs);
            crate::observe::drift_warning::warn_new(
                &state.counters,
                client.shared.spec.name,
                method,
                noticed,
            );
        }
        result
    };
    let idle = state.settings.idle_timeout;
    let mut batch = VecDeque::new();
    // One timer for the stream, moved on only when it fires: resetting it at every chunk would
    // cost a timer-wheel update per chunk.
    let mut heard = Instant::now();
    let mut silence = pin!(tokio::time::sleep_until(heard + idle));
    loop {
        let chunk = {
            let mut next = pin!(response.chunk());
            std::future::poll_fn(|cx| {
                if let Poll::Ready(chunk) = next.as_mut().poll(cx) {
                    return Poll::Ready(Some(chunk));
                }
                while silence.as_mut().poll(cx).is_ready() {
                    if Instant::now() >= heard + idle {
                        return Poll::Ready(None);
                    }
                    silence.as_mut().reset(heard + idle);
                }
                Poll::Pending
            })
            .await
        };
        let bytes = match chunk {
            None => return Some(StreamBreak::Idle(idle)),
            Some(Err(error)) => return Some(StreamBreak::Transport(error)),
            Some(Ok(None)) => {
                let whole = decoded(&mut || Ok(format.finish(&mut batch))).unwrap_or(false);
                read.delivered += batch.len() as u64;
                state.counters.record_events(batch.len());
                out.send(&mut batch).await;
                return (!whole).then_some(StreamBreak::Truncated);
            }
            Some(Ok(Some(bytes))) => bytes,
        };
        heard = Instant::now();
        state.counters.record_stream_bytes(bytes.len());
        let fed = decoded(&mut || format.feed(&bytes, &mut batch));
        read.delivered += batch.len() as u64;
        state.counters.record_events(batch.len());
        out.send(&mut batch).await;
        match fed {
            Ok(true) => return None,
            Ok(false) => {}
            Err(too_long) => return Some(StreamBreak::TooLong(too_long.limit)),
        }
    }
}

/// `max_event_bytes` as a length in memory.
fn limit(bytes: u64) -> usize {
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

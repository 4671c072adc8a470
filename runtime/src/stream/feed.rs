//! A producing future turned into a `Stream`: the future parses a chunk into a batch of items
//! and hands it over, and is polled again only when the consumer has taken the batch, so at
//! most one chunk's items wait in memory.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use crate::error::Error;

/// Items a producing future has handed over, and whether its stream opened.
pub(crate) struct Outbox<I> {
    items: VecDeque<I>,
    opened: Option<Result<(), Error>>,
}

/// The producer's end of a [`Feed`].
pub(crate) struct Sender<I>(Arc<Mutex<Outbox<I>>>);

impl<I> Sender<I> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Outbox<I>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Says whether the stream opened; the consumer's `open` returns it.
    pub(crate) fn opened(&self, result: Result<(), Error>) {
        self.lock().opened = Some(result);
    }

    /// Hands `batch` over and waits until the consumer has taken it.
    pub(crate) async fn send(&self, batch: &mut VecDeque<I>) {
        if batch.is_empty() {
            return;
        }
        self.lock().items.append(batch);
        Handoff(false).await;
    }

    /// Hands one item over (the last, or an error), without waiting.
    pub(crate) fn push(&self, item: I) {
        self.lock().items.push_back(item);
    }
}

/// Pending once, so the consumer takes what was handed over before the producer reads on. It
/// wakes nobody: the consumer that polled it is the one that will take the items and poll it
/// again.
struct Handoff(bool);

impl Future for Handoff {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if std::mem::replace(&mut self.0, true) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

type Producer = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A producing future and the items it has handed over, read as a stream.
pub(crate) struct Feed<I> {
    outbox: Arc<Mutex<Outbox<I>>>,
    producer: Option<Producer>,
}

impl<I: Send + 'static> Feed<I> {
    /// A feed whose items `produce` makes with the sender it is given.
    pub(crate) fn new<P>(produce: impl FnOnce(Sender<I>) -> P) -> Feed<I>
    where
        P: Future<Output = ()> + Send + 'static,
    {
        let outbox = Arc::new(Mutex::new(Outbox {
            items: VecDeque::new(),
            opened: None,
        }));
        let producer = Box::pin(produce(Sender(outbox.clone())));
        Feed {
            outbox,
            producer: Some(producer),
        }
    }

    pub(super) fn ready(items: VecDeque<I>) -> Feed<I> {
        Feed {
            outbox: Arc::new(Mutex::new(Outbox {
                items,
                opened: Some(Ok(())),
            })),
            producer: None,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Outbox<I>> {
        self.outbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs the producer until it says whether the stream opened.
    pub(crate) async fn open(&mut self) -> Result<(), Error> {
        std::future::poll_fn(|cx| {
            loop {
                if let Some(opened) = self.lock().opened.take() {
                    return Poll::Ready(opened);
                }
                match self.producer.as_mut().map(|p| p.as_mut().poll(cx)) {
                    Some(Poll::Pending) if self.lock().opened.is_none() => return Poll::Pending,
                    Some(Poll::Pending) => {}
                    Some(Poll::Ready(())) | None => {
                        self.producer = None;
                        let opened = self.lock().opened.take();
                        return Poll::Ready(opened.unwrap_or_else(|| {
                            Err(Error::fixed(
                                crate::error::ErrorKind::Decode,
                                "the stream ended before it opened",
                            ))
                        }));
                    }
                }
            }
        })
        .await
    }

    pub(super) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<I>> {
        if let Some(item) = self.lock().items.pop_front() {
            return Poll::Ready(Some(item));
        }
        let Some(producer) = &mut self.producer else {
            return Poll::Ready(None);
        };
        let finished = producer.as_mut().poll(cx).is_ready();
        if finished {
            // The connection and the bulkhead slot go now, not when the stream is dropped.
            self.producer = None;
        }
        match self.lock().items.pop_front() {
            Some(item) => Poll::Ready(Some(item)),
            None if finished => Poll::Ready(None),
            None => Poll::Pending,
        }
    }
}

impl<I> Feed<I> {
    /// Whether the producer has finished (what a stream's `Debug` shows).
    pub(super) fn is_done(&self) -> bool {
        self.producer.is_none()
    }
}

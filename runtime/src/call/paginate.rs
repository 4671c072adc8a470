//! Pagination: a method's pages as a stream of items, each page a logical call of its own
//! through the whole pipeline (retries, breaker, limits apply per page), fetched when the items
//! before it have been taken.
//!
//! Five styles: a cursor (from the last item, as Stripe's `starting_after`, or from a field of
//! the page, `next_cursor`) sent back as a query parameter; a next-page URL in the body (Twilio's
//! `next_page_uri`); a `Link: <…>; rel="next"` header (GitHub's); an offset or a page number
//! counted up in a query parameter. A next URL is followed only to the client's own endpoints:
//! credentials must not follow it anywhere else.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::client::Client;
use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};
use crate::wire::request::Request;

mod next;
use next::{at, content_hash, next_request, shown};

/// How a method's pages are read: where the items are and where the next page is.
#[derive(Debug)]
pub struct Paging {
    /// The path of the list in the page's JSON (wire names); empty: the page is the list.
    pub items: &'static [&'static str],
    /// Where the next page is.
    pub next: NextPage,
    /// The page parameters (cursor, offset, page number, page size) are fields of the JSON body
    /// rather than query parameters: a `POST …/filter {limit, offset}`.
    pub in_body: bool,
}

/// Where the next page is.
#[derive(Debug)]
pub enum NextPage {
    /// The last item's `field`, sent as the query parameter `param`, while the page's `has_more`
    /// (when there is one) is true.
    ItemCursor {
        /// The query parameter.
        param: &'static str,
        /// The path of the cursor in an item.
        field: &'static [&'static str],
        /// The path of the page's "more to come" flag.
        has_more: Option<&'static [&'static str]>,
    },
    /// The page's `field`, sent as the query parameter `param`; no value (or an empty one) ends.
    BodyCursor {
        /// The query parameter.
        param: &'static str,
        /// The path of the cursor in the page.
        field: &'static [&'static str],
    },
    /// The URL in the page's `field`; none ends.
    BodyUrl {
        /// The path of the URL in the page.
        field: &'static [&'static str],
    },
    /// The URL of the `Link` header entry with this `rel`; none ends.
    LinkHeader {
        /// The relation, usually `next`.
        rel: &'static str,
    },
    /// The URL in the response header `header` (Kinto's `Next-Page`); none, or an empty one,
    /// ends.
    HeaderUrl {
        /// The header's name.
        header: &'static str,
    },
    /// The query parameter `param` is the offset of the page's first item (0 when the first
    /// request leaves it out); the next page's is this one's plus its items. Ends on an empty page,
    /// a page shorter than the `limit` parameter asked for, or at the page's `total`.
    Offset {
        /// The offset's query parameter.
        param: &'static str,
        /// The query parameter of the page size, when there is one.
        limit: Option<&'static str>,
        /// The path of the total item count in the page, when there is one.
        total: Option<&'static [&'static str]>,
    },
    /// The query parameter `param` is the page's number (the page's own `current` number when
    /// it has one, else the request's, else `first`); the next page's is one more. Ends on an
    /// empty page, a page shorter than the `limit` parameter asked for, after the page's
    /// `total_pages`, once the page's `total` of items is given, or at a 404 for a page past
    /// the last (Django REST framework's "Invalid page.").
    PageNumber {
        /// The page number's query parameter.
        param: &'static str,
        /// The number of the first page, usually 1.
        first: u64,
        /// The query parameter of the page size, when there is one.
        limit: Option<&'static str>,
        /// The path of the page count in the page, when there is one.
        total_pages: Option<&'static [&'static str]>,
        /// The path of the item count in the page, when there is one.
        total: Option<&'static [&'static str]>,
        /// The path of the page's own number in the page, when there is one: it, not the
        /// request's, is the one counted on from.
        current: Option<&'static [&'static str]>,
    },
}

impl NextPage {
    /// The next page's number or offset is counted here, not given by the server: a page past
    /// the last may be asked for.
    fn is_counted(&self) -> bool {
        matches!(self, NextPage::Offset { .. } | NextPage::PageNumber { .. })
    }
}

type PageFuture<T> = Pin<Box<dyn Future<Output = Result<Page<T>, Error>> + Send>>;

struct Page<T> {
    items: Vec<T>,
    /// A hash of the items as they came, for a non-empty page.
    content: Option<u64>,
    /// The next page's request, or why there is none to follow (a URL elsewhere): the items of
    /// this page still count.
    next: Result<Option<Request>, Error>,
    /// The method, to name it in an error.
    method: &'static str,
}

/// A method's items, page after page. A [`Stream`]; without a stream library,
/// `while let Some(item) = pages.next().await`. An error ends the stream after it is given.
pub struct Pages<T> {
    client: Client,
    paging: &'static Paging,
    buffer: VecDeque<T>,
    next: Option<Request>,
    fetching: Option<PageFuture<T>>,
    /// Every page fetched, by a hash of its URL or cursor: a server that points at one again
    /// (itself, or `a` → `b` → `a`) would loop for ever. Eight bytes a page.
    seen: HashSet<u64>,
    /// Every non-empty page's items, hashed: a server that ignores an offset or page number
    /// would give the same page for ever.
    contents: HashSet<u64>,
    /// Empty pages in a row so far: a server that answers only empty pages, each pointing at
    /// another, would be followed for ever without an item to stop the consumer.
    empty_run: u32,
    /// An error to give once the items before it are taken.
    failed: Option<Error>,
    /// Pages asked for so far.
    asked: u32,
}

// Items are only ever moved, never pinned: the stream is `Unpin` whatever they are.
impl<T> Unpin for Pages<T> {}

impl<T> std::fmt::Debug for Pages<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages")
            .field("buffered", &self.buffer.len())
            .field("more", &(self.next.is_some() || self.fetching.is_some()))
            .finish_non_exhaustive()
    }
}

impl Client {
    /// The items of `first` and of the pages after it, as `paging` finds them.
    pub fn paginate<T: DeserializeOwned + Send + 'static>(
        &self,
        first: Request,
        paging: &'static Paging,
    ) -> Pages<T> {
        Pages {
            client: self.clone(),
            paging,
            buffer: VecDeque::new(),
            seen: HashSet::from([pointer_hash(&first.page_pointer())]),
            next: Some(first),
            fetching: None,
            contents: HashSet::new(),
            empty_run: 0,
            failed: None,
            asked: 0,
        }
    }
}

impl<T: DeserializeOwned + Send + 'static> Pages<T> {
    /// The next item, fetching the next page when this one is used up; `None` after the last.
    pub async fn next(&mut self) -> Option<Result<T, Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    fn fetch(&self, request: Request) -> PageFuture<T> {
        let client = self.client.clone();
        let paging = self.paging;
        let origins = client.origins();
        Box::pin(async move {
            let again = request.clone();
            let method = request.method.name;
            // The call names its errors, decoding ones included; a refused next URL is named here.
            let mut page = client
                .call(request, move |response| {
                    read_page(response, paging, again, &origins)
                })
                .await?;
            page.next = page.next.map_err(|e| e.in_call(client.name(), method));
            Ok(page)
        })
    }
}

impl<T: DeserializeOwned + Send + 'static> Stream for Pages<T> {
    type Item = Result<T, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(item) = this.buffer.pop_front() {
                return Poll::Ready(Some(Ok(item)));
            }
            if let Some(fetching) = &mut this.fetching {
                let page = match fetching.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(page) => page,
                };
                this.fetching = None;
                let page = match page {
                    Ok(page) => page,
                    // A page counted past the last: Django REST framework answers 404
                    // ("Invalid page.") where others answer an empty page.
                    Err(error)
                        if this.asked > 1
                            && this.paging.next.is_counted()
                            && error.status() == Some(reqwest::StatusCode::NOT_FOUND) =>
                    {
                        return Poll::Ready(None);
                    }
                    Err(error) => return Poll::Ready(Some(Err(error))),
                };
                let repeated = |what: &str| {
                    Error::new(
                        ErrorKind::Decode,
                        format!("the server {what}; stopped rather than loop"),
                    )
                    .in_call(this.client.name(), page.method)
                };
                if page.content.is_some_and(|hash| !this.contents.insert(hash)) {
                    // Its items were given already: stop before giving them twice.
                    return Poll::Ready(Some(Err(repeated(
                        "gave the items of an earlier page again",
                    ))));
                }
                this.empty_run = if page.items.is_empty() {
                    this.empty_run.saturating_add(1)
                } else {
                    0
                };
                this.buffer.extend(page.items);
                match page.next {
                    Ok(Some(next)) => {
                        let limit = this
                            .client
                            .shared
                            .method(next.method)
                            .settings
                            .max_empty_pages;
                        if this.empty_run > limit {
                            this.failed = Some(repeated(&format!(
                                "gave {} empty pages in a row, each pointing at another \
                                 (the profile's `max_empty_pages` is {limit})",
                                this.empty_run
                            )));
                        } else if this.seen.insert(pointer_hash(&next.page_pointer())) {
                            this.next = Some(next);
                        } else {
                            this.failed = Some(repeated("pointed at a page it had already given"));
                        }
                    }
                    Ok(None) => {}
                    Err(error) => this.failed = Some(error),
                }
                continue;
            }
            if let Some(error) = this.failed.take() {
                return Poll::Ready(Some(Err(error)));
            }
            match this.next.take() {
                Some(request) => {
                    this.asked = this.asked.saturating_add(1);
                    this.fetching = Some(this.fetch(request));
                }
                None => return Poll::Ready(None),
            }
        }
    }
}

/// A page's URL or cursor, hashed: what is kept of every page to find a cycle.
fn pointer_hash(pointer: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    pointer.hash(&mut hasher);
    hasher.finish()
}

/// Reads one page: its items, and the request of the next page, if there is one.
fn read_page<T: DeserializeOwned>(
    response: Response,
    paging: &Paging,
    request: Request,
    origins: &[(String, String)],
) -> Result<Page<T>, Error> {
    let response_method = request.method.name;
    if request.method.not_found_none && response.status == reqwest::StatusCode::NOT_FOUND {
        // `not_found: none`: the call answers `None`, so the stream has no more items.
        return Ok(Page {
            items: Vec::new(),
            content: None,
            next: Ok(None),
            method: response_method,
        });
    }
    let page: Value = serde_json::from_slice(&response.body)
        .map_err(|e| Error::new(ErrorKind::Decode, "the page is not JSON").with_source(e))?;
    let list = at(&page, paging.items)
        .and_then(Value::as_array)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Decode,
                format!("the page has no list at `{}`", shown(paging.items)),
            )
        })?;
    let items = read_items(list)?;
    // A URL that may not be followed still leaves this page's items to give.
    let next = next_request(
        paging,
        &page,
        list,
        items.len(),
        &response,
        request,
        origins,
    );
    let content = (!list.is_empty()).then(|| content_hash(list));
    Ok(Page {
        items,
        content,
        next,
        method: response_method,
    })
}

/// The page's items, each as a `T`; the first that does not read fails the page.
fn read_items<T: DeserializeOwned>(list: &[Value]) -> Result<Vec<T>, Error> {
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            T::deserialize(item).map_err(|e| {
                Error::new(
                    ErrorKind::Decode,
                    format!("item {i} of the page does not read"),
                )
                .with_source(e)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;

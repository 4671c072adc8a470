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
use crate::outbound::endpoints::{without_query, without_userinfo};
use crate::wire::request::Request;

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

/// The next page's request as `next` finds it in this page (`page`, its `list` of `count`
/// items, the `response`'s headers) and this page's `request`; none after the last page, an
/// error for a next URL off the client's endpoints.
fn next_request(
    paging: &Paging,
    page: &Value,
    list: &[Value],
    count: usize,
    response: &Response,
    request: Request,
    origins: &[(String, String)],
) -> Result<Option<Request>, Error> {
    let in_body = paging.in_body;
    match &paging.next {
        NextPage::ItemCursor {
            param,
            field,
            has_more,
        } => {
            let more = has_more.is_none_or(|flag| at(page, flag) == Some(&Value::Bool(true)));
            let cursor = list.last().and_then(|last| at(last, field)).and_then(text);
            Ok(cursor
                .filter(|_| more)
                .map(|cursor| with_param(request, in_body, param, Value::String(cursor))))
        }
        NextPage::BodyCursor { param, field } => Ok(at(page, field)
            .and_then(text)
            .filter(|c| !c.is_empty())
            .map(|cursor| with_param(request, in_body, param, Value::String(cursor)))),
        NextPage::BodyUrl { field } => at(page, field)
            .and_then(Value::as_str)
            .filter(|url| !url.is_empty())
            .map(|url| next_at(request, url, origins))
            .transpose(),
        NextPage::LinkHeader { rel } => link(response, rel)
            .map(|url| next_at(request, &url, origins))
            .transpose(),
        NextPage::HeaderUrl { header } => response
            .headers
            .get(*header)
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
            .filter(|url| !url.is_empty())
            .map(|url| next_at(request, url, origins))
            .transpose(),
        NextPage::Offset {
            param,
            limit,
            total,
        } => {
            let offset = number_in(&request, in_body, param).unwrap_or(0);
            let next = offset.saturating_add(count as u64);
            let more = count > 0
                && !short(&request, in_body, *limit, count)
                && number_at(page, *total).is_none_or(|total| next < total);
            Ok(more.then(|| with_param(request, in_body, param, Value::from(next))))
        }
        NextPage::PageNumber {
            param,
            first,
            limit,
            total_pages,
            total,
            current,
        } => {
            let number = number_at(page, *current)
                .or_else(|| number_in(&request, in_body, param))
                .unwrap_or(*first);
            let next = number.saturating_add(1);
            // Items given once this page's are: the pages before it were as long as it asked
            // for (its `limit`), or as this one when it did not say.
            let size = limit
                .and_then(|limit| number_in(&request, in_body, limit))
                .unwrap_or(count as u64);
            let given = number
                .saturating_sub(*first)
                .saturating_mul(size)
                .saturating_add(count as u64);
            let more = count > 0
                && !short(&request, in_body, *limit, count)
                && number_at(page, *total_pages)
                    .is_none_or(|pages| next.saturating_sub(*first) < pages)
                && number_at(page, *total).is_none_or(|total| given < total);
            Ok(more.then(|| with_param(request, in_body, param, Value::from(next))))
        }
    }
}

/// The number at `path` of the page, when there is a path and a number there.
fn number_at(page: &Value, path: Option<&[&str]>) -> Option<u64> {
    at(page, path?).and_then(Value::as_u64)
}

/// A hash of a page's items as they came: a server that ignores an offset gives the same again.
fn content_hash(list: &[Value]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    list.len().hash(&mut hasher);
    for item in list {
        item.to_string().hash(&mut hasher);
    }
    hasher.finish()
}

/// The request for a next-page URL: its path and query sent to the client's endpoints, when it
/// names one of them (or none: a path alone).
fn next_at(request: Request, url: &str, origins: &[(String, String)]) -> Result<Request, Error> {
    let refused = || {
        // Origin and path only: the query may echo the client's key, the userinfo a password.
        let bare = without_userinfo(&without_query(url));
        let mut shown = String::new();
        let _ = crate::error::write_escaped(&mut shown, &crate::error::cut(&bare, 200));
        Error::new(
            ErrorKind::Decode,
            format!("the next page's URL `{shown}` is not on the client's endpoints; not followed"),
        )
    };
    let (path, query) = if url.starts_with('/') && !url.starts_with("//") {
        match url.split_once('?') {
            Some((path, query)) => (path.to_owned(), Some(query.to_owned())),
            None => (url.to_owned(), None),
        }
    } else {
        let parsed = reqwest::Url::parse(url).map_err(|_| refused())?;
        let origin = parsed.origin().ascii_serialization();
        // The endpoint's base path stays: a next URL below it is taken as the full path.
        if !origins.iter().any(|(o, _)| *o == origin) {
            return Err(refused());
        }
        (parsed.path().to_owned(), parsed.query().map(str::to_owned))
    };
    Ok(request.with_next_url(path, query))
}

/// The URL of the `Link` header entry whose `rel` is `rel` (RFC 8288).
fn link(response: &Response, rel: &str) -> Option<String> {
    for value in response.headers.get_all(reqwest::header::LINK) {
        let text = value.to_str().ok()?;
        for entry in text.split(',') {
            let mut parts = entry.split(';');
            let target = parts.next()?.trim();
            let target = target.strip_prefix('<')?.strip_suffix('>')?;
            let matches = parts.any(|param| {
                let param = param.trim();
                param
                    .strip_prefix("rel=")
                    .map(|v| v.trim_matches('"'))
                    .is_some_and(|v| v.split_whitespace().any(|r| r.eq_ignore_ascii_case(rel)))
            });
            if matches {
                return Some(target.to_owned());
            }
        }
    }
    None
}

/// The request's query parameter `name` as a number.
fn number_in(request: &Request, in_body: bool, name: &str) -> Option<u64> {
    if in_body {
        return request.body_field(name)?.as_u64();
    }
    request.query_value(name)?.parse().ok()
}

/// The next page's request: this one with the page parameter `name` set to `value`, in the
/// query or in the JSON body.
fn with_param(request: Request, in_body: bool, name: &'static str, value: Value) -> Request {
    if in_body {
        return request.with_body_field(name, value);
    }
    let text = match value {
        Value::String(text) => text,
        other => other.to_string(),
    };
    request.with_query(name, text)
}

/// The page has fewer items than the request's `limit` parameter asked for: the last one.
fn short(request: &Request, in_body: bool, limit: Option<&str>, items: usize) -> bool {
    limit
        .and_then(|name| number_in(request, in_body, name))
        .is_some_and(|limit| (items as u64) < limit)
}

fn at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(value, |value, key| value.get(*key))
}

/// A cursor's text: a string as it is, a number as its digits.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn shown(path: &[&str]) -> String {
    if path.is_empty() {
        "the top".to_owned()
    } else {
        path.join(".")
    }
}

impl Client {
    /// The origins (`http://host:port`) of the client's endpoints, with their base paths.
    fn origins(&self) -> Vec<(String, String)> {
        self.shared
            .endpoints
            .snapshot()
            .into_iter()
            .filter_map(|(url, _, _)| {
                let parsed = reqwest::Url::parse(&url).ok()?;
                Some((
                    parsed.origin().ascii_serialization(),
                    parsed.path().to_owned(),
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response_with_link(value: &'static str) -> Response {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::LINK,
            reqwest::header::HeaderValue::from_static(value),
        );
        Response {
            status: reqwest::StatusCode::OK,
            headers,
            body: bytes::Bytes::new(),
        }
    }

    #[test]
    fn link_headers_as_github_writes_them() {
        let response = response_with_link(
            r#"<https://api.test/repos?page=3>; rel="next", <https://api.test/repos?page=9>; rel="last""#,
        );
        assert_eq!(
            link(&response, "next").as_deref(),
            Some("https://api.test/repos?page=3")
        );
        assert_eq!(
            link(&response, "last").as_deref(),
            Some("https://api.test/repos?page=9")
        );
        assert_eq!(link(&response, "prev"), None);
    }
}

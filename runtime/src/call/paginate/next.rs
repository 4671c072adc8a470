//! A page's next request, in each of the five styles: a cursor, a next URL in the body or in a
//! header, an offset or a page number counted up. A next URL is followed only to the client's
//! own endpoints.

use serde_json::Value;

use super::{NextPage, Paging};
use crate::client::Client;
use crate::decode::response::Response;
use crate::error::{Error, ErrorKind};
use crate::outbound::endpoints::{without_query, without_userinfo};
use crate::wire::request::Request;

/// The next page's request as `next` finds it in this page (`page`, its `list` of `count`
/// items, the `response`'s headers) and this page's `request`; none after the last page, an
/// error for a next URL off the client's endpoints.
pub(super) fn next_request(
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
pub(super) fn content_hash(list: &[Value]) -> u64 {
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
pub(super) fn link(response: &Response, rel: &str) -> Option<String> {
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

pub(super) fn at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v Value> {
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

pub(super) fn shown(path: &[&str]) -> String {
    if path.is_empty() {
        "the top".to_owned()
    } else {
        path.join(".")
    }
}

impl Client {
    /// The origins (`http://host:port`) of the client's endpoints, with their base paths.
    pub(super) fn origins(&self) -> Vec<(String, String)> {
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

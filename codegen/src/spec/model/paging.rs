//! A method's `paginate:`: where a page's items are, and the one way to the next page it takes.

use schemars::JsonSchema;
use serde::Deserialize;

/// `paginate:`: where a page's items are, and one way to the next page.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PaginateDef {
    /// The field holding the page's items, a dotted path of field keys (`data`); none: the page
    /// is the list.
    pub items: Option<String>,
    /// A cursor sent back as a query parameter.
    pub cursor: Option<CursorDef>,
    /// The field holding the next page's URL (`next_page_uri`, `links.next`).
    pub next_url: Option<String>,
    /// The `rel` of the `Link` header entry naming the next page (`next`).
    pub link_header: Option<String>,
    /// The response header holding the next page's URL (Kinto's `Next-Page`).
    pub next_url_header: Option<String>,
    /// An offset sent as a query parameter, moved on by each page's items.
    pub offset: Option<OffsetDef>,
    /// A page number sent as a query parameter, one more each page.
    pub page_number: Option<PageNumberDef>,
}

/// An offset paging: `{ param: offset, limit: limit, total: total }`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OffsetDef {
    /// The offset's query parameter (a key of the method's `query:`), 0 when left out.
    pub param: String,
    /// The page size's query parameter: a page shorter than it asked for is the last.
    pub limit: Option<String>,
    /// The page's field holding the total item count: the stream ends there.
    pub total: Option<String>,
}

/// A page-number paging: `{ param: page, total_pages: meta.total_pages }`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageNumberDef {
    /// The page number's query parameter (a key of the method's `query:`).
    pub param: String,
    /// The number of the first page (the one a request without the parameter gets): 1 unless
    /// said.
    pub first: Option<u64>,
    /// The page size's query parameter: a page shorter than it asked for is the last.
    pub limit: Option<String>,
    /// The page's field holding the number of pages: the stream ends after it.
    pub total_pages: Option<String>,
    /// The page's field holding the number of items (Django REST framework's `count`): the
    /// stream ends when it has given them.
    pub total: Option<String>,
    /// The page's field holding its own number: the next page's is one more (for an API whose
    /// first page a request without the parameter gets, whatever its number).
    pub current: Option<String>,
}

/// A cursor: from the last item (`from_item: id`, while `has_more`) or from the page (`from:
/// next_cursor`), sent as the query parameter `param`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CursorDef {
    /// The query parameter (a key of the method's `query:`).
    pub param: String,
    /// The cursor's field in the last item.
    pub from_item: Option<String>,
    /// The cursor's field in the page.
    pub from: Option<String>,
    /// The page's boolean field saying more pages follow (with `from_item`).
    pub has_more: Option<String>,
}

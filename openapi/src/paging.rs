//! Which paging an imported list method uses, read from the names its description gives the
//! parts: a query parameter that goes back (a cursor, an offset, a page number) and the page's
//! fields that lead on (a next cursor, a next URL, a `has_more` flag, a total). Names are
//! compared without case, `_` or `-`, so `next_cursor`, `nextCursor` and `next-cursor` are one.
//! A method whose parts do not agree (a total with no offset to move) keeps no paging: a wrong
//! one would loop or skip pages, a missing one only leaves the caller to page by hand.

use crate::spec::{FieldOut, MethodOut, Paginate, TypeOut, Verb};
use crate::ty::{Encoding, Ty};
use crate::walk::Builder;

/// Query parameters a cursor goes back in.
const CURSOR_PARAMS: &[&str] = &[
    "cursor",
    "pagetoken",
    "pagecursor",
    "nextpagetoken",
    "continuationtoken",
    "continuation",
    "after",
    "starttoken",
    "marker",
];
/// Page fields holding the next cursor (at the top, or one object down: `meta.next_cursor`).
const NEXT_CURSORS: &[&str] = &[
    "nextcursor",
    "nextpagetoken",
    "nexttoken",
    "nextpagecursor",
    "continuationtoken",
    "nextmarker",
    "endcursor",
];
/// Query parameters the last item's id goes back in, while the page says there is more.
const ITEM_CURSOR_PARAMS: &[&str] = &["startingafter"];
const HAS_MORE: &[&str] = &["hasmore", "more", "hasnextpage"];
const OFFSET_PARAMS: &[&str] = &["offset", "skip", "start"];
const PAGE_PARAMS: &[&str] = &["page", "pagenumber", "pageno", "pagenum"];
const LIMIT_PARAMS: &[&str] = &[
    "limit",
    "pagesize",
    "perpage",
    "size",
    "count",
    "top",
    "maxresults",
    "take",
];
const TOTALS: &[&str] = &[
    "total",
    "totalcount",
    "totalresults",
    "totalitems",
    "totalrecords",
    "totalsize",
    "totalentries",
    "itemstotal",
];
const TOTAL_PAGES: &[&str] = &[
    "totalpages",
    "pagecount",
    "numpages",
    "pages",
    "pagestotal",
    "lastpage",
];
/// Objects of a page that hold its paging (`meta.next_cursor`): a field one down anywhere else
/// (a nested list's own `total_count`) says nothing of the page.
const CONTAINERS: &[&str] = &[
    "meta",
    "metadata",
    "pagination",
    "paging",
    "pageinfo",
    "pages",
    "page",
    "responsemetadata",
    "links",
    "cursor",
];
/// Page fields holding the page's own number.
const CURRENT_PAGE: &[&str] = &["page", "pagenumber", "currentpage", "pageindex"];
/// Page fields holding the next page's URL (at the top, or one object down: `links.next`).
const NEXT_URLS: &[&str] = &[
    "nextpageuri",
    "nextpageurl",
    "nexturl",
    "nextlink",
    "odatanextlink",
    "next",
];

/// Response headers holding the next page's URL, when their value is declared a URI (`format:
/// uri`) or their name says so (`url`, `link`): GitLab's `X-Next-Page` is a page number.
const NEXT_URL_HEADERS: &[&str] = &[
    "nextpage",
    "xnextpage",
    "nextpageurl",
    "xnextpageurl",
    "nexturl",
    "xnexturl",
    "nextlink",
    "xnextlink",
];

/// True when the response header `name`, declared as `declared` (its 3.x `schema`, or the 2.0
/// header object itself), holds the next page's URL.
pub(crate) fn is_next_url_header(name: &str, declared: &serde_json::Value) -> bool {
    let plain = plain(name);
    let format = declared.get("format").and_then(serde_json::Value::as_str);
    let text = declared
        .get("type")
        .is_none_or(|t| t.as_str() == Some("string"));
    NEXT_URL_HEADERS.contains(&plain.as_str())
        && text
        && (matches!(format, Some("uri" | "uri-reference" | "url"))
            || plain.ends_with("url")
            || plain.ends_with("link"))
}

/// A name as the lists above hold it.
/// Whether a POST's route names a search: its last segment (or a custom verb after `:`) is
/// `search`, `list`, `filter`, `query`, `find` or `lookup`, whatever its case or `_` prefix.
fn route_searches(path: &str) -> bool {
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let word = last.rsplit(':').next().unwrap_or(last);
    if word.starts_with('{') {
        return false;
    }
    let word = word.trim_start_matches(['_', '$']).to_ascii_lowercase();
    ["search", "list", "filter", "query", "find", "lookup"].contains(&word.as_str())
}

fn plain(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn is_integer(ty: &Ty) -> bool {
    matches!(ty.required(), Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64)
}

/// Dropshot's pages: `items` and `next_page` sent back as `page_token`.
fn dropshot_pages(method: &MethodOut, fields: &[FieldOut]) -> Option<Paginate> {
    let token = query_param(method, &["pagetoken"], Ty::is_text)?;
    let field = |name: &str| fields.iter().find(|f| f.wire() == name);
    match (field("items"), field("next_page")) {
        (Some(items), Some(next)) if items.ty.is_list() && next.ty.is_text() => {
            Some(Paginate::Cursor {
                items: items.key.clone(),
                param: token,
                from: next.key.clone(),
            })
        }
        _ => None,
    }
}

/// The method's query parameter (its key) whose wire name is one of `names`, of a fitting type.
fn query_param(method: &MethodOut, names: &[&str], fits: impl Fn(&Ty) -> bool) -> Option<String> {
    names.iter().find_map(|name| {
        method
            .query
            .iter()
            .find(|p| plain(p.wire.as_deref().unwrap_or(&p.key)) == *name && fits(&p.ty))
            .map(|p| p.key.clone())
    })
}

impl Builder<'_> {
    /// Pagination a description shows: dropshot's extension (a page of `items` with a
    /// `next_page` token sent back as `page_token`), a `Link` header on a list (GitHub's), a
    /// cursor in the page (at the top or one object down) or from the last item (`has_more` +
    /// `starting_after`), a list beside a next-page URL (`links.next`, `next_page_uri`,
    /// `next_page_url`, `next`), an offset or a page number.
    pub(crate) fn paginate_methods(&mut self) {
        let names: std::collections::HashSet<String> =
            self.spec.methods.iter().map(|m| m.name.clone()).collect();
        for index in 0..self.spec.methods.len() {
            let method = &self.spec.methods[index];
            let Some((page, Encoding::Json)) = method.returns.clone() else {
                continue;
            };
            if !method.responses.is_empty() || names.contains(&format!("{}_stream", method.name)) {
                continue;
            }
            // A pager sends the request once per page: a POST that may create (a bulk create
            // answering a page of what it made) gets none, unless it is a search: its route
            // says so (`POST …/search`), or its pages are fields of its body (`POST …/filter
            // {limit, offset}`).
            let post = method.request.verb == Verb::Post;
            let search = post && route_searches(&method.request.path);
            let repeatable = method.request.verb.repeatable() || search;
            let paginate = if repeatable {
                self.paging_of(method, &page)
            } else {
                self.body_paging_of(method, &page)
            };
            let method = &mut self.spec.methods[index];
            method.safe = post && paginate.is_some();
            if !repeatable && !method.safe {
                method.paginate = None;
                continue;
            }
            method.paginate = paginate;
        }
    }

    /// How a method's pages are read, from what its description hints and what its page and
    /// parameters hold; `None` when nothing leads from one page to the next.
    fn paging_of(&self, method: &MethodOut, page: &Ty) -> Option<Paginate> {
        let hint = &method.pages_hint;
        let fields = self.struct_fields(page);
        if hint.dropshot {
            return dropshot_pages(method, fields);
        }
        let lists: Vec<&FieldOut> = fields.iter().filter(|f| f.ty.is_list()).collect();
        if let Some(header) = &hint.next_url_header {
            let items = match (page, lists.as_slice()) {
                (Ty::Vec(_), _) => None,
                (_, [items]) => Some(items.key.clone()),
                _ => return None,
            };
            return Some(Paginate::HeaderUrl {
                items,
                header: header.clone(),
            });
        }
        if matches!(page, Ty::Vec(_)) {
            if hint.link_header {
                return Some(Paginate::LinkHeader);
            }
            // The page is the list: only a count sent back can lead on.
            return self.counted(method, page, None);
        }
        let [items] = lists.as_slice() else {
            return None;
        };
        let items = items.key.clone();
        let text_cursor = |ty: &Ty| ty.is_text() || is_integer(ty);
        if let Some(param) = query_param(method, CURSOR_PARAMS, text_cursor)
            && let Some(from) = self.find(page, &|f| {
                NEXT_CURSORS.contains(&plain(f.wire()).as_str()) && text_cursor(&f.ty)
            })
        {
            return Some(Paginate::Cursor { items, param, from });
        }
        if let Some(next) = NEXT_URLS
            .iter()
            .find_map(|name| self.find(page, &|f| plain(f.wire()) == *name && f.ty.is_text()))
        {
            return Some(Paginate::NextUrl { items, next });
        }
        self.item_cursor(method, page, fields, &items)
            .or_else(|| self.counted(method, page, Some(items)))
    }

    /// Pages whose number or offset is a field of the method's JSON body (a search's).
    fn body_paging_of(&self, method: &MethodOut, page: &Ty) -> Option<Paginate> {
        let items = match page {
            Ty::Vec(_) => None,
            _ => {
                let fields = self.struct_fields(page);
                let lists: Vec<&FieldOut> = fields.iter().filter(|f| f.ty.is_list()).collect();
                let [items] = lists.as_slice() else {
                    return None;
                };
                Some(items.key.clone())
            }
        };
        self.counted_in_body(method, page, items)
    }

    /// Pages led on by the last item's `id` sent back as a cursor, while a boolean says more
    /// follow.
    fn item_cursor(
        &self,
        method: &MethodOut,
        page: &Ty,
        fields: &[FieldOut],
        items: &str,
    ) -> Option<Paginate> {
        let param = query_param(method, ITEM_CURSOR_PARAMS, Ty::is_text)?;
        let has_more = self.find(page, &|f| {
            HAS_MORE.contains(&plain(f.wire()).as_str()) && *f.ty.required() == Ty::Bool
        })?;
        let item = match fields.iter().find(|f| f.key == items)?.ty.required() {
            Ty::Vec(item) => (**item).clone(),
            _ => return None,
        };
        let id = self
            .struct_fields(&item)
            .iter()
            .find(|f| f.wire() == "id")?;
        Some(Paginate::ItemCursor {
            items: items.to_owned(),
            param,
            field: id.key.clone(),
            has_more,
        })
    }

    /// An offset or a page number sent back, with the page size's parameter and the page's
    /// total (items, or pages) when the description has them.
    fn counted(&self, method: &MethodOut, page: &Ty, items: Option<String>) -> Option<Paginate> {
        let in_query = query_param(method, OFFSET_PARAMS, is_integer).is_some()
            || query_param(method, PAGE_PARAMS, is_integer).is_some();
        if !in_query {
            // A `POST …/filter {limit, offset}` (Prefect, Elasticsearch's `from`/`size` aside):
            // the page's numbers are fields of the JSON body.
            return self.counted_in_body(method, page, items);
        }
        let limit = query_param(method, LIMIT_PARAMS, is_integer);
        let count = |names: &'static [&'static str]| {
            self.find(page, &|f| {
                names.contains(&plain(f.wire()).as_str()) && is_integer(&f.ty)
            })
        };
        if let Some(param) = query_param(method, OFFSET_PARAMS, is_integer) {
            return Some(Paginate::Offset {
                items,
                param,
                limit,
                total: count(TOTALS),
            });
        }
        let param = query_param(method, PAGE_PARAMS, is_integer)?;
        // A page number's default (or least value) says where pages start: 0 or 1.
        let zero_based = method
            .query
            .iter()
            .find(|p| p.key == param)
            .and_then(|p| p.least)
            == Some(0);
        Some(Paginate::PageNumber {
            items,
            param,
            first: zero_based.then_some(0),
            limit,
            total: count(TOTAL_PAGES)
                .is_none()
                .then(|| count(TOTALS))
                .flatten(),
            total_pages: count(TOTAL_PAGES),
            current: count(CURRENT_PAGE),
        })
    }

    /// An offset or a page number that is a field of the method's JSON body, with the page
    /// size's field beside it.
    fn counted_in_body(
        &self,
        method: &MethodOut,
        page: &Ty,
        items: Option<String>,
    ) -> Option<Paginate> {
        let body = method
            .body
            .as_ref()
            .filter(|b| b.encoding == Encoding::Json)?;
        let fields = self.struct_fields(&body.ty);
        let field = |names: &[&str]| {
            names.iter().find_map(|name| {
                let found = fields.iter().find(|f| plain(f.wire()) == *name);
                found.filter(|f| is_integer(&f.ty)).map(|f| f.key.clone())
            })
        };
        let limit = field(LIMIT_PARAMS);
        let count = |names: &'static [&'static str]| {
            self.find(page, &|f| {
                names.contains(&plain(f.wire()).as_str()) && is_integer(&f.ty)
            })
        };
        if let Some(param) = field(OFFSET_PARAMS) {
            return Some(Paginate::Offset {
                items,
                param,
                limit,
                total: count(TOTALS),
            });
        }
        Some(Paginate::PageNumber {
            items,
            param: field(PAGE_PARAMS)?,
            first: None,
            limit,
            total: count(TOTAL_PAGES)
                .is_none()
                .then(|| count(TOTALS))
                .flatten(),
            total_pages: count(TOTAL_PAGES),
            current: count(CURRENT_PAGE),
        })
    }

    /// The fields of a struct type of the spec (none for anything else, or one made of parts).
    fn struct_fields(&self, ty: &Ty) -> &[FieldOut] {
        match ty
            .required()
            .named()
            .and_then(|name| self.spec.types.get(name))
        {
            Some(TypeOut::Struct(s)) if s.all_of.is_empty() => &s.fields,
            _ => &[],
        }
    }

    /// The key path of the first field of `page` that `wanted` takes, at the top or in a paging
    /// object one down (`meta.next_cursor`, `response_metadata.next_cursor`).
    fn find(&self, page: &Ty, wanted: &dyn Fn(&FieldOut) -> bool) -> Option<String> {
        let fields = self.struct_fields(page);
        if let Some(found) = fields.iter().find(|f| wanted(f)) {
            return Some(found.key.clone());
        }
        let mut containers = fields
            .iter()
            .filter(|f| CONTAINERS.contains(&plain(f.wire()).as_str()));
        containers.find_map(|outer| {
            self.struct_fields(&outer.ty)
                .iter()
                .find(|f| wanted(f))
                .map(|inner| format!("{}.{}", outer.key, inner.key))
        })
    }
}

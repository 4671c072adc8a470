//! A paginated method's stream and paging static.

use crate::checked;
use crate::names;

use super::super::PagingIr;

/// A paginated method's stream and paging static.
pub(super) fn paging(method: &checked::Method, p: &checked::Pagination) -> PagingIr {
    use checked::NextPage;
    let list = |path: &[String]| {
        let items: Vec<String> = path.iter().map(|s| format!("{s:?}")).collect();
        format!("&[{}]", items.join(", "))
    };
    let maybe = |path: &Option<Vec<String>>| {
        path.as_ref()
            .map_or("None".to_owned(), |p| format!("Some({})", list(p)))
    };
    let next = match &p.next {
        NextPage::ItemCursor {
            param,
            field,
            has_more,
        } => format!(
            "ItemCursor {{ param: {param:?}, field: {}, has_more: {} }}",
            list(field),
            maybe(has_more)
        ),
        NextPage::BodyCursor { param, field } => {
            format!("BodyCursor {{ param: {param:?}, field: {} }}", list(field))
        }
        NextPage::BodyUrl { field } => format!("BodyUrl {{ field: {} }}", list(field)),
        NextPage::LinkHeader { rel } => format!("LinkHeader {{ rel: {rel:?} }}"),
        NextPage::HeaderUrl { header } => format!("HeaderUrl {{ header: {header:?} }}"),
        NextPage::Offset {
            param,
            limit,
            total,
        } => format!(
            "Offset {{ param: {param:?}, limit: {limit:?}, total: {} }}",
            maybe(total)
        ),
        NextPage::PageNumber {
            param,
            first,
            limit,
            total_pages,
            total,
            current,
        } => format!(
            "PageNumber {{ param: {param:?}, first: {first}, limit: {limit:?}, total_pages: {}, total: {}, current: {} }}",
            maybe(total_pages),
            maybe(total),
            maybe(current)
        ),
    };
    PagingIr {
        stream: names::snake(&format!("{}_stream", method.name)),
        static_name: format!("{}_PAGING", names::shouty(&method.name)),
        item: p.item.render(),
        items: p.items.iter().map(|s| format!("{s:?}")).collect(),
        next,
        in_body: p.in_body,
    }
}

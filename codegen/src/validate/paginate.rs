//! `paginate:`: the paths it names are fields of the page and item types, the page holds a list,
//! the cursor goes back as a declared query parameter or a field of the JSON body, and exactly
//! one way to the next page.

use super::{Validator, is_header_name};
use crate::checked::{NextPage, Pagination};
use crate::diagnostic::did_you_mean;
use crate::names;
use crate::spec::model::{BodyEncoding, CursorDef, MethodDef, PaginateDef, TypeDef};
use crate::types::Ty;

impl Validator<'_> {
    /// The checked pagination of a method returning `returns`; `None` after a diagnostic.
    pub(super) fn paginate(
        &mut self,
        key: &str,
        name: &str,
        def: &MethodDef,
        returns: &Ty,
    ) -> Option<Pagination> {
        let paginate = def.paginate.as_ref()?;
        let at = format!("{key}.paginate");
        let fail = |v: &mut Self, path: &str, message: String, help: Option<String>| {
            let d = v.spec.at(0, path, message);
            v.push(d.maybe_help(help));
            None
        };
        if def.responses.is_some() || !def.response_headers.is_empty() {
            return fail(
                self,
                &at,
                "a paginated method returns one page type: no `responses:` or `response_headers:`"
                    .to_owned(),
                None,
            );
        }
        if self
            .spec
            .file
            .methods
            .contains_key(&format!("{name}_stream"))
        {
            return fail(
                self,
                &at,
                format!("`paginate:` generates `{name}_stream`, a method of the spec already"),
                Some(format!("rename the method `{name}_stream`")),
            );
        }
        // The list: a field of the page, or the page itself.
        let items_path = paginate.items.as_deref().unwrap_or("");
        let (list, items) = match self.field_path(returns, items_path) {
            Ok(found) => found,
            Err(message) => return fail(self, &format!("{at}.items"), message, None),
        };
        let Some(item) = list.inner("Vec").cloned() else {
            let what = if items_path.is_empty() {
                format!("the method returns `{}`, not a list", returns.render())
            } else {
                format!("`{items_path}` is `{}`, not a list", list.render())
            };
            return fail(
                self,
                &at,
                format!("nothing to paginate: {what}"),
                Some("name the page's list with `items:`, or return a `Vec<Item>`".to_owned()),
            );
        };
        let ways = [
            paginate.cursor.is_some(),
            paginate.next_url.is_some(),
            paginate.link_header.is_some(),
            paginate.next_url_header.is_some(),
            paginate.offset.is_some(),
            paginate.page_number.is_some(),
        ];
        if ways.iter().filter(|w| **w).count() != 1 {
            return fail(
                self,
                &at,
                "`paginate:` needs exactly one of `cursor:`, `next_url:`, `link_header:`, `next_url_header:`, `offset:` and `page_number:`"
                    .to_owned(),
                None,
            );
        }
        let (next, in_body) = self.next_page(&at, def, paginate, returns, &item)?;
        Some(Pagination {
            item,
            items,
            next,
            in_body,
        })
    }

    fn next_page(
        &mut self,
        at: &str,
        def: &MethodDef,
        paginate: &PaginateDef,
        page: &Ty,
        item: &Ty,
    ) -> Option<(NextPage, bool)> {
        if let Some(rel) = &paginate.link_header {
            return Some((NextPage::LinkHeader { rel: rel.clone() }, false));
        }
        if let Some(header) = &paginate.next_url_header {
            if !is_header_name(header) {
                let message = format!("`{header}` is not a valid header name");
                self.push(self.spec.at(0, &format!("{at}.next_url_header"), message));
                return None;
            }
            let next = NextPage::HeaderUrl {
                header: header.clone(),
            };
            return Some((next, false));
        }
        if let Some(url) = &paginate.next_url {
            return match self.field_path(page, url) {
                Ok((_, field)) => Some((NextPage::BodyUrl { field }, false)),
                Err(message) => {
                    self.push(self.spec.at(0, &format!("{at}.next_url"), message));
                    None
                }
            };
        }
        if let Some(offset) = &paginate.offset {
            return self
                .counted(
                    &format!("{at}.offset"),
                    def,
                    page,
                    &offset.param,
                    offset.limit.as_deref(),
                    offset.total.as_deref(),
                    "total",
                )
                .map(|(param, limit, total, in_body)| {
                    let next = NextPage::Offset {
                        param,
                        limit,
                        total,
                    };
                    (next, in_body)
                });
        }
        if let Some(number) = &paginate.page_number {
            let at = format!("{at}.page_number");
            let current = match &number.current {
                Some(path) => Some(self.count_path(&at, page, path, "current")?),
                None => None,
            };
            let total = match &number.total {
                Some(path) => Some(self.count_path(&at, page, path, "total")?),
                None => None,
            };
            return self
                .counted(
                    &at,
                    def,
                    page,
                    &number.param,
                    number.limit.as_deref(),
                    number.total_pages.as_deref(),
                    "total_pages",
                )
                .map(|(param, limit, total_pages, in_body)| {
                    let next = NextPage::PageNumber {
                        param,
                        first: number.first.unwrap_or(1),
                        limit,
                        total_pages,
                        total,
                        current,
                    };
                    (next, in_body)
                });
        }
        let cursor = paginate.cursor.as_ref()?;
        self.cursor_next(&format!("{at}.cursor"), def, cursor, page, item)
    }

    /// A cursor sent back as a query parameter (or a field of the JSON body), from the last
    /// item or from the page.
    fn cursor_next(
        &mut self,
        at: &str,
        def: &MethodDef,
        cursor: &CursorDef,
        page: &Ty,
        item: &Ty,
    ) -> Option<(NextPage, bool)> {
        let (param, in_body) = self.page_param(at, def, &cursor.param)?;
        let resolve = |v: &mut Self, ty: &Ty, path: &str, what: &str| match v.field_path(ty, path) {
            Ok((_, wire)) => Some(wire),
            Err(message) => {
                v.push(v.spec.at(0, &format!("{at}.{what}"), message));
                None
            }
        };
        match (&cursor.from_item, &cursor.from) {
            (Some(field), None) => {
                let field = resolve(self, item, field, "from_item")?;
                let has_more = match &cursor.has_more {
                    Some(flag) => Some(resolve(self, page, flag, "has_more")?),
                    None => None,
                };
                let next = NextPage::ItemCursor {
                    param,
                    field,
                    has_more,
                };
                Some((next, in_body))
            }
            (None, Some(field)) => {
                if cursor.has_more.is_some() {
                    self.push(self.spec.at_key(
                        0,
                        &format!("{at}.has_more"),
                        "`has_more:` goes with `from_item:`: a cursor from the page ends when it is empty",
                    ));
                    return None;
                }
                let field = resolve(self, page, field, "from")?;
                Some((NextPage::BodyCursor { param, field }, in_body))
            }
            _ => {
                self.push(self.spec.at(
                    0,
                    at,
                    "a cursor comes from the last item (`from_item:`) or from the page (`from:`): one of them",
                ));
                None
            }
        }
    }

    /// An offset's or page number's parameters (wire names: the number's, the page size's),
    /// the path of the page's count (`total`, `total_pages`), each a number, and whether the
    /// parameters are body fields (both in one place).
    #[allow(clippy::too_many_arguments)]
    fn counted(
        &mut self,
        at: &str,
        def: &MethodDef,
        page: &Ty,
        param: &str,
        limit: Option<&str>,
        count: Option<&str>,
        count_key: &str,
    ) -> Option<Counted> {
        let param = self.page_param(at, def, param);
        let limit = limit.map(|limit| self.page_param(&format!("{at}.limit"), def, limit));
        let count = match count {
            Some(path) => self.count_path(at, page, path, count_key).map(Some),
            None => Some(None),
        };
        // Every problem reported before giving up on any.
        let limit = limit.map_or(Some(None), |limit| limit.map(Some))?;
        let (param, in_body) = param?;
        if let Some((_, limit_in_body)) = &limit
            && *limit_in_body != in_body
        {
            let (number, size) = if in_body {
                ("body", "query")
            } else {
                ("query", "body")
            };
            self.push(self.spec.at(
                0,
                &format!("{at}.limit"),
                format!(
                    "the page size is in the {size}, its number in the {number}: one place for both"
                ),
            ));
            return None;
        }
        Some((param, limit.map(|(limit, _)| limit), count?, in_body))
    }

    /// The wire path of a count in the page (`total`, `total_pages`, `current`): an integer.
    fn count_path(&mut self, at: &str, page: &Ty, path: &str, key: &str) -> Option<Vec<String>> {
        match self.field_path(page, path) {
            Ok((ty, wire)) if ty.bare().is_some_and(|t| INTEGERS.contains(&t)) => Some(wire),
            Ok((ty, _)) => {
                self.push(self.spec.at(
                    0,
                    &format!("{at}.{key}"),
                    format!("`{path}` is `{}`, not an integer", ty.render()),
                ));
                None
            }
            Err(message) => {
                self.push(self.spec.at(0, &format!("{at}.{key}"), message));
                None
            }
        }
    }

    /// The wire name of the page parameter `name` (a cursor, an offset, a page number or size)
    /// and whether it is a body field: a query parameter of the method, else a field of its
    /// JSON body's struct (a `POST …/filter {limit, offset}`). The method must declare it, so
    /// the first page can send it too.
    fn page_param(&mut self, at: &str, def: &MethodDef, name: &str) -> Option<(String, bool)> {
        if let Some(param) = def.query.get(name) {
            return Some((param.name.clone().unwrap_or_else(|| name.to_owned()), false));
        }
        let body = def
            .body
            .as_ref()
            .filter(|body| body.encoding == BodyEncoding::Json)
            .and_then(|body| Ty::parse(&body.ty).ok());
        if let Some(body) = &body
            && let Ok((_, wire)) = self.field_path(body, name)
            && let [wire] = wire.as_slice()
        {
            return Some((wire.clone(), true));
        }
        let d = self.spec.at(
            0,
            &format!("{at}.param"),
            format!(
                "`{name}` is not a query parameter of the method{}",
                if body.is_some() {
                    ", nor a field of its body"
                } else {
                    ""
                }
            ),
        );
        let help = did_you_mean(name, def.query.keys().map(String::as_str)).unwrap_or_else(|| {
            format!(
                "declare it, so the first page can send it too: `query: {{ {name}: Option<String> }}`, or a field of the JSON body"
            )
        });
        self.push(d.help(help));
        None
    }

    /// Follows a dotted path of field keys from `ty` (a struct of the spec, through `Option`s and
    /// `Box`es): the type at its end and the path in wire names. An empty path is `ty` itself.
    fn field_path(&self, ty: &Ty, path: &str) -> Result<(Ty, Vec<String>), String> {
        let rename_all = self.rename_all();
        let mut current = ty.clone();
        let mut wire = Vec::new();
        for segment in path.split('.').filter(|s| !s.is_empty()) {
            let unwrapped = strip(&current);
            let fields = unwrapped
                .bare()
                .and_then(|name| self.spec.types.get(name))
                .map(|found| self.struct_fields(&found.item, 0));
            let Some(fields) = fields.filter(|f| !f.is_empty()) else {
                return Err(format!(
                    "`{}` in `{path}`: `{}` is not a struct of this spec",
                    segment,
                    unwrapped.render()
                ));
            };
            let Some((key, field)) = fields.iter().find(|(key, _)| key == segment) else {
                let known: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
                let suggestion = did_you_mean(segment, known.iter().copied())
                    .map(|s| format!("; {s}"))
                    .unwrap_or_default();
                return Err(format!(
                    "`{}` has no field `{segment}`{suggestion}",
                    unwrapped.render()
                ));
            };
            wire.push(match (&field.rename, rename_all) {
                (Some(name), _) => name.clone(),
                (None, Some(rule)) => names::apply_rename_rule(rule, key),
                (None, None) => key.clone(),
            });
            current = Ty::parse(&field.ty).map_err(|e| e.to_string())?;
        }
        Ok((strip(&current).clone(), wire))
    }

    /// A struct's fields with its `all_of:` parts' (a circle of parts is reported elsewhere).
    fn struct_fields<'s>(
        &'s self,
        def: &'s TypeDef,
        depth: usize,
    ) -> Vec<(String, &'s crate::spec::model::FieldDef)> {
        let mut out = Vec::new();
        if depth > 32 {
            return out;
        }
        for part in def.all_of.iter().flatten() {
            if let Some(found) = self.spec.types.get(part) {
                out.extend(self.struct_fields(&found.item, depth + 1));
            }
        }
        for (key, field) in def.fields.iter().flatten() {
            out.push((key.clone(), &field.0));
        }
        out
    }
}

/// An offset's or page number's parameter, the page size's, the path of the page's count, and
/// whether the parameters are body fields.
type Counted = (String, Option<String>, Option<Vec<String>>, bool);

/// The types a count may have.
const INTEGERS: &[&str] = &[
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "usize", "isize",
];

/// `Option<T>` and `Box<T>` are `T` for a path.
fn strip(ty: &Ty) -> &Ty {
    match ty.inner("Option").or_else(|| ty.inner("Box")) {
        Some(inner) => strip(inner),
        None => ty,
    }
}

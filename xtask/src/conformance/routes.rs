//! Routes compared by their placeholders: a description's and the importer's renamed one.

/// `/a/{Order-Id}/b` → `/a/{orderid}/b`: placeholders as words without case or separators, so
/// a description's route and the importer's renamed one compare equal.
pub(super) fn placeholders_named(route: &str) -> String {
    with_placeholders(route, |name| {
        name.chars()
            .flat_map(char::to_lowercase)
            .filter(char::is_ascii_alphanumeric)
            .collect()
    })
}

/// `/a/{id}/b` → `/a/{}/b`.
pub(super) fn placeholders_blank(route: &str) -> String {
    with_placeholders(route, |_| String::new())
}

/// `route` with each placeholder's name replaced by what `name` makes of it.
pub(super) fn with_placeholders(route: &str, name: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(route.len());
    let mut rest = route;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..=open]);
        out.push_str(&name(&rest[open + 1..open + close]));
        out.push('}');
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

pub(super) fn placeholder_names(route: &str) -> Vec<String> {
    route
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_compare_by_their_placeholders() {
        assert_eq!(placeholders_blank("/a/{id}/b/{x}"), "/a/{}/b/{}");
        assert_eq!(placeholders_named("/a/{Order-Id}/b"), "/a/{orderid}/b");
        assert_eq!(placeholders_named("/a/{order_id}/b"), "/a/{orderid}/b");
        assert_eq!(placeholders_blank("/plain"), "/plain");
    }
}

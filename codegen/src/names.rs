//! Rust names from spec names: casing, keywords, validity.

use heck::{ToPascalCase, ToShoutySnakeCase, ToSnakeCase};

/// Keywords that `r#` makes usable as identifiers.
const RAW_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers: an underscore is appended instead.
const RESERVED: &[&str] = &["self", "Self", "super", "crate", "_"];

/// A usable Rust identifier for `name` (already cased): `type` → `r#type`, `self` → `self_`.
pub fn ident(name: &str) -> String {
    if RESERVED.contains(&name) {
        format!("{name}_")
    } else if RAW_KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

/// `getUser`, `get-user` → `get_user`, as an identifier.
pub fn snake(name: &str) -> String {
    ident(&name.to_snake_case())
}

/// `user`, `in_progress` → `User`, `InProgress`, as an identifier. A name that cases to nothing
/// (`-`, `_`) gets a placeholder so it still yields an identifier; validation reports it.
pub fn pascal(name: &str) -> String {
    let cased = name.to_pascal_case();
    let cased = if cased.is_empty() {
        "Value".to_owned()
    } else {
        cased
    };
    if cased.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{cased}")
    } else {
        ident(&cased)
    }
}

/// `get_user` → `GET_USER`.
pub fn shouty(name: &str) -> String {
    name.to_shouty_snake_case()
}

/// True when `name` is an identifier Rust accepts as written (Unicode XID rules; `r#type` too).
pub fn is_identifier(name: &str) -> bool {
    syn::parse_str::<syn::Ident>(name).is_ok()
}

/// True for a plain Rust path, `ident(::ident)*` (an optional `crate`, `self` or `super` first):
/// no generic arguments, no whitespace, nothing that can hold an expression. Paths the spec names
/// (interceptors, a fallback type) are copied into generated code, so nothing else may pass.
pub fn is_plain_path(text: &str) -> bool {
    let mut segments = text.split("::");
    let first = segments.next().unwrap_or_default();
    !text.contains(char::is_whitespace)
        && (matches!(first, "crate" | "self" | "super") || is_identifier(first))
        && segments.all(is_identifier)
}

/// True for a name of letters, digits and `_` not starting with a digit: usable as a spec name
/// that becomes a Rust identifier once cased (keywords included: `type` → `r#type`).
pub fn is_word(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Names of the Rust prelude (and of generated code's helpers) that a generated type must not
/// shadow: generated code names them unqualified.
pub const PRELUDE: &[&str] = &[
    "Box",
    "Clone",
    "Copy",
    "Default",
    "Drop",
    "Eq",
    "Err",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "Into",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
    "HashMap",
    "BTreeMap",
    "AsRef",
    "AsMut",
    "Extend",
    "IntoIterator",
];

/// True when `name` is a PascalCase identifier (`UserClient`).
pub fn is_pascal_identifier(name: &str) -> bool {
    is_identifier(name) && name.to_pascal_case() == name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_only() {
        for good in [
            "HmacSigner",
            "crate::auth::HmacSigner",
            "super::Fallback",
            "a::b_c::D2",
        ] {
            assert!(is_plain_path(good), "{good}");
        }
        for bad in [
            "X<[u8; { 0 }]>",
            "Vec<u8>",
            "crate::auth::Signer<T>",
            "a :: b",
            "::a",
            "a::",
            "",
            "a::fn",
            "a b",
        ] {
            assert!(!is_plain_path(bad), "{bad}");
        }
    }

    #[test]
    fn keywords_become_usable_identifiers() {
        assert_eq!(snake("type"), "r#type");
        assert_eq!(snake("self"), "self_");
        assert_eq!(pascal("Self"), "Self_");
        assert_eq!(snake("getUser"), "get_user");
        assert_eq!(pascal("in_progress"), "InProgress");
        assert_eq!(pascal("2xx"), "V2xx");
        assert!(is_pascal_identifier("UserClient"));
        assert!(!is_pascal_identifier("userClient"));
        assert!(!is_pascal_identifier("User Client"));
        assert!(is_identifier("r#type") && !is_identifier("type") && !is_identifier("self"));
        assert!(is_word("self") && is_word("größe") && !is_word("2x") && !is_word("a-b"));
    }
}

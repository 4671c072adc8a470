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
/// shadow: generated code names them unqualified. The importer, below this crate, keeps the list.
pub use remcall_openapi::names::{PRELUDE, Taken, unique_among, variant};

/// The wire name serde's `rename_all = rule` gives the field `key` (rules checked by validation).
pub fn apply_rename_rule(rule: &str, key: &str) -> String {
    use heck::{
        ToKebabCase, ToLowerCamelCase, ToPascalCase, ToShoutyKebabCase, ToShoutySnakeCase,
        ToSnakeCase,
    };
    let snake = key.to_snake_case();
    match rule {
        "lowercase" => snake.to_lowercase(),
        "UPPERCASE" => snake.to_uppercase(),
        "PascalCase" => snake.to_pascal_case(),
        "camelCase" => snake.to_lower_camel_case(),
        "SCREAMING_SNAKE_CASE" => snake.to_shouty_snake_case(),
        "kebab-case" => snake.to_kebab_case(),
        "SCREAMING-KEBAB-CASE" => snake.to_shouty_kebab_case(),
        _ => snake,
    }
}

/// The variant name of a union alternative of type `ty`: its type's name (`Card`), a list's
/// `CardList`, a map's `CardMap`, a primitive's `I64`; `Variant{index}` for a tuple.
pub fn variant_of_type(ty: &crate::types::Ty, index: usize) -> String {
    use crate::types::Ty;
    match ty {
        Ty::Path { segments, args } => {
            let last = segments.last().map(String::as_str).unwrap_or_default();
            match (last, args.as_slice()) {
                ("Vec", [item]) => format!("{}List", variant_of_type(item, index)),
                ("HashMap" | "BTreeMap", [_, value]) => {
                    format!("{}Map", variant_of_type(value, index))
                }
                ("Option" | "Box" | "Nullable", [inner]) => variant_of_type(inner, index),
                (name, _) => {
                    let cased = name.to_pascal_case();
                    if is_pascal_identifier(&cased) {
                        cased
                    } else {
                        format!("Variant{index}")
                    }
                }
            }
        }
        Ty::Tuple(_) => format!("Variant{index}"),
    }
}

/// The variant name of the alternative `ty` of the union `union`: [`variant_of_type`], less the
/// union's own name where the type's name starts or ends with it (`DiskStateCreating` in
/// `DiskState` → `Creating`, as typify names them): `DiskState::Creating(..)` says "disk state"
/// once.
pub fn variant_in_union(union: &str, ty: &crate::types::Ty, index: usize) -> String {
    let name = variant_of_type(ty, index);
    let rest = name
        .strip_prefix(union)
        .or_else(|| name.strip_suffix(union))
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()));
    match rest {
        Some(rest) if is_pascal_identifier(rest) => rest.to_owned(),
        _ => name,
    }
}

/// A status's variant name: its reason phrase in the IANA HTTP status code registry (`201` →
/// `Created`, `404` → `NotFound`, `424` → `FailedDependency`), or `Status{code}` for a code the
/// registry does not name.
pub fn status_variant(status: u16) -> String {
    let phrase = match status {
        100 => "Continue",
        101 => "SwitchingProtocols",
        102 => "Processing",
        103 => "EarlyHints",
        200 => "Ok",
        201 => "Created",
        202 => "Accepted",
        203 => "NonAuthoritativeInformation",
        204 => "NoContent",
        205 => "ResetContent",
        206 => "PartialContent",
        207 => "MultiStatus",
        208 => "AlreadyReported",
        226 => "ImUsed",
        300 => "MultipleChoices",
        301 => "MovedPermanently",
        302 => "Found",
        303 => "SeeOther",
        304 => "NotModified",
        305 => "UseProxy",
        307 => "TemporaryRedirect",
        308 => "PermanentRedirect",
        400 => "BadRequest",
        401 => "Unauthorized",
        402 => "PaymentRequired",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        406 => "NotAcceptable",
        407 => "ProxyAuthenticationRequired",
        408 => "RequestTimeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "LengthRequired",
        412 => "PreconditionFailed",
        413 => "PayloadTooLarge",
        414 => "UriTooLong",
        415 => "UnsupportedMediaType",
        416 => "RangeNotSatisfiable",
        417 => "ExpectationFailed",
        421 => "MisdirectedRequest",
        422 => "UnprocessableEntity",
        423 => "Locked",
        424 => "FailedDependency",
        425 => "TooEarly",
        426 => "UpgradeRequired",
        428 => "PreconditionRequired",
        429 => "TooManyRequests",
        431 => "RequestHeaderFieldsTooLarge",
        451 => "UnavailableForLegalReasons",
        500 => "InternalServerError",
        501 => "NotImplemented",
        502 => "BadGateway",
        503 => "ServiceUnavailable",
        504 => "GatewayTimeout",
        505 => "HttpVersionNotSupported",
        506 => "VariantAlsoNegotiates",
        507 => "InsufficientStorage",
        508 => "LoopDetected",
        510 => "NotExtended",
        511 => "NetworkAuthenticationRequired",
        _ => return format!("Status{status}"),
    };
    phrase.to_owned()
}

/// True when `name` is a PascalCase identifier (`UserClient`): the importer's rule, which
/// names its types by it.
pub use remcall_openapi::names::is_pascal_identifier;

/// Header names are RFC 9110 tokens (the importer's rule too).
pub use remcall_openapi::names::is_header_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_status_is_named_by_its_reason() {
        assert_eq!(status_variant(424), "FailedDependency");
        assert_eq!(status_variant(451), "UnavailableForLegalReasons");
        assert_eq!(status_variant(507), "InsufficientStorage");
        // A code the registry does not name keeps its number.
        assert_eq!(status_variant(499), "Status499");
    }

    #[test]
    fn alternatives_do_not_repeat_their_union() {
        let ty = |text: &str| crate::types::Ty::parse(text).unwrap();
        for (union, alternative, expected) in [
            ("DiskState", "DiskStateCreating", "Creating"),
            ("DiskState", "Vec<DiskStateCreating>", "CreatingList"),
            ("Shape", "CircleShape", "Circle"),
            ("Shape", "Shape", "Shape"),
            ("Shape", "Shapes", "Shapes"),
            ("Shape", "Shape2", "Shape2"),
            ("Card", "CardDetails", "Details"),
            ("Amount", "i64", "I64"),
        ] {
            assert_eq!(
                variant_in_union(union, &ty(alternative), 0),
                expected,
                "{alternative}"
            );
        }
    }

    #[test]
    fn variants_of_alternative_types() {
        for (ty, expected) in [
            ("Card", "Card"),
            ("Vec<Card>", "CardList"),
            ("HashMap<String, i64>", "I64Map"),
            ("crate::model::Money", "Money"),
            ("(i64, String)", "Variant3"),
        ] {
            let ty = crate::types::Ty::parse(ty).unwrap();
            assert_eq!(variant_of_type(&ty, 3), expected);
        }
    }

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

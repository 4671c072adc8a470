//! Type expressions from the spec (`Vec<User>`, `Option<String>`, `crate::model::Money`): parsed
//! with syn, checked against the known names, and written back with the paths generated code
//! needs (`serde_json::Value` → `remcall::serde_json::Value`).

use std::fmt::Write;

/// A parsed type expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A path such as `Vec<User>` or `crate::model::Money`.
    Path {
        /// The path's segments (`["crate", "model", "Money"]`).
        segments: Vec<String>,
        /// Generic arguments of the last segment.
        args: Vec<Ty>,
    },
    /// A tuple; `()` is the unit type.
    Tuple(Vec<Ty>),
}

/// Integer, float, `bool` and `char`: the scalar types that are `Copy`.
pub const PRIMITIVES: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64", "bool", "char",
];

/// Bare names that need no declaration.
pub const STD_NAMES: &[&str] = &[
    "String", "Vec", "Option", "HashMap", "BTreeMap", "Box", "Nullable", "File",
];

/// The Rust type for a type name other languages and schema formats use (`int`, `boolean`,
/// `List<T>`), as a help line; `None` for any other name.
pub fn foreign_name_help(name: &str) -> Option<String> {
    let (rust, or) = match name.to_ascii_lowercase().as_str() {
        "int" | "integer" | "long" | "int64" => ("i64", " (or `i32`)"),
        "int32" => ("i32", ""),
        "short" | "int16" => ("i16", ""),
        "byte" | "int8" => ("i8", " (or `u8` for a raw byte)"),
        "boolean" => ("bool", ""),
        "number" | "double" | "float64" => ("f64", ""),
        "float" | "float32" => ("f32", " (or `f64`)"),
        "decimal" | "bigdecimal" => ("f64", " (or a decimal crate's type, as `crate::…`)"),
        "str" | "text" => ("String", ""),
        "list" | "array" | "arraylist" | "set" | "sequence" => ("Vec<…>", ""),
        "map" | "dict" | "dictionary" | "record" => ("HashMap<String, …>", ""),
        "object" | "any" | "json" => ("serde_json::Value", ""),
        _ => return None,
    };
    Some(format!("in Rust, `{name}` is written `{rust}`{or}"))
}

impl Ty {
    /// Parses a type expression; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Ty, String> {
        let parsed: syn::Type =
            syn::parse_str(text).map_err(|e| format!("`{text}` is not a Rust type: {e}"))?;
        Ty::from_syn(&parsed, text)
    }

    fn from_syn(ty: &syn::Type, text: &str) -> Result<Ty, String> {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let mut segments = Vec::new();
                let mut args = Vec::new();
                let last = p.path.segments.len() - 1;
                for (i, segment) in p.path.segments.iter().enumerate() {
                    segments.push(segment.ident.to_string());
                    match &segment.arguments {
                        syn::PathArguments::None => {}
                        syn::PathArguments::AngleBracketed(a) if i == last => {
                            for arg in &a.args {
                                match arg {
                                    syn::GenericArgument::Type(t) => {
                                        args.push(Ty::from_syn(t, text)?)
                                    }
                                    _ => {
                                        return Err(format!(
                                            "`{text}`: only type arguments are supported"
                                        ));
                                    }
                                }
                            }
                        }
                        _ => {
                            return Err(format!(
                                "`{text}`: generic arguments go on the last path segment only"
                            ));
                        }
                    }
                }
                if p.path.leading_colon.is_some() {
                    segments.insert(0, String::new());
                }
                Ok(Ty::Path { segments, args })
            }
            syn::Type::Tuple(t) => t
                .elems
                .iter()
                .map(|e| Ty::from_syn(e, text))
                .collect::<Result<_, _>>()
                .map(Ty::Tuple),
            syn::Type::Paren(p) => Ty::from_syn(&p.elem, text),
            syn::Type::Reference(_) => Err(format!(
                "`{text}`: use an owned type (generated code borrows where it should)"
            )),
            _ => Err(format!(
                "`{text}`: only paths (`Vec<User>`, `crate::model::Money`) and tuples are supported"
            )),
        }
    }

    /// Every single-segment name used, for checking against declared types.
    pub fn bare_names(&self, out: &mut Vec<String>) {
        match self {
            Ty::Path { segments, args } => {
                if let [name] = segments.as_slice() {
                    out.push(name.clone());
                }
                args.iter().for_each(|a| a.bare_names(out));
            }
            Ty::Tuple(items) => items.iter().for_each(|a| a.bare_names(out)),
        }
    }

    /// The single name of a bare path (`String`), if it is one.
    pub fn bare(&self) -> Option<&str> {
        match self {
            Ty::Path { segments, .. } if segments.len() == 1 => Some(&segments[0]),
            _ => None,
        }
    }

    /// The argument of `Wrapper<T>` when this is one.
    pub fn inner(&self, wrapper: &str) -> Option<&Ty> {
        match self {
            Ty::Path { segments, args }
                if segments.len() == 1 && segments[0] == wrapper && args.len() == 1 =>
            {
                Some(&args[0])
            }
            _ => None,
        }
    }

    /// True for `bytes::Bytes`, the raw body type.
    pub fn is_bytes(&self) -> bool {
        matches!(self, Ty::Path { segments, .. } if segments.len() == 2 && segments[0] == "bytes" && segments[1] == "Bytes")
    }

    /// True for `File`, `Option<File>` and `Vec<File>`: what a multipart body sends as file parts.
    pub fn is_file(&self) -> bool {
        let inner = self
            .inner("Option")
            .or_else(|| self.inner("Vec"))
            .unwrap_or(self);
        inner.bare() == Some("File")
    }

    /// True for `()`.
    pub fn is_unit(&self) -> bool {
        matches!(self, Ty::Tuple(items) if items.is_empty())
    }

    /// The expression as generated code writes it.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Ty::Path { segments, args } => {
                let prefix = match segments.first().map(String::as_str) {
                    Some("serde_json" | "bytes") if segments.len() > 1 => "remcall::",
                    Some("HashMap" | "BTreeMap") if segments.len() == 1 => "std::collections::",
                    Some("Nullable" | "File") if segments.len() == 1 => "remcall::",
                    _ => "",
                };
                out.push_str(prefix);
                out.push_str(&segments.join("::"));
                if !args.is_empty() {
                    out.push('<');
                    for (i, arg) in args.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        arg.write(out);
                    }
                    out.push('>');
                }
            }
            Ty::Tuple(items) => {
                out.push('(');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out);
                }
                if items.len() == 1 {
                    out.push(',');
                }
                out.push(')');
            }
        }
    }

    /// How a method takes a value of this type: `String` as `&str`, `Vec<T>` as `&[T]`, `Copy`
    /// types by value, anything else by reference. `is_copy` says which bare names are `Copy`.
    pub fn argument(&self, is_copy: &dyn Fn(&str) -> bool) -> String {
        if self.bare() == Some("String") {
            return "&str".to_owned();
        }
        if let Some(item) = self.inner("Vec") {
            return format!("&[{}]", item.render());
        }
        if let Some(inner) = self.inner("Option") {
            let inner_arg = inner.argument(is_copy);
            return format!("Option<{inner_arg}>");
        }
        if self.is_copy(is_copy) {
            return self.render();
        }
        let mut out = String::from("&");
        let _ = write!(out, "{}", self.render());
        out
    }

    fn is_copy(&self, is_copy: &dyn Fn(&str) -> bool) -> bool {
        match self {
            Ty::Tuple(items) => items.iter().all(|i| i.is_copy(is_copy)),
            _ => self
                .bare()
                .is_some_and(|name| PRIMITIVES.contains(&name) || is_copy(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(text: &str) -> String {
        Ty::parse(text).unwrap().argument(&|name| name == "Status")
    }

    #[test]
    fn arguments_borrow_as_the_design_says() {
        assert_eq!(arg("String"), "&str");
        assert_eq!(arg("Option<String>"), "Option<&str>");
        assert_eq!(arg("Vec<String>"), "&[String]");
        assert_eq!(arg("Option<Vec<i64>>"), "Option<&[i64]>");
        assert_eq!(arg("i64"), "i64");
        assert_eq!(arg("Option<bool>"), "Option<bool>");
        assert_eq!(arg("Status"), "Status");
        assert_eq!(arg("User"), "&User");
        assert_eq!(arg("Option<User>"), "Option<&User>");
        assert_eq!(arg("serde_json::Value"), "&remcall::serde_json::Value");
    }

    #[test]
    fn renders_with_the_paths_generated_code_needs() {
        assert_eq!(
            Ty::parse("HashMap<String, Vec<bytes::Bytes>>")
                .unwrap()
                .render(),
            "std::collections::HashMap<String, Vec<remcall::bytes::Bytes>>"
        );
        assert!(Ty::parse("&str").is_err());
        assert!(Ty::parse("Vec<").is_err());
    }
}

//! The importer's own model of a type expression and of a body's encoding. Schemas become a
//! [`Ty`], and every later rule (nullable, optional, renames, binary parts, pagination) asks the
//! model, not the text: the spec's Rust type syntax is printed once, when the spec is written.

use std::fmt;

/// A type expression of the spec.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    /// No body: `()`.
    Unit,
    Bool,
    I32,
    I64,
    U32,
    U64,
    F64,
    String,
    /// `format: date-time` with [`Dates::Chrono`](crate::Dates): `chrono::DateTime<chrono::Utc>`.
    DateTime,
    /// `format: date` with [`Dates::Chrono`](crate::Dates): `chrono::NaiveDate`.
    Date,
    /// Anything: `serde_json::Value`.
    Value,
    /// Raw bytes: `bytes::Bytes`.
    Bytes,
    /// A file part of a multipart body.
    File,
    /// A type of the spec's `types:`.
    Named(String),
    Vec(Box<Ty>),
    Option(Box<Ty>),
    /// `Nullable<T>`: absent, `null` or a value; an optional field that allows `null` in a
    /// type that is sent, so that `null` can be sent (a PATCH that clears a field).
    Nullable(Box<Ty>),
    /// `HashMap<String, T>`.
    Map(Box<Ty>),
}

impl Ty {
    /// A list of `item`.
    pub(crate) fn list(item: Ty) -> Ty {
        Ty::Vec(Box::new(item))
    }

    /// A map of string keys to `value`.
    pub(crate) fn map(value: Ty) -> Ty {
        Ty::Map(Box::new(value))
    }

    /// `Option<self>`, unless it is one already: absent on the wire.
    pub(crate) fn optional(self) -> Ty {
        match self {
            Ty::Option(_) => self,
            other => Ty::Option(Box::new(other)),
        }
    }

    /// `self` where `null` is also allowed: an `Option`, except for `Value`, which holds a null.
    pub(crate) fn nullable(self) -> Ty {
        match self {
            Ty::Value => Ty::Value,
            other => other.optional(),
        }
    }

    pub(crate) fn is_option(&self) -> bool {
        matches!(self, Ty::Option(_))
    }

    /// The type inside an `Option` (or a `Nullable`), or the type itself.
    pub(crate) fn required(&self) -> &Ty {
        match self {
            Ty::Option(inner) | Ty::Nullable(inner) => inner,
            other => other,
        }
    }

    /// A list, optional or not.
    pub(crate) fn is_list(&self) -> bool {
        matches!(self.required(), Ty::Vec(_))
    }

    /// Text, optional or not.
    pub(crate) fn is_text(&self) -> bool {
        matches!(self.required(), Ty::String)
    }

    /// The spec type this expression names, when it is one.
    pub(crate) fn named(&self) -> Option<&str> {
        match self {
            Ty::Named(name) => Some(name),
            _ => None,
        }
    }

    /// Every `old` inside this expression becomes `new`.
    pub(crate) fn rename(&mut self, old: &str, new: &str) {
        self.visit_mut(&mut |ty| {
            if let Ty::Named(name) = ty
                && name == old
            {
                *name = new.to_owned();
            }
        });
    }

    /// Calls `f` on every part of the expression, this one last.
    pub(crate) fn visit_mut(&mut self, f: &mut impl FnMut(&mut Ty)) {
        if let Ty::Vec(inner) | Ty::Option(inner) | Ty::Nullable(inner) | Ty::Map(inner) = self {
            inner.visit_mut(f);
        }
        f(self);
    }

    /// Of two types a value may have, one that holds both: the same type, the wider number,
    /// an `Option` of either, else `Value`.
    pub(crate) fn widest(&self, other: &Ty) -> Ty {
        if self == other {
            return self.clone();
        }
        match (self, other) {
            (Ty::Option(a), b) | (b, Ty::Option(a)) => a.widest(b.required()).nullable(),
            (Ty::Vec(a), Ty::Vec(b)) => Ty::list(a.widest(b)),
            (Ty::Map(a), Ty::Map(b)) => Ty::map(a.widest(b)),
            (a, b) if a.is_number() && b.is_number() => {
                if matches!(a, Ty::F64) || matches!(b, Ty::F64) {
                    Ty::F64
                } else {
                    Ty::I64
                }
            }
            _ => Ty::Value,
        }
    }

    /// Of two types that one value must have at once (two `allOf` parts' types of one field),
    /// the one every such value has, when one holds the other: `Value` and `Zone` is `Zone`,
    /// `Option<T>` and `T` is `T`, `f64` and `i64` is `i64`. `None` when neither holds the
    /// other (the description contradicts itself, or the two meet in a shape no type says).
    pub(crate) fn narrowest(&self, other: &Ty) -> Option<Ty> {
        if self == other {
            return Some(self.clone());
        }
        Some(match (self, other) {
            (Ty::Value, b) | (b, Ty::Value) => b.clone(),
            (Ty::Option(a), Ty::Option(b)) => a.narrowest(b)?.optional(),
            (Ty::Option(a), b) | (b, Ty::Option(a)) => a.narrowest(b)?,
            (Ty::Vec(a), Ty::Vec(b)) => Ty::list(a.narrowest(b)?),
            (Ty::Map(a), Ty::Map(b)) => Ty::map(a.narrowest(b)?),
            // An object of any values, and a type of the spec: the type says more.
            (Ty::Map(a), b @ Ty::Named(_)) | (b @ Ty::Named(_), Ty::Map(a)) if **a == Ty::Value => {
                b.clone()
            }
            (Ty::F64, b) | (b, Ty::F64) if b.is_number() => b.clone(),
            (Ty::I64, b) | (b, Ty::I64) if b.is_number() => b.clone(),
            _ => return None,
        })
    }

    fn is_number(&self) -> bool {
        matches!(self, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64 | Ty::F64)
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Unit => f.write_str("()"),
            Ty::Bool => f.write_str("bool"),
            Ty::I32 => f.write_str("i32"),
            Ty::I64 => f.write_str("i64"),
            Ty::U32 => f.write_str("u32"),
            Ty::U64 => f.write_str("u64"),
            Ty::F64 => f.write_str("f64"),
            Ty::String => f.write_str("String"),
            Ty::DateTime => f.write_str("chrono::DateTime<chrono::Utc>"),
            Ty::Date => f.write_str("chrono::NaiveDate"),
            Ty::Value => f.write_str("serde_json::Value"),
            Ty::Bytes => f.write_str("bytes::Bytes"),
            Ty::File => f.write_str("File"),
            Ty::Named(name) => f.write_str(name),
            Ty::Vec(item) => write!(f, "Vec<{item}>"),
            Ty::Option(inner) => write!(f, "Option<{inner}>"),
            Ty::Nullable(inner) => write!(f, "Nullable<{inner}>"),
            Ty::Map(value) => write!(f, "HashMap<String, {value}>"),
        }
    }
}

/// How a body is put on the wire or read from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Json,
    Form,
    Multipart,
    Text,
    Bytes,
}

impl Encoding {
    /// The spec's word for it (`as: form`).
    pub(crate) fn word(self) -> &'static str {
        match self {
            Encoding::Json => "json",
            Encoding::Form => "form",
            Encoding::Multipart => "multipart",
            Encoding::Text => "text",
            Encoding::Bytes => "bytes",
        }
    }

    /// How a media type is read, and its rank when a body offers several (lower is better):
    /// JSON first, then form, multipart, text and bytes.
    pub(crate) fn of_media(media: &str) -> (u8, Encoding) {
        let media = media.trim().to_ascii_lowercase();
        let essence = media.split(';').next().unwrap_or_default().trim();
        // A range (`application/*+json`) is no type to send: a concrete JSON type first.
        if essence.contains('*') && essence.ends_with("+json") {
            (1, Encoding::Json)
        } else if essence == "application/json" || essence.ends_with("+json") {
            (0, Encoding::Json)
        } else if essence == "*/*" || essence == "application/*" {
            (1, Encoding::Json)
        } else if essence == "application/x-www-form-urlencoded" {
            (2, Encoding::Form)
        } else if essence == "multipart/form-data" {
            (3, Encoding::Multipart)
        } else if essence.starts_with("text/")
            || essence.ends_with("/xml")
            || essence.ends_with("+xml")
        {
            (4, Encoding::Text)
        } else {
            (5, Encoding::Bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_the_specs_syntax() {
        let ty = Ty::map(Ty::list(Ty::Named("User".into()))).optional();
        assert_eq!(ty.to_string(), "Option<HashMap<String, Vec<User>>>");
        assert_eq!(Ty::Value.nullable(), Ty::Value);
        assert_eq!(Ty::I64.optional().optional(), Ty::I64.optional());
    }

    #[test]
    fn renames_every_use() {
        let mut ty = Ty::list(Ty::Named("A".into())).optional();
        ty.rename("A", "B");
        assert_eq!(ty.to_string(), "Option<Vec<B>>");
    }

    #[test]
    fn widest_holds_both() {
        let zone = Ty::Named("Zone".into());
        assert_eq!(Ty::Value.optional().narrowest(&zone), Some(zone.clone()));
        assert_eq!(
            Ty::list(Ty::Value)
                .optional()
                .narrowest(&Ty::list(zone.clone()).optional()),
            Some(Ty::list(zone.clone()).optional())
        );
        assert_eq!(Ty::map(Ty::Value).narrowest(&zone), Some(zone.clone()));
        assert_eq!(Ty::F64.narrowest(&Ty::I32), Some(Ty::I32));
        assert_eq!(Ty::String.narrowest(&Ty::I64), None);
        assert_eq!(Ty::I32.widest(&Ty::I64), Ty::I64);
        assert_eq!(Ty::I64.widest(&Ty::F64), Ty::F64);
        assert_eq!(Ty::String.widest(&Ty::I64), Ty::Value);
        assert_eq!(
            Ty::String.optional().widest(&Ty::String),
            Ty::String.optional()
        );
        assert_eq!(
            Ty::list(Ty::Named("A".into())).widest(&Ty::list(Ty::Named("B".into()))),
            Ty::list(Ty::Value)
        );
    }

    #[test]
    fn media_types_by_rank() {
        assert_eq!(
            Encoding::of_media("application/vnd.api+json").1,
            Encoding::Json
        );
        assert_eq!(
            Encoding::of_media("application/json; charset=utf-8").1,
            Encoding::Json
        );
        assert_eq!(Encoding::of_media("text/csv").1, Encoding::Text);
        assert_eq!(Encoding::of_media("image/png").1, Encoding::Bytes);
    }
}

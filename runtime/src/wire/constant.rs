//! A field whose value is fixed (OpenAPI's `const`): written as that value, and read only when
//! the wire holds it.

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize, Serializer};

/// A constant's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Const {
    /// A string.
    Str(&'static str),
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
}

impl Serialize for Const {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Const::Str(text) => serializer.serialize_str(text),
            Const::Int(n) => serializer.serialize_i64(n),
            Const::Bool(b) => serializer.serialize_bool(b),
        }
    }
}

/// Reads the value and checks it is `expected`; the error says what was found.
pub fn constant<'de, D: Deserializer<'de>>(
    deserializer: D,
    expected: Const,
) -> Result<(), D::Error> {
    let found = serde_json::Value::deserialize(deserializer)?;
    let matches = match expected {
        Const::Str(text) => found.as_str() == Some(text),
        Const::Int(n) => found.as_i64() == Some(n),
        Const::Bool(b) => found.as_bool() == Some(b),
    };
    if matches {
        return Ok(());
    }
    let mut shown = String::new();
    let _ = crate::error::write_escaped(&mut shown, &crate::error::cut(&found.to_string(), 160));
    let wanted = serde_json::to_string(&expected).unwrap_or_default();
    Err(D::Error::custom(format!(
        "expected the constant {wanted}, found {shown}"
    )))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_the_constant_reads_and_it_is_what_is_written() {
        assert!(constant(json!("card"), Const::Str("card")).is_ok());
        assert_eq!(
            constant(json!("bank"), Const::Str("card"))
                .unwrap_err()
                .to_string(),
            r#"expected the constant "card", found "bank""#
        );
        assert!(constant(json!(2), Const::Int(2)).is_ok());
        assert!(constant(json!("2"), Const::Int(2)).is_err());
        assert_eq!(serde_json::to_string(&Const::Bool(true)).unwrap(), "true");
    }
}

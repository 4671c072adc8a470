//! Turning parameter values into the text that goes on the wire.
//!
//! Values go through serde, so a spec enum is written as its wire name, an `Option` that is
//! `None` gives no value and a `Vec` gives one value per element.

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, ErrorKind};

/// The wire texts of one parameter value: none for `None`, one per element for a sequence.
pub(crate) fn texts(name: &str, value: &impl Serialize) -> Result<Vec<String>, Error> {
    let value = serde_json::to_value(value).map_err(|e| {
        Error::new(
            ErrorKind::Encode,
            format!("parameter `{name}` cannot be encoded"),
        )
        .with_source(e)
    })?;
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .into_iter()
            .filter(|item| !item.is_null())
            .map(|item| scalar(name, item))
            .collect(),
        other => Ok(vec![scalar(name, other)?]),
    }
}

fn scalar(name: &str, value: Value) -> Result<String, Error> {
    match value {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(Error::new(
            ErrorKind::Encode,
            format!(
                "parameter `{name}` must be a string, number or boolean (or a list or Option of one)"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_sequences_and_scalars() {
        assert_eq!(
            texts("a", &Option::<i32>::None).unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(texts("a", &Some(true)).unwrap(), ["true"]);
        assert_eq!(texts("a", &["x", "y"]).unwrap(), ["x", "y"]);
        assert_eq!(texts("a", &7_i64).unwrap(), ["7"]);
        assert!(texts("a", &std::collections::HashMap::from([(1, 2)])).is_err());
    }
}

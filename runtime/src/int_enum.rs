//! Reading an enum whose values are integers on the wire (serde's derive maps names, not
//! numbers), keeping an unknown value when the enum is open.

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};

/// The variant of the integer read, or `other`'s for a value not listed; without `other`, an
/// error that lists the values known.
pub fn read<'de, T: Copy, D: Deserializer<'de>>(
    deserializer: D,
    name: &str,
    values: &[(i64, T)],
    other: Option<fn(i64) -> T>,
) -> Result<T, D::Error> {
    let value = i64::deserialize(deserializer)?;
    if let Some((_, variant)) = values.iter().find(|(v, _)| *v == value) {
        return Ok(*variant);
    }
    match other {
        Some(keep) => Ok(keep(value)),
        None => {
            let known: Vec<String> = values.iter().map(|(v, _)| v.to_string()).collect();
            Err(D::Error::custom(format!(
                "unknown `{name}` value {value}, expected one of {}",
                known.join(", ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Kind {
        Text,
        Voice,
        Other(i64),
    }

    fn kind(value: serde_json::Value, open: bool) -> Result<Kind, serde_json::Error> {
        super::read(
            value,
            "Kind",
            &[(0, Kind::Text), (2, Kind::Voice)],
            open.then_some(Kind::Other as fn(i64) -> Kind),
        )
    }

    #[test]
    fn known_values_unknown_ones_and_the_error() {
        assert_eq!(kind(json!(2), false).unwrap(), Kind::Voice);
        assert_eq!(kind(json!(13), true).unwrap(), Kind::Other(13));
        assert_eq!(
            kind(json!(13), false).unwrap_err().to_string(),
            "unknown `Kind` value 13, expected one of 0, 2"
        );
        assert!(
            kind(json!("2"), true).is_err(),
            "a string is not an integer"
        );
    }
}

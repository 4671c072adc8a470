//! Reading the enums a spec declares, keeping an unknown value when the enum is open.
//!
//! Integers because serde's derive maps names, not numbers; strings because the derive of an
//! enum with an `#[serde(untagged)]` fallback buffers every value and costs rustc several times
//! the code of a `match`, which a large imported client pays for each of its enums.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{Deserializer, Error as _, Visitor};

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

/// The variant whose wire name `known` recognises, or `other`'s for a string not listed (no copy
/// is made of a known one); without `other`, an error that lists `expected`.
pub fn read_str<'de, T, D: Deserializer<'de>>(
    deserializer: D,
    name: &'static str,
    known: fn(&str) -> Option<T>,
    other: Option<fn(String) -> T>,
    expected: &'static [&'static str],
) -> Result<T, D::Error> {
    deserializer.deserialize_str(StrVisitor {
        name,
        known,
        other,
        expected,
        marker: PhantomData,
    })
}

struct StrVisitor<T> {
    name: &'static str,
    known: fn(&str) -> Option<T>,
    other: Option<fn(String) -> T>,
    expected: &'static [&'static str],
    marker: PhantomData<fn() -> T>,
}

impl<T> StrVisitor<T> {
    fn unknown<E: serde::de::Error>(&self, value: &str) -> E {
        E::custom(format!(
            "unknown `{}` value {value:?}, expected one of {}",
            self.name,
            self.expected.join(", ")
        ))
    }
}

impl<T> Visitor<'_> for StrVisitor<T> {
    type Value = T;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "a `{}` string", self.name)
    }

    fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<T, E> {
        if let Some(variant) = (self.known)(value) {
            return Ok(variant);
        }
        match self.other {
            Some(keep) => Ok(keep(value.to_owned())),
            None => Err(self.unknown(value)),
        }
    }

    fn visit_string<E: serde::de::Error>(self, value: String) -> Result<T, E> {
        if let Some(variant) = (self.known)(&value) {
            return Ok(variant);
        }
        match self.other {
            Some(keep) => Ok(keep(value)),
            None => Err(self.unknown(&value)),
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

    #[derive(Debug, Clone, PartialEq)]
    enum State {
        Open,
        Closed,
        Other(String),
    }

    fn state(value: serde_json::Value, open: bool) -> Result<State, serde_json::Error> {
        super::read_str(
            value,
            "State",
            |wire| match wire {
                "open" => Some(State::Open),
                "closed" => Some(State::Closed),
                _ => None,
            },
            open.then_some(State::Other as fn(String) -> State),
            &["open", "closed"],
        )
    }

    #[test]
    fn string_values_unknown_ones_and_the_error() {
        assert_eq!(state(json!("closed"), false).unwrap(), State::Closed);
        assert_eq!(
            state(json!("merged"), true).unwrap(),
            State::Other("merged".into())
        );
        assert_eq!(
            state(json!("merged"), false).unwrap_err().to_string(),
            "unknown `State` value \"merged\", expected one of open, closed"
        );
        assert!(state(json!(1), true).is_err(), "a number is not a string");
        let borrowed: State = super::read_str(
            &mut serde_json::Deserializer::from_str("\"open\""),
            "State",
            |wire| (wire == "open").then_some(State::Open),
            None,
            &["open"],
        )
        .unwrap();
        assert_eq!(borrowed, State::Open);
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

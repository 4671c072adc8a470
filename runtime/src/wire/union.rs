//! Reading a union (`one_of:`) whose alternatives serde cannot tell apart by itself, with an
//! error that says what was tried. serde's own untagged enums answer "data did not match any
//! variant", which leaves the caller to guess; these name each alternative and why it did not
//! fit, or the tag value that no alternative has.
//!
//! The value is read once into a `serde_json::Value` and each alternative is tried on it. A tagged
//! union's tag stays in the value, so an alternative that declares the tag field reads it.

use std::fmt::Write;

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use serde_json::Value;

/// One alternative: its name (for errors) and how to read it from the value.
pub type Alternative<'a, T> = (&'a str, fn(&Value) -> Result<T, serde_json::Error>);

/// The first alternative that reads the value; with none, an error naming each alternative and
/// what it said, or `other`'s answer (an open union keeps what it does not know).
pub fn untagged<'de, T, D: Deserializer<'de>>(
    deserializer: D,
    union: &str,
    alternatives: &[Alternative<'_, T>],
    other: Option<fn(Value) -> T>,
) -> Result<T, D::Error> {
    let value = Value::deserialize(deserializer)?;
    let mut tried = String::new();
    for (name, read) in alternatives {
        match read(&value) {
            Ok(found) => return Ok(found),
            Err(e) => {
                let _ = write!(
                    tried,
                    "{}`{name}`: {e}",
                    if tried.is_empty() { "" } else { "; " }
                );
            }
        }
    }
    match other {
        Some(keep) => Ok(keep(value)),
        None => Err(D::Error::custom(format!(
            "no alternative of `{union}` matches ({tried})"
        ))),
    }
}

/// The alternative whose tag value (`alternatives[i].0`, the value of the field `tag`) the value
/// carries; an error when the field is missing, or when its value is unknown and the union is not
/// open.
pub fn tagged<'de, T, D: Deserializer<'de>>(
    deserializer: D,
    union: &str,
    tag: &str,
    alternatives: &[Alternative<'_, T>],
    other: Option<fn(Value) -> T>,
) -> Result<T, D::Error> {
    let value = Value::deserialize(deserializer)?;
    let Some(found) = value.get(tag) else {
        return match other {
            Some(keep) => Ok(keep(value)),
            None => Err(D::Error::custom(format!(
                "`{union}` needs its tag field `{tag}`, and the value has none"
            ))),
        };
    };
    // A tag is a string on the wire; a number or a boolean is matched by its text.
    let text = match found {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match alternatives.iter().find(|(name, _)| *name == text) {
        Some((_, read)) => {
            read(&value).map_err(|e| D::Error::custom(format!("`{union}` ({tag}: {text}): {e}")))
        }
        None => match other {
            Some(keep) => Ok(keep(value)),
            None => {
                let known: Vec<&str> = alternatives.iter().map(|(name, _)| *name).collect();
                let mut shown = String::new();
                let _ = crate::error::write_escaped(&mut shown, &text);
                Err(D::Error::custom(format!(
                    "`{union}`: unknown `{tag}` value `{shown}`, expected one of {}",
                    known.join(", ")
                )))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Card {
        number: String,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Bank {
        iban: String,
    }

    #[derive(Debug, PartialEq)]
    enum Source {
        Card(Card),
        Bank(Bank),
        Other(Value),
    }

    fn read(value: Value, open: bool) -> Result<Source, serde_json::Error> {
        untagged(
            value,
            "Source",
            &[
                ("Card", |v| Card::deserialize(v).map(Source::Card)),
                ("Bank", |v| Bank::deserialize(v).map(Source::Bank)),
            ],
            open.then_some(Source::Other as fn(Value) -> Source),
        )
    }

    #[test]
    fn untagged_takes_the_first_that_fits_and_names_all_it_tried() {
        assert_eq!(
            read(json!({ "iban": "DE00" }), false).unwrap(),
            Source::Bank(Bank {
                iban: "DE00".into()
            })
        );
        let error = read(json!({ "id": 1 }), false).unwrap_err().to_string();
        assert_eq!(
            error,
            "no alternative of `Source` matches (`Card`: missing field `number`; `Bank`: missing field `iban`)"
        );
        assert_eq!(
            read(json!({ "id": 1 }), true).unwrap(),
            Source::Other(json!({ "id": 1 }))
        );
    }

    fn read_tagged(value: Value) -> Result<Source, serde_json::Error> {
        tagged(
            value,
            "Source",
            "object",
            &[
                ("card", |v| Card::deserialize(v).map(Source::Card)),
                ("bank_account", |v| Bank::deserialize(v).map(Source::Bank)),
            ],
            None,
        )
    }

    #[test]
    fn tagged_dispatches_on_the_tag_and_says_what_is_wrong() {
        assert_eq!(
            read_tagged(json!({ "object": "card", "number": "4242" })).unwrap(),
            Source::Card(Card {
                number: "4242".into()
            })
        );
        for (value, expected) in [
            (
                json!({ "number": "4242" }),
                "`Source` needs its tag field `object`, and the value has none",
            ),
            (
                json!({ "object": "wallet\n" }),
                "`Source`: unknown `object` value `wallet\\n`, expected one of card, bank_account",
            ),
            (
                json!({ "object": "card" }),
                "`Source` (object: card): missing field `number`",
            ),
        ] {
            assert_eq!(read_tagged(value).unwrap_err().to_string(), expected);
        }
    }
}

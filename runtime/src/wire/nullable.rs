//! A field that can be absent, `null`, or a value: what a PATCH needs to clear a field (send
//! `null`) apart from leaving it alone (send nothing), and what `Option` cannot say.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Three states of a JSON field. Generated structs skip an `Absent` field when they serialise and
/// read a missing one as `Absent`; `null` reads as `Null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Nullable<T> {
    /// Not on the wire.
    #[default]
    Absent,
    /// `null` on the wire.
    Null,
    /// A value.
    Value(T),
}

impl<T> Nullable<T> {
    /// True for [`Nullable::Absent`] (generated code's `skip_serializing_if`).
    pub fn is_absent(&self) -> bool {
        matches!(self, Nullable::Absent)
    }

    /// The value, if there is one.
    pub fn as_option(&self) -> Option<&T> {
        match self {
            Nullable::Value(value) => Some(value),
            Nullable::Absent | Nullable::Null => None,
        }
    }

    /// The value, if there is one.
    pub fn into_option(self) -> Option<T> {
        match self {
            Nullable::Value(value) => Some(value),
            Nullable::Absent | Nullable::Null => None,
        }
    }
}

/// A value: `description: Nullable::from(text)`, or `.into()` where the type is known.
impl<T> From<T> for Nullable<T> {
    fn from(value: T) -> Self {
        Nullable::Value(value)
    }
}

/// Text: `description: "x".into()`.
impl From<&str> for Nullable<String> {
    fn from(value: &str) -> Self {
        Nullable::Value(value.to_owned())
    }
}

/// `Some(v)` is a value, `None` is `null`: an `Option` always says something.
impl<T> From<Option<T>> for Nullable<T> {
    fn from(option: Option<T>) -> Self {
        match option {
            Some(value) => Nullable::Value(value),
            None => Nullable::Null,
        }
    }
}

impl<T: Serialize> Serialize for Nullable<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // Only reached outside a generated struct (which skips it): the nearest is `null`.
            Nullable::Absent | Nullable::Null => serializer.serialize_none(),
            Nullable::Value(value) => value.serialize(serializer),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Nullable<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Called only for a field that is present (a missing one is `Default`).
        Option::<T>::deserialize(deserializer).map(Nullable::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Patch {
        #[serde(default, skip_serializing_if = "Nullable::is_absent")]
        email: Nullable<String>,
    }

    #[test]
    fn a_value_or_text_is_one_word_and_null_is_said() {
        let patch = Patch {
            email: "ada@example.test".into(),
        };
        assert_eq!(patch.email, Nullable::Value("ada@example.test".to_owned()));
        let count: Nullable<u32> = 3.into();
        assert_eq!(count, Nullable::Value(3));
        let cleared: Nullable<u32> = None.into();
        assert_eq!(cleared, Nullable::Null);
    }

    #[test]
    fn the_three_states_round_trip() {
        for (state, wire) in [
            (Nullable::Absent, "{}"),
            (Nullable::Null, r#"{"email":null}"#),
            (Nullable::Value("a@b.c".to_owned()), r#"{"email":"a@b.c"}"#),
        ] {
            let patch = Patch { email: state };
            assert_eq!(serde_json::to_string(&patch).unwrap(), wire);
            assert_eq!(serde_json::from_str::<Patch>(wire).unwrap(), patch);
        }
    }
}

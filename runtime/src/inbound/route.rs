//! Which declared event a verified delivery is: among those delivered to its path whose
//! headers and payload fields all say so, the one that names the most (an `issues` event with
//! `action: opened` before one with only the `issues` header), the first of equals. A field is read by one pass over the body that
//! skips every other value (`serde`'s `IgnoredAny`), so telling an event apart costs a pass per
//! distinct field the description names, not a decode.

use std::fmt;

use reqwest::header::HeaderMap;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::events::{EventSpec, Events};

/// The index of the event a delivery to `path` with `headers` and `body` is, if any.
pub(crate) fn event_of(
    events: &Events,
    path: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> Option<usize> {
    let mut read: Vec<(&str, Option<String>)> = Vec::new();
    let mut field = |name: &'static str| -> Option<String> {
        if let Some((_, value)) = read.iter().find(|(seen, _)| *seen == name) {
            return value.clone();
        }
        let value = field_text(body, name);
        read.push((name, value.clone()));
        value
    };
    let mut best: Option<(usize, usize)> = None;
    for (index, event) in events.events.iter().enumerate() {
        let named_by = event.headers.len() + event.fields.len();
        if best.is_some_and(|(_, most)| most >= named_by) {
            continue;
        }
        let matches = event.path == path
            && headers_match(event, headers)
            && event
                .fields
                .iter()
                .all(|(name, want)| field(name).as_deref() == Some(*want));
        if matches {
            best = Some((index, named_by));
        }
    }
    best.map(|(index, _)| index)
}

fn headers_match(event: &EventSpec, headers: &HeaderMap) -> bool {
    event.headers.iter().all(|(name, want)| {
        headers
            .get(*name)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim() == *want)
    })
}

/// The value at a dotted path of object keys in a JSON body: a string's text, a number's or a
/// boolean's JSON text; none for anything else, or when the body is not JSON.
pub(crate) fn field_text(body: &[u8], path: &str) -> Option<String> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    AtPath(path).deserialize(&mut deserializer).ok().flatten()
}

/// Finds the value at a dotted path, skipping every other value unread.
struct AtPath<'p>(&'p str);

impl<'de> DeserializeSeed<'de> for AtPath<'_> {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AtPath<'_> {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (head, rest) = match self.0.split_once('.') {
            Some((head, rest)) => (head, Some(rest)),
            None => (self.0, None),
        };
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == head && found.is_none() {
                found = match rest {
                    Some(rest) => map.next_value_seed(AtPath(rest))?,
                    None => map.next_value_seed(Leaf)?,
                };
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// The value a path ends at, as text.
struct Leaf;

impl<'de> DeserializeSeed<'de> for Leaf {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Leaf {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E>(self, value: &str) -> Result<Self::Value, E> {
        Ok(Some(value.to_owned()))
    }

    fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
        Ok(Some(value.to_string()))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Self::Value, E> {
        Ok(Some(value.to_string()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Self::Value, E> {
        Ok(Some(value.to_string()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Self::Value, E> {
        Ok(Some(value.to_string()))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_read_at_its_dotted_path_and_nothing_else_is() {
        let body = br#"{"id":"evt_1","data":{"object":{"x":[1,{"type":"no"}]}},"event":{"type":"message","n":3},"type":"invoice.paid","live":true}"#;
        assert_eq!(field_text(body, "type").as_deref(), Some("invoice.paid"));
        assert_eq!(field_text(body, "event.type").as_deref(), Some("message"));
        assert_eq!(field_text(body, "event.n").as_deref(), Some("3"));
        assert_eq!(field_text(body, "live").as_deref(), Some("true"));
        assert_eq!(
            field_text(body, "data.object").as_deref(),
            None,
            "an object is no name"
        );
        assert_eq!(field_text(body, "missing"), None);
        assert_eq!(field_text(b"not json", "type"), None);
        assert_eq!(
            field_text(br#"{"type":"a""#, "type"),
            None,
            "a truncated body names nothing"
        );
    }

    #[test]
    fn the_first_event_whose_path_headers_and_fields_all_agree_is_taken() {
        static EVENTS: Events = Events {
            client: "hub",
            events: &[
                EventSpec {
                    name: "issue_other",
                    path: "/",
                    headers: &[("x-github-event", "issues")],
                    fields: &[],
                    answer: 200,
                    max_body: 0,
                    payload: true,
                },
                EventSpec {
                    name: "issue_opened",
                    path: "/",
                    headers: &[("x-github-event", "issues")],
                    fields: &[("action", "opened")],
                    answer: 200,
                    max_body: 0,
                    payload: true,
                },
                EventSpec {
                    name: "issue_closed",
                    path: "/",
                    headers: &[("x-github-event", "issues")],
                    fields: &[("action", "closed")],
                    answer: 200,
                    max_body: 0,
                    payload: true,
                },
                EventSpec {
                    name: "ping",
                    path: "/",
                    headers: &[("x-github-event", "ping")],
                    fields: &[],
                    answer: 204,
                    max_body: 0,
                    payload: true,
                },
                EventSpec {
                    name: "build_done",
                    path: "/builds",
                    headers: &[],
                    fields: &[],
                    answer: 200,
                    max_body: 0,
                    payload: true,
                },
            ],
        };
        let mut headers = HeaderMap::new();
        headers.insert("x-github-event", "issues".parse().unwrap());
        assert_eq!(
            event_of(&EVENTS, "/", &headers, br#"{"action":"closed"}"#),
            Some(2),
            "the event that names more wins over an earlier one that names less"
        );
        assert_eq!(
            event_of(&EVENTS, "/", &headers, br#"{"action":"opened"}"#),
            Some(1)
        );
        assert_eq!(
            event_of(&EVENTS, "/", &headers, br#"{"action":"edited"}"#),
            Some(0),
            "the event that names less takes what the others do not"
        );
        headers.insert("x-github-event", "ping".parse().unwrap());
        assert_eq!(event_of(&EVENTS, "/", &headers, b"{}"), Some(3));
        assert_eq!(
            event_of(&EVENTS, "/builds", &HeaderMap::new(), b"{}"),
            Some(4)
        );
        assert_eq!(event_of(&EVENTS, "/other", &HeaderMap::new(), b"{}"), None);
    }
}

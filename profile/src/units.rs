//! Durations (`250ms`, `2s`, `1m`) and sizes (`512KiB`, `16MiB`) as written in specs and profiles.

use std::fmt;
use std::time::Duration;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// Parses `250ms`, `2s` or `1m` (a whole number and a unit) into a [`Duration`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (digits, unit) = split_number(text);
    let value: u64 = digits.parse().map_err(|_| duration_help(text))?;
    let millis = match unit {
        "ms" => Some(value),
        "s" => value.checked_mul(1_000),
        "m" => value.checked_mul(60_000),
        _ => return Err(duration_help(text)),
    };
    millis
        .map(Duration::from_millis)
        .ok_or_else(|| format!("duration `{text}` is too large"))
}

/// Writes a duration in the largest unit that represents it exactly.
pub fn format_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis != 0 && millis.is_multiple_of(60_000) {
        format!("{}m", millis / 60_000)
    } else if millis.is_multiple_of(1_000) {
        format!("{}s", millis / 1_000)
    } else {
        format!("{millis}ms")
    }
}

fn duration_help(text: &str) -> String {
    let mut help = format!(
        "invalid duration `{text}`: expected a whole number followed by ms, s or m (e.g. 250ms, 2s, 1m)"
    );
    if let Some(nearest) = nearest_duration(text) {
        help.push_str(&format!("; did you mean `{nearest}`?"));
    }
    help
}

/// What a duration written another way (`1.5s`, `5sec`, `2 hours`, `500us`, a bare `2`) most
/// likely means, in this format: the same time in whole milliseconds or more, rounded up to
/// `1ms` below it (a timeout of 0 would mean none).
fn nearest_duration(text: &str) -> Option<String> {
    let number_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let value: f64 = text[..number_end].parse().ok()?;
    let unit = text[number_end..].trim().to_ascii_lowercase();
    let micros_per_unit = match unit.as_str() {
        "ns" | "nanos" | "nanosecond" | "nanoseconds" => 0.001,
        "us" | "µs" | "micros" | "microsecond" | "microseconds" => 1.0,
        "ms" | "msec" | "msecs" | "millis" | "millisecond" | "milliseconds" => 1e3,
        "" | "s" | "sec" | "secs" | "second" | "seconds" => 1e6,
        "m" | "min" | "mins" | "minute" | "minutes" => 6e7,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3.6e9,
        "d" | "day" | "days" => 8.64e10,
        _ => return None,
    };
    let millis = (value * micros_per_unit / 1e3).ceil();
    if !(0.0..1e15).contains(&millis) {
        return None;
    }
    let millis = if value > 0.0 {
        (millis as u64).max(1)
    } else {
        0
    };
    let nearest = format_duration(Duration::from_millis(millis));
    (nearest != text).then_some(nearest)
}

/// Parses `1024`, `512KiB`, `16MiB` or `1GiB` into a number of bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, unit) = split_number(text);
    let help = || {
        format!(
            "invalid size `{text}`: expected a whole number of bytes, optionally followed by KiB, MiB or GiB (e.g. 16MiB)"
        )
    };
    let value: u64 = digits.parse().map_err(|_| help())?;
    let factor: u64 = match unit {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return Err(help()),
    };
    value
        .checked_mul(factor)
        .ok_or_else(|| format!("size `{text}` is too large"))
}

/// Writes a size in the largest binary unit that represents it exactly.
pub fn format_size(bytes: u64) -> String {
    for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if bytes != 0 && bytes.is_multiple_of(1 << shift) {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

fn split_number(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    (&text[..end], text[end..].trim_start())
}

/// Serde adapter: a [`Duration`] written as `250ms`, `2s` or `1m`.
pub mod duration {
    use super::*;

    /// Serializes as the compact text form.
    pub fn serialize<S: Serializer>(value: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => s.serialize_str(&format_duration(*d)),
            None => s.serialize_none(),
        }
    }

    /// Deserializes from the text form.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Duration;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as 250ms, 2s or 1m")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Duration, E> {
                parse_duration(v).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Duration, E> {
                if v == 0 {
                    Ok(Duration::ZERO)
                } else {
                    Err(E::custom(format!(
                        "duration `{v}` has no unit: write {v}ms, {v}s or {v}m"
                    )))
                }
            }
        }
        d.deserialize_any(Text).map(Some)
    }
}

/// A number of bytes written as `1024`, `512KiB` or `16MiB`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

impl Serialize for ByteSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_size(self.0))
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = ByteSize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size such as 1024, 512KiB or 16MiB")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ByteSize, E> {
                parse_size(v).map(ByteSize).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ByteSize, E> {
                Ok(ByteSize(v))
            }
        }
        d.deserialize_any(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_round_trip_in_their_largest_unit() {
        for (text, millis, back) in [
            ("250ms", 250, "250ms"),
            ("2s", 2_000, "2s"),
            ("1m", 60_000, "1m"),
            ("0s", 0, "0s"),
            ("1500ms", 1_500, "1500ms"),
            ("120s", 120_000, "2m"),
        ] {
            let parsed = parse_duration(text).unwrap();
            assert_eq!(parsed, Duration::from_millis(millis), "{text}");
            assert_eq!(format_duration(parsed), back);
        }
    }

    #[test]
    fn bad_durations_explain_the_format() {
        for text in ["2", "2 sec", "s", "-1s", "1.5s", "2h"] {
            let err = parse_duration(text).unwrap_err();
            assert!(err.contains("expected a whole number"), "{text}: {err}");
        }
    }

    #[test]
    fn a_duration_written_another_way_gets_a_suggestion() {
        for (text, nearest) in [
            ("1.5s", Some("1500ms")),
            ("5sec", Some("5s")),
            ("500us", Some("1ms")),
            ("2h", Some("120m")),
            ("2 seconds", Some("2s")),
            ("2", Some("2s")),
            ("0.25m", Some("15s")),
            ("-1s", None),
            ("s", None),
            ("2 fortnights", None),
        ] {
            let err = parse_duration(text).unwrap_err();
            match nearest {
                Some(nearest) => assert!(
                    err.ends_with(&format!("; did you mean `{nearest}`?")),
                    "{text}: {err}"
                ),
                None => assert!(!err.contains("did you mean"), "{text}: {err}"),
            }
        }
    }

    #[test]
    fn sizes_parse_binary_units() {
        assert_eq!(parse_size("16MiB").unwrap(), 16 << 20);
        assert_eq!(parse_size("512KiB").unwrap(), 512 << 10);
        assert_eq!(parse_size("100").unwrap(), 100);
        assert!(parse_size("16MB").is_err());
        assert_eq!(format_size(16 << 20), "16MiB");
        assert_eq!(format_size(1000), "1000");
    }
}

/// A duration as written (`250ms`, `2s`, `1m`), as the JSON Schema of the format describes it:
/// the model's duration fields name it, so it sits here, below the model, not in the schema
/// module that reads the model.
#[cfg(feature = "schema")]
#[derive(Debug)]
pub struct DurationText;

#[cfg(feature = "schema")]
impl schemars::JsonSchema for DurationText {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Duration".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A whole number followed by ms, s or m, e.g. 250ms, 2s, 1m.",
            "anyOf": [
                { "type": "string", "pattern": "^\\s*[0-9]+\\s*(ms|s|m)\\s*$" },
                { "const": 0 }
            ]
        })
    }
}

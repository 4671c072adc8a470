//! Turning parameter values into the text that goes on the wire.
//!
//! Values go through serde, so a spec enum is written as its wire name, an `Option` that is
//! `None` gives no value and a `Vec` gives one value per element. A small serializer of our own
//! hands each text to the caller as it is made: a `&str` parameter is never copied and nothing
//! is built in between (going through `serde_json::Value` cost an allocation or two per
//! parameter on every call).

use std::fmt::{self, Display, Write};

use serde::Serialize;
use serde::ser::{self, Impossible};

use crate::error::{Error, ErrorKind};

/// Calls `sink` with each wire text of one parameter value: none for `None`, one per element
/// for a sequence (`None` elements skipped).
pub(crate) fn each_text(
    name: &str,
    value: &impl Serialize,
    mut sink: impl FnMut(&str) -> Result<(), Error>,
) -> Result<(), Error> {
    let writer = TextWriter {
        sink: &mut sink,
        in_sequence: false,
    };
    value.serialize(writer).map_err(|e| match e {
        Failure::Sink(error) => error,
        Failure::Shape => Error::new(
            ErrorKind::Encode,
            format!(
                "parameter `{name}` must be a string, number or boolean (or a list or Option of one)"
            ),
        ),
        Failure::Custom(message) => Error::new(
            ErrorKind::Encode,
            format!("parameter `{name}` cannot be encoded: {message}"),
        ),
    })
}

/// Why serializing a parameter stopped.
#[derive(Debug)]
enum Failure {
    /// The caller refused a text (an invalid header value, say).
    Sink(Error),
    /// A map, a struct or a list of lists: no single wire text.
    Shape,
    /// The value's own `Serialize` failed.
    Custom(String),
}

impl Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Sink(error) => error.fmt(f),
            Failure::Shape => f.write_str("not a scalar"),
            Failure::Custom(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Failure {}

impl ser::Error for Failure {
    fn custom<T: Display>(message: T) -> Self {
        Failure::Custom(message.to_string())
    }
}

/// Writes scalars to the sink; a sequence is allowed at the top only.
struct TextWriter<'s, F> {
    sink: &'s mut F,
    in_sequence: bool,
}

impl<F: FnMut(&str) -> Result<(), Error>> TextWriter<'_, F> {
    fn text(self, text: &str) -> Result<(), Failure> {
        (self.sink)(text).map_err(Failure::Sink)
    }

    /// Formats a number on the stack: integers never need more than 40 bytes.
    fn display(self, value: impl Display) -> Result<(), Failure> {
        let mut buffer = StackText::default();
        match write!(buffer, "{value}") {
            Ok(()) => self.text(buffer.as_str()),
            // Longer than the buffer: rare enough to allocate.
            Err(_) => self.text(&value.to_string()),
        }
    }

    fn float(self, value: f64) -> Result<(), Failure> {
        // As JSON would have it: NaN and infinities are no value, finite numbers in their
        // shortest round-tripping form (`0.1`, `1e+300`), which serde_json writes.
        if !value.is_finite() {
            return Ok(());
        }
        let text = serde_json::to_string(&value).map_err(|e| Failure::Custom(e.to_string()))?;
        self.text(&text)
    }
}

/// A fixed buffer for `write!`; fails rather than grows.
struct StackText {
    bytes: [u8; 40],
    len: usize,
}

impl Default for StackText {
    fn default() -> Self {
        StackText {
            bytes: [0; 40],
            len: 0,
        }
    }
}

impl StackText {
    fn as_str(&self) -> &str {
        // Only whole `&str`s are ever copied in.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl Write for StackText {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `Serializer` methods that write an integer in decimal.
macro_rules! integers_as_text {
    ($($method:ident: $type:ty),* $(,)?) => {
        $(
            fn $method(self, v: $type) -> Result<(), Failure> {
                self.display(v)
            }
        )*
    };
}

impl<'s, F: FnMut(&str) -> Result<(), Error>> ser::Serializer for TextWriter<'s, F> {
    type Ok = ();
    type Error = Failure;
    type SerializeSeq = Elements<'s, F>;
    type SerializeTuple = Elements<'s, F>;
    type SerializeTupleStruct = Elements<'s, F>;
    type SerializeTupleVariant = Impossible<(), Failure>;
    type SerializeMap = Impossible<(), Failure>;
    type SerializeStruct = Impossible<(), Failure>;
    type SerializeStructVariant = Impossible<(), Failure>;

    fn serialize_bool(self, v: bool) -> Result<(), Failure> {
        self.text(if v { "true" } else { "false" })
    }
    integers_as_text! {
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128,
    }
    fn serialize_f32(self, v: f32) -> Result<(), Failure> {
        // Through f64 as JSON does, without f32's extra digits (`0.1`, not `0.10000000149`).
        match v.to_string().parse::<f64>() {
            Ok(widened) => self.float(widened),
            Err(_) => self.float(f64::from(v)),
        }
    }
    fn serialize_f64(self, v: f64) -> Result<(), Failure> {
        self.float(v)
    }
    fn serialize_char(self, v: char) -> Result<(), Failure> {
        self.text(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Failure> {
        self.text(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Failure> {
        // JSON writes bytes as a list of numbers; so do we.
        if self.in_sequence {
            return Err(Failure::Shape);
        }
        for byte in v {
            TextWriter {
                sink: &mut *self.sink,
                in_sequence: true,
            }
            .display(byte)?;
        }
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Failure> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Failure> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Failure> {
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Failure> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Failure> {
        self.text(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Failure> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Failure> {
        Err(Failure::Shape)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Elements<'s, F>, Failure> {
        if self.in_sequence {
            return Err(Failure::Shape);
        }
        Ok(Elements { sink: self.sink })
    }
    fn serialize_tuple(self, len: usize) -> Result<Elements<'s, F>, Failure> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Elements<'s, F>, Failure> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Failure> {
        Err(Failure::Shape)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Failure> {
        Err(Failure::Shape)
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Failure> {
        Err(Failure::Shape)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Failure> {
        Err(Failure::Shape)
    }
}

/// The elements of a top-level sequence: each a scalar or `None`.
struct Elements<'s, F> {
    sink: &'s mut F,
}

impl<F: FnMut(&str) -> Result<(), Error>> Elements<'_, F> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        value.serialize(TextWriter {
            sink: &mut *self.sink,
            in_sequence: true,
        })
    }
}

impl<F: FnMut(&str) -> Result<(), Error>> ser::SerializeSeq for Elements<'_, F> {
    type Ok = ();
    type Error = Failure;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        self.element(value)
    }
    fn end(self) -> Result<(), Failure> {
        Ok(())
    }
}

impl<F: FnMut(&str) -> Result<(), Error>> ser::SerializeTuple for Elements<'_, F> {
    type Ok = ();
    type Error = Failure;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        self.element(value)
    }
    fn end(self) -> Result<(), Failure> {
        Ok(())
    }
}

impl<F: FnMut(&str) -> Result<(), Error>> ser::SerializeTupleStruct for Elements<'_, F> {
    type Ok = ();
    type Error = Failure;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        self.element(value)
    }
    fn end(self) -> Result<(), Failure> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde::Serialize;

    use super::*;

    fn texts(value: &impl Serialize) -> Result<Vec<String>, Error> {
        let mut out = Vec::new();
        each_text("a", value, |t| {
            out.push(t.to_owned());
            Ok(())
        })?;
        Ok(out)
    }

    #[derive(Serialize)]
    #[serde(rename_all = "kebab-case")]
    enum Status {
        OnHold,
    }

    #[derive(Serialize)]
    struct Id(u32);

    #[test]
    fn options_sequences_and_scalars() {
        assert_eq!(texts(&Option::<i32>::None).unwrap(), Vec::<String>::new());
        assert_eq!(texts(&Some(true)).unwrap(), ["true"]);
        assert_eq!(texts(&["x", "y"]).unwrap(), ["x", "y"]);
        assert_eq!(texts(&vec![Some(1), None, Some(3)]).unwrap(), ["1", "3"]);
        assert_eq!(texts(&7_i64).unwrap(), ["7"]);
        assert_eq!(texts(&i64::MIN).unwrap(), [i64::MIN.to_string()]);
        assert_eq!(texts(&u128::MAX).unwrap(), [u128::MAX.to_string()]);
        assert_eq!(texts(&'é').unwrap(), ["é"]);
        assert_eq!(texts(&Status::OnHold).unwrap(), ["on-hold"]);
        assert_eq!(texts(&Id(9)).unwrap(), ["9"]);
        assert_eq!(texts(&(1, "b")).unwrap(), ["1", "b"]);
    }

    #[test]
    fn floats_are_written_as_json_writes_them() {
        assert_eq!(texts(&0.1_f64).unwrap(), ["0.1"]);
        assert_eq!(texts(&0.1_f32).unwrap(), ["0.1"]);
        assert_eq!(texts(&1e300_f64).unwrap(), ["1e+300"]);
        assert_eq!(texts(&2.0_f64).unwrap(), ["2.0"]);
        assert_eq!(texts(&f64::NAN).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn maps_structs_and_nested_lists_are_refused() {
        #[derive(Serialize)]
        struct Point {
            x: i32,
        }
        for error in [
            texts(&HashMap::from([(1, 2)])).unwrap_err(),
            texts(&Point { x: 1 }).unwrap_err(),
            texts(&vec![vec![1]]).unwrap_err(),
        ] {
            assert_eq!(error.kind(), ErrorKind::Encode);
            assert!(error.to_string().contains("parameter `a` must be a string"));
        }
    }

    #[test]
    fn the_sinks_refusal_is_the_error() {
        let error = each_text("a", &"x", |_| {
            Err(Error::new(ErrorKind::Encode, "refused by the caller"))
        })
        .unwrap_err();
        assert!(error.to_string().contains("refused by the caller"));
    }
}

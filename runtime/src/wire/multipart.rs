//! `multipart/form-data` bodies: text parts and file parts, encoded once per logical call into
//! bytes that every attempt sends again (a stream could be sent only once, and a retry needs the
//! same body).

use std::fmt;

use bytes::{BufMut, Bytes, BytesMut};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, ErrorKind};
use crate::wire::params;

/// A file part: its bytes, and the file name and content type the server is told.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct File {
    /// The content.
    pub bytes: Bytes,
    /// The file name sent in the part's `Content-Disposition` (none: the part has none).
    pub filename: Option<String>,
    /// The part's `Content-Type` (none: `application/octet-stream`).
    pub content_type: Option<String>,
}

impl File {
    /// A file of these bytes, with no name and the default content type.
    pub fn new(bytes: impl Into<Bytes>) -> File {
        File {
            bytes: bytes.into(),
            ..File::default()
        }
    }

    /// The same file, named `filename`.
    pub fn filename(mut self, filename: impl Into<String>) -> File {
        self.filename = Some(filename.into());
        self
    }

    /// The same file, of type `content_type` (`image/png`).
    pub fn content_type(mut self, content_type: impl Into<String>) -> File {
        self.content_type = Some(content_type.into());
        self
    }
}

/// Shows the size, not the content.
impl fmt::Debug for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("File")
            .field("bytes", &self.bytes.len())
            .field("filename", &self.filename)
            .field("content_type", &self.content_type)
            .finish()
    }
}

/// Outside a multipart body (a struct holding a file sent as JSON, say), a file is its bytes.
impl Serialize for File {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.bytes)
    }
}

impl<'de> Deserialize<'de> for File {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<u8>::deserialize(deserializer).map(File::new)
    }
}

/// A type sent as `multipart/form-data`: the generator implements it for a body type, one
/// `text` or `file` call per field, in field order.
pub trait Multipart {
    /// Adds this value's parts to `form`.
    fn parts(&self, form: &mut Form);
}

/// What may go in a file part: a [`File`], an optional one, or several under one name.
pub trait Files {
    /// Calls `each` with every file.
    fn each_file(&self, each: &mut dyn FnMut(&File));
}

impl Files for File {
    fn each_file(&self, each: &mut dyn FnMut(&File)) {
        each(self);
    }
}

impl<T: Files> Files for Option<T> {
    fn each_file(&self, each: &mut dyn FnMut(&File)) {
        if let Some(files) = self {
            files.each_file(each);
        }
    }
}

impl<T: Files> Files for Vec<T> {
    fn each_file(&self, each: &mut dyn FnMut(&File)) {
        for files in self {
            files.each_file(each);
        }
    }
}

/// The parts of one body, as they are added.
#[derive(Debug, Default)]
pub struct Form {
    parts: Vec<Part>,
    error: Option<Error>,
}

#[derive(Debug)]
struct Part {
    name: &'static str,
    filename: Option<String>,
    content_type: Option<String>,
    data: Bytes,
}

impl Form {
    /// A text part per value: a string, number or boolean as its text (none for `None`, one per
    /// element of a list); anything else (a struct, a map) as one JSON part.
    pub fn text(&mut self, name: &'static str, value: &impl Serialize) {
        let mut texts = Vec::new();
        let scalar = params::each_text(name, value, |text| {
            texts.push(Bytes::copy_from_slice(text.as_bytes()));
            Ok(())
        });
        let (data, content_type) = match scalar {
            Ok(()) => (texts, None),
            Err(_) => match serde_json::to_vec(value) {
                Ok(json) => (vec![Bytes::from(json)], Some("application/json".to_owned())),
                Err(e) => {
                    self.error.get_or_insert(
                        Error::new(
                            ErrorKind::Encode,
                            format!("multipart field `{name}` cannot be encoded"),
                        )
                        .with_source(e),
                    );
                    return;
                }
            },
        };
        for data in data {
            self.parts.push(Part {
                name,
                filename: None,
                content_type: content_type.clone(),
                data,
            });
        }
    }

    /// A file part per file.
    pub fn file(&mut self, name: &'static str, files: &impl Files) {
        files.each_file(&mut |file| {
            self.parts.push(Part {
                name,
                filename: file.filename.clone(),
                content_type: Some(
                    file.content_type
                        .clone()
                        .unwrap_or_else(|| "application/octet-stream".to_owned()),
                ),
                data: file.bytes.clone(),
            });
        });
    }

    /// The encoded body and its content type, with a boundary found in no part.
    pub(crate) fn encode(self) -> Result<(Bytes, String), Error> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let boundary = loop {
            let candidate: String = std::iter::repeat_with(fastrand::alphanumeric)
                .take(32)
                .collect();
            let candidate = format!("remcall-{candidate}");
            if !self
                .parts
                .iter()
                .any(|p| contains(&p.data, candidate.as_bytes()))
            {
                break candidate;
            }
        };
        let size: usize = self.parts.iter().map(|p| p.data.len() + 160).sum();
        let mut out = BytesMut::with_capacity(size + boundary.len() + 8);
        for part in &self.parts {
            out.put_slice(b"--");
            out.put_slice(boundary.as_bytes());
            out.put_slice(b"\r\nContent-Disposition: form-data; name=\"");
            put_quoted(&mut out, part.name);
            out.put_slice(b"\"");
            if let Some(filename) = &part.filename {
                out.put_slice(b"; filename=\"");
                put_quoted(&mut out, filename);
                out.put_slice(b"\"");
            }
            out.put_slice(b"\r\n");
            if let Some(content_type) = &part.content_type {
                // A content type with a line break would add headers to the part.
                if content_type.chars().any(char::is_control) {
                    return Err(Error::new(
                        ErrorKind::Encode,
                        format!(
                            "the content type of multipart field `{}` holds a control character",
                            part.name
                        ),
                    ));
                }
                out.put_slice(b"Content-Type: ");
                out.put_slice(content_type.as_bytes());
                out.put_slice(b"\r\n");
            }
            out.put_slice(b"\r\n");
            out.put_slice(&part.data);
            out.put_slice(b"\r\n");
        }
        out.put_slice(b"--");
        out.put_slice(boundary.as_bytes());
        out.put_slice(b"--\r\n");
        Ok((
            out.freeze(),
            format!("multipart/form-data; boundary={boundary}"),
        ))
    }
}

/// A name or file name inside quotes, as the HTML standard encodes it: `"`, CR and LF
/// percent-encoded, so no value can end the quotes or the header line.
fn put_quoted(out: &mut BytesMut, text: &str) {
    for byte in text.bytes() {
        match byte {
            b'"' => out.put_slice(b"%22"),
            b'\r' => out.put_slice(b"%0D"),
            b'\n' => out.put_slice(b"%0A"),
            other => out.put_u8(other),
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Upload {
        title: String,
        tags: Vec<String>,
        meta: serde_json::Value,
        file: File,
        extra: Option<File>,
    }

    impl Multipart for Upload {
        fn parts(&self, form: &mut Form) {
            form.text("title", &self.title);
            form.text("tags", &self.tags);
            form.text("meta", &self.meta);
            form.file("file", &self.file);
            form.file("extra", &self.extra);
        }
    }

    #[test]
    fn parts_in_order_with_names_files_and_json() {
        let upload = Upload {
            title: "a \"b\"\r\nX: y".into(),
            tags: vec!["x".into(), "y".into()],
            meta: serde_json::json!({ "k": 1 }),
            file: File::new(&b"\x00\x01PNG"[..])
                .filename("cat.png")
                .content_type("image/png"),
            extra: None,
        };
        let mut form = Form::default();
        upload.parts(&mut form);
        let (body, content_type) = form.encode().unwrap();
        let boundary = content_type
            .strip_prefix("multipart/form-data; boundary=")
            .unwrap();
        let text = String::from_utf8_lossy(&body);
        let expected = format!(
            "--{b}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\na \"b\"\r\nX: y\r\n\
             --{b}\r\nContent-Disposition: form-data; name=\"tags\"\r\n\r\nx\r\n\
             --{b}\r\nContent-Disposition: form-data; name=\"tags\"\r\n\r\ny\r\n\
             --{b}\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{{\"k\":1}}\r\n\
             --{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"cat.png\"\r\nContent-Type: image/png\r\n\r\n\u{0}\u{1}PNG\r\n\
             --{b}--\r\n",
            b = boundary
        );
        assert_eq!(text, expected);
    }

    #[test]
    fn a_file_name_cannot_break_out_of_its_quotes() {
        let mut form = Form::default();
        form.file("f", &File::new("x").filename("a\"\r\nContent-Type: evil"));
        let (body, _) = form.encode().unwrap();
        let text = String::from_utf8_lossy(&body);
        assert!(
            text.contains("filename=\"a%22%0D%0AContent-Type: evil\""),
            "{text}"
        );
    }
}

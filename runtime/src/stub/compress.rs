//! Answers compressed as a server compresses them: the encoding the request's
//! `Accept-Encoding` names first among those the stub knows, or one set whatever it names (a
//! server that compresses anyway). A streamed answer is flushed after each event, so a client
//! that reads it incrementally gets every event as it is sent.
// Without the `stub` feature there is no server to compress with.
#![cfg_attr(not(feature = "stub"), allow(dead_code))]

#[cfg(feature = "stub")]
use std::io::Write;

#[cfg(feature = "stub")]
use bytes::Bytes;

/// A `Content-Encoding` the stub can answer with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `gzip`.
    Gzip,
    /// `br` (Brotli).
    Brotli,
    /// `zstd`.
    Zstd,
    /// `deflate` (zlib).
    Deflate,
}

/// How a rule's answer is compressed.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Compression {
    /// With the request's first acceptable encoding; as it is when it accepts none.
    Asked,
    /// With this one, whatever the request accepts.
    Always(Encoding),
}

impl Encoding {
    const ALL: [Encoding; 4] = [
        Encoding::Gzip,
        Encoding::Brotli,
        Encoding::Zstd,
        Encoding::Deflate,
    ];

    /// Its `Content-Encoding` name.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Gzip => "gzip",
            Encoding::Brotli => "br",
            Encoding::Zstd => "zstd",
            Encoding::Deflate => "deflate",
        }
    }

    /// The encoding `Content-Encoding` calls `name` (any case), if the stub knows it.
    pub fn from_name(name: &str) -> Option<Encoding> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name))
    }

    /// `body` compressed whole (an answer a test server sends with `Content-Encoding`).
    #[cfg(feature = "stub")]
    pub fn compress(self, body: &[u8]) -> std::io::Result<Vec<u8>> {
        let mut compressor = Compressor::new(self)?;
        let mut out = compressor.chunk(body)?.to_vec();
        out.extend_from_slice(&compressor.finish()?);
        Ok(out)
    }
}

impl Compression {
    /// The encoding for a request that sent `accept_encoding` (its values joined), if any.
    pub(crate) fn choose(self, accept_encoding: Option<&str>) -> Option<Encoding> {
        match self {
            Compression::Always(encoding) => Some(encoding),
            Compression::Asked => accept_encoding?
                .split(',')
                .filter_map(|coding| {
                    let mut parts = coding.split(';');
                    let name = parts.next()?.trim();
                    // `q=0` refuses a coding.
                    let refused = parts.any(|p| {
                        p.trim()
                            .strip_prefix("q=")
                            .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q == 0.0))
                    });
                    (!refused).then_some(name)
                })
                .find_map(Encoding::from_name),
        }
    }
}

/// One answer's encoder: each chunk written and flushed (a client can decode what it has),
/// the stream's end written by `finish`.
#[cfg(feature = "stub")]
pub(crate) enum Compressor {
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
    Deflate(flate2::write::ZlibEncoder<Vec<u8>>),
    Brotli(Box<brotli::CompressorWriter<Vec<u8>>>),
    Zstd(zstd::stream::write::Encoder<'static, Vec<u8>>),
}

#[cfg(feature = "stub")]
impl Compressor {
    pub(crate) fn new(encoding: Encoding) -> std::io::Result<Compressor> {
        let level = flate2::Compression::default();
        Ok(match encoding {
            Encoding::Gzip => Compressor::Gzip(flate2::write::GzEncoder::new(Vec::new(), level)),
            Encoding::Deflate => {
                Compressor::Deflate(flate2::write::ZlibEncoder::new(Vec::new(), level))
            }
            Encoding::Brotli => Compressor::Brotli(Box::new(brotli::CompressorWriter::new(
                Vec::new(),
                4096,
                5,
                22,
            ))),
            // Level 3 is zstd's own default.
            Encoding::Zstd => Compressor::Zstd(zstd::stream::write::Encoder::new(Vec::new(), 3)?),
        })
    }

    /// `data` compressed and flushed: what the client can decode of it now.
    pub(crate) fn chunk(&mut self, data: &[u8]) -> std::io::Result<Bytes> {
        let out = match self {
            Compressor::Gzip(w) => flushed(w, data)?.get_mut(),
            Compressor::Deflate(w) => flushed(w, data)?.get_mut(),
            Compressor::Brotli(w) => flushed(w.as_mut(), data)?.get_mut(),
            Compressor::Zstd(w) => flushed(w, data)?.get_mut(),
        };
        Ok(Bytes::from(std::mem::take(out)))
    }

    /// The end of the compressed stream.
    pub(crate) fn finish(self) -> std::io::Result<Bytes> {
        let out = match self {
            Compressor::Gzip(w) => w.finish()?,
            Compressor::Deflate(w) => w.finish()?,
            Compressor::Brotli(w) => w.into_inner(),
            Compressor::Zstd(w) => w.finish()?,
        };
        Ok(Bytes::from(out))
    }
}

/// `writer` after `data` is written through it and flushed.
#[cfg(feature = "stub")]
fn flushed<'w, W: Write + ?Sized>(writer: &'w mut W, data: &[u8]) -> std::io::Result<&'w mut W> {
    writer.write_all(data)?;
    writer.flush()?;
    Ok(writer)
}

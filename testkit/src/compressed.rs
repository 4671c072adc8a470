//! Bodies compressed as a server compresses them, for answers sent with `Content-Encoding`.

use std::io::Write;

/// `body` compressed with `encoding` (`gzip`, `br`, `zstd` or `deflate`, as `Content-Encoding`
/// names them).
pub fn compressed(encoding: &str, body: &[u8]) -> Vec<u8> {
    match encoding {
        "gzip" => {
            let mut out = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            out.write_all(body).expect("writes to memory");
            out.finish().expect("writes to memory")
        }
        "deflate" => {
            let mut out = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
            out.write_all(body).expect("writes to memory");
            out.finish().expect("writes to memory")
        }
        "br" => {
            let mut out = Vec::new();
            let mut writer = brotli::CompressorWriter::new(&mut out, 4096, 9, 22);
            writer.write_all(body).expect("writes to memory");
            drop(writer);
            out
        }
        "zstd" => zstd::encode_all(body, 19).expect("compresses in memory"),
        other => panic!("no encoding {other}"),
    }
}

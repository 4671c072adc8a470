//! A delivery's body, bounded before it is read: a declared length over the limit is refused
//! unread, a body is read up to the limit and no further, and a gzip-coded one is inflated up
//! to the same limit (a small bomb cannot become a large body). Other codings are refused.

use std::io::Read;

use axum::body::Body;
use reqwest::header::{CONTENT_ENCODING, CONTENT_LENGTH, HeaderMap};

/// Why a body was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unread {
    /// Longer than the limit, declared or as read or as inflated.
    TooLarge,
    /// A content coding other than gzip or identity.
    Coding,
    /// The connection failed while it was read.
    Broken,
}

/// The body, read and inflated within `limit` bytes.
pub(crate) async fn read(headers: &HeaderMap, body: Body, limit: usize) -> Result<Vec<u8>, Unread> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(Unread::TooLarge);
    }
    let coding = headers
        .get(CONTENT_ENCODING)
        .map(|value| value.to_str().unwrap_or("?").trim().to_ascii_lowercase());
    let gzip = match coding.as_deref() {
        None | Some("" | "identity") => false,
        Some("gzip" | "x-gzip") => true,
        Some(_) => return Err(Unread::Coding),
    };
    let raw = axum::body::to_bytes(body, limit).await.map_err(|error| {
        let too_large = std::error::Error::source(&error)
            .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
        if too_large {
            Unread::TooLarge
        } else {
            Unread::Broken
        }
    })?;
    if !gzip {
        return Ok(raw.to_vec());
    }
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(&raw[..])
        .take(limit as u64 + 1)
        .read_to_end(&mut inflated)
        .map_err(|_| Unread::Broken)?;
    if inflated.len() > limit {
        return Err(Unread::TooLarge);
    }
    Ok(inflated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, value.parse().unwrap());
        }
        headers
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[tokio::test]
    async fn a_body_is_read_within_its_limit_and_refused_past_it() {
        let ok = read(&HeaderMap::new(), Body::from(vec![b'a'; 100]), 100).await;
        assert_eq!(ok.unwrap().len(), 100);
        let over = read(&HeaderMap::new(), Body::from(vec![b'a'; 101]), 100).await;
        assert_eq!(over, Err(Unread::TooLarge));
        let declared = read(&headers(&[("content-length", "5000")]), Body::empty(), 100).await;
        assert_eq!(
            declared,
            Err(Unread::TooLarge),
            "refused before a byte is read"
        );
    }

    #[tokio::test]
    async fn a_gzip_bomb_is_refused_at_the_limit_and_a_small_one_inflates() {
        let bomb = gzip(&vec![0u8; 10_000_000]);
        assert!(bomb.len() < 20_000);
        let refused = read(
            &headers(&[("content-encoding", "gzip")]),
            Body::from(bomb),
            64 * 1024,
        )
        .await;
        assert_eq!(refused, Err(Unread::TooLarge));
        let small = gzip(br#"{"type":"ping"}"#);
        let read_back = read(
            &headers(&[("content-encoding", "gzip")]),
            Body::from(small),
            1024,
        )
        .await;
        assert_eq!(read_back.unwrap(), br#"{"type":"ping"}"#);
        let other = read(
            &headers(&[("content-encoding", "br")]),
            Body::from("x"),
            1024,
        )
        .await;
        assert_eq!(other, Err(Unread::Coding));
    }
}

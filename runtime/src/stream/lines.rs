//! JSON Lines (`application/jsonl`, `application/x-ndjson`, `application/json-seq`): one JSON
//! value a line. Lines end at LF (a CR before it is dropped); blank lines are skipped; an RS
//! (U+001E, which starts each record of `application/json-seq`) is dropped; the last line may
//! go without its LF when the body ends cleanly. A line is kept at most `limit` bytes long, and
//! each byte is looked at once however the body is cut into chunks.

use super::sse::TooLong;

/// The splitter's state between chunks.
#[derive(Debug)]
pub(crate) struct LineSplitter {
    /// The unfinished line carried over from the chunk before.
    line: Vec<u8>,
    limit: usize,
}

/// A record separator, which starts each record of `application/json-seq` (RFC 7464).
const RS: u8 = 0x1e;

impl LineSplitter {
    /// A splitter keeping at most `limit` bytes of one line.
    pub(crate) fn new(limit: usize) -> LineSplitter {
        LineSplitter {
            line: Vec::new(),
            limit,
        }
    }

    /// Drops the unfinished line (the stream is read again from elsewhere).
    pub(crate) fn reset(&mut self) {
        self.line.clear();
    }

    /// Reads `chunk`, handing each whole non-blank line to `line`.
    pub(crate) fn feed(
        &mut self,
        mut chunk: &[u8],
        line: &mut impl FnMut(&[u8]),
    ) -> Result<(), TooLong> {
        while let Some(end) = chunk.iter().position(|&b| b == b'\n') {
            if self.line.is_empty() {
                if end > self.limit {
                    return Err(TooLong { limit: self.limit });
                }
                emit(&chunk[..end], line);
            } else {
                self.keep(&chunk[..end])?;
                emit(&self.line, line);
                self.line.clear();
            }
            chunk = &chunk[end + 1..];
        }
        self.keep(chunk)
    }

    /// The body ended cleanly: its last line, when it had no LF.
    pub(crate) fn finish(&mut self, line: &mut impl FnMut(&[u8])) {
        emit(&self.line, line);
        self.line.clear();
    }

    fn keep(&mut self, part: &[u8]) -> Result<(), TooLong> {
        if self.line.len() + part.len() > self.limit {
            return Err(TooLong { limit: self.limit });
        }
        self.line.extend_from_slice(part);
        Ok(())
    }
}

/// Hands over `text` without its CR, RS and surrounding blanks, unless nothing is left.
fn emit(text: &[u8], line: &mut impl FnMut(&[u8])) {
    let trimmed = text.trim_ascii();
    let trimmed = trimmed.strip_prefix(&[RS]).unwrap_or(trimmed).trim_ascii();
    if !trimmed.is_empty() {
        line(trimmed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(chunks: &[&[u8]], clean_end: bool) -> Vec<String> {
        let mut splitter = LineSplitter::new(64);
        let mut out = Vec::new();
        let mut push = |l: &[u8]| out.push(String::from_utf8(l.to_vec()).unwrap());
        for chunk in chunks {
            splitter.feed(chunk, &mut push).unwrap();
        }
        if clean_end {
            splitter.finish(&mut push);
        }
        out
    }

    #[test]
    fn lines_split_at_lf_whatever_the_chunks() {
        let body: &[u8] = b"{\"a\":1}\r\n\n  \n{\"a\":2}\n\x1e{\"a\":3}\n{\"a\":4}";
        let whole = lines_of(&[body], true);
        assert_eq!(whole, ["{\"a\":1}", "{\"a\":2}", "{\"a\":3}", "{\"a\":4}"]);
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(lines_of(&bytes, true), whole);
        // Cut off: the last line without its LF is not a line.
        assert_eq!(lines_of(&[body], false).len(), 3);
    }

    #[test]
    fn a_line_past_the_limit_is_refused() {
        let mut splitter = LineSplitter::new(8);
        assert!(splitter.feed(b"12345", &mut |_| {}).is_ok());
        assert_eq!(
            splitter.feed(b"6789", &mut |_| {}),
            Err(TooLong { limit: 8 })
        );
        let mut splitter = LineSplitter::new(8);
        assert_eq!(
            splitter.feed(b"123456789\n", &mut |_| {}),
            Err(TooLong { limit: 8 })
        );
    }
}

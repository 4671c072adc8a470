//! Text of a description shown where a character could change what it means: a comment line of
//! the spec (a line break of any class would end the comment and start YAML), a line on the
//! terminal (a control character would be a terminal command), a Rust comment. Such characters
//! are written as their escape, `\u{2028}`, so the text stays one inert line.

/// True for a character that may not stand as itself on one line of a comment or terminal:
/// control characters (C0, DEL, C1 with NEL), the line and paragraph separators, and the
/// format characters (Unicode's `Cf`: byte-order mark, zero-width and bidirectional controls,
/// tags), which can hide or reorder what a reader sees; also U+FFFE and U+FFFF, which YAML
/// does not accept as text.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{00ad}'
                | '\u{0600}'..='\u{0605}'
                | '\u{061c}'
                | '\u{06dd}'
                | '\u{070f}'
                | '\u{0890}'..='\u{0891}'
                | '\u{08e2}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{fffe}'..='\u{ffff}'
                | '\u{110bd}'
                | '\u{110cd}'
                | '\u{13430}'..='\u{1343f}'
                | '\u{1bca0}'..='\u{1bca3}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0001}'
                | '\u{e0020}'..='\u{e007f}'
        )
}

/// `text` as one line: every character [`is_unsafe`] written as its escape, `\u{2028}`.
pub fn one_line(text: &str) -> String {
    if !text.chars().any(is_unsafe) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Prose with every line-break class (CR LF, CR, NEL, the line and paragraph separators) as
/// `\n`, so a doc's lines are the lines its author meant and no other.
pub(crate) fn line_breaks_as_newlines(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace(['\r', '\u{85}', '\u{2028}', '\u{2029}'], "\n")
}

/// Text from a server or a description as one bounded, inert line: control characters
/// escaped, at most 200 characters.
pub(crate) fn quoted(text: &str) -> String {
    let cut: String = text.chars().take(200).collect();
    let mut shown = one_line(&cut);
    if text.chars().count() > 200 {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_break_control_and_format_character_is_escaped() {
        for c in [
            '\n',
            '\r',
            '\u{85}',
            '\u{2028}',
            '\u{2029}',
            '\u{feff}',
            '\u{202e}',
            '\u{2066}',
            '\u{1b}',
            '\u{7f}',
            '\u{200b}',
            '\u{e0041}',
        ] {
            let line = one_line(&format!("a{c}b"));
            assert_eq!(line, format!("a{}b", c.escape_unicode()));
        }
        assert_eq!(one_line("größe — ok"), "größe — ok");
    }
}

//! A description's Markdown made quiet for rustdoc, which reads more into prose than a
//! description's author meant: `[0]` or `[ref:pagination]` as a link to an item, `<id>` as an
//! unclosed HTML tag, a bare URL as a link it asks to be written `<…>`, a code block without a
//! language as Rust to compile and run as a doctest. Brackets and angle brackets that are text
//! are escaped, a bare URL is put in `<…>`, a link that leads nowhere from the generated code
//! (relative, or an item path) becomes its text, and every code block is `text`, whatever its
//! info string says. Code spans and code blocks are left as they are.

use crate::fence::Fence;

/// `markdown` as rustdoc reads it without a warning.
pub(crate) fn for_rustdoc(markdown: &str) -> String {
    // A tab is four spaces to rustdoc but trips clippy's `tabs_in_doc_comments` in the user's
    // crate; an indented line stays indented.
    let markdown = markdown.replace('\t', "    ");
    let mut out = String::with_capacity(markdown.len() + 16);
    let mut fence: Option<Fence> = None;
    // Where the indented block being read starts in `out`: its fence is written when it ends,
    // longer than any run of backticks it holds, so that it is one block.
    let mut indented: Option<usize> = None;
    // Blank lines met in an indented block: inside it if more code follows, after it if not.
    let mut blanks = 0;
    let mut previous_blank = true;
    let mut in_list = false;
    for line in markdown.split('\n') {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            out.push_str(line);
            out.push('\n');
            if open.closed_by(line) {
                fence = None;
            }
            continue;
        }
        let starts_code = line.starts_with("    ");
        if indented.is_some() && line.trim().is_empty() {
            blanks += 1;
            continue;
        }
        if let Some(start) = indented.filter(|_| !starts_code) {
            close_indented(&mut out, start);
            indented = None;
        }
        for _ in 0..std::mem::take(&mut blanks) {
            out.push('\n');
        }
        if indented.is_some() {
            out.push_str(code_line(line));
            out.push('\n');
            continue;
        }
        // Four spaces in, after a blank line and outside a list, a fence is code too.
        if starts_code && previous_blank && !in_list && !line.trim().is_empty() {
            indented = Some(out.len());
            out.push_str(code_line(line));
            out.push('\n');
            continue;
        }
        if let Some(open) = Fence::opened_by(line) {
            let indent = &line[..line.len() - trimmed.len()];
            // Whatever its info string says (`rust`, `should_panic`, `json,no_run`, nothing),
            // a description's code is text: rustdoc runs anything it reads as Rust.
            out.push_str(&format!("{indent}{}text\n", open.text()));
            fence = Some(open);
            previous_blank = false;
            continue;
        }
        if list_item(trimmed) {
            in_list = true;
        } else if line.trim().is_empty() {
            // A list ends at a line that is neither blank, an item nor indented under one.
        } else if !line.starts_with(' ') {
            in_list = false;
        }
        previous_blank = line.trim().is_empty();
        out.push_str(&inline(line));
        out.push('\n');
    }
    if let Some(start) = indented {
        close_indented(&mut out, start);
    }
    if let Some(open) = fence {
        out.push_str(&open.text());
        out.push('\n');
    }
    out.pop();
    for _ in 0..blanks {
        out.push('\n');
    }
    out
}

/// Fences the indented block written from `start` of `out` on.
fn close_indented(out: &mut String, start: usize) {
    let fence = Fence::around(out[start..].lines()).text();
    out.insert_str(start, &format!("{fence}text\n"));
    out.push_str(&fence);
    out.push('\n');
}

/// An indented code line without its indent.
fn code_line(line: &str) -> &str {
    line.strip_prefix("    ").unwrap_or(line)
}

/// A Markdown list item's line: `- `, `* `, `+ ` or `1. `.
fn list_item(trimmed: &str) -> bool {
    ["- ", "* ", "+ "].iter().any(|m| trimmed.starts_with(m))
        || trimmed
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// A line of prose: code spans as they are, links kept when they lead somewhere (else their
/// label), brackets and `<` that are text escaped, bare URLs in `<…>`.
fn inline(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if c == '\\' {
            // An escape the author wrote stays one.
            let next = rest[1..].chars().next().map_or(0, char::len_utf8);
            out.push_str(&rest[..1 + next]);
            rest = &rest[1 + next..];
        } else if c == '`' {
            let ticks = rest.chars().take_while(|c| *c == '`').count();
            let end = rest[ticks..]
                .find(&rest[..ticks])
                .map_or(ticks, |close| ticks + close + ticks);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else if c == '[' {
            match link(rest) {
                Some((label, target, length)) => {
                    let label = inline(label);
                    if leads_somewhere(target) {
                        out.push_str(&format!("[{label}]({target})"));
                    } else {
                        out.push_str(&label);
                    }
                    rest = &rest[length..];
                }
                None => {
                    out.push_str("\\[");
                    rest = &rest[1..];
                }
            }
        } else if c == ']' {
            out.push_str("\\]");
            rest = &rest[1..];
        } else if c == '<' {
            match rest.find('>').filter(|end| leads_somewhere(&rest[1..*end])) {
                Some(end) => {
                    out.push_str(&rest[..=end]);
                    rest = &rest[end + 1..];
                }
                None => {
                    out.push_str("\\<");
                    rest = &rest[1..];
                }
            }
        } else if rest.starts_with("http://") || rest.starts_with("https://") {
            let length = url_length(rest);
            out.push('<');
            out.push_str(&rest[..length]);
            out.push('>');
            rest = &rest[length..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// `[label](target)` at the start of `text`: its label, its target and its length.
fn link(text: &str) -> Option<(&str, &str, usize)> {
    let mut depth = 0;
    let close = text.char_indices().find_map(|(i, c)| {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        None
    })?;
    let after = &text[close + 1..];
    let target_end = after.strip_prefix('(')?.find(')')?;
    let target = &after[1..1 + target_end];
    Some((&text[1..close], target.trim(), close + 1 + target_end + 2))
}

/// A target a reader of the generated code can follow: a web address or mail.
fn leads_somewhere(target: &str) -> bool {
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| target.starts_with(scheme))
        && !target.contains(char::is_whitespace)
}

/// The length of the URL at the start of `text`: up to a space or a character a URL in prose
/// does not end with (a full stop, a comma, a closing bracket it did not open).
fn url_length(text: &str) -> usize {
    let end = text
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`'))
        .unwrap_or(text.len());
    let mut url = &text[..end];
    loop {
        let opened = url.matches('(').count();
        let closed = url.matches(')').count();
        let trimmed = url
            .strip_suffix(['.', ',', ';', ':', '!', '?', '\''])
            .or_else(|| (closed > opened).then(|| url.strip_suffix(')')).flatten());
        match trimmed {
            Some(shorter) => url = shorter,
            None => return url.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::for_rustdoc;

    #[test]
    fn brackets_angles_and_bare_urls_that_are_text_are_escaped() {
        assert_eq!(
            for_rustdoc("See [ref:pagination] and item [0], an <id>, a < b."),
            "See \\[ref:pagination\\] and item \\[0\\], an \\<id>, a \\< b."
        );
        assert_eq!(
            for_rustdoc("Docs at https://example.test/a_(b). Or (https://example.test/c)"),
            "Docs at <https://example.test/a_(b)>. Or (<https://example.test/c>)"
        );
        assert_eq!(
            for_rustdoc(
                "[the guide](https://example.test/g), [Pets](/docs/pets), [`User`](User), <https://example.test>"
            ),
            "[the guide](https://example.test/g), Pets, `User`, <https://example.test>"
        );
    }

    #[test]
    fn code_is_left_as_it_is_and_made_text_unless_it_names_a_language() {
        assert_eq!(
            for_rustdoc("Use `a[0] <b>` here.\n```\n{\"a\": [1]}\n```\n```json,no_run\n[2]\n```"),
            "Use `a[0] <b>` here.\n```text\n{\"a\": [1]}\n```\n```text\n[2]\n```"
        );
        assert_eq!(
            for_rustdoc("Example:\n\n    GET /x?a[]=1\n    <b>\n\nAfter [x]."),
            "Example:\n\n```text\nGET /x?a[]=1\n<b>\n```\n\nAfter \\[x\\]."
        );
        assert_eq!(
            for_rustdoc("- an item\n\n    still the item [y]"),
            "- an item\n\n    still the item \\[y\\]"
        );
        assert_eq!(for_rustdoc("```\nopen fence"), "```text\nopen fence\n```");
    }

    #[test]
    fn nested_fences_are_one_block() {
        // A fence of four holding fences of three: CommonMark's one block, kept one.
        assert_eq!(
            for_rustdoc("Send:\n````markdown\n```json\n{\"a\": [1]}\n```\n````\nDone [x]."),
            "Send:\n````text\n```json\n{\"a\": [1]}\n```\n````\nDone \\[x\\]."
        );
        // An indented example that shows a fence: its own fence is longer than the one inside.
        assert_eq!(
            for_rustdoc("Example:\n\n    ```json\n    {\"a\": 1}\n    ```\n\nAfter."),
            "Example:\n\n````text\n```json\n{\"a\": 1}\n```\n````\n\nAfter."
        );
        // A longer fence left open is closed by one as long.
        assert_eq!(for_rustdoc("~~~~\n~~~\nx"), "~~~~text\n~~~\nx\n~~~~");
    }

    #[test]
    fn tabs_are_spaces_so_clippy_has_nothing_to_say_of_the_users_crate() {
        assert_eq!(
            for_rustdoc("Example:\n\n\tGET /x\n\t\t{\"a\": 1}\n\nA\ttable\tof\twords."),
            "Example:\n\n```text\nGET /x\n    {\"a\": 1}\n```\n\nA    table    of    words."
        );
        assert_eq!(for_rustdoc("```\n\tcode\n```"), "```text\n    code\n```");
    }
}

//! Rustdoc from a spec's prose: one `#[doc]` line per line of text, long lines wrapped, and no
//! doc at all where the text only says the item's name again ("The id." on `id`): an empty doc
//! reads better in an editor than an echo (the generated module allows `missing_docs`).

use remcall_openapi::fence::Fence;

/// Text wider than this (in characters) is wrapped at a space.
const WIDTH: usize = 96;

/// The doc's lines, each with its leading space; long lines wrapped, except in code (fenced or
/// indented), tables and headings, whose lines mean something as they are.
pub(crate) fn doc_lines(doc: Option<&String>) -> Vec<String> {
    let Some(doc) = doc else {
        return Vec::new();
    };
    // A lone carriage return is a line break too (`lines()` knows only `\n` and `\r\n`).
    let text = doc.replace('\r', "\n");
    let mut out = Vec::new();
    let mut fence: Option<Fence> = None;
    for line in text.trim().lines() {
        let line = line.trim_end();
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if open.closed_by(line) {
                fence = None;
            }
            out.push(format!(" {}", comment_text(line)));
            continue;
        }
        if let Some(open) = Fence::opened_by(line) {
            // A doc's code is shown, never run: an opening fence says `text`, whatever it said.
            let indent = &line[..line.len() - trimmed.len()];
            out.push(format!(
                " {}",
                comment_text(&format!("{indent}{}text", open.text()))
            ));
            fence = Some(open);
            continue;
        }
        let verbatim =
            line.starts_with("    ") || trimmed.starts_with('|') || trimmed.starts_with('#');
        if verbatim {
            out.push(format!(" {}", comment_text(line)));
        } else {
            out.extend(
                wrapped(line)
                    .iter()
                    .map(|l| format!(" {}", comment_text(l))),
            );
        }
    }
    if runs_no_code(&out) {
        out
    } else {
        all_text(text.trim())
    }
}

/// True when rustdoc, reading `lines` (each with the one leading space rustdoc strips) as
/// Markdown, finds no code block it would compile or run: every code block is a closed fence
/// whose info string is `text`. An indented block, any other info string (`rust`,
/// `should_panic`, `json,no_run`, none) or a fence left open would be a doctest, or could
/// swallow what follows the doc.
fn runs_no_code(lines: &[String]) -> bool {
    use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};
    let markdown: Vec<&str> = lines
        .iter()
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let markdown = markdown.join("\n");
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    for (event, range) in Parser::new_ext(&markdown, options).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if info.trim() == "text" => {
                // Closed: the block's last line is a fence of its own.
                let block = markdown[range].trim_end();
                let last = block.rsplit('\n').next().unwrap_or("").trim_start();
                let fence = block.trim_start().chars().next().unwrap_or('`');
                if block.lines().count() < 2 || !last.starts_with([fence; 3]) {
                    return false;
                }
            }
            Event::Start(Tag::CodeBlock(_)) => return false,
            _ => {}
        }
    }
    true
}

/// The whole doc as one `text` block, fenced with more backticks than any run in it, so that
/// nothing inside can close it: the doc of last resort for text that would otherwise run.
fn all_text(text: &str) -> Vec<String> {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    let mut out = vec![format!(" {fence}text")];
    out.extend(
        text.lines()
            .map(|l| format!(" {}", comment_text(l.trim_end()))),
    );
    out.push(format!(" {fence}"));
    out
}

/// A line of prose cut at spaces into lines of at most [`WIDTH`] characters (a word longer than
/// that, a URL say, stands alone). A list item's continuation lines are indented under its text,
/// so they stay in the item.
fn wrapped(line: &str) -> Vec<String> {
    if line.chars().count() <= WIDTH {
        return vec![line.to_owned()];
    }
    let rest = line.trim_start();
    let indent = &line[..line.len() - rest.len()];
    let marker = ["- ", "* ", "+ "]
        .iter()
        .find(|m| rest.starts_with(**m))
        .map(|m| m.len())
        .or_else(|| {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            (digits > 0 && rest[digits..].starts_with(". ")).then_some(digits + 2)
        })
        .unwrap_or(0);
    let hanging = format!("{indent}{}", " ".repeat(marker));
    let mut lines = Vec::new();
    let mut current = indent.to_owned();
    let mut has_word = false;
    for word in rest.split(' ').filter(|w| !w.is_empty()) {
        if has_word && current.chars().count() + 1 + word.chars().count() > WIDTH {
            lines.push(std::mem::replace(&mut current, hanging.clone()));
            has_word = false;
        }
        if has_word {
            current.push(' ');
        }
        current.push_str(word);
        has_word = true;
    }
    lines.push(current);
    lines
}

/// The item's doc, unless it only says the item's name (`id`: "The id.", `created_at`:
/// "Created at"): a doc that repeats a name adds nothing to it.
pub(crate) fn item_doc(doc: Option<&String>, name: &str) -> Vec<String> {
    match doc {
        Some(text) if repeats(text, name) => Vec::new(),
        _ => doc_lines(doc),
    }
}

/// `text` is `name` again, give or take case, separators, an article and a full stop.
pub(crate) fn repeats(text: &str, name: &str) -> bool {
    let letters = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    let bare = ["the ", "a ", "an "]
        .iter()
        .find_map(|article| lower.strip_prefix(article))
        .unwrap_or(&lower);
    let name = letters(name.trim_start_matches("r#"));
    !name.is_empty() && (letters(bare) == name || letters(&lower) == name)
}

/// `text` made safe for one line of a comment or rustdoc: a control character (a line break
/// would end a `//` comment and start code; rustc refuses a bare CR in a doc comment) or a
/// bidirectional-text control (rustc refuses those in comments: they can make code read other
/// than it runs) is written as its escape, `\u{202e}`.
pub(crate) fn comment_text(text: &str) -> String {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\t')
            || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| {
            if unsafe_char(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_prose_is_wrapped_and_code_tables_and_list_items_keep_their_shape() {
        let long = "word ".repeat(40);
        let doc = format!(
            "{long}\n- {long}\n```\n{long}\n```\n| a | {long} |\nhttps://example.test/{}",
            "x".repeat(120)
        );
        let lines = doc_lines(Some(&doc));
        assert!(
            lines[0].len() <= WIDTH + 1 && lines[1].len() <= WIDTH + 1,
            "{lines:#?}"
        );
        let item = lines.iter().position(|l| l.starts_with(" - ")).unwrap();
        assert!(lines[item + 1].starts_with("   word"), "{lines:#?}");
        let fence = lines.iter().position(|l| l == " ```text").unwrap();
        assert_eq!(lines[fence + 1], format!(" {}", long.trim_end()));
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(" | a | ") && l.len() > WIDTH)
        );
        assert!(
            lines.last().unwrap().len() > WIDTH,
            "a long URL stands alone"
        );
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        let shown = doc.replacen("```\n", "```text\n", 1);
        let expected: Vec<&str> = shown.split_whitespace().collect();
        assert_eq!(words, expected, "no word is lost or split");
    }

    #[test]
    fn no_code_of_a_doc_can_run_as_a_doctest() {
        let texts = [
            "```\nfn main() {}\n```",
            "```rust,should_panic\npanic!()\n```",
            "~~~edition2021\npanic!()\n~~~",
            "Intro:\n\n    panic!()\n",
            "- item\n\n      ```\n      panic!()\n      ```",
            "> ```\n> panic!()\n> ```",
            "````\npanic!()\n```\nstill code\n````",
            "```text\nopen",
            &format!("{} ```rust panic!()", "word ".repeat(30)),
        ];
        for text in texts {
            let lines = doc_lines(Some(&text.to_owned()));
            assert!(runs_no_code(&lines), "{text:?} → {lines:#?}");
        }
        assert!(!runs_no_code(&[
            " ```".to_owned(),
            " x".to_owned(),
            " ```".to_owned()
        ]));
        let kept = doc_lines(Some(&"Prose.\n```text\nx\n```".to_owned()));
        assert_eq!(kept, [" Prose.", " ```text", " x", " ```"]);
    }

    #[test]
    fn nested_fences_stay_one_block_and_are_not_relabelled_or_wrapped_inside() {
        let long = "x ".repeat(60);
        let doc = format!("Send:\n````markdown\n```json\n{long}\n```\n````\nDone.");
        let lines = doc_lines(Some(&doc));
        assert_eq!(
            lines,
            [
                " Send:".to_owned(),
                " ````text".to_owned(),
                " ```json".to_owned(),
                format!(" {}", long.trim_end()),
                " ```".to_owned(),
                " ````".to_owned(),
                " Done.".to_owned(),
            ]
        );
    }

    #[test]
    fn a_doc_that_only_names_the_item_is_dropped() {
        let doc = |text: &str, name: &str| item_doc(Some(&text.to_owned()), name);
        assert!(doc("The id.", "id").is_empty());
        assert!(doc("Created at", "created_at").is_empty());
        assert!(doc("createdAt", "created_at").is_empty());
        assert!(doc("The type", "r#type").is_empty());
        assert_eq!(doc("The user's id.", "id"), [" The user's id."]);
        assert_eq!(doc("Id of the owner", "id"), [" Id of the owner"]);
    }
}

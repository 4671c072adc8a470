//! A description's HTML as the Markdown rustdoc reads: paragraphs, line breaks, `code`, code
//! blocks, emphasis, lists, headings and links, entities decoded. A link that leads somewhere
//! (`http://`, `https://`) stays a link; a relative one (`/docs/...`, which goes nowhere from
//! the generated code) becomes its text. Any other tag is dropped, its text kept. Text without
//! tags is left as it is: it is Markdown already, or plain.

/// `text` with its HTML written as Markdown.
pub(crate) fn from_html(text: &str) -> String {
    if !has_tags(text) {
        return text.to_owned();
    }
    let mut writer = Writer {
        out: String::with_capacity(text.len()),
        link: None,
        in_pre: false,
        in_code: false,
    };
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        writer.text(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            writer.text(&rest[open..]);
            rest = "";
            break;
        };
        let tag = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let (closing, name, attributes) = parse_tag(tag);
        writer.tag(closing, &name, attributes);
    }
    writer.text(rest);
    tidy(&writer.out)
}

/// The Markdown written so far, and the elements it is inside.
struct Writer {
    out: String,
    /// The link being written: its target, when it leads somewhere.
    link: Option<Option<String>>,
    in_pre: bool,
    in_code: bool,
}

impl Writer {
    fn text(&mut self, text: &str) {
        push_text(&mut self.out, text, self.in_pre, self.in_code);
    }

    /// A tag as Markdown: `closing` for `</name>`.
    fn tag(&mut self, closing: bool, name: &str, attributes: &str) {
        let out = &mut self.out;
        match (closing, name) {
            (_, "p" | "div") => paragraph(out),
            (false, "br") => out.push('\n'),
            (closing, "code" | "tt") if !self.in_pre => {
                out.push('`');
                self.in_code = !closing;
            }
            (false, "pre") => {
                paragraph(out);
                out.push_str("```text\n");
                self.in_pre = true;
            }
            (true, "pre") => {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str("```\n\n");
                self.in_pre = false;
            }
            (_, "strong" | "b") => out.push_str("**"),
            (_, "em" | "i") => out.push('*'),
            (_, "ul" | "ol") => paragraph(out),
            (false, "li") => {
                if !out.ends_with('\n') && !out.is_empty() {
                    out.push('\n');
                }
                out.push_str("- ");
            }
            (false, "h1" | "h2" | "h3" | "h4" | "h5" | "h6") => {
                paragraph(out);
                let level = name[1..].parse::<usize>().unwrap_or(1);
                out.push_str(&"#".repeat(level));
                out.push(' ');
            }
            (true, "h1" | "h2" | "h3" | "h4" | "h5" | "h6") => paragraph(out),
            (false, "a") => {
                let target = attribute(attributes, "href")
                    .filter(|href| href.starts_with("https://") || href.starts_with("http://"));
                if target.is_some() {
                    out.push('[');
                }
                self.link = Some(target);
            }
            (true, "a") => {
                if let Some(Some(target)) = self.link.take() {
                    out.push_str("](");
                    out.push_str(&target);
                    out.push(')');
                }
            }
            _ => {}
        }
    }
}

/// True when `text` holds something that reads as an HTML tag (`<p>`, `</a>`, `<br/>`), not a
/// comparison or a placeholder (`a < b`, `<id>`).
fn has_tags(text: &str) -> bool {
    const TAGS: &[&str] = &[
        "p", "br", "code", "pre", "a", "ul", "ol", "li", "b", "strong", "i", "em", "h1", "h2",
        "h3", "h4", "h5", "h6", "div", "span", "tt",
    ];
    text.match_indices('<').any(|(at, _)| {
        let tag = &text[at + 1..];
        let tag = tag.strip_prefix('/').unwrap_or(tag);
        let name: String = tag
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        let after = tag[name.len()..].chars().next();
        TAGS.contains(&name.to_ascii_lowercase().as_str())
            && matches!(after, Some('>' | ' ' | '/' | '\n'))
    })
}

/// (closing, lower-case name, attributes) of the text between `<` and `>`.
fn parse_tag(tag: &str) -> (bool, String, &str) {
    let (closing, tag) = match tag.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, tag),
    };
    let tag = tag.trim_end_matches('/').trim();
    let (name, attributes) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
    (closing, name.to_ascii_lowercase(), attributes)
}

/// The value of `name="…"` (or `'…'`) among a tag's attributes, entities decoded.
fn attribute(attributes: &str, name: &str) -> Option<String> {
    let at = attributes.find(&format!("{name}="))?;
    let value = &attributes[at + name.len() + 1..];
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &value[1..];
    let end = value.find(quote)?;
    Some(entities(&value[..end], false))
}

fn paragraph(out: &mut String) {
    let trimmed = out.trim_end_matches([' ', '\n']).len();
    out.truncate(trimmed);
    if !out.is_empty() {
        out.push_str("\n\n");
    }
}

/// Text between tags: outside `<pre>`, a run of white space is one space, or the line breaks
/// it holds (one, or a blank line): a description is Markdown with some HTML in it as often as
/// HTML, and its fenced code, lists and paragraphs live on their lines. In code, entities are
/// decoded (Markdown shows code as written); elsewhere `&lt;` and `&gt;` stay, so a `<` of the
/// text never reads as a tag to rustdoc.
fn push_text(out: &mut String, text: &str, in_pre: bool, in_code: bool) {
    let text = entities(text, !(in_pre || in_code));
    if in_pre {
        out.push_str(&text);
        return;
    }
    // The white space met since the last word: how many line breaks it held, if any.
    let mut run: Option<usize> = None;
    for c in text.chars() {
        if c.is_whitespace() {
            *run.get_or_insert(0) += usize::from(c == '\n');
            continue;
        }
        if let Some(breaks) = run.take() {
            let separator = match breaks {
                0 => " ",
                1 => "\n",
                _ => "\n\n",
            };
            let trimmed = out.trim_end_matches(' ').len();
            out.truncate(trimmed);
            let after_break = separator == " " && out.ends_with('\n');
            if !out.is_empty() && !after_break {
                out.push_str(separator);
            }
        }
        out.push(c);
    }
    if let Some(breaks) = run
        && !out.is_empty()
        && !out.ends_with([' ', '\n'])
    {
        out.push_str(if breaks > 0 { "\n" } else { " " });
    }
}

/// `text` with its entities decoded; with `keep_angles`, `&lt;` and `&gt;` stay as they are.
fn entities(text: &str, keep_angles: bool) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let text = if keep_angles {
        text.to_owned()
    } else {
        text.replace("&lt;", "<").replace("&gt;", ">")
    };
    text.replace("&nbsp;", " ")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Lines without trailing spaces, at most one blank line in a row, none at either end.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines().map(str::trim_end) {
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_the_markdown_rustdoc_reads() {
        let html = "<p>Lists the <code>issues</code> of a <b>repository</b>.</p>\n<p>See <a href=\"https://docs.example.com/issues\">the guide</a> and <a href=\"/docs/rest/issues\">issues</a>.</p><ul><li>open</li><li>closed &amp; locked</li></ul><pre>GET /issues\n  ?state=open</pre><h2>Notes</h2>a&lt;b<br><code>Vec&lt;T&gt;</code>";
        assert_eq!(
            from_html(html),
            "Lists the `issues` of a **repository**.\n\nSee [the guide](https://docs.example.com/issues) and issues.\n\n- open\n- closed & locked\n\n```text\nGET /issues\n  ?state=open\n```\n\n## Notes\n\na&lt;b\n`Vec<T>`"
        );
    }

    #[test]
    fn markdown_with_some_html_keeps_its_lines() {
        let mixed = "Creates a <b>webhook</b>.\n```\n# Request\ncurl -X POST\n```\n\n- one\n- two <code>x</code>";
        assert_eq!(
            from_html(mixed),
            "Creates a **webhook**.\n```\n# Request\ncurl -X POST\n```\n\n- one\n- two `x`"
        );
    }

    #[test]
    fn text_without_tags_is_left_alone() {
        for text in [
            "Returns `a < b` when <id> is set.",
            "Markdown *already*, with [a link](/relative).",
            "x > 3 and y < 4",
        ] {
            assert_eq!(from_html(text), text);
        }
    }
}

//! A YAML syntax error that is an indentation mistake, said in the words of the mistake: which
//! line is indented how far, what it should line up with. The parser's own text ("did not find
//! expected key", "mapping values are not allowed in this context") names its state, not the
//! user's slip.

use crate::diagnostic::Pos;

/// A syntax error explained: where, what, and what to do.
pub(super) struct Explained {
    pub(super) pos: Pos,
    pub(super) message: String,
    pub(super) help: String,
}

/// The error the parser reported at `pos` with `message`, when it is an indentation mistake.
pub(super) fn explain(text: &str, pos: Pos, message: &str) -> Option<Explained> {
    let lines: Vec<&str> = text.lines().collect();
    let index = pos.line.checked_sub(1)?;
    let line = *lines.get(index)?;
    if message.contains("tabs disallowed") {
        return Some(Explained {
            pos: Pos {
                line: pos.line,
                column: 1,
            },
            message: format!(
                "line {} is indented with a tab: YAML indents with spaces",
                pos.line
            ),
            help: "replace the tab with spaces (this file's levels are two apart, say)".to_owned(),
        });
    }
    let indent = indentation(line);
    let at_text = Pos {
        line: pos.line,
        column: indent + 1,
    };
    let (above_number, above) = lines[..index]
        .iter()
        .enumerate()
        .rev()
        .find(|(_, l)| is_content(l))
        .map(|(i, l)| (i + 1, *l))?;
    let above_indent = indentation(above);
    let key = key_of(line).unwrap_or("this line");
    if message.contains("did not find expected key") && indent < above_indent {
        let help = shallower_help(&lines[..index], indent, above_number, above);
        return Some(Explained {
            pos: at_text,
            message: format!(
                "`{key}` is indented {indent} spaces: no mapping here starts at that column"
            ),
            help,
        });
    }
    if message.contains("mapping values are not allowed") && indent > above_indent {
        return Some(Explained {
            pos: at_text,
            message: format!(
                "`{key}` is indented deeper than line {above_number}, which already has its value"
            ),
            help: format!(
                "indent it {above_indent} spaces, as `{}` on line {above_number}; only a key that ends with `:` opens a deeper level",
                key_of(above).unwrap_or("the line")
            ),
        });
    }
    None
}

/// What to do with a line indented less than the one above it but matching no mapping: line
/// up with the line above, or with the nearest shallower one (the level it likely meant).
fn shallower_help(before: &[&str], indent: usize, above_number: usize, above: &str) -> String {
    let above_indent = indentation(above);
    // The level it meant: the nearest line above at its own indentation or less.
    let sibling = before
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, l)| is_content(l))
        .find(|(_, l)| indentation(l) <= indent)
        .map(|(i, l)| (i + 1, *l));
    match sibling {
        Some((number, sibling)) if indentation(sibling) < indent => format!(
            "indent it {above_indent} spaces, as `{}` on line {above_number}, to add it to the same mapping; or {} spaces, as `{}` on line {number}",
            key_of(above).unwrap_or("the line"),
            indentation(sibling),
            key_of(sibling).unwrap_or("the line"),
        ),
        _ => format!(
            "indent it {above_indent} spaces, as `{}` on line {above_number}",
            key_of(above).unwrap_or("the line")
        ),
    }
}

fn indentation(line: &str) -> usize {
    line.chars().take_while(|c| *c == ' ').count()
}

/// A line that holds YAML (not blank, not only a comment).
fn is_content(line: &str) -> bool {
    let trimmed = line.trim();
    !trimmed.is_empty() && !trimmed.starts_with('#')
}

/// `returns:` of `   returns: String`, `- name:` items included; `None` for a line that is no key.
fn key_of(line: &str) -> Option<&str> {
    let trimmed = line.trim_start().trim_start_matches("- ");
    let end = trimmed
        .find(": ")
        .or_else(|| trimmed.strip_suffix(':').map(str::len))?;
    Some(&trimmed[..=end]).filter(|key| !key.contains(['{', '[', '"', '\'']))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explained(text: &str, line: usize, column: usize, message: &str) -> Explained {
        explain(text, Pos { line, column }, message).expect("an indentation mistake")
    }

    #[test]
    fn a_key_indented_between_two_levels_names_both() {
        let text = "methods:\n  get:\n    request: GET /items\n   returns: String\n";
        let e = explained(
            text,
            4,
            4,
            "while parsing a block mapping, did not find expected key",
        );
        assert_eq!((e.pos.line, e.pos.column), (4, 4));
        assert_eq!(
            e.message,
            "`returns:` is indented 3 spaces: no mapping here starts at that column"
        );
        assert_eq!(
            e.help,
            "indent it 4 spaces, as `request:` on line 3, to add it to the same mapping; or 2 spaces, as `get:` on line 2"
        );
    }

    #[test]
    fn a_key_deeper_than_a_finished_value_says_to_line_it_up() {
        let text = "client: C\n base_url: x\n";
        let e = explained(
            text,
            2,
            10,
            "mapping values are not allowed in this context",
        );
        assert_eq!((e.pos.line, e.pos.column), (2, 2));
        assert_eq!(
            e.message,
            "`base_url:` is indented deeper than line 1, which already has its value"
        );
        assert!(
            e.help
                .starts_with("indent it 0 spaces, as `client:` on line 1"),
            "{}",
            e.help
        );
    }

    #[test]
    fn a_tab_is_named_and_other_errors_are_left_to_the_parser() {
        let e = explained(
            "a:\n\tb: 1\n",
            2,
            2,
            "tabs disallowed within this context (block indentation)",
        );
        assert_eq!(
            e.message,
            "line 2 is indented with a tab: YAML indents with spaces"
        );
        assert!(
            explain(
                "a: [1\n",
                Pos { line: 1, column: 6 },
                "did not find expected ',' or ']'"
            )
            .is_none()
        );
    }
}

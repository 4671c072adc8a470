//! One diagnostic type for every problem in a spec: where, what, and what to do.

use std::fmt;
use std::path::{Path, PathBuf};

use annotate_snippets::{AnnotationKind, Level, Origin, Renderer, Snippet};

/// A problem at a place in a spec file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    /// The file, as it was named to the generator.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// What to do about it, e.g. a did-you-mean.
    pub help: Option<String>,
    /// The offending line of the file, for the caret display.
    pub source_line: Option<String>,
    /// A warning: the spec builds, but likely not as its author means (a `retry:` that can
    /// never retry).
    pub warning: bool,
    /// The key it is about, as dotted segments (`methods.get_user.returns`), when the check
    /// that made it named one: what a tool reads to find the item it refuses (`remcall
    /// import` sets such an item aside).
    pub key_path: Option<String>,
}

impl Diagnostic {
    /// A diagnostic at `pos` in `file`.
    pub fn new(file: &Path, pos: Pos, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_path_buf(),
            line: pos.line,
            column: pos.column,
            message: message.into(),
            help: None,
            source_line: None,
            warning: false,
            key_path: None,
        }
    }

    /// The same diagnostic, about the key `key_path`.
    pub fn about(mut self, key_path: &str) -> Diagnostic {
        self.key_path = Some(key_path.to_owned());
        self
    }

    /// The same diagnostic as a warning.
    pub fn warning(mut self) -> Diagnostic {
        self.warning = true;
        self
    }

    /// Keeps the offending line of `text` (the whole file) for the caret display.
    pub fn in_text(mut self, text: &str) -> Diagnostic {
        self.source_line = text
            .lines()
            .nth(self.line.saturating_sub(1))
            .map(str::to_owned);
        self
    }

    /// Adds a help line.
    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Adds a help line when there is one.
    pub fn maybe_help(mut self, help: Option<String>) -> Diagnostic {
        self.help = help.or(self.help);
        self
    }
}

impl Diagnostic {
    /// Renders like rustc (through annotate-snippets, rustc's own renderer): the message, the
    /// position, the offending line with a caret under the token, and the help. `color` adds ANSI
    /// colours (for a terminal without `NO_COLOR`).
    pub fn render(&self, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let path = shown_path(&self.file);
        let level = if self.warning {
            Level::WARNING
        } else {
            Level::ERROR
        };
        let title = level.primary_title(self.message.as_str());
        let line = self.source_line.as_deref().map(visible);
        let mut group = match &line {
            Some(line) => {
                let span = token_at(line, self.column);
                title.element(
                    Snippet::source(line.as_str())
                        .line_start(self.line)
                        .path(path.as_str())
                        .annotation(AnnotationKind::Primary.span(span)),
                )
            }
            None => title.element(
                Origin::path(path.as_str())
                    .line(self.line)
                    .char_column(self.column),
            ),
        };
        if let Some(help) = &self.help {
            group = group.element(Level::HELP.message(help.as_str()));
        }
        renderer.render(&[group])
    }
}

/// The byte range of the YAML token at the 1-based character `column` of `line`: up to a space,
/// a flow-collection delimiter or a key's `: `; at least one character.
fn token_at(line: &str, column: usize) -> std::ops::Range<usize> {
    let start = line
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(line.len(), |(i, _)| i);
    let rest = &line[start..];
    // A `{placeholder}` is one token, braces included.
    if rest.starts_with('{')
        && let Some(close) = rest.find('}')
    {
        return start..start + close + 1;
    }
    let mut end = start;
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let ends_key = c == ':' && chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        if c.is_whitespace() || matches!(c, ',' | '}' | ']' | '#' | '<' | '>') || ends_key {
            break;
        }
        end = start + i + c.len_utf8();
    }
    if end == start {
        end = (start + rest.chars().next().map_or(0, char::len_utf8)).min(line.len());
    }
    start..end
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.warning {
            f.write_str("warning: ")?;
        }
        write!(
            f,
            "{}:{}:{}: {}",
            shown_path(&self.file),
            self.line,
            self.column,
            self.message
        )?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// A file name as shown to a person: its control and invisible characters escaped (`\u{1b}`),
/// so a file named with a terminal escape sequence or a carriage return cannot repaint the
/// terminal or overwrite the line it is printed on.
pub fn shown_path(path: &Path) -> String {
    remcall_openapi::escape::one_line(&path.to_string_lossy())
}

/// A source line with each control or invisible character (but a tab) shown as one visible
/// character, so the caret's column stays where it was: a C0 control as its Unicode picture
/// (`␛`), anything else as `�`.
fn visible(line: &str) -> String {
    line.chars()
        .map(|c| match c {
            '\t' => c,
            '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
            '\u{7f}' => '\u{2421}',
            c if remcall_openapi::escape::is_unsafe(c) => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// A 1-based line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

pub use remcall_profile::suggest::did_you_mean;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_line_with_a_caret_under_the_span() {
        let text = "client: C\nmethods:\n  get: { request: GET /u, returns: Usr }\n";
        let d = Diagnostic::new(
            Path::new("x.yaml"),
            Pos {
                line: 3,
                column: 36,
            },
            "unknown type `Usr`",
        )
        .help("did you mean `User`?")
        .in_text(text);
        let expected = "error: unknown type `Usr`\n --> x.yaml:3:36\n  |\n3 |   get: { request: GET /u, returns: Usr }\n  |                                    ^^^\n  |\n  = help: did you mean `User`?";
        assert_eq!(d.render(false), expected);
        assert!(d.render(true).contains("\x1b["));
    }
}

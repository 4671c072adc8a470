//! One diagnostic type for every problem in a spec: where, what, and what to do.

use std::fmt;
use std::path::{Path, PathBuf};

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
        }
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
    /// Renders like rustc: the position and message, the offending line with a caret under the
    /// span, and the help. `color` adds ANSI colours (for a terminal without `NO_COLOR`).
    pub fn render(&self, color: bool) -> String {
        let paint = |code: &str, text: &str| {
            if color {
                format!("\x1b[{code}m{text}\x1b[0m")
            } else {
                text.to_owned()
            }
        };
        let mut out = format!(
            "{}{} {}: {}",
            paint("1;31", "error"),
            paint("1", ":"),
            paint(
                "1",
                &format!("{}:{}:{}", self.file.display(), self.line, self.column)
            ),
            paint("1", &self.message)
        );
        if let Some(line) = &self.source_line {
            let number = self.line.to_string();
            let pad = " ".repeat(number.len());
            let bar = paint("1;34", "|");
            let shown: String = line
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            let start = self.column.saturating_sub(1);
            // The token at the column: up to a space, a flow-collection delimiter or a key's `: `.
            let rest: Vec<char> = shown.chars().skip(start).collect();
            let width = rest
                .iter()
                .enumerate()
                .take_while(|&(i, c)| {
                    let ends_key = *c == ':' && rest.get(i + 1).is_none_or(|n| n.is_whitespace());
                    !c.is_whitespace() && !matches!(c, ',' | '}' | ']' | '#') && !ends_key
                })
                .count()
                .max(1);
            out.push_str(&format!(
                "\n{pad} {bar}\n{} {bar} {shown}\n{pad} {bar} {}{}",
                paint("1;34", &number),
                " ".repeat(start),
                paint("1;31", &"^".repeat(width))
            ));
        }
        if let Some(help) = &self.help {
            out.push_str(&format!(
                "\n{} {} {help}",
                " ".repeat(self.line.to_string().len()),
                paint("1;36", "= help:")
            ));
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
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

/// A 1-based line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// `did you mean `x`?` for the known name nearest to `wrong`, when one is near enough.
pub fn did_you_mean<'a>(wrong: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    known
        .into_iter()
        .map(|k| {
            (
                strsim::damerau_levenshtein(&wrong.to_lowercase(), &k.to_lowercase()),
                k,
            )
        })
        .filter(|(distance, k)| *distance <= (k.len().max(wrong.len()) / 3).max(1))
        .min()
        .map(|(_, k)| format!("did you mean `{k}`?"))
}

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
        let expected = "error: x.yaml:3:36: unknown type `Usr`\n  |\n3 |   get: { request: GET /u, returns: Usr }\n  |                                    ^^^\n  = help: did you mean `User`?";
        assert_eq!(d.render(false), expected);
        assert!(d.render(true).contains("\x1b[1;31m^^^\x1b[0m"));
    }

    #[test]
    fn suggests_only_near_names() {
        assert_eq!(
            did_you_mean("Usr", ["User", "Pet"]).as_deref(),
            Some("did you mean `User`?")
        );
        assert_eq!(did_you_mean("Zebra", ["User", "Pet"]), None);
    }
}

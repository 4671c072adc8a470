//! How deep a YAML text nests its flow collections (`[` and `{`), found in one pass before the
//! YAML parser sees the text.
//!
//! The parser's scanner keeps a possible key per open flow collection and looks at all of them
//! at every token, so 32,000 nested `[` in 64 KB take seconds. Its reader refuses anything deeper
//! than 128 levels anyway, so a text nested deeper than [`MAX_FLOW_DEPTH`] could never be read;
//! this finds it in linear time and says where.
//!
//! The scan knows just enough YAML to tell a `[` that opens a collection from one inside text:
//! quoted scalars, comments, block scalars (`|`, `>`) and plain scalars are stepped over.

/// The deepest flow nesting read: the parser's reader stops at 128 levels of any kind.
pub const MAX_FLOW_DEPTH: usize = 128;

/// Where a text nests its flow collections deeper than [`MAX_FLOW_DEPTH`]: 1-based line and
/// column (in characters) of the bracket that goes one level too deep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "collections (`[`, `{{`) nested more than {MAX_FLOW_DEPTH} deep"
        )
    }
}

impl std::error::Error for TooDeep {}

/// `Err` with the place of the first `[` or `{` that opens a collection deeper than
/// [`MAX_FLOW_DEPTH`].
pub fn check_flow_nesting(text: &str) -> Result<(), TooDeep> {
    Scanner::new(text).run()
}

struct Scanner {
    chars: Vec<char>,
    at: usize,
    line: usize,
    line_start: usize,
    depth: usize,
    /// The next character that is not a space may begin a node (a collection, a quoted
    /// scalar, a block scalar).
    node_start: bool,
}

impl Scanner {
    fn new(text: &str) -> Scanner {
        Scanner {
            chars: text.chars().collect(),
            at: 0,
            line: 1,
            line_start: 0,
            depth: 0,
            node_start: true,
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn step(&mut self) {
        if self.chars[self.at] == '\n' {
            self.line += 1;
            self.line_start = self.at + 1;
        }
        self.at += 1;
    }

    fn spaced(c: Option<char>) -> bool {
        matches!(c, None | Some(' ' | '\t' | '\r' | '\n'))
    }

    fn run(mut self) -> Result<(), TooDeep> {
        while let Some(c) = self.peek(0) {
            let flow = self.depth > 0;
            match c {
                '\n' => {
                    self.step();
                    if !flow {
                        self.node_start = true;
                    }
                }
                ' ' | '\t' | '\r' => self.step(),
                '#' if self.at == 0 || Self::spaced(Some(self.chars[self.at - 1])) => {
                    self.skip_line();
                }
                '[' | '{' if self.node_start => {
                    self.depth += 1;
                    if self.depth > MAX_FLOW_DEPTH {
                        return Err(TooDeep {
                            line: self.line,
                            column: self.at - self.line_start + 1,
                        });
                    }
                    self.step();
                }
                ']' | '}' if flow => {
                    self.depth -= 1;
                    self.node_start = false;
                    self.step();
                }
                ',' if flow => {
                    self.node_start = true;
                    self.step();
                }
                ':' if flow || Self::spaced(self.peek(1)) => {
                    // In a flow, `"key":value` needs no space; in a block, `: ` begins a value.
                    let after_quote = self.at > 0 && matches!(self.chars[self.at - 1], '"' | '\'');
                    self.node_start = Self::spaced(self.peek(1)) || after_quote;
                    self.step();
                }
                '-' | '?' if self.node_start && !flow && Self::spaced(self.peek(1)) => self.step(),
                '"' | '\'' if self.node_start => {
                    self.skip_quoted(c);
                    self.node_start = false;
                }
                '|' | '>' if self.node_start && !flow => self.skip_block_scalar(),
                '&' | '!' | '*' if self.node_start => {
                    // An anchor, a tag or an alias: the node (if any) follows it.
                    while !Self::spaced(self.peek(0))
                        && !matches!(self.peek(0), Some(',' | ']' | '}'))
                    {
                        self.step();
                    }
                }
                _ => {
                    self.node_start = false;
                    self.step();
                }
            }
        }
        Ok(())
    }

    fn skip_line(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.step();
        }
    }

    /// A quoted scalar, which may span lines: `\` escapes in double quotes, `''` in single.
    fn skip_quoted(&mut self, quote: char) {
        self.step();
        while let Some(c) = self.peek(0) {
            self.step();
            if quote == '"' && c == '\\' && self.peek(0).is_some() {
                self.step();
            } else if c == quote {
                if quote == '\'' && self.peek(0) == Some('\'') {
                    self.step();
                } else {
                    return;
                }
            }
        }
    }

    /// A `|` or `>` scalar: the rest of its line, then every line indented deeper than the
    /// key or item it belongs to (blank lines included).
    fn skip_block_scalar(&mut self) {
        let owner = self.chars[self.line_start..self.at]
            .iter()
            .position(|c| !matches!(c, ' ' | '-'))
            .unwrap_or(0);
        self.skip_line();
        while self.peek(0) == Some('\n') {
            let next = self.at + 1;
            let indent = self.chars[next..].iter().take_while(|c| **c == ' ').count();
            let blank = matches!(self.chars.get(next + indent), None | Some('\n' | '\r'));
            if !blank && indent <= owner {
                break;
            }
            self.step();
            self.skip_line();
        }
        self.node_start = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(open: &str, close: &str, depth: usize) -> String {
        format!("x: {}{}\n", open.repeat(depth), close.repeat(depth))
    }

    #[test]
    fn deep_flow_collections_are_found_where_they_go_too_deep() {
        for (open, close) in [("[", "]"), ("{a: ", "}"), ("[\n", "]")] {
            assert_eq!(
                check_flow_nesting(&nested(open, close, MAX_FLOW_DEPTH)),
                Ok(())
            );
            let error = check_flow_nesting(&nested(open, close, 32_000)).unwrap_err();
            if open == "[\n" {
                assert_eq!(
                    (error.line, error.column),
                    (MAX_FLOW_DEPTH + 1, 1),
                    "{open}"
                );
            } else {
                let column = 4 + MAX_FLOW_DEPTH * open.len();
                assert_eq!((error.line, error.column), (1, column), "{open}");
            }
        }
        let json = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        assert_eq!(
            check_flow_nesting(&json).unwrap_err().column,
            5 + MAX_FLOW_DEPTH
        );
    }

    /// Brackets in text are text: in quotes, comments, block scalars and plain scalars, however
    /// many and however unbalanced.
    #[test]
    fn brackets_inside_text_are_not_collections() {
        let many = "[".repeat(1000);
        for text in [
            format!("a: \"{many}\"\nb: '{many}'\n"),
            format!("a: 1 # {many}\n# {many}\n"),
            format!("a: |\n  {many}\n\n  {many}\nb: >-\n    {many}\n"),
            format!("- |\n  {many}\n- [1, 2]\n"),
            format!("a: see {many}\n"),
            format!("{{\"a\": \"{many}\", \"b\":\"{many}\", \"c\": [\"{many}\"]}}"),
            format!("a: [x{many}, 'y{many}', \"it''s\"]\n"),
            format!("a: &anchor [1]\nb: *anchor\nc: !!seq [2]\nd: http://x/{many}\n"),
        ] {
            assert_eq!(check_flow_nesting(&text), Ok(()), "{text}");
        }
    }

    /// Flow collections after a block scalar are counted again.
    #[test]
    fn a_block_scalar_ends_where_its_owner_does() {
        let text = format!(
            "a:\n  b: |\n    {}\n  c: {}1{}\n",
            "[".repeat(10),
            "[".repeat(MAX_FLOW_DEPTH + 1),
            "]".repeat(MAX_FLOW_DEPTH + 1)
        );
        let error = check_flow_nesting(&text).unwrap_err();
        assert_eq!(error.line, 4);
    }
}

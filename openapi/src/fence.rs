//! Markdown code fences as CommonMark reads them: an opening fence is three or more backticks
//! (or tildes), and only a line of the same character, at least as long and with nothing after
//! it, closes it. A description's example of Markdown (a ```` ```` ```` fence holding ```` ``` ````
//! ones) is one block, not several.

/// An open code fence: its character and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fence {
    /// `` ` `` or `~`.
    pub mark: char,
    /// How many of them (three or more).
    pub len: usize,
}

impl Fence {
    /// The fence `line` opens, if it opens one (leading spaces ignored).
    pub fn opened_by(line: &str) -> Option<Fence> {
        let trimmed = line.trim_start();
        let mark = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let len = trimmed.len() - trimmed.trim_start_matches(mark).len();
        let info = &trimmed[len..];
        // A backtick fence's info string holds no backtick (else it is a code span).
        (len >= 3 && !(mark == '`' && info.contains('`'))).then_some(Fence { mark, len })
    }

    /// True when `line` closes this fence.
    pub fn closed_by(self, line: &str) -> bool {
        let trimmed = line.trim();
        let len = trimmed.len() - trimmed.trim_start_matches(self.mark).len();
        len >= self.len && len == trimmed.len()
    }

    /// The fence's text: `len` marks.
    pub fn text(self) -> String {
        std::iter::repeat_n(self.mark, self.len).collect()
    }

    /// The backtick fence that no line of `lines` closes: one longer than the longest run of
    /// backticks a line starts with, three at least.
    pub fn around<'a>(lines: impl IntoIterator<Item = &'a str>) -> Fence {
        let longest = lines
            .into_iter()
            .map(|l| {
                let t = l.trim_start();
                t.len() - t.trim_start_matches('`').len()
            })
            .max()
            .unwrap_or(0);
        Fence {
            mark: '`',
            len: (longest + 1).max(3),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Fence;

    #[test]
    fn only_a_bare_fence_as_long_closes_one() {
        let four = Fence::opened_by("````markdown").unwrap();
        assert_eq!(four, Fence { mark: '`', len: 4 });
        assert!(!four.closed_by("```"));
        assert!(!four.closed_by("````json"));
        assert!(four.closed_by("  `````  "));
        assert!(!four.closed_by("~~~~"));
        assert_eq!(Fence::opened_by("``not``"), None);
        assert_eq!(Fence::opened_by("```a`b"), None);
        assert_eq!(Fence::opened_by("~~~a`b").map(|f| f.len), Some(3));
        assert_eq!(Fence::around(["x", "  ````", "```"]).len, 5);
        assert_eq!(Fence::around(["x"]).text(), "```");
    }
}

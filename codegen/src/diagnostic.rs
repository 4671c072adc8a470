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
        }
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
    fn suggests_only_near_names() {
        assert_eq!(
            did_you_mean("Usr", ["User", "Pet"]).as_deref(),
            Some("did you mean `User`?")
        );
        assert_eq!(did_you_mean("Zebra", ["User", "Pet"]), None);
    }
}

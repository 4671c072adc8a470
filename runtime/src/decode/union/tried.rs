//! What a union's reading tried, for its error: each alternative and why it did not fit.

use std::fmt::Write;

use crate::error::cut;

/// The alternatives tried and why each did not fit, bounded: a few alternatives in the spec's
/// order, each the first line of its error cut to a few dozen words, then how many more there
/// were.
#[derive(Default)]
pub(super) struct Tried {
    reasons: Vec<(usize, String)>,
}

impl Tried {
    pub(super) const SHOWN: usize = 6;
    pub(super) const REASON_CHARS: usize = 160;

    pub(super) fn add(&mut self, position: usize, name: &str, why: &str) {
        let first_line = why.lines().next().unwrap_or_default();
        self.reasons.push((
            position,
            format!("`{name}`: {}", cut(first_line, Self::REASON_CHARS)),
        ));
    }

    pub(super) fn finish(mut self) -> String {
        self.reasons.sort_by_key(|(position, _)| *position);
        let more = self.reasons.len().saturating_sub(Self::SHOWN);
        let shown: Vec<String> = self
            .reasons
            .into_iter()
            .take(Self::SHOWN)
            .map(|(_, reason)| reason)
            .collect();
        let mut text = shown.join("; ");
        if more > 0 {
            let _ = write!(text, "; and {more} more");
        }
        text
    }
}

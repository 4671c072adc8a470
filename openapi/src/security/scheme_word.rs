//! The word an API key header's value starts with (`Token`, `Bot`, `SSWS`), as an extension, a
//! description or an example of the value says it.

use serde_json::Value;

/// The word an API key header's value starts with, when the scheme says one: Fern's
/// `x-fern-header.prefix`, or its description's "prefix" followed by a quoted word (drf-spectacular
/// writes `Token-based authentication with required prefix "Token"`), or a quoted example of the
/// value, a word and a placeholder (`` `SSWS <api token>` ``, `"Bot {token}"`). Only a word that
/// can be a scheme's name: a letter, then letters, digits, `-` or `_`, 32 at most.
pub(super) fn scheme_word(scheme: &Value) -> Option<String> {
    let is_word = |w: &str| {
        let mut chars = w.chars();
        w.len() <= 32
            && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let fern = scheme
        .pointer("/x-fern-header/prefix")
        .and_then(Value::as_str)
        .map(str::trim);
    if let Some(word) = fern {
        return is_word(word).then(|| word.to_owned());
    }
    let description = scheme.get("description").and_then(Value::as_str)?;
    let quoted = quoted_texts(description);
    let lower = description.to_ascii_lowercase();
    // "prefix "Token"", "prefixed with 'Bearer'": the first quoted word after "prefix".
    if let Some(at) = lower.find("prefix") {
        let after = at + "prefix".len();
        let word = quoted
            .iter()
            .find(|(start, _)| *start >= after)
            .filter(|(start, text)| *start - after <= 24 && is_word(text));
        if let Some((_, word)) = word {
            return Some((*word).to_owned());
        }
    }
    // A quoted value: a word, one space, a placeholder (`<key>`, `{token}`, `YOUR_KEY`).
    quoted.iter().find_map(|(_, text)| {
        let text = text.strip_prefix("Authorization:").unwrap_or(text).trim();
        let (word, rest) = text.split_once(' ')?;
        let placeholder = (rest.starts_with('<') && rest.ends_with('>'))
            || (rest.starts_with('{') && rest.ends_with('}'))
            || (rest.len() > 2 && rest.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
        placeholder
            .then_some(word)
            .filter(|w| is_word(w))
            .map(str::to_owned)
    })
}

/// The texts of a description in quotes or backticks, each with the byte where it starts.
fn quoted_texts(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut rest = 0;
    let letter_before = |at: usize| {
        text[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
    };
    while let Some((open, mark)) = text[rest..]
        .char_indices()
        .find(|(at, c)| matches!(c, '"' | '`' | '“') || (*c == '\'' && !letter_before(rest + at)))
    {
        let start = rest + open + mark.len_utf8();
        let close = if mark == '“' { '”' } else { mark };
        let Some(length) = text[start..].find(close) else {
            rest = start;
            continue;
        };
        // A quote runs to the end of its line at most: an apostrophe in prose opens nothing.
        let inner = &text[start..start + length];
        if !inner.contains('\n') && !inner.is_empty() {
            out.push((start, inner));
            rest = start + length + close.len_utf8();
        } else {
            rest = start;
        }
    }
    out
}

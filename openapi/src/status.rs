//! A response's status key as a description writes it (`404`, `4XX`, `default`), read once
//! into a value the importer decides from.

/// A response's key in a description, read once: a status, a class of them (`4XX`), or
/// `default`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatusKey {
    /// `404`.
    Code(u16),
    /// `4XX`: the first digit.
    Class(u16),
    /// `default`: every status not listed.
    Default,
}

impl StatusKey {
    /// How well this status's declared error stands for a failure inside a stream, best first:
    /// `default`, then a server error, then another client error. `None` for a validation
    /// error (422), which answers a request before any stream starts.
    pub(crate) fn stream_preference(&self) -> Option<u8> {
        match self {
            StatusKey::Default => Some(0),
            StatusKey::Class(5) => Some(1),
            StatusKey::Code(code) if *code >= 500 => Some(1),
            StatusKey::Code(422) => None,
            _ => Some(2),
        }
    }

    /// The key as a description writes it (`404`, `4XX` or `4xx`, `default`); nothing for
    /// anything else.
    pub(crate) fn read(key: &str) -> Option<StatusKey> {
        if key.eq_ignore_ascii_case("default") {
            return Some(StatusKey::Default);
        }
        match key.as_bytes() {
            [class @ b'1'..=b'5', x, y]
                if x.eq_ignore_ascii_case(&b'x') && y.eq_ignore_ascii_case(&b'x') =>
            {
                Some(StatusKey::Class(u16::from(class - b'0')))
            }
            [b'1'..=b'5', b'0'..=b'9', b'0'..=b'9'] => key.parse().ok().map(StatusKey::Code),
            _ => None,
        }
    }

    /// The status of a success: its own, or 200 for `2XX`.
    pub(crate) fn success(self) -> Option<u16> {
        match self {
            StatusKey::Code(code) => Some(code),
            StatusKey::Class(2) => Some(200),
            _ => None,
        }
    }

    /// A key a spec's `errors:` takes: a 4xx or 5xx status or class, or `default`.
    pub(crate) fn is_error(self) -> bool {
        match self {
            StatusKey::Code(code) => (400..600).contains(&code),
            StatusKey::Class(class) => class == 4 || class == 5,
            StatusKey::Default => true,
        }
    }

    /// The key in a spec's `errors:`: `404`, `4XX`, `default`.
    pub(crate) fn spec_key(self) -> String {
        match self {
            StatusKey::Code(code) => code.to_string(),
            StatusKey::Class(class) => format!("{class}XX"),
            StatusKey::Default => "default".to_owned(),
        }
    }
}

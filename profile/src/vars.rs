//! `${VAR}` and `${VAR:-default}` placeholders, resolved when a client is built, never at
//! generation time, so no environment value is ever written into generated code.

/// A placeholder whose variable is unset and has no default.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
// No advice to write a default: for a secret that would put it into generated code. The
// build-time check (the runtime's `environment`) gives advice that knows which field it is.
#[error("environment variable `{0}` is not set and has no default")]
pub struct MissingVar(pub String);

/// Checks placeholder syntax; the error says what is wrong, for a diagnostic.
pub fn check(text: &str) -> Result<(), String> {
    expand_with(text, |_| Some(String::new()))
        .map(|_| ())
        .map_err(|e| match e {
            ExpandError::Syntax(message) => message,
            ExpandError::Missing(var) => MissingVar(var).to_string(),
        })
}

/// True when `text` is exactly one reference, `${NAME}`, with no default and nothing around it:
/// the only form a secret may take in a spec, since the spec's profile is written into generated
/// code (a default or a prefix would be the secret, or part of it, written out).
pub fn is_reference(text: &str) -> bool {
    text.strip_prefix("${")
        .and_then(|rest| rest.strip_suffix('}'))
        .is_some_and(|name| {
            let mut chars = name.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// True when `text` is an authorization scheme's word, one space and one reference: `Token
/// ${KEY}` (Django REST framework), `SSWS ${KEY}` (Okta), `Bot ${KEY}` (Discord). The word is
/// the scheme's name, no part of the secret: a letter, then letters, digits, `-` or `_`, 32 at
/// most. Text joined to the reference (`sk_${REST}`) would be the secret's own start.
pub fn is_scheme_and_reference(text: &str) -> bool {
    let Some((scheme, reference)) = text.split_once(' ') else {
        return false;
    };
    let mut chars = scheme.chars();
    scheme.len() <= 32
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && is_reference(reference)
}

/// A secret header's value as a profile's serialised form shows it: a reference, or a scheme's
/// word and a reference, as it is (generated code needs it); anything else as `<redacted>`.
pub fn shown_secret_header(text: &str) -> &str {
    if is_scheme_and_reference(text) {
        text
    } else {
        shown_secret(text)
    }
}

/// A secret as a profile's serialised form shows it: a `${NAME}` reference as it is (generated
/// code needs it), anything else as `<redacted>`.
pub fn shown_secret(text: &str) -> &str {
    if is_reference(text) {
        text
    } else {
        "<redacted>"
    }
}

/// True when the text holds at least one placeholder (or something that tries to be one and
/// is malformed, which [`check`] then reports).
pub fn has_placeholder(text: &str) -> bool {
    let mut walk = Walk::new(text, |_| Some(String::new()));
    walk.run().is_err() || walk.placeholders > 0
}

/// `text` written so that it reads back as itself: every `$` doubled and every `}` written
/// `$}`, so no text from elsewhere (a description's URL, say) can open, close or end a
/// placeholder. Valid both outside a placeholder and inside its default.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    for c in text.chars() {
        match c {
            '$' => out.push_str("$$"),
            '}' => out.push_str("$}"),
            c => out.push(c),
        }
    }
    out
}

/// `${NAME:-default}` with `default` written literally (see [`escape`]).
pub fn with_default(name: &str, default: &str) -> String {
    format!("${{{name}:-{}}}", escape(default))
}

/// Replaces each placeholder with the variable's value from `lookup`, or its default.
pub fn expand(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, MissingVar> {
    expand_with(text, lookup).map_err(|e| match e {
        // Syntax is checked at generation time; a runtime profile with bad syntax names the text.
        ExpandError::Syntax(message) => MissingVar(message),
        ExpandError::Missing(var) => MissingVar(var),
    })
}

/// [`expand`] against the process environment.
pub fn expand_env(text: &str) -> Result<String, MissingVar> {
    expand(text, |name| std::env::var(name).ok())
}

/// The variables `text` names that `lookup` does not know and that have no default, each once,
/// in order. Malformed placeholders are left to [`check`].
pub fn missing(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let mut walk = Walk::new(text, lookup);
    walk.collect_missing = true;
    let _ = walk.run();
    walk.missing
}

/// A setting that may hold `${VAR}`s: where it sits (`auth.oauth2.client_secret`,
/// `headers.X-Api-Key`), its text, and whether it is a secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarField<'a> {
    /// The key's dotted path in a profile.
    pub key: String,
    /// The text as written.
    pub text: &'a str,
    /// A secret: a default for it would be written into generated code.
    pub secret: bool,
}

enum ExpandError {
    Syntax(String),
    Missing(String),
}

/// How deep placeholders may nest in defaults (`${A:-${B:-x}}` is two): deep enough for any
/// URL, shallow enough that no text can make the walk recurse far.
const MAX_NESTING: usize = 8;

fn expand_with(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, ExpandError> {
    Walk::new(text, lookup).run()
}

/// One pass over a text, left to right: `$$` is `$`, `$}` is `}`, `${NAME}` and
/// `${NAME:-default}` are placeholders (a default may hold placeholders of its own), any other
/// `$` is itself. Linear in the text.
struct Walk<'t, L> {
    text: &'t str,
    at: usize,
    lookup: L,
    /// Collect unset variables without a default instead of failing on the first.
    collect_missing: bool,
    missing: Vec<String>,
    placeholders: usize,
}

impl<'t, L: Fn(&str) -> Option<String>> Walk<'t, L> {
    fn new(text: &'t str, lookup: L) -> Self {
        Walk {
            text,
            at: 0,
            lookup,
            collect_missing: false,
            missing: Vec::new(),
            placeholders: 0,
        }
    }

    fn run(&mut self) -> Result<String, ExpandError> {
        self.sequence(0)
    }

    /// Text up to its end (`depth` 0) or up to the `}` that closes the default it is in.
    fn sequence(&mut self, depth: usize) -> Result<String, ExpandError> {
        let mut out = String::new();
        let bytes = self.text.as_bytes();
        loop {
            let rest = &self.text[self.at..];
            // Everything up to the next `$` (or, in a default, `}`) is text.
            let stop = rest
                .find(|c| c == '$' || (depth > 0 && c == '}'))
                .unwrap_or(rest.len());
            out.push_str(&rest[..stop]);
            self.at += stop;
            match bytes.get(self.at) {
                None if depth > 0 => {
                    return Err(ExpandError::Syntax(format!(
                        "unclosed `${{` in `{}`: write ${{NAME}} or ${{NAME:-default}}, and $$ for a `$`, $}} for a `}}` in a default",
                        self.text
                    )));
                }
                None => return Ok(out),
                Some(b'}') => return Ok(out),
                Some(_) => match bytes.get(self.at + 1) {
                    Some(b'$') => {
                        out.push('$');
                        self.at += 2;
                    }
                    Some(b'}') => {
                        out.push('}');
                        self.at += 2;
                    }
                    Some(b'{') => {
                        self.at += 2;
                        let value = self.placeholder(depth)?;
                        out.push_str(&value);
                    }
                    _ => {
                        out.push('$');
                        self.at += 1;
                    }
                },
            }
        }
    }

    /// After `${`: the name, an optional `:-default`, the closing `}`; its value.
    fn placeholder(&mut self, depth: usize) -> Result<String, ExpandError> {
        if depth >= MAX_NESTING {
            return Err(ExpandError::Syntax(format!(
                "placeholders nested more than {MAX_NESTING} deep in `{}`",
                self.text
            )));
        }
        self.placeholders += 1;
        let rest = &self.text[self.at..];
        let name_length = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..name_length];
        let after = &rest[name_length..];
        let has_default = after.starts_with(":-");
        if !is_var_name(name) || !(has_default || after.starts_with('}')) {
            if !after.contains('}') && !has_default {
                return Err(ExpandError::Syntax(format!(
                    "unclosed `${{` in `{}`: write ${{NAME}} or ${{NAME:-default}}",
                    self.text
                )));
            }
            let shown: String = rest.chars().take_while(|c| *c != '}').take(40).collect();
            return Err(ExpandError::Syntax(format!(
                "`${{{shown}}}` is not a valid placeholder: a variable name is letters, digits and `_`, not starting with a digit (write $$ for a `$`)"
            )));
        }
        self.at += name_length;
        let default = if has_default {
            self.at += 2;
            Some(self.sequence(depth + 1)?)
        } else {
            None
        };
        // `sequence` stopped at, or the name was followed by, the closing `}`.
        self.at += 1;
        match ((self.lookup)(name), default) {
            (Some(value), _) | (None, Some(value)) => Ok(value),
            (None, None) if self.collect_missing => {
                if !self.missing.iter().any(|m| m == name) {
                    self.missing.push(name.to_owned());
                }
                Ok(String::new())
            }
            (None, None) => Err(ExpandError::Missing(name.to_owned())),
        }
    }
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "HOST").then(|| "example.test".to_owned())
    }

    #[test]
    fn a_schemes_word_may_stand_before_a_secret_header_reference() {
        for allowed in [
            "Token ${KEY}",
            "SSWS ${OKTA_TOKEN}",
            "Bot ${T}",
            "ApiKey-v2 ${K}",
        ] {
            assert!(is_scheme_and_reference(allowed), "{allowed}");
            assert_eq!(shown_secret_header(allowed), allowed);
        }
        for refused in [
            "sk_${KEY}",
            "Token  ${KEY}",
            "Token ${KEY:-dev}",
            "Token ${KEY} x",
            "1x ${KEY}",
            "To ken ${KEY}",
            "Token abc",
        ] {
            assert!(!is_scheme_and_reference(refused), "{refused}");
        }
        assert_eq!(shown_secret_header("Token abc"), "<redacted>");
    }

    #[test]
    fn expands_variables_and_defaults() {
        assert_eq!(
            expand("http://${HOST}:80", env).unwrap(),
            "http://example.test:80"
        );
        assert_eq!(expand("${PORT:-8080}", env).unwrap(), "8080");
        assert_eq!(expand("${HOST:-x}", env).unwrap(), "example.test");
        assert_eq!(expand("no vars $HOME", env).unwrap(), "no vars $HOME");
    }

    #[test]
    fn a_missing_variable_is_named() {
        let err = expand("${CLIENT_SECRET}", env).unwrap_err();
        assert_eq!(err.0, "CLIENT_SECRET");
        assert!(err.to_string().contains("`CLIENT_SECRET` is not set"));
    }

    #[test]
    fn missing_lists_every_unset_variable_without_a_default_once() {
        assert_eq!(
            missing("${A}/${HOST}/${B:-b}/${C}/${A}/${1X}/${D", env),
            ["A", "C"]
        );
        assert!(missing("plain", env).is_empty());
    }

    #[test]
    fn malformed_placeholders_are_reported() {
        assert!(check("${HOST").unwrap_err().contains("unclosed"));
        assert!(
            check("${1X}")
                .unwrap_err()
                .contains("not a valid placeholder")
        );
        assert!(check("${}").is_err());
        assert!(check("${A_1:-x} and ${B}").is_ok());
        assert!(check(&"${A:-".repeat(20)).unwrap_err().contains("nested"));
    }

    #[test]
    fn escapes_read_back_as_the_text_and_defaults_nest() {
        assert_eq!(expand("a$$b $} $x", env).unwrap(), "a$b } $x");
        assert_eq!(expand("${PORT:-a$}b$$c}", env).unwrap(), "a}b$c");
        assert_eq!(
            expand("${URL:-https://${REGION:-eu}.example.test}", env).unwrap(),
            "https://eu.example.test"
        );
        // Whatever the text, escaped it is read back as itself and names no variable.
        for hostile in [
            "https://x.test/}${AWS_SECRET_ACCESS_KEY}",
            "$${HOME}",
            "}}}${{",
            "$",
            "a$}b$$",
            "${A:-${B}}",
        ] {
            let written = with_default("CLIENT_URL", hostile);
            let read = expand(&written, |name| {
                (name != "CLIENT_URL").then(|| panic!("read {name}"))
            });
            assert_eq!(read.unwrap(), hostile, "{written}");
            assert_eq!(expand(&escape(hostile), |_| None).unwrap(), hostile);
            assert!(!has_placeholder(&escape(hostile)), "{hostile}");
            assert!(missing(&written, |_| None).is_empty());
        }
    }
}

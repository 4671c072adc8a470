//! "Did you mean …?" for a name that is not one of the known ones: the spec checker's and the
//! run-time profile reader's.

/// `did you mean `x`?` for the known name nearest to `wrong`, when one is near enough.
pub fn did_you_mean<'a>(wrong: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let known: Vec<&str> = known.into_iter().collect();
    // A plural for a singular (`retries` for `retry`, `methodss`…) is further off by letters
    // than it is in meaning.
    let lower = wrong.to_lowercase();
    let singular = match lower.strip_suffix("ies") {
        Some(stem) => format!("{stem}y"),
        None => lower.trim_end_matches('s').to_owned(),
    };
    if let Some(k) = known
        .iter()
        .find(|k| singular != lower && k.to_lowercase() == singular)
    {
        return Some(format!("did you mean `{k}`?"));
    }
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

/// serde's "unknown field `max_atempts`, expected one of `max_attempts`, …" with the nearest
/// field named: `…; did you mean `max_attempts`?`. Other messages pass unchanged.
pub fn for_unknown_field(message: String) -> String {
    let Some((_, after)) = message.split_once("unknown field `") else {
        return message;
    };
    let Some((wrong, listed)) = after.split_once('`') else {
        return message;
    };
    // The expected names are backquoted, up to serde_yaml's " at line …".
    let listed = listed.split(" at line ").next().unwrap_or(listed);
    let known = listed.split('`').skip(1).step_by(2);
    match did_you_mean(wrong, known) {
        Some(suggestion) => format!("{message}; {suggestion}"),
        None => message,
    }
}

/// serde's wording for what it expected, in the words of the YAML a user writes: `struct Bearer`
/// is a mapping, `u32` a whole number. Anything else passes unchanged.
pub fn in_yaml_words(message: &str) -> String {
    let (head, at) = match message.rfind(" at line ") {
        Some(i) => message.split_at(i),
        None => (message, ""),
    };
    let Some((before, wanted)) = head.rsplit_once("expected ") else {
        return message.to_owned();
    };
    if let Some(help) = wanted
        .strip_prefix("struct ")
        .and_then(|name| scalar_in_its_key(before, name))
    {
        return format!("{before}expected a mapping{at}; {help}");
    }
    let words = match wanted {
        w if w.strip_prefix("struct ").is_some_and(|name| {
            name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric())
        }) =>
        {
            "a mapping"
        }
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number (0 or more)",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        _ => return message.to_owned(),
    };
    format!("{before}expected {words}{at}")
}

/// For a scalar written where a mapping of one main key goes (`window: 10s`, `bearer: "${T}"`),
/// the mapping it was meant as: "write it as `window: { time: 10s }`", as `remcall check` says.
fn scalar_in_its_key(before: &str, wanted: &str) -> Option<String> {
    let (path, found) = before.split_once(": invalid type: ")?;
    let field = path.rsplit('.').next().unwrap_or(path);
    let (text, value) = if let Some(rest) = found.strip_prefix("string ") {
        (true, rest.trim_end_matches([',', ' ']).to_owned())
    } else {
        let rest = found.strip_prefix("integer `")?;
        (false, rest.split('`').next()?.to_owned())
    };
    let key = match (wanted, text) {
        ("WindowRepr", true) => "time",
        ("WindowRepr", false) => "calls",
        ("Bearer", true) => "token",
        ("Backoff", true) => "initial",
        ("SemaphorePolicy", false) => "max_concurrent",
        ("RateLimitPolicy", false) => "per_second",
        _ => return None,
    };
    // A plain word is written bare, anything else in the quotes serde gave it.
    let bare = value.strip_prefix('"').and_then(|v| v.strip_suffix('"'));
    let value = match bare {
        Some(word) if word.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') => {
            word.to_owned()
        }
        _ => value,
    };
    Some(format!("write it as `{field}: {{ {key}: {value} }}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_type_names_become_yaml_words() {
        assert_eq!(
            in_yaml_words(
                "w: invalid type: string \"10s\", expected struct Tls at line 1 column 20"
            ),
            "w: invalid type: string \"10s\", expected a mapping at line 1 column 20"
        );
        assert_eq!(
            in_yaml_words("invalid type: string \"x\", expected u32"),
            "invalid type: string \"x\", expected a whole number (0 or more)"
        );
        let plain = "invalid type: string \"x\", expected a sequence";
        assert_eq!(in_yaml_words(plain), plain);
    }

    #[test]
    fn a_scalar_where_a_one_key_mapping_goes_gets_the_mapping_to_write() {
        for (message, help) in [
            (
                "breaker.window: invalid type: string \"10s\", expected struct WindowRepr at line 1 column 20",
                "write it as `window: { time: 10s }`",
            ),
            (
                "breaker.window: invalid type: integer `100`, expected struct WindowRepr",
                "write it as `window: { calls: 100 }`",
            ),
            (
                "auth.bearer: invalid type: string \"${TOKEN}\", expected struct Bearer",
                "write it as `bearer: { token: \"${TOKEN}\" }`",
            ),
        ] {
            let said = in_yaml_words(message);
            assert!(said.ends_with(help), "{said}");
            assert!(said.contains("expected a mapping"), "{said}");
        }
    }

    #[test]
    fn an_unknown_field_gets_the_nearest_known_one() {
        let message = "retry: unknown field `max_atempts`, expected one of `max_attempts`, `backoff`, `on` at line 1 column 10";
        assert_eq!(
            for_unknown_field(message.to_owned()),
            format!("{message}; did you mean `max_attempts`?")
        );
        let far = "unknown field `zzz`, expected `time` or `calls`";
        assert_eq!(for_unknown_field(far.to_owned()), far);
        let other = "invalid type: string \"x\", expected u32";
        assert_eq!(for_unknown_field(other.to_owned()), other);
    }

    #[test]
    fn suggests_only_near_names() {
        assert_eq!(
            did_you_mean("Usr", ["User", "Pet"]).as_deref(),
            Some("did you mean `User`?")
        );
        assert_eq!(did_you_mean("Zebra", ["User", "Pet"]), None);
        assert_eq!(
            did_you_mean("retries", ["retry", "timeout"]).as_deref(),
            Some("did you mean `retry`?")
        );
    }
}

//! A method's `request:` line: its verb, its path, and the path's placeholders against the
//! method's `path:` parameters.

use super::Validator;
use crate::checked::Verb;
use crate::diagnostic::did_you_mean;
use crate::names;
use crate::spec::model::MethodDef;

impl Validator<'_> {
    /// `request: VERB /path/{param}`: the verb, the path and its placeholders, each checked.
    pub(super) fn request_line(
        &mut self,
        key: &str,
        def: &MethodDef,
    ) -> Option<(Verb, String, Vec<String>)> {
        let spec = self.spec;
        let request_key = format!("{key}.request");
        let Some(request) = &def.request else {
            let d = spec.at_key(
                0,
                key,
                "a method needs `request:`, e.g. `request: GET /users/{id}`",
            );
            let help = spec.file.openapi.as_ref().map(|_| {
                "with `openapi:`, an entry without `request:` changes an imported method of that name; this name is not one"
                    .to_owned()
            });
            self.push(d.maybe_help(help));
            return None;
        };
        let (verb_text, path) = request
            .trim()
            .split_once(' ')
            .unwrap_or((request.trim(), ""));
        let path = path.trim();
        let verb = Verb::parse(verb_text);
        if verb.is_none() {
            let verbs = Verb::ALL.map(Verb::as_str);
            let d = spec.at(
                0,
                &request_key,
                format!("`{verb_text}` is not an HTTP method"),
            );
            let help = did_you_mean(verb_text, verbs).unwrap_or_else(|| {
                format!(
                    "write `request: GET /path`; methods are {}",
                    verbs.join(", ")
                )
            });
            self.push(d.help(help));
        }
        let used = self.path_placeholders(key, def, verb_text, path)?;
        Some((verb?, path.to_owned(), used))
    }

    /// The placeholders of a method's path, each declared under `path:` and each declared one
    /// used; a path that does not start with `/` or writes `:id` for `{id}` is said so.
    fn path_placeholders(
        &mut self,
        key: &str,
        def: &MethodDef,
        verb_text: &str,
        path: &str,
    ) -> Option<Vec<String>> {
        let spec = self.spec;
        let request_key = format!("{key}.request");
        if !path.starts_with('/') {
            self.push(
                spec.at(0, &request_key, "the path must start with `/`")
                    .help("write e.g. `request: GET /users/{id}`"),
            );
        }
        if let Some(segment) = path.split('/').find(|s| colon_placeholder(s).is_some()) {
            let name = colon_placeholder(segment).unwrap_or_default();
            self.push(
                spec.at(
                    0,
                    &request_key,
                    format!("`{segment}` is a literal path segment, not a parameter"),
                )
                .help(format!(
                    "placeholders are written `{{{name}}}`: `request: {} {}`",
                    verb_text,
                    path.replace(segment, &format!("{{{name}}}"))
                )),
            );
        }
        let used = match placeholders(path) {
            Ok(used) => used,
            Err(message) => {
                self.push(spec.at(0, &request_key, message));
                return None;
            }
        };
        for placeholder in &used {
            if !def.path.contains_key(placeholder) {
                let d = spec.at_in_value(
                    0,
                    &request_key,
                    &format!("{{{placeholder}}}"),
                    format!("`{{{placeholder}}}` is not declared in `path:`"),
                );
                let help = did_you_mean(placeholder, def.path.keys().map(String::as_str))
                    .unwrap_or_else(|| format!("add `path: {{ {placeholder}: String }}`"));
                self.push(d.help(help));
            }
        }
        for declared in def.path.keys() {
            if !used.contains(declared) {
                let d = spec.at_key(
                    0,
                    &format!("{key}.path.{declared}"),
                    format!("path parameter `{declared}` is not used in `{path}`"),
                );
                let help = did_you_mean(declared, used.iter().map(String::as_str));
                self.push(d.maybe_help(help));
            }
        }
        Some(used)
    }
}

/// `id` for a segment `:id`, the placeholder style of Express and Rails routes.
fn colon_placeholder(segment: &str) -> Option<&str> {
    let name = segment.strip_prefix(':')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() || first == '_')
        .then_some(name)
        .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The `{name}` placeholders of a path, in order.
fn placeholders(path: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(format!("unmatched `}}` in `{path}`"));
        }
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in `{path}`"))?;
        let name = &after[..close];
        if !names::is_word(name) {
            return Err(format!("`{{{name}}}` in `{path}` is not a parameter name"));
        }
        // Named twice, a parameter is one argument that fills both places.
        if !out.iter().any(|n| n == name) {
            out.push(name.to_owned());
        }
        rest = &after[close + 1..];
    }
    Ok(out)
}

//! askama template → string → `syn::parse_file` (refuses invalid output, naming the spec) →
//! prettyplease → `@generated` header.

use askama::Template;

use crate::ir;

#[derive(Template)]
#[template(path = "client.rs", escape = "none")]
struct ClientTemplate<'a> {
    client: &'a ir::Client,
}

/// The lints generated code may trip, allowed once per generated module (here and in
/// `remcall::include_client!`): spec types and argument lists are as long as the API makes them,
/// a union's alternatives as large as the API's types are, docs are the API's own prose (markdown
/// lists, placeholder names; an item the API leaves undocumented stays so), a fallback's default body uses only its cause, and a program that
/// calls only some methods must not be warned about the others in a file it cannot edit.
pub const ALLOWED_LINTS: &str = "dead_code, missing_docs, clippy::too_many_arguments, clippy::type_complexity, clippy::large_enum_variant, clippy::doc_lazy_continuation, clippy::doc_overindented_list_items, clippy::disallowed_names, unused_variables";

/// The version written into every header.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Why a checked spec could not be rendered. Either is a bug in remcall-codegen.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The template failed.
    #[error("rendering the template failed: {0}")]
    Template(#[from] askama::Error),
    /// The template produced text that is not Rust.
    #[error("the generated code is not valid Rust (line {line} of the output: {message})")]
    InvalidRust {
        /// The line of the unformatted output.
        line: usize,
        /// syn's message.
        message: String,
    },
}

/// Renders one client module; `spec_path` is named in the header.
///
/// The source is parsed and formatted one top-level item at a time: a syntax tree of a whole
/// 150,000-line client (a big API's) holds hundreds of megabytes, one item's a few kilobytes,
/// and prettyplease writes a file's items one after another all the same. Items are independent,
/// so they are formatted on every core, in runs of consecutive items joined in order.
pub(crate) fn render(client: &ir::Client, spec_path: &str) -> Result<String, RenderError> {
    let source = ClientTemplate { client }.render()?;
    let items = items(&source);
    // Where each item starts in the unformatted output, for an error's line.
    let mut first_lines = Vec::with_capacity(items.len());
    let mut line = 0;
    for item in &items {
        first_lines.push(line);
        line += item.matches('\n').count();
    }
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let run = items.len().div_ceil(threads).max(1);
    let formatted: Vec<Result<String, RenderError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(run)
            .zip(first_lines.chunks(run))
            .map(|(items, lines)| scope.spawn(move || format_items(items, lines)))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("formatting does not panic"))
            .collect()
    });
    let mut out = header(spec_path);
    out.reserve(source.len());
    for part in formatted {
        out.push_str(&part?);
    }
    Ok(out)
}

/// Consecutive items, each parsed and formatted; `first_lines` are where they start.
fn format_items(items: &[&str], first_lines: &[usize]) -> Result<String, RenderError> {
    let mut out = String::new();
    for (item, first_line) in items.iter().zip(first_lines) {
        let file = syn::parse_file(item).map_err(|e| RenderError::InvalidRust {
            line: first_line + e.span().start().line,
            message: e.to_string(),
        })?;
        match written_as_is(item) {
            Some(text) => {
                out.push_str(text);
                out.push('\n');
            }
            None => out.push_str(&prettyplease::unparse(&file)),
        }
    }
    Ok(out)
}

/// A type's serde macro (templates/client/wire.rs), whose layout the template writes: prettyplease
/// would run its tokens together as a paragraph, and rustfmt leaves a braced macro as it is.
fn written_as_is(item: &str) -> Option<&str> {
    let item = item.trim();
    item.starts_with("remcall::__codegen::serde_")
        .then_some(item)
}

/// The source cut into its top-level items (each with its attributes and doc comments): an
/// item ends at a `;` outside any brackets, or at the `}` that closes its body when no `;`
/// follows. Strings, characters and comments are skipped, so a brace in one does not count.
fn items(source: &str) -> Vec<&str> {
    let bytes = source.as_bytes();
    let mut items = Vec::new();
    let (mut start, mut depth, mut i) = (0, 0_usize, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = source[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |n| i + n + 4);
                continue;
            }
            b'"' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'r' if is_raw_string(bytes, i) => {
                i = skip_raw_string(source, i);
                continue;
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
                let close = match bytes.get(i + 1) {
                    Some(b'\\') => source[i + 2..].find('\'').map(|n| i + 2 + n),
                    Some(_) => source[i + 1..]
                        .char_indices()
                        .nth(1)
                        .filter(|(_, c)| *c == '\'')
                        .map(|(n, _)| i + 1 + n),
                    None => None,
                };
                i = close.map_or(i + 1, |c| c + 1);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'}' => {
                depth = depth.saturating_sub(1);
                let semicolon_follows = source[i + 1..].trim_start().starts_with(';');
                if depth == 0 && !semicolon_follows {
                    items.push(&source[start..=i]);
                    start = i + 1;
                }
            }
            b';' if depth == 0 => {
                items.push(&source[start..=i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !source[start..].trim().is_empty() {
        items.push(&source[start..]);
    }
    items
}

/// The index just past the string literal opening at `i`.
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// True for `r"` or `r#…"` starting a raw string at `i` (not the end of an identifier).
fn is_raw_string(bytes: &[u8], i: usize) -> bool {
    let after_word = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
    let mut j = i + 1;
    while bytes.get(j) == Some(&b'#') {
        j += 1;
    }
    !after_word && bytes.get(j) == Some(&b'"')
}

/// The index just past the raw string opening at `i`.
fn skip_raw_string(source: &str, i: usize) -> usize {
    let hashes = source[i + 1..].bytes().take_while(|b| *b == b'#').count();
    let body = i + 2 + hashes;
    let close = format!("\"{}", "#".repeat(hashes));
    source[body..]
        .find(&close)
        .map_or(source.len(), |n| body + n + close.len())
}

/// The first line of every generated file.
pub(crate) fn header(spec_path: &str) -> String {
    let spec_path = crate::ir::comment_text(spec_path);
    format!("// @generated by remcall-codegen {VERSION} from {spec_path}. Do not edit.\n")
}

/// The `mod.rs` that declares every generated module.
pub(crate) fn module_index(modules: &[(String, String)]) -> String {
    let mut out = format!("// @generated by remcall-codegen {VERSION}. Do not edit.\n");
    for (module, spec) in modules {
        let spec = crate::ir::comment_text(spec);
        // Generated files are formatted by prettyplease; rustfmt would reformat them. Spec types
        // and argument lists are as long as the API makes them.
        out.push_str(&format!(
            "/// The client generated from `{spec}`.\n#[rustfmt::skip]\n#[allow({ALLOWED_LINTS})]\npub mod {module};\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::items;

    #[test]
    fn items_end_at_their_own_brace_or_semicolon_only() {
        let source = concat!(
            "use a::b;\n",
            "/// Doc with { and '\n",
            "#[derive(Debug)]\n",
            "pub struct S { a: [u8; 2] }\n",
            "const C: S = S { a: [1, 2] };\n",
            "fn f<'a>(x: &'a str) -> char { let _ = \"}\"; let _ = r#\"{\"#; '}' }\n",
            "/* } */ struct T;\n",
            "impl T { fn g() {} }\n",
        );
        let cut: Vec<&str> = items(source).iter().map(|i| i.trim()).collect();
        assert_eq!(
            cut,
            [
                "use a::b;",
                "/// Doc with { and '\n#[derive(Debug)]\npub struct S { a: [u8; 2] }",
                "const C: S = S { a: [1, 2] };",
                "fn f<'a>(x: &'a str) -> char { let _ = \"}\"; let _ = r#\"{\"#; '}' }",
                "/* } */ struct T;",
                "impl T { fn g() {} }",
            ]
        );
        // Each is an item syn reads.
        for item in items(source) {
            syn::parse_file(item).unwrap_or_else(|e| panic!("{item}: {e}"));
        }
    }
}

//! askama template → string → `syn::parse_file` (refuses invalid output, naming the spec) →
//! prettyplease → `@generated` header.

use askama::Template;

use crate::ir;

#[derive(Template)]
#[template(path = "client.rs", escape = "none")]
struct ClientTemplate<'a> {
    client: &'a ir::Client,
    /// The typed stub's file, beside the client's (`stubs: true`).
    stub_file: &'a str,
}

#[derive(Template)]
#[template(path = "client/stub.rs", escape = "none")]
struct StubTemplate<'a> {
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
pub(crate) fn render(
    client: &ir::Client,
    spec_path: &str,
    stub_file: &str,
) -> Result<String, RenderError> {
    formatted(&ClientTemplate { client, stub_file }.render()?, spec_path)
}

/// Renders a client's typed stub, the inside of its `mod stub` (`stubs: true`), or nothing.
pub(crate) fn render_stub(
    client: &ir::Client,
    spec_path: &str,
) -> Result<Option<String>, RenderError> {
    if client.stubs.is_none() {
        return Ok(None);
    }
    formatted(&StubTemplate { client }.render()?, spec_path).map(Some)
}

/// `source` parsed, formatted item by item (on every core), under the `@generated` header.
fn formatted(source: &str, spec_path: &str) -> Result<String, RenderError> {
    let items: Vec<Piece<'_>> = items(source).into_iter().flat_map(pieces).collect();
    // Where each item starts in the unformatted output, for an error's line.
    let mut first_lines = Vec::with_capacity(items.len());
    let mut line = 0;
    for item in &items {
        first_lines.push(line);
        line += item.text().matches('\n').count();
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
fn format_items(items: &[Piece<'_>], first_lines: &[usize]) -> Result<String, RenderError> {
    let mut out = String::new();
    for (item, first_line) in items.iter().zip(first_lines) {
        // A member of a split `impl` is formatted inside an `impl` of its own, whose first and
        // last lines are then left out; the head with an empty body, which is then opened.
        let text = match item {
            Piece::Whole(text) => {
                if let Some(text) = written_as_is(text) {
                    out.push_str(text);
                    out.push('\n');
                    continue;
                }
                std::borrow::Cow::Borrowed(*text)
            }
            Piece::Head(head) => format!("{head}{{}}").into(),
            Piece::Member(member) => format!("impl __RemcallPart {{\n{member}\n}}").into(),
            Piece::End => {
                out.push_str("}\n");
                continue;
            }
        };
        let file = syn::parse_file(&text).map_err(|e| RenderError::InvalidRust {
            line: first_line + e.span().start().line,
            message: e.to_string(),
        })?;
        let formatted = prettyplease::unparse(&file);
        match item {
            Piece::Head(_) => {
                let head = formatted.trim_end();
                out.push_str(head.strip_suffix("{}").unwrap_or(head));
                out.push_str("{\n");
            }
            Piece::Member(_) => {
                let lines: Vec<&str> = formatted.trim_end().lines().collect();
                for line in lines.iter().skip(1).take(lines.len().saturating_sub(2)) {
                    out.push_str(line);
                    out.push('\n');
                }
            }
            _ => out.push_str(&formatted),
        }
    }
    Ok(out)
}

/// A piece of the source formatted on its own: a top-level item, or a part of a large `impl`
/// block ([`pieces`]).
enum Piece<'a> {
    Whole(&'a str),
    /// An `impl` block's attributes, docs and header, up to its body.
    Head(&'a str),
    /// One member of its body.
    Member(&'a str),
    /// Its closing brace.
    End,
}

impl Piece<'_> {
    fn text(&self) -> &str {
        match self {
            Piece::Whole(text) | Piece::Head(text) | Piece::Member(text) => text,
            Piece::End => "",
        }
    }
}

/// An `impl` block larger than this is formatted a member at a time.
const SPLIT_IMPL_BYTES: usize = 16 << 10;

/// An item as the pieces it is formatted in: itself, or for an `impl` block larger than
/// [`SPLIT_IMPL_BYTES`] (a client of a thousand methods) its head, each member and its end —
/// one syntax tree of the whole block holds hundreds of megabytes and keeps one thread busy
/// while the others wait; prettyplease writes the members of a block one after another all
/// the same.
fn pieces(item: &str) -> Vec<Piece<'_>> {
    let body = (item.len() > SPLIT_IMPL_BYTES)
        .then(|| impl_body(item))
        .flatten();
    let Some(open) = body else {
        return vec![Piece::Whole(item)];
    };
    let close = item.trim_end().len() - 1;
    let members = items(&item[open + 1..close]);
    if members.is_empty() {
        return vec![Piece::Whole(item)];
    }
    let mut out = vec![Piece::Head(&item[..open])];
    out.extend(members.into_iter().map(Piece::Member));
    out.push(Piece::End);
    out
}

/// Where the body of an `impl` item opens, when the item is one: its first word outside
/// attributes is `impl`, and the body is the first `{` outside brackets.
fn impl_body(item: &str) -> Option<usize> {
    let (mut depth, mut first_word, mut open) = (0_usize, None::<usize>, None);
    code_bytes(item, |i, byte| {
        match byte {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 => {
                open = Some(i);
                return false;
            }
            b if depth == 0 && first_word.is_none() && b.is_ascii_alphabetic() => {
                first_word = Some(i);
            }
            _ => {}
        }
        true
    });
    let word = &item[first_word?..];
    (word.starts_with("impl ") || word.starts_with("impl<"))
        .then_some(open)
        .flatten()
        .filter(|_| item.trim_end().ends_with('}'))
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
    let mut items = Vec::new();
    let (mut start, mut depth) = (0, 0_usize);
    code_bytes(source, |i, byte| {
        match byte {
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
        true
    });
    if !source[start..].trim().is_empty() {
        items.push(&source[start..]);
    }
    items
}

/// Calls `visit` with each byte of `source` that is code — not in a comment, a string or a
/// character literal — and its index, until `visit` says to stop (false).
fn code_bytes(source: &str, mut visit: impl FnMut(usize, u8) -> bool) {
    let bytes = source.as_bytes();
    let mut i = 0;
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
            byte => {
                if !visit(i, byte) {
                    return;
                }
            }
        }
        i += 1;
    }
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
    use super::{format_items, items, pieces};

    /// A large `impl` block formatted a member at a time reads exactly as formatted whole.
    #[test]
    fn a_large_impl_formats_as_it_would_whole() {
        let mut source =
            String::from("/// The client.\n#[allow(dead_code)]\nimpl<T: Clone> Client<T> {\n");
        for i in 0..400 {
            source.push_str(&format!(
                "/// Method {i}, with {{ and }} in its doc.\npub async fn m{i}(&self, a: &str) -> Result<Vec<u8>, E> {{ let s = \"}}\"; self.call(a, s, '{{').await }}\nconst C{i}: u8 = {i};\n"
            ));
        }
        source.push_str("}\n");
        let parts = pieces(&source);
        assert!(parts.len() > 800, "split into {} pieces", parts.len());
        let lines = vec![0; parts.len()];
        let split = format_items(&parts, &lines).unwrap();
        let whole = prettyplease::unparse(&syn::parse_file(&source).unwrap());
        assert_eq!(split, whole);
    }

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

//! A method in render-ready form: its arguments and their borrowed forms (`arguments.rs`), its
//! result and the response, error and headers types it names (`answers.rs`; an error enum other
//! methods declare alike shared, `shared_errors.rs`), a stream's call and events
//! (`streamed.rs`), and paging (`paging.rs`).

mod answers;
mod arguments;
mod paging;
mod shared_errors;
mod streamed;

use crate::checked;
use crate::names;
use crate::types::Ty;

use super::docs::repeats;
use super::docs::{comment_text, item_doc};
use super::{Locals, Method, ProfileYaml};
use answers::{error_enum, headers_struct, response_enum, result};
pub(super) use arguments::name_calls;
use arguments::{arguments, named_call, one_line_doc};
use paging::paging;
pub(super) use shared_errors::share_error_enums;
use streamed::streamed;

/// A method of the spec as the template writes it.
pub(super) fn lower_method(
    method: &checked::Method,
    is_copy: &dyn Fn(&str) -> bool,
    keys_of: &dyn Fn(&Ty) -> Vec<String>,
    has_trait: bool,
    client: &str,
) -> Method {
    let params = arguments(method, is_copy);
    let base = names::pascal(&method.name);
    let responses = (!method.responses.is_empty()).then(|| response_enum(method, &base));
    let errors = (!method.errors.is_empty()).then(|| error_enum(method, &base));
    let mut headers = (!method.response_headers.is_empty()).then(|| headers_struct(method, &base));
    let stream = method.returns_as == checked::ReturnsEncoding::Stream;
    let streamed = method
        .streamed
        .as_ref()
        .map(|s| streamed(method, s, keys_of));
    let one_body = responses.is_none() && headers.is_none() && streamed.is_none();
    let json_value = one_body.then(|| json_value(method)).flatten();
    let raw_answer = (one_body && json_value.is_none() && !method.returns.is_unit())
        .then_some(method.returns_as == checked::ReturnsEncoding::Text);
    let (returns, decode) = match &streamed {
        Some(streamed) => streamed.returns(),
        None => result(method, responses.as_ref(), headers.as_mut()),
    };
    let verb = method.verb.as_str();
    let doc = method_doc(method, verb);
    let locals = Locals::avoiding(&params);
    let named = method.named.then(|| named_call(&params, &base));
    let args = params
        .iter()
        .filter(|p| !p.named)
        .map(|p| (p.name.clone(), p.ty.clone()))
        .collect();
    let call_fn = match named {
        Some(_) => names::snake(&format!("{}_with", method.name)),
        None => names::snake(&method.name),
    };
    let name = names::snake(&method.name);
    let link = |owner: &str| match name.strip_prefix("r#") {
        Some(bare) => format!("`{owner}::{bare}`"),
        None => format!("[`{owner}::{name}`]"),
    };
    Method {
        link: link(client),
        self_link: link("Self"),
        name,
        spec_const: names::shouty(&method.name),
        spec_name: method.name.clone(),
        doc,
        verb,
        path: method.path.clone(),
        idempotent: method.idempotent,
        reads: method.reads,
        not_found_none: method.not_found_none,
        profile: ProfileYaml::of(method.profile.clone()),
        locals,
        params,
        call_fn,
        args,
        named,
        json_value,
        raw_answer,
        returns,
        decode,
        responses,
        errors,
        headers,
        paging: method.paginate.as_ref().map(|p| paging(method, p)),
        stream,
        streamed,
        content_type: method.body.as_ref().and_then(|b| b.content_type.clone()),
        idempotency_key: method.idempotency_key.clone(),
        // A fallback answers a call; a stream is handed over as it comes.
        fallback: has_trait && method.fallback && !stream,
    }
}

/// The type of the one JSON value a method answers with, what its stub's `returns` takes: `None`
/// for an answer that is no JSON document (nothing, bytes, text, a byte stream).
fn json_value(method: &checked::Method) -> Option<String> {
    let json = !method.returns.is_unit()
        && !method.returns.is_bytes()
        && !matches!(
            method.returns_as,
            checked::ReturnsEncoding::Text | checked::ReturnsEncoding::Stream
        );
    json.then(|| method.returns.render())
}

/// The method's rustdoc: its own, its request line, and its documented arguments.
fn method_doc(method: &checked::Method, verb: &str) -> Vec<String> {
    let mut doc = item_doc(method.doc.as_ref(), &method.name);
    if !doc.is_empty() {
        doc.push(String::new());
    }
    doc.push(format!(" `{verb} {}`", comment_text(&method.path)));
    // Arguments have no rustdoc of their own: the documented ones are listed on the method.
    let documented: Vec<(String, &String)> = method
        .path_params
        .iter()
        .chain(&method.query)
        .chain(&method.headers)
        .filter_map(|p| {
            let doc = p.doc.as_ref().filter(|d| !repeats(d, &p.key))?;
            Some((names::snake(&p.key), doc))
        })
        .chain(
            method
                .body
                .iter()
                .filter_map(|b| Some(("body".to_owned(), b.doc.as_ref()?))),
        )
        .collect();
    if !documented.is_empty() {
        doc.push(String::new());
        doc.push(" # Arguments".to_owned());
        doc.push(String::new());
        for (name, text) in documented {
            doc.push(format!(
                " - `{}`:{}",
                name.trim_start_matches("r#"),
                one_line_doc(text)
            ));
        }
    }
    doc
}

/// The statics a method adds beside its spec (`LIST_PAGING`, `COMPLETE_STREAM`) never take
/// another's name (a method `list_paging` has the spec `LIST_PAGING`): an underscore more until
/// free.
pub(super) fn name_statics_apart(methods: &mut [Method]) {
    let mut taken: std::collections::HashSet<String> =
        methods.iter().map(|m| m.spec_const.clone()).collect();
    for method in methods.iter_mut() {
        let paging = method.paging.iter_mut().map(|p| &mut p.static_name);
        let stream = method.streamed.iter_mut().map(|s| &mut s.static_name);
        for name in paging.chain(stream) {
            while taken.contains(name.as_str()) {
                name.push('_');
            }
            taken.insert(name.clone());
        }
    }
}

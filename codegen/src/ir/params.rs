//! A generated method's arguments, how each enters the request, and the names of its locals
//! (which no argument may take).

/// A method argument and how it enters the request.
#[derive(Debug)]
pub struct Param {
    /// Rust name.
    pub name: String,
    /// Argument type (borrowed form).
    pub ty: String,
    /// The type itself (owned form), as a stub decodes what it received.
    pub owned: String,
    /// The request builder method that takes it.
    pub call: ParamCall,
    /// Its type without the `Option` of an optional parameter: what a value of it is.
    pub value: crate::types::Ty,
    /// The wire name, for path, query and header parameters.
    pub wire: Option<String>,
    /// Rustdoc lines, for an optional parameter's setter.
    pub doc: Vec<String>,
    /// An optional query or header parameter of a named method: set by name, not an argument.
    pub named: bool,
    /// For a JSON body the method sets keys of (`body_sets:`): those keys and values, as the
    /// `json_setting` call takes them (`&[("stream", "true")]`).
    pub sets: Option<String>,
}

/// How an argument enters the request: the request builder's method that takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamCall {
    /// A path placeholder.
    Path,
    /// A query parameter, `name=value` (a list repeated).
    Query,
    /// An object in the query, one pair per field.
    QueryObject,
    /// An object in the query, `name[field]=value`.
    QueryDeep,
    /// A list in the query, comma-separated.
    QueryCsv,
    /// A header.
    Header,
    /// A JSON body.
    Json,
    /// A form body.
    Form,
    /// A multipart body.
    Multipart,
    /// A text body.
    Text,
    /// A raw body.
    Bytes,
}

impl ParamCall {
    /// The builder method's name.
    pub fn method(self) -> &'static str {
        match self {
            ParamCall::Path => "path",
            ParamCall::Query => "query",
            ParamCall::QueryObject => "query_object",
            ParamCall::QueryDeep => "query_deep",
            ParamCall::QueryCsv => "query_csv",
            ParamCall::Header => "header",
            ParamCall::Json => "json",
            ParamCall::Form => "form",
            ParamCall::Multipart => "multipart",
            ParamCall::Text => "text",
            ParamCall::Bytes => "bytes",
        }
    }
}

impl std::fmt::Display for ParamCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.method())
    }
}

/// The names of a generated method's locals: plain, unless a parameter has the name already.
#[derive(Debug)]
pub struct Locals {
    /// The request being built.
    pub request: String,
    /// The fallback closure.
    pub fallback: String,
    /// A stream's opening, which the fallback answers when it fails.
    pub opened: String,
    /// The error a fallback is given.
    pub cause: String,
    /// A named method's options struct.
    pub options: String,
}

impl Locals {
    pub(super) fn avoiding(params: &[Param]) -> Locals {
        let mut taken: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        let mut unique = |base: &str| {
            let mut name = base.to_owned();
            while taken.contains(&name) {
                name.push('_');
            }
            taken.push(name.clone());
            name
        };
        Locals {
            request: unique("request"),
            fallback: unique("fallback"),
            opened: unique("opened"),
            cause: unique("cause"),
            options: unique("options"),
        }
    }
}

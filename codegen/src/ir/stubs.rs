//! The typed stub of a client (`stubs: true`): per method, a setter per path, query and header
//! parameter taking the method's own type, and `returns` taking its success type. The rest is
//! the runtime's (`remcall::stub`, `remcall::__stub_common!`).

use super::{Method, ParamCall, TypeDecl};

/// `<Client>Stub` and its operations.
#[derive(Debug)]
pub struct StubIr {
    /// `UserClientStub`.
    pub name: String,
    /// One per method, in spec order.
    pub methods: Vec<StubMethod>,
}

/// One operation of the stub.
#[derive(Debug)]
pub struct StubMethod {
    /// Its position in the client's methods (its `MethodSpec::index`), as the stub records it.
    pub index: usize,
    /// The method's rustdoc link (see [`super::Method::link`]).
    pub link: String,
    /// The stub's method for it: its name, unless that is one of the stub's own (`start_`).
    pub accessor: String,
    /// `GetUserReceived`: a received request read as the spec's types.
    pub call_name: String,
    /// The call's fields: (name, owned type, how it is read from the `raw` request).
    pub fields: Vec<(String, String, String)>,
    /// The field holding the request as received: `raw`, unless a parameter has the name.
    pub raw_field: String,
    /// Its `MethodSpec` static.
    pub spec_const: String,
    /// `GetUserStubbing`.
    pub type_name: String,
    /// Matchers by parameter.
    pub setters: Vec<StubSetter>,
    /// The type `returns` takes, when the method answers one JSON value.
    pub returns: Option<String>,
    /// It answers text (`Some(true)`) or bytes (`Some(false)`): its `returns` takes them.
    pub raw_returns: Option<bool>,
    /// A streamed method's `returns_events` (or `returns_lines`): the item type and the
    /// runtime's writer of one item.
    pub streams: Option<StreamedStub>,
    /// The declared errors' enum and, per variant, the status `returns_error` answers it with.
    pub errors: Option<(String, Vec<StubError>)>,
}

/// A declared error's variant, the status `returns_error` answers it with, and its media type
/// when it is not JSON.
pub type StubError = (String, u16, Option<&'static str>);

/// `with_id(id: i64)`: matches requests whose parameter has this value.
#[derive(Debug)]
pub struct StubSetter {
    /// `with_id`.
    pub name: String,
    /// What the matcher takes: `impl Borrow<..>` of the parameter's owned type, without
    /// `Option` (a matcher names a value), so a value and a reference both do.
    pub ty: String,
    /// The type it borrows as (`str` for a `String`).
    pub borrowed: String,
    /// The runtime's matcher: `with_path`, `with_query` or `with_header`.
    pub call: &'static str,
    /// The name on the wire.
    pub wire: String,
}

/// The methods every `<Client>Stub` has: an operation of one of these names is reached by the
/// name with `_` after it.
const STUB_OWN: &[&str] = &["start", "url", "inner"];

pub(super) fn lower(client: &str, methods: &[Method], types: &[TypeDecl]) -> StubIr {
    let taken = |name: &str| types.iter().any(|t| t.name == name) || name == client;
    let methods = methods
        .iter()
        .enumerate()
        .map(|(index, method)| {
            let bare = method.name.trim_start_matches("r#");
            let pascal = heck::ToUpperCamelCase::to_upper_camel_case(bare);
            let unique = |suffix: &str| {
                let mut name = format!("{pascal}{suffix}");
                while taken(&name) {
                    name.push('_');
                }
                name
            };
            let fields = fields(method);
            let mut raw_field = "raw".to_owned();
            while fields.iter().any(|(name, _, _)| *name == raw_field) {
                raw_field.push('_');
            }
            let accessor = if STUB_OWN.contains(&method.name.as_str()) {
                format!("{}_", method.name)
            } else {
                method.name.clone()
            };
            StubMethod {
                index,
                accessor,
                link: method.link.clone(),
                call_name: unique("Received"),
                fields,
                raw_field,
                spec_const: method.spec_const.clone(),
                type_name: unique("Stubbing"),
                setters: setters(method),
                returns: method.json_value.clone(),
                raw_returns: method.raw_answer,
                streams: method.streamed.as_ref().map(streamed_stub),
                errors: method.errors.as_ref().map(|errors| {
                    let variants = errors
                        .variants
                        .iter()
                        .map(|variant| (variant.name.clone(), variant.answer, variant.media_type()))
                        .collect();
                    (errors.name.clone(), variants)
                }),
            }
        })
        .collect();
    StubIr {
        name: format!("{client}Stub"),
        methods,
    }
}

fn setters(method: &Method) -> Vec<StubSetter> {
    method
        .params
        .iter()
        .filter_map(|param| {
            let call = match param.call {
                ParamCall::Path => "with_path",
                ParamCall::Query => "with_query",
                ParamCall::Header => "with_header",
                // Objects, deep objects and lists in one value: matched through `calls()`.
                _ => return None,
            };
            // Whatever the call takes the parameter as (`Kind` or `&Kind`, `String` or `&str`),
            // its matcher takes too: both borrow the value's owned form.
            let value = &param.value;
            let borrowed = match (value.bare(), value.inner("Vec")) {
                (Some("String"), _) => "str".to_owned(),
                (_, Some(item)) => format!("[{}]", item.render()),
                _ => value.render(),
            };
            Some(StubSetter {
                name: format!("with_{}", param.name.trim_start_matches("r#")),
                ty: format!("impl std::borrow::Borrow<{borrowed}>"),
                borrowed,
                call,
                wire: param.wire.clone()?,
            })
        })
        .collect()
}

/// What a typed call reads of a request: path, plain query and header parameters and a JSON,
/// form or text body, each as its own type (the others are in the raw request).
fn fields(method: &Method) -> Vec<(String, String, String)> {
    method
        .params
        .iter()
        .filter_map(|param| {
            let wire = param.wire.as_deref().map(|w| format!("{w:?}"));
            let read = match (param.call, wire) {
                (ParamCall::Path, Some(wire)) => format!("raw.path_value({wire})"),
                (ParamCall::Query, Some(wire)) => format!("raw.query_value({wire})"),
                (ParamCall::Header, Some(wire)) => format!("raw.header_value({wire})"),
                (ParamCall::Json, None) => "raw.json_body()".to_owned(),
                (ParamCall::Form, None) => "raw.form_body()".to_owned(),
                (ParamCall::Text, None) => "raw.text_body()".to_owned(),
                _ => return None,
            };
            Some((param.name.clone(), param.owned.clone(), read))
        })
        .collect()
}

/// A streamed method's stubbed answer.
#[derive(Debug)]
pub struct StreamedStub {
    /// JSON Lines, not events.
    pub lines: bool,
    /// The item type, `ChatChunk`.
    pub item: String,
    /// How one item is written: `remcall::stub::json_event`, `RunEvent::to_event`, …
    pub writer: String,
    /// The data that ends the events, which the stub sends after them.
    pub end: Option<String>,
    /// The declared error events' type and `event:` name: `fails_after` sends one.
    pub error: Option<(String, Option<String>)>,
}

fn streamed_stub(streamed: &super::StreamedIr) -> StreamedStub {
    let item = streamed.item.clone();
    let text = item == "String";
    let writer = match (&streamed.cases, streamed.lines, text) {
        (Some(cases), _, _) => format!("{}::to_event", cases.name),
        (None, true, true) => "remcall::stub::text_line".to_owned(),
        (None, true, false) => "remcall::stub::json_line".to_owned(),
        (None, false, true) => "remcall::stub::text_event".to_owned(),
        (None, false, false) => "remcall::stub::json_event".to_owned(),
    };
    StreamedStub {
        lines: streamed.lines,
        item,
        writer,
        end: streamed.end.clone(),
        error: streamed
            .error
            .as_ref()
            .map(|error| (error.ty.clone(), error.event.clone())),
    }
}

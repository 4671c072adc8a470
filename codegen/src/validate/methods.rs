//! Methods: names, request lines, parameters, bodies, return types and per-method profiles.

use std::collections::HashMap;

use indexmap::IndexMap;
use remcall_profile::Profile;

use super::{Validator, is_header_name};
use crate::checked::{self, Fallback, Verb};
use crate::names;
use crate::spec::model::{
    BodyDef, BodyEncoding, CallStyle, MethodDef, NotFound, ParamDef, ProfileRef, QueryStyle,
    ReturnsEncoding, Shorthand,
};
use crate::types::Ty;

/// Names a generated client has already: no method may take them.
const CLIENT_METHODS: &[&str] = &["new", "builder", "stats"];

impl Validator<'_> {
    /// Every method; `None` when one of them has a problem. `fallback` is the client's, when
    /// the client's own keys checked out.
    pub(super) fn methods(&mut self, fallback: Option<&Fallback>) -> Option<Vec<checked::Method>> {
        let spec = self.spec;
        let mut seen: HashMap<String, &str> = HashMap::new();
        let mut methods = Some(Vec::new());
        for (name, def) in &spec.file.methods {
            let key = format!("methods.{name}");
            let rust = names::snake(name);
            if let Some(first) = seen.insert(rust.clone(), name) {
                self.push(spec.at_key(
                    0,
                    &key,
                    format!("methods `{name}` and `{first}` are both `{rust}` in Rust"),
                ));
            }
            let method = self.method(&key, name, def, fallback);
            methods = methods.zip(method).map(|(mut methods, method)| {
                methods.push(method);
                methods
            });
        }
        if let Some(methods) = &methods {
            self.shared_routes(methods);
        }
        methods
    }

    /// `returns:`: its type (`()` without one), `None` after a diagnostic.
    fn returns(&mut self, key: &str, def: &MethodDef) -> Option<Ty> {
        if def.returns.as_ref().is_some_and(|r| r.ty.is_empty()) {
            self.push(
                self.spec
                    .at_key(0, &format!("{key}.returns"), "`returns:` needs `type:`")
                    .help(
                        "only a `methods:` entry that changes an imported method may leave it out",
                    ),
            );
        }
        match &def.returns {
            // The events' enum, generated: its name is checked with the events.
            Some(returns) if returns.events.is_some() => Ty::parse(&returns.ty).ok(),
            Some(returns) => self
                .type_expr(0, &format!("{key}.returns"), &returns.ty, &[])
                .filter(|ty| self.returns_encoding(key, returns.encoding, ty)),
            None => Some(Ty::Tuple(Vec::new())),
        }
    }

    fn method(
        &mut self,
        key: &str,
        name: &str,
        def: &MethodDef,
        fallback: Option<&Fallback>,
    ) -> Option<checked::Method> {
        self.method_name(key, name);
        self.no_rename(key, def);
        let request = self.request_line(key, def);
        let mut arg_names: HashMap<String, String> = HashMap::new();
        let path_params = self.params(key, "path", &def.path, &mut arg_names);
        let query = self.params(key, "query", &def.query, &mut arg_names);
        let headers = self.params(key, "headers", &def.headers, &mut arg_names);
        let body = self.body(key, def, &arg_names);
        let returns = self.returns(key, def);
        let streamed = match &def.returns {
            Some(returns) => self.streamed(key, returns),
            None => Some(None),
        };
        let responses = self.responses(key, def);
        let errors = self.errors(key, def);
        let mut header_names = HashMap::new();
        let response_headers = self.params(
            key,
            "response_headers",
            &def.response_headers,
            &mut header_names,
        );
        self.result_combinations(key, def);
        self.generated_names_free(key, name, def);
        let paginate = match (&def.paginate, &returns) {
            (Some(_), Some(ty)) => self.paginate(key, name, def, ty).map(Some),
            (Some(_), None) => None,
            (None, _) => Some(None),
        };
        let profile = self.method_profile(key, def);
        let has_fallback = fallback.is_some_and(|f| *f != Fallback::None);
        self.fallback_asked(key, def, fallback);
        let (verb, path, placeholders) = request?;
        // A key makes a retried call one the server applies once.
        let idempotent = def
            .idempotent
            .unwrap_or(verb.is_idempotent() || def.idempotency_key.is_some());
        self.verb_allows(key, name, def, verb, idempotent, profile.as_ref());
        let path_params = path_params?;
        let (query, headers) = (query?, headers?);
        let named = self.called_by_name(key, name, def, &query, &headers)?;
        Some(checked::Method {
            name: name.to_owned(),
            doc: def.doc.clone(),
            idempotent,
            idempotency_key: def.idempotency_key.clone(),
            verb,
            path,
            // In template order, which is the order of the arguments.
            path_params: placeholders
                .iter()
                .filter_map(|p| path_params.iter().find(|q| &q.key == p))
                .cloned()
                .collect(),
            query,
            headers,
            body: body?,
            returns: returns?,
            returns_as: def.returns.as_ref().map(|r| r.encoding).unwrap_or_default(),
            streamed: streamed?,
            responses: responses?,
            errors: errors?,
            response_headers: response_headers?,
            paginate: paginate?,
            not_found_none: def.not_found == Some(NotFound::None),
            profile: profile?,
            fallback: has_fallback && def.fallback != Some(false),
            named,
        })
    }

    /// `rename:` is for imported methods: refused on the spec's own.
    fn no_rename(&mut self, key: &str, def: &MethodDef) {
        if def.rename.is_some() {
            self.push(
                self.spec
                    .at_key(0, &format!("{key}.rename"), "`rename:` names an imported method in the client; this method is the spec's own")
                    .help("name the method by its key; `rename:` is for `openapi:` entries without `request:`"),
            );
        }
    }

    /// Whether the method takes its optional parameters by name (a call with setters, and
    /// `<name>_with`): as the spec says, else when it has more than two. `None` when the
    /// `_with` method it would generate is one of the spec's.
    fn called_by_name(
        &mut self,
        key: &str,
        name: &str,
        def: &MethodDef,
        query: &[checked::Param],
        headers: &[checked::Param],
    ) -> Option<bool> {
        let optional = query
            .iter()
            .chain(headers)
            .filter(|p| p.ty.inner("Option").is_some())
            .count();
        let named = optional > 0
            && match def.call.or(self.spec.file.call) {
                Some(CallStyle::Named) => true,
                Some(CallStyle::Positional) => false,
                // A reader cannot tell three `None`s apart; one or two read well enough.
                None => optional > 2,
            };
        if named && self.spec.file.methods.contains_key(&format!("{name}_with")) {
            self.push(
                self.spec
                    .at_key(0, key, format!("`{name}` takes its optional parameters by name and generates `{name}_with`, a method of the spec already"))
                    .help(format!("rename the method `{name}_with`, or give `{name}` `call: positional`")),
            );
            return None;
        }
        Some(named)
    }

    /// The body: its type, checked against its encoding; the argument is named `body`.
    fn body(
        &mut self,
        key: &str,
        def: &MethodDef,
        arg_names: &HashMap<String, String>,
    ) -> Option<Option<checked::Body>> {
        if def.body_sets.is_some()
            && !def
                .body
                .as_ref()
                .is_some_and(|b| b.encoding == BodyEncoding::Json)
        {
            self.push(
                self.spec
                    .at_key(
                        0,
                        &format!("{key}.body_sets"),
                        "`body_sets:` sets keys of a JSON body, and the method has none",
                    )
                    .help("give the method a JSON `body:`, or leave `body_sets:` out"),
            );
            return None;
        }
        match &def.body {
            Some(body) => {
                if arg_names.contains_key("body") {
                    self.push(self.spec.at_key(
                        0,
                        &format!("{key}.body"),
                        "the body argument is named `body`, as is a parameter",
                    ));
                }
                self.type_expr(0, &format!("{key}.body"), &body.ty, &[])
                    .and_then(|ty| self.body_encoding(key, body, &ty).then_some(ty))
                    .map(|ty| {
                        Some(checked::Body {
                            ty,
                            encoding: body.encoding,
                            content_type: body.content_type.clone(),
                            doc: body.doc.clone(),
                            sets: def
                                .body_sets
                                .iter()
                                .flatten()
                                .map(|(key, value)| (key.clone(), value.to_string()))
                                .collect(),
                        })
                    })
            }
            None => Some(None),
        }
    }

    /// Keys that do not go together: `not_found: none` with declared responses or response
    /// headers, `returns:` with `responses:`; and what a streamed result needs.
    fn result_combinations(&mut self, key: &str, def: &MethodDef) {
        for (what, set) in [
            ("responses", def.responses.is_some()),
            ("response_headers", !def.response_headers.is_empty()),
        ] {
            if set && def.not_found == Some(NotFound::None) {
                self.push(
                    self.spec
                        .at_key(
                            0,
                            &format!("{key}.not_found"),
                            format!("`not_found: none` and `{what}:` do not go together"),
                        )
                        .help("declare the 404 under `responses:` or `errors:` instead"),
                );
            }
        }
        if def.returns.as_ref().is_some_and(|r| {
            matches!(
                r.encoding,
                ReturnsEncoding::Stream | ReturnsEncoding::Events | ReturnsEncoding::Lines
            )
        }) {
            self.stream_return(key, def);
        }
        if def.responses.is_some() && def.returns.is_some() {
            self.push(
                self.spec
                    .at_key(
                        0,
                        &format!("{key}.responses"),
                        "a method has `returns:` or `responses:`, not both",
                    )
                    .help("list every success shape under `responses:`"),
            );
        }
    }

    /// A method that asks for a fallback in a client that has none.
    fn fallback_asked(&mut self, key: &str, def: &MethodDef, fallback: Option<&Fallback>) {
        if def.fallback == Some(true) && fallback == Some(&Fallback::None) {
            self.push(
                self.spec
                    .at(
                        0,
                        &format!("{key}.fallback"),
                        "the method asks for a fallback but the client has none",
                    )
                    .help("set `fallback: true` at the top of the spec"),
            );
        }
    }

    /// What the HTTP method allows: a hedge only when the call is idempotent, a body only
    /// where HTTP has one (unless `allow_on_get`), an idempotency key under a valid header
    /// name.
    fn verb_allows(
        &mut self,
        key: &str,
        name: &str,
        def: &MethodDef,
        verb: Verb,
        idempotent: bool,
        profile: Option<&Profile>,
    ) {
        self.retries_possible(key, name, def, verb, idempotent, profile);
        if !idempotent && profile.is_some_and(|p| p.hedge.is_some()) {
            let at = config_at(key, def, "hedge");
            self.push(
                self.spec
                    .at(
                        0,
                        &at,
                        format!("`{name}` is a {} and not idempotent: a hedge would send it twice", verb.as_str()),
                    )
                    .help("hedge it only if the server applies it once: add `idempotency_key: Idempotency-Key` (or `idempotent: true`), or take `hedge` out of its config"),
            );
        }
        if def.body.as_ref().is_some_and(|b| !b.allow_on_get) && verb.has_no_body() {
            self.push(
                self.spec
                    .at_key(
                        0,
                        &format!("{key}.body"),
                        format!("a {} request has no body", verb.as_str()),
                    )
                    .help("use POST, PUT or PATCH, or send the data as query parameters; if the API wants it so, say `allow_on_get: true` in the body"),
            );
        }
        if let Some(header) = &def.idempotency_key
            && !is_header_name(header)
        {
            self.push(self.spec.at(
                0,
                &format!("{key}.idempotency_key"),
                format!("`{header}` is not a valid header name"),
            ));
        }
    }

    fn method_name(&mut self, key: &str, name: &str) {
        let rust = names::snake(name);
        // The method and its static (`GET_USER`) must both be identifiers rustc accepts.
        if !names::is_word(name)
            || !names::is_identifier(&rust)
            || !names::is_identifier(&names::shouty(name))
        {
            self.push(
                self.spec
                    .at_key(
                        0,
                        key,
                        format!("method name `{name}` does not make a Rust identifier"),
                    )
                    .help("name it with letters, digits and `_`, starting with a letter"),
            );
        } else if CLIENT_METHODS.contains(&rust.as_str()) {
            self.push(
                self.spec
                    .at_key(
                        0,
                        key,
                        format!(
                            "method name `{name}` is taken by the generated client's `{rust}()`"
                        ),
                    )
                    .help("rename the method; its path and wire names stay as they are"),
            );
        }
    }

    /// A `retry:` in the config of a method that is not idempotent retries nothing the server
    /// may have seen (a 503, a timeout): said at check, so its author is not surprised later.
    fn retries_possible(
        &mut self,
        key: &str,
        name: &str,
        def: &MethodDef,
        verb: Verb,
        idempotent: bool,
        profile: Option<&Profile>,
    ) {
        let retries = profile
            .and_then(|p| p.retry.as_ref())
            .is_some_and(|retry| retry.max_attempts.is_none_or(|n| n > 1));
        if idempotent || !retries {
            return;
        }
        let at = config_at(key, def, "retry");
        let d = self.spec.at_key(
            0,
            &at,
            format!(
                "`{name}` is a {} and not idempotent: `retry:` retries only a connection that was refused, never a failure the server may have acted on",
                verb.as_str()
            ),
        );
        self.warn(d.help("if the server applies it once, add `idempotency_key: Idempotency-Key` (or `idempotent: true`); otherwise take `retry` out of its config"));
    }

    /// One section of parameters (`path`, `query` or `headers`); `arg_names` holds the Rust names
    /// taken so far by the method's arguments.
    fn params(
        &mut self,
        key: &str,
        section: &str,
        params: &IndexMap<String, Shorthand<ParamDef>>,
        arg_names: &mut HashMap<String, String>,
    ) -> Option<Vec<checked::Param>> {
        let spec = self.spec;
        let mut checked = Some(Vec::new());
        for (param, def) in params {
            let at = format!("{key}.{section}.{param}");
            let ty = self.type_expr(0, &at, &def.ty, &[]);
            let rust = names::snake(param);
            if !names::is_identifier(&rust) {
                self.push(
                    spec.at_key(
                        0,
                        &at,
                        format!("parameter `{param}` does not make a usable Rust name (`{rust}`)"),
                    )
                    .help("name it with letters, digits and `_`; set the wire name with `name:`"),
                );
            }
            if let Some(first) = arg_names.insert(rust.clone(), at.clone()) {
                self.push(spec.at_key(
                    0,
                    &at,
                    format!("parameter `{param}` is `{rust}` in Rust, as is {first}"),
                ));
            }
            // A path parameter's wire name is its placeholder.
            let wire = match section {
                "path" => param.clone(),
                _ => def.name.clone().unwrap_or_else(|| param.clone()),
            };
            if matches!(section, "headers" | "response_headers") && !is_header_name(&wire) {
                self.push(spec.at(0, &at, format!("`{wire}` is not a valid header name")));
            }
            for (what, set) in [
                ("style", def.style.is_some()),
                ("explode", def.explode.is_some()),
            ] {
                if set && section != "query" {
                    self.push(spec.at_key(
                        0,
                        &format!("{at}.{what}"),
                        format!("`{what}:` is for query parameters"),
                    ));
                }
            }
            checked = checked.zip(ty).map(|(mut checked, ty)| {
                let style = self.query_writing(def, &ty);
                checked.push(checked::Param {
                    key: param.clone(),
                    wire,
                    ty,
                    doc: def.doc.clone(),
                    style,
                });
                checked
            });
        }
        checked
    }

    /// The types generated for a method (`GetUserResponse`, `GetUserError`, `GetUserHeaders`)
    /// must not be names the spec declares.
    fn generated_names_free(&mut self, key: &str, name: &str, def: &MethodDef) {
        let base = names::pascal(name);
        for (section, suffix, set) in [
            ("responses", "Response", def.responses.is_some()),
            ("errors", "Error", def.errors.is_some()),
            (
                "response_headers",
                "Headers",
                !def.response_headers.is_empty(),
            ),
        ] {
            let generated = format!("{base}{suffix}");
            if set && self.spec.types.contains_key(&generated) {
                self.push(
                    self.spec
                        .at_key(0, &format!("{key}.{section}"), format!("`{section}:` generates the type `{generated}`, which `types:` declares too"))
                        .help(format!("rename the declared `{generated}`")),
                );
            }
        }
    }

    /// How a query parameter is written: `style:` and `explode:` as OpenAPI has them, an object
    /// (a struct of the spec, a map) exploded into parameters of its own by default.
    fn query_writing(&self, def: &ParamDef, ty: &Ty) -> checked::QueryWriting {
        let ty = ty.inner("Option").unwrap_or(ty);
        let map = matches!(ty, Ty::Path { segments, .. } if segments.len() == 1 && matches!(segments[0].as_str(), "HashMap" | "BTreeMap"));
        let object = map
            || ty.bare().is_some_and(|name| {
                self.spec
                    .types
                    .get(name)
                    .is_some_and(|t| t.item.fields.is_some() || t.item.all_of.is_some())
            });
        match (def.style, def.explode) {
            (Some(QueryStyle::DeepObject), _) => checked::QueryWriting::Deep,
            (_, Some(false)) => checked::QueryWriting::Comma,
            _ if object => checked::QueryWriting::Object,
            _ => checked::QueryWriting::Pairs,
        }
    }

    /// A body's type fits its encoding: a struct of the spec for multipart, a `String` for text,
    /// `bytes::Bytes` for bytes; a content type is one header value.
    fn body_encoding(&mut self, key: &str, body: &BodyDef, ty: &Ty) -> bool {
        let at = format!("{key}.body");
        let needs = match body.encoding {
            BodyEncoding::Multipart => {
                let is_struct = ty.bare().is_some_and(|name| {
                    self.spec.types.get(name).is_some_and(|t| {
                        (t.item.fields.is_some() || t.item.all_of.is_some())
                            && t.item.generics.is_empty()
                    })
                });
                (!is_struct).then_some(
                    "a struct of this spec (each field is a part; `File` fields are files)",
                )
            }
            BodyEncoding::Text => (ty.bare() != Some("String")).then_some("`String`"),
            BodyEncoding::Bytes => (!ty.is_bytes()).then_some("`bytes::Bytes`"),
            BodyEncoding::Json | BodyEncoding::Form => None,
        };
        let mut fine = true;
        if let Some(needs) = needs {
            fine = false;
            self.push(self.spec.at(
                0,
                &at,
                format!(
                    "a `{}` body is {needs}, not `{}`",
                    encoding_name(body.encoding),
                    ty.render()
                ),
            ));
        }
        if let Some(content_type) = &body.content_type
            && (!content_type.contains('/') || content_type.chars().any(char::is_control))
        {
            fine = false;
            self.push(
                self.spec
                    .at(
                        0,
                        &format!("{at}.content_type"),
                        format!("`{}` is not a content type", content_type.escape_default()),
                    )
                    .help("write a media type such as `application/merge-patch+json`"),
            );
        }
        fine
    }

    /// The method's own profile: a named one, or an inline override.
    fn method_profile(&mut self, key: &str, def: &MethodDef) -> Option<Profile> {
        match &def.profile {
            Some(ProfileRef::Named(name)) => self.profile_ref(0, &format!("{key}.config"), name),
            Some(ProfileRef::Inline(profile)) => {
                if profile.extends.is_some() {
                    self.push(self.spec.at(0, &format!("{key}.config.extends"), "an inline method config overrides the client's profile; it cannot extend another"));
                }
                self.profile(0, &format!("{key}.config"), profile, false);
                Some((**profile).clone())
            }
            None => Some(Profile::default()),
        }
    }
}

fn encoding_name(encoding: BodyEncoding) -> &'static str {
    match encoding {
        BodyEncoding::Json => "json",
        BodyEncoding::Form => "form",
        BodyEncoding::Multipart => "multipart",
        BodyEncoding::Text => "text",
        BodyEncoding::Bytes => "bytes",
    }
}

/// Where a method's config sets `policy`: the key itself in an inline config, else the
/// `config:` that names a profile.
fn config_at(key: &str, def: &MethodDef, policy: &str) -> String {
    match &def.profile {
        Some(ProfileRef::Inline(_)) => format!("{key}.config.{policy}"),
        _ => format!("{key}.config"),
    }
}

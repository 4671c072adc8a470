//! Methods: names, request lines, return types and per-method profiles (parameters and bodies:
//! `params.rs`).

use std::collections::HashMap;

use remcall_profile::Profile;

use super::{Validator, is_header_name};
use crate::checked::{self, Fallback, Verb};
use crate::names;
use crate::spec::model::{CallStyle, MethodDef, NotFound, ProfileRef, ReturnsEncoding};
use crate::types::Ty;

/// Names a generated client has already: no method may take them.
const CLIENT_METHODS: &[&str] = &["new", "builder", "stats", "stats_all"];

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
        let reads = self.reads(key, def, verb);
        // A key makes a retried call one the server applies once; a search only reads.
        let idempotent = def
            .idempotent
            .unwrap_or(verb.is_idempotent() || def.idempotency_key.is_some() || reads);
        self.verb_allows(key, name, def, verb, idempotent, profile.as_ref());
        self.kept_only_if_read(key, name, def, verb, reads, profile.as_ref());
        self.paged_only_if_repeatable(key, name, def, verb, reads);
        let path_params = path_params?;
        let (query, headers) = (query?, headers?);
        let named = self.called_by_name(key, name, def, &query, &headers)?;
        Some(checked::Method {
            name: name.to_owned(),
            doc: def.doc.clone(),
            idempotent,
            reads,
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

    /// Whether the method only reads: a safe verb, or a POST marked `safe: true`. `safe:` on
    /// another verb is refused: a GET reads already, a PUT, PATCH or DELETE writes.
    fn reads(&mut self, key: &str, def: &MethodDef, verb: Verb) -> bool {
        match def.safe {
            Some(safe) if verb == Verb::Post => safe,
            Some(_) => {
                let why = if verb.is_safe() {
                    "only reads already"
                } else {
                    "changes what it names"
                };
                self.push(
                    self.spec
                        .at_key(
                            0,
                            &format!("{key}.safe"),
                            format!(
                                "`safe:` marks a POST that only reads; a {} {why}",
                                verb.as_str()
                            ),
                        )
                        .help("take `safe:` out"),
                );
                verb.is_safe()
            }
            None => verb.is_safe(),
        }
    }

    /// `paginate:` only where asking again is safe: a pager sends the request once per page,
    /// so a POST that creates (a bulk create answering a page of what it made) would create
    /// again. A verb that may be repeated, a POST marked `safe: true` (a search) or
    /// `idempotent: true`; an idempotency key is not enough, as each call gets a new one.
    fn paged_only_if_repeatable(
        &mut self,
        key: &str,
        name: &str,
        def: &MethodDef,
        verb: Verb,
        reads: bool,
    ) {
        if def.paginate.is_none() || reads || verb.is_idempotent() || def.idempotent == Some(true) {
            return;
        }
        self.push(
            self.spec
                .at_key(
                    0,
                    &format!("{key}.paginate"),
                    format!(
                        "`{name}` is a {} that may change something: its pager would send it again for every page",
                        verb.as_str()
                    ),
                )
                .help("if it only reads (a search), say `safe: true`; if sending it twice does nothing more, `idempotent: true`; else take `paginate:` out"),
        );
    }

    /// `cache:` in a method's own config only where the method reads: the answer to a write
    /// (even one marked `idempotent: true`, which allows retries) says what that one call did,
    /// and must never stand in for another call's.
    fn kept_only_if_read(
        &mut self,
        key: &str,
        name: &str,
        def: &MethodDef,
        verb: Verb,
        reads: bool,
        profile: Option<&Profile>,
    ) {
        if reads || profile.is_none_or(|p| p.cache.is_none()) {
            return;
        }
        let at = config_at(key, def, "cache");
        self.push(
            self.spec
                .at(
                    0,
                    &at,
                    format!("`{name}` is a {} that does not only read: its answers are never kept, so `cache:` would do nothing", verb.as_str()),
                )
                .help(if verb == Verb::Post {
                    "if it is a search that changes nothing, mark it `safe: true`; otherwise take `cache` out of its config"
                } else {
                    "take `cache` out of its config"
                }),
        );
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

    /// The method's own profile: a named one, or an inline override.
    fn method_profile(&mut self, key: &str, def: &MethodDef) -> Option<Profile> {
        match &def.profile {
            Some(ProfileRef::Named(name)) => {
                let at = format!("{key}.config");
                let profile = self.profile_ref(0, &at, name)?;
                self.client_wide_alike(&at, name, &profile);
                Some(profile)
            }
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

/// Where a method's config sets `policy`: the key itself in an inline config, else the
/// `config:` that names a profile.
fn config_at(key: &str, def: &MethodDef, policy: &str) -> String {
    match &def.profile {
        Some(ProfileRef::Inline(_)) => format!("{key}.config.{policy}"),
        _ => format!("{key}.config"),
    }
}

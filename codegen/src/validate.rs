//! Every semantic check of a loaded spec, reporting all problems of a file at once.

use std::collections::HashMap;

use remcall_profile::{Layer, Profile, vars};

use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::names;
use crate::spec::Spec;
use crate::spec::model::{ConfigRef, FallbackDef, TypeDef};
use crate::types::{PRIMITIVES, STD_NAMES, Ty};

/// The HTTP verbs a method may use.
pub const VERBS: &[&str] = &["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/// The serde `rename_all` rules.
const RENAME_RULES: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

/// Checks `spec`; an empty list means it can be rendered.
pub fn validate(spec: &Spec) -> Vec<Diagnostic> {
    let mut v = Validator {
        spec,
        out: Vec::new(),
    };
    v.client();
    v.configs();
    v.types();
    v.methods();
    v.out.sort();
    v.out.dedup();
    v.out
}

/// The spec's profile `name`, with its `extends` chain applied (base first).
pub fn resolve_config(spec: &Spec, name: &str) -> Result<Profile, String> {
    let mut chain = Vec::new();
    let mut current = name;
    loop {
        if chain.contains(&current) {
            chain.push(current);
            return Err(format!("`extends` cycle: {}", chain.join(" → ")));
        }
        chain.push(current);
        let Some(config) = spec.configs.get(current) else {
            return Err(format!("unknown config `{current}`"));
        };
        match &config.item.extends {
            Some(parent) => current = parent,
            None => break,
        }
    }
    let mut profile = Profile::default();
    for name in chain.iter().rev() {
        let mut own = spec.configs[*name].item.clone();
        own.extends = None;
        profile = profile.layer(own);
    }
    Ok(profile)
}

struct Validator<'a> {
    spec: &'a Spec,
    out: Vec<Diagnostic>,
}

impl Validator<'_> {
    fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    fn client(&mut self) {
        let spec = self.spec;
        let file = &spec.file;
        if let Some(client) = &file.client
            && !names::is_pascal_identifier(client)
        {
            let d = spec.at(
                0,
                "client",
                format!("`{client}` is not a PascalCase Rust identifier"),
            );
            let cased = names::pascal(client);
            self.push(d.help(format!("write `client: {cased}`")));
        }
        if let Some(urls) = &file.base_url {
            for (i, url) in urls.0.iter().enumerate() {
                let key = if urls.0.len() == 1 {
                    "base_url".to_owned()
                } else {
                    format!("base_url.{i}")
                };
                self.placeholders(0, &key, url);
                let literal_http = url.starts_with("http://") || url.starts_with("https://");
                if !(vars::has_placeholder(url) || literal_http) {
                    self.push(spec.at(
                        0,
                        &key,
                        format!("base URL `{url}` must start with http:// or https://"),
                    ));
                }
            }
        }
        if let Some(base_path) = &file.base_path
            && !base_path.is_empty()
            && !base_path.starts_with('/')
        {
            self.push(
                spec.at(0, "base_path", "`base_path` must start with `/`")
                    .help(format!("write `/{base_path}`")),
            );
        }
        if let Some(config) = &file.config {
            self.config_ref(0, "config", config);
        }
        if let Some(FallbackDef::Path(path)) = &file.fallback
            && syn::parse_str::<syn::Path>(path).is_err()
        {
            self.push(spec.at(
                0,
                "fallback",
                format!("`{path}` is neither true, false nor a Rust path"),
            ));
        }
        if let Some(rule) = file.serde.as_ref().and_then(|s| s.rename_all.as_ref())
            && !RENAME_RULES.contains(&rule.as_str())
        {
            let d = spec.at(
                0,
                "serde.rename_all",
                format!("unknown rename rule `{rule}`"),
            );
            let help = did_you_mean(rule, RENAME_RULES.iter().copied())
                .unwrap_or_else(|| format!("one of {}", RENAME_RULES.join(", ")));
            self.push(d.help(help));
        }
    }

    fn config_ref(&mut self, source: usize, key: &str, name: &str) {
        if !self.spec.configs.contains_key(name) {
            let d = self
                .spec
                .at(source, key, format!("unknown config `{name}`"));
            let help =
                did_you_mean(name, self.spec.configs.keys().map(String::as_str)).or_else(|| {
                    Some("define it under `configs:` here or in an included file".to_owned())
                });
            self.push(d.maybe_help(help));
        }
    }

    fn placeholders(&mut self, source: usize, key: &str, text: &str) {
        if let Err(message) = vars::check(text) {
            self.push(self.spec.at(source, key, message));
        }
    }

    fn configs(&mut self) {
        let spec = self.spec;
        for (name, config) in &spec.configs {
            let key = format!("configs.{name}");
            if let Some(parent) = &config.item.extends {
                if spec.configs.contains_key(parent) {
                    if let Err(message) = resolve_config(spec, name) {
                        self.push(spec.at(config.source, &format!("{key}.extends"), message));
                    }
                } else {
                    self.config_ref(config.source, &format!("{key}.extends"), parent);
                }
            }
            self.profile(config.source, &key, &config.item, true);
        }
    }

    /// Checks one profile (a named config or a method's inline override).
    fn profile(&mut self, source: usize, key: &str, profile: &Profile, client_level: bool) {
        if let Some(headers) = &profile.headers {
            for (name, def) in &headers.0 {
                let at = format!("{key}.headers.{name}");
                if !is_header_name(name) {
                    self.push(self.spec.at_key(
                        source,
                        &at,
                        format!("`{name}` is not a valid header name"),
                    ));
                }
                if def.secret {
                    self.secret_reference(
                        source,
                        &format!("{at}.value"),
                        &format!("header `{name}`"),
                        &def.value,
                    );
                }
                self.placeholders(source, &at, &def.value);
            }
        }
        if let Some(auth) = &profile.auth {
            for (field, value) in auth.secrets() {
                let at = format!("{key}.auth");
                self.secret_reference(source, &at, &format!("auth `{field}`"), value);
                self.placeholders(source, &at, value);
            }
        }
        if let Some(interceptors) = &profile.interceptors {
            for (i, path) in interceptors.iter().enumerate() {
                if syn::parse_str::<syn::Path>(path).is_err() {
                    self.push(self.spec.at(
                        source,
                        &format!("{key}.interceptors.{i}"),
                        format!("`{path}` is not a Rust path"),
                    ));
                }
            }
        }
        if let Some(tls) = &profile.tls {
            if let Some(version) = tls
                .min_version
                .as_deref()
                .filter(|v| !matches!(*v, "1.2" | "1.3"))
            {
                self.push(
                    self.spec
                        .at(
                            source,
                            &format!("{key}.tls.min_version"),
                            format!("unknown TLS version `{version}`"),
                        )
                        .help("write \"1.2\" or \"1.3\""),
                );
            }
            if tls.client_cert.is_some() != tls.client_key.is_some() {
                self.push(self.spec.at_key(
                    source,
                    &format!("{key}.tls"),
                    "`client_cert` and `client_key` go together",
                ));
            }
            for (field, path) in [
                ("ca_file", &tls.ca_file),
                ("client_cert", &tls.client_cert),
                ("client_key", &tls.client_key),
            ] {
                if let Some(path) = path {
                    self.placeholders(source, &format!("{key}.tls.{field}"), path);
                }
            }
        }
        if !client_level {
            // One HTTP client per generated client: these cannot differ between its methods.
            let client_wide = [
                (
                    "timeout.connect",
                    profile
                        .timeout
                        .as_ref()
                        .is_some_and(|t| t.connect.is_some()),
                ),
                ("tls", profile.tls.is_some()),
                ("interceptors", profile.interceptors.is_some()),
                ("endpoints", profile.endpoints.is_some()),
            ];
            for (field, set) in client_wide {
                if set {
                    self.push(
                        self.spec
                            .at(
                                source,
                                &format!("{key}.{field}"),
                                format!("`{field}` applies to the whole client"),
                            )
                            .help("set it in the client's profile"),
                    );
                }
            }
        }
    }

    /// A secret must be a `${VAR}` reference: the resolved profile is written into generated code.
    fn secret_reference(&mut self, source: usize, at: &str, what: &str, value: &str) {
        if !value.trim_start().starts_with("${") {
            self.push(
                self.spec
                    .at(
                        source,
                        at,
                        format!("{what} is written out; secrets never go into generated code"),
                    )
                    .help("reference an environment variable instead, e.g. `${SECRET_NAME}`"),
            );
        }
    }

    fn types(&mut self) {
        let spec = self.spec;
        let mut seen: HashMap<String, &str> = HashMap::new();
        for (name, ty) in &spec.types {
            let source = ty.source;
            let key = format!("types.{name}");
            let rust = names::pascal(name);
            if let Some(first) = seen.insert(rust.clone(), name) {
                self.push(spec.at_key(
                    source,
                    &key,
                    format!("type `{name}` and `{first}` are both `{rust}` in Rust"),
                ));
            }
            self.type_name(source, &key, name);
            self.type_def(source, &key, &ty.item);
        }
    }

    /// Type names are written in type expressions as they are declared: PascalCase identifiers,
    /// not shadowing what generated code names.
    fn type_name(&mut self, source: usize, key: &str, name: &str) {
        let client = self.spec.file.client.clone().unwrap_or_default();
        let generated = [
            client.clone(),
            format!("{client}Builder"),
            format!("{client}Fallback"),
        ];
        let rename =
            |name: &str| format!("rename it, e.g. `Api{name}`: type names never reach the wire");
        if !names::is_pascal_identifier(name) {
            let d = self.spec.at_key(
                source,
                key,
                format!("type name `{name}` is not a PascalCase Rust identifier"),
            );
            let cased = names::pascal(name);
            self.push(if names::is_pascal_identifier(&cased) {
                d.help(format!("write `{cased}`"))
            } else {
                d.help(rename(name))
            });
        } else if names::PRELUDE.contains(&name) || PRIMITIVES.contains(&name) {
            self.push(
                self.spec
                    .at_key(
                        source,
                        key,
                        format!("type name `{name}` would shadow Rust's `{name}`"),
                    )
                    .help(rename(name)),
            );
        } else if generated.iter().any(|g| g == name) {
            self.push(
                self.spec
                    .at_key(
                        source,
                        key,
                        format!("type name `{name}` is taken by the generated client"),
                    )
                    .help(rename(name)),
            );
        }
    }

    fn type_def(&mut self, source: usize, key: &str, def: &TypeDef) {
        match (&def.fields, &def.variants) {
            (Some(_), Some(_)) => {
                self.push(self.spec.at_key(
                    source,
                    key,
                    "a type has `fields:` or `enum:`, not both",
                ));
            }
            (None, None) => {
                self.push(self.spec.at_key(
                    source,
                    key,
                    "a type needs `fields:` (a struct) or `enum:` (an enum)",
                ));
            }
            (Some(fields), None) => {
                let mut seen: HashMap<String, &str> = HashMap::new();
                for (field, field_def) in fields {
                    let at = format!("{key}.fields.{field}");
                    let rust = names::snake(field);
                    if let Some(first) = seen.insert(rust.clone(), field) {
                        self.push(self.spec.at_key(
                            source,
                            &at,
                            format!("field `{field}` and `{first}` are both `{rust}` in Rust"),
                        ));
                    }
                    if !names::is_identifier(&rust) {
                        self.push(self.spec.at_key(source, &at, format!("field `{field}` does not make a Rust name (`{rust}`)")).help("give it a name of letters, digits and `_`, and the wire name with `rename:`"));
                    }
                    self.type_expr(source, &at, &field_def.ty, &def.generics);
                }
            }
            (None, Some(variants)) => {
                if variants.is_empty() {
                    self.push(
                        self.spec
                            .at_key(source, key, "an enum needs at least one variant"),
                    );
                }
                let mut seen: HashMap<String, &str> = HashMap::new();
                for (i, variant) in variants.iter().enumerate() {
                    let rust = names::pascal(variant);
                    if let Some(first) = seen.insert(rust.clone(), variant) {
                        self.push(self.spec.at(
                            source,
                            &format!("{key}.enum.{i}"),
                            format!("variants `{variant}` and `{first}` are both `{rust}` in Rust"),
                        ));
                    }
                }
            }
        }
        for (i, generic) in def.generics.iter().enumerate() {
            if !names::is_pascal_identifier(generic) {
                self.push(self.spec.at(
                    source,
                    &format!("{key}.generics.{i}"),
                    format!("generic parameter `{generic}` is not a PascalCase identifier"),
                ));
            }
        }
    }

    /// Checks that `text` parses and every bare name in it is known.
    fn type_expr(
        &mut self,
        source: usize,
        key: &str,
        text: &str,
        generics: &[String],
    ) -> Option<Ty> {
        let ty = match Ty::parse(text) {
            Ok(ty) => ty,
            Err(message) => {
                self.push(self.spec.at(source, key, message));
                return None;
            }
        };
        let mut used = Vec::new();
        ty.bare_names(&mut used);
        for name in used {
            let known = PRIMITIVES.contains(&name.as_str())
                || STD_NAMES.contains(&name.as_str())
                || self.spec.types.contains_key(&name)
                || generics.contains(&name);
            if !known {
                let candidates = PRIMITIVES
                    .iter()
                    .chain(STD_NAMES)
                    .copied()
                    .chain(self.spec.types.keys().map(String::as_str))
                    .chain(generics.iter().map(String::as_str));
                let d = self.spec.at(source, key, format!("unknown type `{name}`"));
                let help = did_you_mean(&name, candidates).or_else(|| {
                    Some(format!(
                        "declare it under `types:`, or write a path such as `crate::model::{name}`"
                    ))
                });
                self.push(d.maybe_help(help));
            }
        }
        Some(ty)
    }

    fn methods(&mut self) {
        let spec = self.spec;
        let mut seen: HashMap<String, &str> = HashMap::new();
        for (name, method) in &spec.file.methods {
            let key = format!("methods.{name}");
            let rust = names::snake(name);
            if let Some(first) = seen.insert(rust.clone(), name) {
                self.push(spec.at_key(
                    0,
                    &key,
                    format!("methods `{name}` and `{first}` are both `{rust}` in Rust"),
                ));
            }
            if !names::is_word(name) {
                self.push(spec.at_key(
                    0,
                    &key,
                    format!("method name `{name}` is not made of letters, digits and `_`"),
                ));
            } else if ["new", "builder", "stats"].contains(&rust.as_str()) {
                self.push(
                    spec.at_key(
                        0,
                        &key,
                        format!(
                            "method name `{name}` is taken by the generated client's `{rust}()`"
                        ),
                    )
                    .help("rename the method; its path and wire names stay as they are"),
                );
            }

            let request_key = format!("{key}.request");
            let (verb, path) = method
                .request
                .trim()
                .split_once(' ')
                .unwrap_or((method.request.trim(), ""));
            let path = path.trim();
            if !VERBS.contains(&verb) {
                let d = spec.at(0, &request_key, format!("`{verb}` is not an HTTP method"));
                let help = did_you_mean(verb, VERBS.iter().copied()).unwrap_or_else(|| {
                    format!(
                        "write `request: GET /path`; methods are {}",
                        VERBS.join(", ")
                    )
                });
                self.push(d.help(help));
            }
            if !path.starts_with('/') {
                self.push(
                    spec.at(0, &request_key, "the path must start with `/`")
                        .help("write e.g. `request: GET /users/{id}`"),
                );
            }
            match placeholders(path) {
                Err(message) => self.push(spec.at(0, &request_key, message)),
                Ok(used) => {
                    for placeholder in &used {
                        if !method.path.contains_key(placeholder) {
                            let d = spec.at(
                                0,
                                &request_key,
                                format!("`{{{placeholder}}}` is not declared in `path:`"),
                            );
                            let help =
                                did_you_mean(placeholder, method.path.keys().map(String::as_str))
                                    .unwrap_or_else(|| {
                                        format!("add `path: {{ {placeholder}: String }}`")
                                    });
                            self.push(d.help(help));
                        }
                    }
                    for declared in method.path.keys() {
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
                }
            }
            if method.body.is_some() && matches!(verb, "GET" | "HEAD" | "DELETE") {
                self.push(
                    spec.at_key(
                        0,
                        &format!("{key}.body"),
                        format!("a {verb} request has no body"),
                    )
                    .help("use POST, PUT or PATCH, or send the data as query parameters"),
                );
            }

            let mut arg_names: HashMap<String, String> = HashMap::new();
            for (section, params) in [
                ("path", &method.path),
                ("query", &method.query),
                ("headers", &method.headers),
            ] {
                for (param, def) in params {
                    let at = format!("{key}.{section}.{param}");
                    self.type_expr(0, &at, &def.ty, &[]);
                    let rust = names::snake(param);
                    if !names::is_identifier(&rust) {
                        self.push(spec.at_key(0, &at, format!("parameter `{param}` does not make a usable Rust name (`{rust}`)")).help("name it with letters, digits and `_`; set the wire name with `name:`"));
                    }
                    if let Some(first) = arg_names.insert(rust.clone(), at.clone()) {
                        self.push(spec.at_key(
                            0,
                            &at,
                            format!("parameter `{param}` is `{rust}` in Rust, as is {first}"),
                        ));
                    }
                    if section == "headers" {
                        let wire = def.name.clone().unwrap_or_else(|| param.clone());
                        if !is_header_name(&wire) {
                            self.push(spec.at(
                                0,
                                &at,
                                format!("`{wire}` is not a valid header name"),
                            ));
                        }
                    }
                }
            }
            if let Some(body) = &method.body {
                self.type_expr(0, &format!("{key}.body"), &body.ty, &[]);
                if arg_names.contains_key("body") {
                    self.push(spec.at_key(
                        0,
                        &format!("{key}.body"),
                        "the body argument is named `body`, as is a parameter",
                    ));
                }
            }
            if let Some(returns) = &method.returns {
                self.type_expr(0, &format!("{key}.returns"), returns, &[]);
            }
            match &method.config {
                Some(ConfigRef::Named(config)) => {
                    self.config_ref(0, &format!("{key}.config"), config)
                }
                Some(ConfigRef::Inline(profile)) => {
                    if profile.extends.is_some() {
                        self.push(spec.at(0, &format!("{key}.config.extends"), "an inline method config overrides the client's profile; it cannot extend another"));
                    }
                    self.profile(0, &format!("{key}.config"), profile, false);
                }
                None => {}
            }
            if method.fallback == Some(true)
                && !matches!(
                    spec.file.fallback,
                    Some(FallbackDef::Path(_)) | Some(FallbackDef::Enabled(true))
                )
            {
                self.push(
                    spec.at(
                        0,
                        &format!("{key}.fallback"),
                        "the method asks for a fallback but the client has none",
                    )
                    .help("set `fallback: true` at the top of the spec"),
                );
            }
        }
    }
}

/// The `{name}` placeholders of a path, in order.
pub fn placeholders(path: &str) -> Result<Vec<String>, String> {
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
        if out.iter().any(|n| n == name) {
            return Err(format!("`{{{name}}}` appears twice in `{path}`"));
        }
        out.push(name.to_owned());
        rest = &after[close + 1..];
    }
    Ok(out)
}

/// Header names are RFC 9110 tokens.
fn is_header_name(name: &str) -> bool {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    !name.is_empty() && name.chars().all(token)
}

//! Every semantic check of a loaded spec, reporting all problems of a file at once; a spec with
//! none becomes the [checked model](crate::checked).
//!
//! One file per part of a spec: the client's own keys here, profiles, types and methods beside.

mod adjacent;
mod enums;
mod methods;
mod paginate;
mod params;
mod profiles;
mod request_line;
mod results;
mod routes;
mod types;
mod unions;
mod webhooks;

use remcall_profile::vars;

use crate::checked;
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::names;
use crate::spec::Spec;
use crate::spec::model::FallbackDef;

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

/// Checks `spec`: its checked model, or every problem found.
pub(crate) fn validate(spec: &Spec) -> Result<checked::Client, Vec<Diagnostic>> {
    let mut v = Validator {
        spec,
        out: Vec::new(),
        warnings: spec.warnings.clone(),
        expanded: Default::default(),
    };
    let client = v.client();
    v.profiles();
    let types = v.types();
    let methods = v.methods(client.as_ref().map(|c| &c.fallback));
    let webhooks = v.webhooks();
    if !v.out.is_empty() {
        v.out.sort();
        v.out.dedup();
        return Err(v.out);
    }
    match (client, types, methods, webhooks) {
        (Some(mut client), Some(types), Some(methods), Some(webhooks)) => {
            client.types = types;
            client.methods = methods;
            client.webhooks = webhooks;
            v.warnings.sort();
            client.warnings = v.warnings;
            Ok(client)
        }
        // Each part is `None` only after it reported a problem.
        _ => Err(v.out),
    }
}

/// Walks a spec, collecting diagnostics.
struct Validator<'a> {
    spec: &'a Spec,
    out: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
    /// Each struct's fields with its parts', by type index, once worked out: parts that name
    /// a part twice, or two parts that share one, then cost one expansion, not one per path.
    expanded: std::collections::HashMap<usize, Option<unions::Expanded>>,
}

impl Validator<'_> {
    /// The spec's serde `rename_all` rule, which makes a field's wire name when it has no
    /// `rename:`.
    fn rename_all(&self) -> Option<&str> {
        self.spec
            .file
            .serde
            .as_ref()
            .and_then(|s| s.rename_all.as_deref())
    }

    fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    fn warn(&mut self, d: Diagnostic) {
        self.warnings.push(d.warning());
    }

    /// The client's own keys; its types and methods are filled in by the caller.
    fn client(&mut self) -> Option<checked::Client> {
        let spec = self.spec;
        let file = &spec.file;
        // A spec without `client:` does not get this far: loading reports it.
        let name = file.client.clone().unwrap_or_default();
        if !names::is_pascal_identifier(&name) {
            let d = spec.at(
                0,
                "client",
                format!("`{name}` is not a PascalCase Rust identifier"),
            );
            let cased = names::pascal(&name);
            self.push(d.help(format!("write `client: {cased}`")));
        }
        let base_urls = file
            .base_url
            .as_ref()
            .map(|u| u.0.clone())
            .unwrap_or_default();
        self.base_urls(&base_urls);
        let base_path = file.base_path.clone().unwrap_or_default();
        if !base_path.is_empty() && !base_path.starts_with('/') {
            self.push(
                spec.at(0, "base_path", "`base_path` must start with `/`")
                    .help(format!("write `/{base_path}`")),
            );
        }
        let profile = match &file.profile {
            Some(name) => self.profile_ref(0, "config", name),
            None => Some(Default::default()),
        };
        let fallback = self.fallback(file.fallback.as_ref());
        let rename_all = file.serde.as_ref().and_then(|s| s.rename_all.clone());
        if let Some(rule) = &rename_all
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
        let profile = profile?;
        Some(checked::Client {
            name,
            doc: file.doc.clone(),
            base_urls,
            base_path,
            interceptors: profile.interceptors.clone().unwrap_or_default(),
            profile,
            fallback,
            rename_all,
            types: Vec::new(),
            methods: Vec::new(),
            warnings: Vec::new(),
            stubs: file.stubs.unwrap_or(false),
            webhooks: None,
        })
    }

    /// The base URLs: placeholders that resolve, a scheme, no credentials in the authority
    /// (they would be written into the generated code).
    fn base_urls(&mut self, base_urls: &[String]) {
        let spec = self.spec;
        for (i, url) in base_urls.iter().enumerate() {
            let key = if base_urls.len() == 1 {
                "base_url".to_owned()
            } else {
                format!("base_url.{i}")
            };
            self.placeholders(0, &key, url);
            // The importer asks the same function ahead, so what it writes passes here.
            match remcall_openapi::names::base_url_problem(url) {
                Some(BaseUrlProblem::Credentials) => self.push(
                    spec.at(0, &key, "the base URL carries credentials, which would be written into the generated code")
                        .help("put them in the profile's `auth: { basic: { username: .., password: \"${PASSWORD}\" } }`"),
                ),
                Some(BaseUrlProblem::QueryOrFragment) => self.push(
                    spec.at(0, &key, "a base URL takes no query string or fragment")
                        .help("put query parameters (an API key, say) in the profile's `query:`, with `secret: true` for a key"),
                ),
                Some(BaseUrlProblem::Scheme) => {
                    let d = spec.at(
                        0,
                        &key,
                        format!("base URL `{url}` must start with http:// or https://"),
                    );
                    self.push(d.help(base_url_help(url)));
                }
                None => {}
            }
        }
    }

    /// The client's `fallback:`: none, a trait, or a default implementation by path.
    fn fallback(&mut self, fallback: Option<&FallbackDef>) -> checked::Fallback {
        let spec = self.spec;
        match fallback {
            None | Some(FallbackDef::Enabled(false)) => checked::Fallback::None,
            Some(FallbackDef::Enabled(true)) => checked::Fallback::Trait,
            Some(FallbackDef::Path(path)) => {
                if !names::is_plain_path(path) {
                    self.push(
                        spec.at(
                            0,
                            "fallback",
                            format!("`{path}` is neither true, false nor a plain Rust path"),
                        )
                        .help("name a type as `crate::fallback::UserFallback`: no generic arguments, nothing else"),
                    );
                }
                checked::Fallback::Default(path.clone())
            }
        }
    }

    /// Checks `${VAR}` placeholders in `text`.
    fn placeholders(&mut self, source: usize, key: &str, text: &str) {
        if let Err(message) = vars::check(text) {
            self.push(self.spec.at(source, key, message));
        }
    }
}

/// What to write instead of a base URL without a scheme: `${VAR}` for a shell-style `$VAR`,
/// else the URL with `https://`.
fn base_url_help(url: &str) -> String {
    let shell_variable = url.strip_prefix('$').filter(|name| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    match shell_variable {
        Some(name) => format!("environment placeholders are written `${{{name}}}`"),
        None => format!("write `https://{url}` (or `http://` for a plain-text server)"),
    }
}

use crate::names::is_header_name;
use remcall_openapi::names::BaseUrlProblem;

//! Profiles: `configs:`, references to them, and what a profile may hold.

use remcall_profile::{Layer, Profile, Tls, vars};

use super::{Validator, is_header_name};
use crate::diagnostic::did_you_mean;
use crate::names;

impl Validator<'_> {
    /// The profile `name` refers to, resolved; `None` (with a diagnostic) when there is none.
    pub(super) fn profile_ref(&mut self, source: usize, key: &str, name: &str) -> Option<Profile> {
        if name == "openapi"
            && self.spec.file.openapi.is_some()
            && !self.spec.profiles.contains_key(name)
        {
            let d = self.spec.at(
                source,
                key,
                "the description declares no security scheme and no 429 answer, so its import made no `openapi` config",
            );
            self.push(d.help(
                "leave `extends: openapi` out, and write the `auth:` the API needs in this config",
            ));
            return None;
        }
        if !self.spec.profiles.contains_key(name) {
            let d = self
                .spec
                .at(source, key, format!("unknown config `{name}`"));
            let help =
                did_you_mean(name, self.spec.profiles.keys().map(String::as_str)).or_else(|| {
                    Some("define it under `configs:` here or in an included file".to_owned())
                });
            self.push(d.maybe_help(help));
            return None;
        }
        // An `extends` cycle is reported where it is declared, by `configs`.
        self.resolve(name).ok()
    }

    /// Every named profile: its `extends` and its content.
    pub(super) fn profiles(&mut self) {
        let spec = self.spec;
        for (name, profile) in &spec.profiles {
            let key = format!("configs.{name}");
            if let Some(parent) = &profile.item.extends {
                let at = format!("{key}.extends");
                if spec.profiles.contains_key(parent) {
                    if let Err(message) = self.resolve(name) {
                        self.push(spec.at(profile.source, &at, message));
                    }
                } else {
                    self.profile_ref(profile.source, &at, parent);
                }
            }
            self.profile(profile.source, &key, &profile.item, true);
        }
    }

    /// The profile `name` with its `extends` chain applied (base first).
    fn resolve(&self, name: &str) -> Result<Profile, String> {
        let profiles = &self.spec.profiles;
        let mut chain = Vec::new();
        let mut current = name;
        loop {
            if chain.contains(&current) {
                chain.push(current);
                return Err(format!("`extends` cycle: {}", chain.join(" → ")));
            }
            chain.push(current);
            let Some(profile) = profiles.get(current) else {
                return Err(format!("unknown config `{current}`"));
            };
            match &profile.item.extends {
                Some(parent) => current = parent,
                None => break,
            }
        }
        let mut profile = Profile::default();
        for name in chain.iter().rev() {
            let mut own = profiles[*name].item.clone();
            own.extends = None;
            profile = profile.layer(own);
        }
        Ok(profile)
    }

    /// Checks one profile (a named config or a method's inline override).
    pub(super) fn profile(
        &mut self,
        source: usize,
        key: &str,
        profile: &Profile,
        client_level: bool,
    ) {
        self.profile_values(source, key, profile);
        if let Some(interceptors) = &profile.interceptors {
            for (i, path) in interceptors.iter().enumerate() {
                if !names::is_plain_path(path) {
                    self.push(
                        self.spec
                            .at(
                                source,
                                &format!("{key}.interceptors.{i}"),
                                format!("`{path}` is not a plain Rust path"),
                            )
                            .help("name a type as `crate::auth::HmacSigner`: no generic arguments, nothing else"),
                    );
                }
            }
        }
        if let Some(tls) = &profile.tls {
            self.tls(source, key, tls);
        }
        for over in profile.over_limits() {
            self.push(
                self.spec
                    .at(source, &format!("{key}.{}", over.path), over.message)
                    .help("a client builds what its sizes ask for, threads and memory included"),
            );
        }
        for wrong in profile.out_of_range() {
            self.push(
                self.spec
                    .at(source, &format!("{key}.{}", wrong.path), wrong.message)
                    .help("docs/resilience.md lists each key's range and default"),
            );
        }
        if !client_level {
            self.client_wide_only(source, key, profile);
        }
    }

    /// The values a profile sets that may hold `${VAR}`s and secrets: headers, query
    /// parameters, cookies, shared Redis URLs, credentials.
    fn profile_values(&mut self, source: usize, key: &str, profile: &Profile) {
        // Each section: its key, what one entry is called, and what its name may not be. A
        // cookie's name is an RFC 6265 token: the same characters as a header name.
        let sections = [
            ("headers", "header", profile.headers.as_ref().map(|h| &h.0)),
            (
                "query",
                "query parameter",
                profile.query.as_ref().map(|q| &q.0),
            ),
            ("cookies", "cookie", profile.cookies.as_ref().map(|c| &c.0)),
        ];
        for (section, label, values) in sections {
            for (name, def) in values.into_iter().flatten() {
                let at = format!("{key}.{section}.{name}");
                let problem = match section {
                    "query" if name.is_empty() => Some("a query parameter needs a name".to_owned()),
                    "query" => None,
                    _ if !is_header_name(name) => {
                        Some(format!("`{name}` is not a valid {label} name"))
                    }
                    _ => None,
                };
                if let Some(problem) = problem {
                    self.push(self.spec.at_key(source, &at, problem));
                }
                // A header's scheme word is no secret: `Token ${KEY}` is allowed.
                if def.secret && !vars::is_scheme_and_reference(&def.value) {
                    self.secret_reference(
                        source,
                        &format!("{at}.value"),
                        &format!("{label} `{name}`"),
                        &def.value,
                    );
                }
                self.placeholders(source, &at, &def.value);
            }
        }
        for (field, url, store_key) in profile.redis_stores() {
            if let Some(store_key) = store_key {
                self.placeholders(source, &format!("{key}.{field}.key"), store_key);
            }
            let Some(url) = url else { continue };
            let at = format!("{key}.{field}.redis");
            if url.contains('@') {
                self.secret_reference(source, &at, "a Redis URL with a password", url);
            }
            self.placeholders(source, &at, url);
        }
        if let Some(shared) = profile.cache.as_ref().and_then(|c| c.shared.as_ref()) {
            let at = format!("{key}.cache.shared");
            if let Some(scope) = &shared.scope {
                self.placeholders(source, &format!("{at}.scope"), scope);
            }
            match &shared.secret {
                Some(secret) => {
                    self.secret_reference(source, &format!("{at}.secret"), "the fleet's secret", secret.expose_template());
                    self.placeholders(source, &format!("{at}.secret"), secret.expose_template());
                }
                None => self.push(
                    self.spec
                        .at_key(source, &at, "`cache.shared` needs `secret:`: the fleet's key that keys its Redis keys and signs its entries")
                        .help("add `secret: ${CACHE_SECRET}` (any variable every replica has, 32 random bytes or more)"),
                ),
            }
        }
        if let Some(file) = profile.record.as_ref().and_then(|r| r.file.as_deref()) {
            self.placeholders(source, &format!("{key}.record.file"), file);
        }
        if let Some(auth) = &profile.auth {
            for (field, value) in auth.secrets() {
                let at = format!("{key}.auth");
                self.secret_reference(source, &at, &format!("auth `{field}`"), value);
                self.placeholders(source, &at, value);
            }
        }
    }

    /// A profile's `tls:`: a known minimum version, a client certificate with its key, paths
    /// whose placeholders resolve.
    fn tls(&mut self, source: usize, key: &str, tls: &Tls) {
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

    /// One HTTP client per generated client: these cannot differ between its methods.
    fn client_wide_only(&mut self, source: usize, key: &str, profile: &Profile) {
        for (field, set, _) in CLIENT_WIDE {
            if set(profile) {
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

    /// A method's `config:` naming a profile that sets a client-wide key otherwise than the
    /// client's profile does: the runtime would ignore it (one HTTP client, one Redis link
    /// and key space per client), so it is refused, where the method names the profile. A
    /// profile that `extends` the client's, and so carries the same value, is fine.
    pub(super) fn client_wide_alike(&mut self, at: &str, name: &str, profile: &Profile) {
        let client = self
            .spec
            .file
            .profile
            .as_deref()
            .and_then(|client| self.resolve(client).ok())
            .unwrap_or_default();
        for (field, set, alike) in CLIENT_WIDE {
            if set(profile) && !alike(profile, &client) {
                self.push(
                    self.spec
                        .at(
                            0,
                            at,
                            format!("config `{name}` sets `{field}`, which applies to the whole client: the client's profile sets it otherwise, so it would be ignored"),
                        )
                        .help(format!("set `{field}` in the client's profile, or take it out of `{name}`")),
                );
            }
        }
    }

    /// A secret must be exactly one `${VAR}` reference, with no default and nothing around it:
    /// the resolved profile is written into generated code.
    fn secret_reference(&mut self, source: usize, at: &str, what: &str, value: &str) {
        if !vars::is_reference(value) {
            self.push(
                self.spec
                    .at(
                        source,
                        at,
                        format!("{what} is written out; secrets never go into generated code"),
                    )
                    .help("write exactly one environment variable, e.g. `${SECRET_NAME}`: no default, nothing around it (a header may put its scheme's word before it: `Token ${API_KEY}`)"),
            );
        }
    }
}

/// A key that applies to the whole client: whether a profile sets it, and whether two set it
/// alike.
type ClientWide = (
    &'static str,
    fn(&Profile) -> bool,
    fn(&Profile, &Profile) -> bool,
);

/// The keys one client has one of: one HTTP client (its connect timeout, TLS, compression,
/// interceptors, endpoints), one store of kept answers (its memory), the fleet's stores (one
/// Redis link, one key space), one recording.
const CLIENT_WIDE: [ClientWide; 9] = [
    (
        "timeout.connect",
        |p| connect(p).is_some(),
        |a, b| connect(a) == connect(b),
    ),
    ("tls", |p| p.tls.is_some(), |a, b| a.tls == b.tls),
    (
        "compression",
        |p| p.compression.is_some(),
        |a, b| a.compression == b.compression,
    ),
    (
        "interceptors",
        |p| p.interceptors.is_some(),
        |a, b| a.interceptors == b.interceptors,
    ),
    (
        "endpoints",
        |p| p.endpoints.is_some(),
        |a, b| a.endpoints == b.endpoints,
    ),
    (
        "cache.memory",
        |p| cache_memory(p).is_some(),
        |a, b| cache_memory(a) == cache_memory(b),
    ),
    (
        "quota.shared",
        |p| quota_shared(p).is_some(),
        |a, b| quota_shared(a) == quota_shared(b),
    ),
    (
        "cache.shared",
        |p| cache_shared(p).is_some(),
        |a, b| cache_shared(a) == cache_shared(b),
    ),
    (
        "record",
        |p| p.record.is_some(),
        |a, b| a.record == b.record,
    ),
];

fn connect(profile: &Profile) -> Option<std::time::Duration> {
    profile.timeout.as_ref().and_then(|t| t.connect)
}

fn cache_memory(profile: &Profile) -> Option<remcall_profile::ByteSize> {
    profile.cache.as_ref().and_then(|c| c.memory)
}

fn quota_shared(profile: &Profile) -> Option<&remcall_profile::SharedStore> {
    profile.quota.as_ref().and_then(|q| q.shared.as_ref())
}

fn cache_shared(profile: &Profile) -> Option<&remcall_profile::SharedStore> {
    profile.cache.as_ref().and_then(|c| c.shared.as_ref())
}

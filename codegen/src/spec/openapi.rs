//! A spec's `openapi:` key: the description imported in memory (the same importer as
//! `remcall import`) and laid under the spec's own methods, types and profiles.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use remcall_profile::Profile;

use super::load::{Loader, Located, canonical, normalize};
use crate::diagnostic::did_you_mean;
use crate::spec::model::{
    DatesDef, MethodDef, OpenApiDef, ReturnsDef, ReturnsEncoding, Shorthand, SpecFile, TypeDef,
};

impl Loader {
    /// `openapi: { overlays: [..] }`, each relative to the spec and inside the directories it
    /// may read; `None` after a diagnostic.
    fn overlays(&mut self, def: &OpenApiDef, here: &Path) -> Option<Vec<PathBuf>> {
        let mut overlays = Vec::new();
        for overlay in &def.overlays {
            let path = normalize(&here.parent().unwrap_or(Path::new("")).join(overlay));
            // A name that is no file is that, wherever it would be.
            if !path.is_file() {
                let s = &self.sources[0];
                let siblings = path
                    .parent()
                    .map(|dir| {
                        if dir.as_os_str().is_empty() {
                            Path::new(".")
                        } else {
                            dir
                        }
                    })
                    .and_then(|dir| std::fs::read_dir(dir).ok())
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|entry| entry.file_name().to_string_lossy().into_owned())
                    .collect::<Vec<_>>();
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let d = s
                    .diagnostic(
                        s.spans.value("openapi.overlays"),
                        format!("the overlay `{overlay}` cannot be read: no such file"),
                    )
                    .maybe_help(
                        did_you_mean(&name, siblings.iter().map(String::as_str))
                            .map(|near| format!("did you mean `{near}`?")),
                    );
                self.diagnostics.push(d);
                return None;
            }
            if !self
                .allowed
                .iter()
                .any(|dir| canonical(&path).starts_with(dir))
            {
                let s = &self.sources[0];
                let d = s
                    .diagnostic(
                        s.spans.value("openapi.overlays"),
                        format!("the overlay `{overlay}` is outside the spec's directory"),
                    )
                    .help("move it beside the spec, or allow its directory: `remcall gen --include-dir DIR`");
                self.diagnostics.push(d);
                return None;
            }
            overlays.push(path);
        }
        Some(overlays)
    }

    /// A diagnostic at `pointer` (`/actions/3/target`) in `file`, when it is one of `overlays`:
    /// the overlay read (bounded) for its positions.
    fn in_overlay(
        &self,
        overlays: &[PathBuf],
        file: &Path,
        pointer: &str,
        message: &str,
    ) -> Option<crate::diagnostic::Diagnostic> {
        let file = canonical(file);
        let overlay = overlays.iter().find(|o| canonical(o) == file)?;
        let text =
            remcall_openapi::files::read_capped(overlay, super::load::MAX_FILE_BYTES).ok()?;
        let spans = super::spans::SpanIndex::build(&text).ok()?;
        let key = pointer
            .split('/')
            .skip(1)
            .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
            .collect::<Vec<_>>()
            .join(".");
        let source = super::load::Source {
            path: overlay.clone(),
            spans,
            text,
        };
        Some(source.diagnostic(
            source.spans.value(&key),
            remcall_openapi::escape::one_line(message),
        ))
    }

    /// `openapi:`: the description's methods, types, base URL and credentials (as the profile
    /// `openapi`, the client's unless it names another), with the spec's `methods:` entries that
    /// have no `request:` laid over the imported methods of their name. Returns the files read.
    pub(super) fn openapi(
        &mut self,
        def: &OpenApiDef,
        file: &mut SpecFile,
        profiles: &mut IndexMap<String, Located<Profile>>,
        types: &mut IndexMap<String, Located<TypeDef>>,
    ) -> Vec<PathBuf> {
        let here = self.sources[0].path.clone();
        let path = normalize(&here.parent().unwrap_or(Path::new("")).join(&def.file));
        let at = |loader: &mut Self, message: String, help: Option<String>| {
            let s = &loader.sources[0];
            let d = s.diagnostic(s.spans.value("openapi.file"), message);
            loader.diagnostics.push(d.maybe_help(help));
        };
        let canon = canonical(&path);
        if !self.allowed.iter().any(|dir| canon.starts_with(dir)) {
            at(
                self,
                format!("`{}` is outside the spec's directory", def.file),
                Some("move it beside the spec, or allow its directory: `remcall gen --include-dir DIR`, `Builder::include_dir(DIR)`".to_owned()),
            );
            return Vec::new();
        }
        let Some(overlays) = self.overlays(def, &here) else {
            return Vec::new();
        };
        let options = import_options(def, file, overlays.clone());
        let imported = match remcall_openapi::import(&path, &options) {
            Ok(imported) => imported,
            Err(error) => {
                // An overlay's mistake is shown in the overlay, at its action.
                match self.in_overlay(&overlays, &error.file, &error.pointer, &error.message) {
                    Some(d) => self.diagnostics.push(d),
                    None => at(self, error.to_string(), None),
                }
                return Vec::new();
            }
        };
        for note in &imported.summary.notes {
            if !note.message.contains("selects nothing") {
                continue;
            }
            let file = path.parent().unwrap_or(Path::new("")).join(&note.file);
            if let Some(d) = self.in_overlay(&overlays, &file, &note.pointer, &note.message) {
                self.warnings.push(d.help("the description changed under the overlay: fix the target, or take the action out").warning());
            }
        }
        // The imported spec is a source of its own, named by the description: its text is what
        // a diagnostic in it shows.
        let Some(mut from) = self.parse(&path, &imported.spec) else {
            return imported.files;
        };
        let source = self.sources.len() - 1;
        if let Some(profile) = from.profiles.shift_remove("main") {
            profiles.insert(
                "openapi".to_owned(),
                Located {
                    source,
                    item: profile,
                },
            );
            if file.profile.is_none() {
                file.profile = Some("openapi".to_owned());
            }
        }
        if file.base_url.is_none() {
            file.base_url = from.base_url.take();
        }
        // The description's relative server (`/api`) is where its routes live: kept whether or
        // not the spec names its own base URL (the server's host is the user's to say).
        if file.base_path.is_none() {
            file.base_path = from.base_path.take();
        }
        if file.doc.is_none() {
            file.doc = from.doc.take();
        }
        // The description's events, unless the spec declares its own.
        if file.webhooks.is_none() {
            file.webhooks = from.webhooks.take();
        }
        let imported_types = std::mem::take(&mut from.types);
        self.merge(source, IndexMap::new(), imported_types, profiles, types);
        // Imported methods in the description's order, each with its overlay; then the spec's
        // own methods.
        file.methods = self.overlay(
            std::mem::take(&mut from.methods),
            std::mem::take(&mut file.methods),
            &imported.summary.shortened,
        );
        imported.files
    }

    /// An entry over an imported method that sets what the description says (its parameters,
    /// body or declared answers): refused where it is written, rather than accepted and dropped.
    fn refuse_unchangeable(&mut self, key: &str, overlay: &MethodDef) {
        let set = [
            ("path", !overlay.path.is_empty()),
            ("query", !overlay.query.is_empty()),
            ("headers", !overlay.headers.is_empty()),
            ("body", overlay.body.is_some()),
            ("responses", overlay.responses.is_some()),
            ("errors", overlay.errors.is_some()),
            ("response_headers", !overlay.response_headers.is_empty()),
        ];
        for (set_key, _) in set.iter().filter(|(_, set)| *set) {
            let s = &self.sources[0];
            let d = s
                .diagnostic(
                    s.spans.key(&format!("methods.{key}.{set_key}")),
                    format!("`{set_key}:` of an imported method is the description's: it cannot be changed here"),
                )
                .help("change the description with an overlay (`openapi: { overlays: [..] }`), or give the entry `request:` to write a method of your own");
            self.diagnostics.push(d);
        }
    }

    /// The imported methods, each with the spec's entry of its name that has no `request:` laid
    /// over it (and renamed when it says so), then the spec's own methods; an entry that
    /// changes nothing imported, or adds a method of a taken name, is an error.
    /// An entry may name a method the importer shortened (`shortened`: the name taken, the name
    /// its operationId spells) by either name.
    fn overlay(
        &mut self,
        imported_methods: IndexMap<String, MethodDef>,
        mut own: IndexMap<String, MethodDef>,
        shortened: &[(String, String)],
    ) -> IndexMap<String, MethodDef> {
        let mut methods = IndexMap::new();
        let imported_names: Vec<String> = imported_methods.keys().cloned().collect();
        // The names the spec's own `rename:`s gave, each with the entry that gave it.
        let mut renamed_by: std::collections::HashMap<String, String> =
            std::collections::HashMap::new();
        for (imported, mut method) in imported_methods {
            let mut name = imported.clone();
            let longer = shortened
                .iter()
                .find(|(short, _)| *short == imported)
                .map(|(_, full)| full);
            let key = match longer {
                Some(full) if !own.contains_key(&imported) && own.contains_key(full) => {
                    full.clone()
                }
                _ => imported.clone(),
            };
            if let Some(overlay) = own.get(&key).filter(|o| o.request.is_none()) {
                self.refuse_unchangeable(&key, overlay);
                overlay_onto(&mut method, overlay);
                if let Some(renamed) = overlay.rename.clone() {
                    name = renamed;
                }
                own.shift_remove(&key);
            }
            if name != imported && (imported_names.contains(&name) || methods.contains_key(&name)) {
                let s = &self.sources[0];
                // The clash is the spec's own when another of its renames took the name first.
                let (message, help) = match renamed_by.get(&name) {
                    Some(first) => (
                        format!(
                            "`{name}` is already the new name of `{first}`: two methods cannot share one"
                        ),
                        "rename one of them otherwise".to_owned(),
                    ),
                    None => (
                        format!("`{name}` is the name of another method of the description"),
                        "pick a name the description does not use".to_owned(),
                    ),
                };
                let d = s.diagnostic(s.spans.value(&format!("methods.{key}.rename")), message);
                self.diagnostics.push(d.help(help));
                continue;
            }
            if name != imported {
                renamed_by.insert(name.clone(), key.clone());
            }
            methods.insert(name, method);
        }
        for (name, method) in own {
            if method.request.is_none() {
                let s = &self.sources[0];
                let d = s.diagnostic(
                    s.spans.key(&format!("methods.{name}")),
                    format!("`{name}` is no method of the description, so there is nothing for it to change"),
                );
                let help = did_you_mean(&name, methods.keys().map(String::as_str))
                    .or_else(|| Some("give it `request:` to add a method of your own".to_owned()));
                self.diagnostics.push(d.maybe_help(help));
                continue;
            }
            if methods.contains_key(&name) {
                let s = &self.sources[0];
                let d = s.diagnostic(
                    s.spans.key(&format!("methods.{name}")),
                    format!("`{name}` is a method of the description already"),
                ).help("leave `request:` out to change the imported method, or name yours otherwise");
                self.diagnostics.push(d);
                continue;
            }
            methods.insert(name, method);
        }
        methods
    }
}

/// Lays an overlay's settings over an imported method: how it is called (profile, retries,
/// fallback, what a 404 means, its doc, positional or named), how its stream reads and ends
/// (`returns:`), how its pages are followed (`paginate:`) and the body keys it sets itself
/// (`body_sets:`); never its parameters, body or declared answers, which
/// [`Loader::refuse_unchangeable`] refuses. (`rename:` is the caller's.)
fn overlay_onto(method: &mut MethodDef, overlay: &MethodDef) {
    let MethodDef {
        doc,
        idempotent,
        idempotency_key,
        not_found,
        profile,
        fallback,
        call,
        returns,
        body_sets,
        paginate,
        ..
    } = overlay;
    if let Some(paginate) = paginate {
        method.paginate = Some(paginate.clone());
    }
    if let Some(returns) = returns {
        returns_onto(method, returns);
    }
    if let Some(sets) = body_sets {
        method.body_sets = Some(sets.clone());
    }
    if let Some(doc) = doc {
        method.doc = Some(doc.clone());
    }
    if let Some(idempotent) = idempotent {
        method.idempotent = Some(*idempotent);
    }
    if let Some(key) = idempotency_key {
        method.idempotency_key = Some(key.clone());
    }
    if let Some(not_found) = not_found {
        method.not_found = Some(*not_found);
    }
    if let Some(profile) = profile {
        method.profile = Some(profile.clone());
    }
    if let Some(fallback) = fallback {
        method.fallback = Some(*fallback);
    }
    if let Some(call) = call {
        method.call = Some(*call);
    }
}

/// An overlay's `returns:`: with a `type`, the whole result; without one, the imported result
/// keeps its type, and takes the keys the overlay gives (`as:` other than JSON, `end:`,
/// `events:`, `error:`): `returns: { end: "[DONE]" }` says where an imported stream ends.
fn returns_onto(method: &mut MethodDef, overlay: &ReturnsDef) {
    if !overlay.ty.is_empty() {
        method.returns = Some(Shorthand(overlay.clone()));
        return;
    }
    let Some(Shorthand(imported)) = &mut method.returns else {
        // Nothing imported to keep: the spec's check says `returns:` needs its type.
        method.returns = Some(Shorthand(overlay.clone()));
        return;
    };
    if overlay.encoding != ReturnsEncoding::Json {
        imported.encoding = overlay.encoding;
    }
    if overlay.end.is_some() {
        imported.end.clone_from(&overlay.end);
    }
    if overlay.events.is_some() {
        imported.events.clone_from(&overlay.events);
    }
    if overlay.error.is_some() {
        imported.error.clone_from(&overlay.error);
    }
}

/// What the importer is asked for: the overlays, the client's name, the tags and operations
/// chosen, the methods the spec renames, and how dates are read.
fn import_options(
    def: &OpenApiDef,
    file: &SpecFile,
    overlays: Vec<PathBuf>,
) -> remcall_openapi::Options {
    remcall_openapi::Options {
        overlays,
        client: file.client.clone(),
        tags: def.tags.clone(),
        operations: def.operations.clone(),
        renames: file
            .methods
            .iter()
            .filter(|(_, method)| method.request.is_none())
            .filter_map(|(name, method)| Some((name.clone(), method.rename.clone()?)))
            .collect(),
        dates: match def.dates {
            DatesDef::Text => remcall_openapi::Dates::Text,
            DatesDef::Chrono => remcall_openapi::Dates::Chrono,
        },
        ..remcall_openapi::Options::default()
    }
}

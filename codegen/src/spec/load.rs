//! Reading a spec file and the files it includes into one model.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use remcall_profile::Profile;

use super::model::{SpecFile, TypeDef};
use super::spans::SpanIndex;
use crate::diagnostic::{Diagnostic, Pos};

mod parse;
use parse::without_quotes_of;

/// One file that was read, with the positions of its keys.
#[derive(Debug)]
pub struct Source {
    /// The path as the generator names it in diagnostics.
    pub path: PathBuf,
    /// Positions of its keys and values.
    pub spans: SpanIndex,
    /// Its text, for showing the offending line of a diagnostic.
    pub text: String,
}

impl Source {
    /// A diagnostic at `pos` in this file, showing its line.
    pub fn diagnostic(&self, pos: Pos, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(&self.path, pos, message).in_text(&self.text)
    }
}

/// A definition and the file it came from (an index into [`Spec::sources`]).
#[derive(Debug)]
pub struct Located<T> {
    /// Index of the defining file in [`Spec::sources`].
    pub source: usize,
    /// The definition.
    pub item: T,
}

/// A client spec with its includes merged.
#[derive(Debug)]
pub struct Spec {
    /// The spec file itself first, then every included file.
    pub sources: Vec<Source>,
    /// The spec file's own model (its `configs:` and `types:` moved into the merged maps).
    pub file: SpecFile,
    /// Profiles from the spec and its includes.
    pub profiles: IndexMap<String, Located<Profile>>,
    /// Types from the spec and its includes.
    pub types: IndexMap<String, Located<TypeDef>>,
    /// The OpenAPI description of `openapi:` and the files its `$ref`s point into.
    pub imported_files: Vec<PathBuf>,
    /// What loading found worth a warning: an overlay action that selects nothing.
    pub warnings: Vec<Diagnostic>,
}

impl Spec {
    /// Every file read, for `cargo:rerun-if-changed`.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.sources
            .iter()
            .map(|s| s.path.as_path())
            .chain(self.imported_files.iter().map(PathBuf::as_path))
    }

    /// A diagnostic at the value of `key_path` in file `source`.
    pub fn at(&self, source: usize, key_path: &str, message: impl Into<String>) -> Diagnostic {
        let s = &self.sources[source];
        s.diagnostic(s.spans.value(key_path), message)
            .about(key_path)
    }

    /// A diagnostic at `needle` inside the value of `key_path` (the `{id}` of a request line, the
    /// unknown `Usr` of `Vec<Usr>`), or at the value when its line does not show it.
    pub fn at_in_value(
        &self,
        source: usize,
        key_path: &str,
        needle: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        let s = &self.sources[source];
        let mut pos = s.spans.value(key_path);
        let line = s.text.lines().nth(pos.line.saturating_sub(1)).unwrap_or("");
        let start = line
            .char_indices()
            .nth(pos.column.saturating_sub(1))
            .map_or(line.len(), |(at, _)| at);
        let is_name = |c: char| c.is_alphanumeric() || c == '_';
        // The first whole occurrence: `Usr` in `Vec<Usr>`, not in `Usrs`.
        let found = line[start..].match_indices(needle).find(|(at, _)| {
            let before = line[..start + at].chars().next_back();
            let after = line[start + at + needle.len()..].chars().next();
            let joins_before = needle.starts_with(is_name) && before.is_some_and(is_name);
            let joins_after = needle.ends_with(is_name) && after.is_some_and(is_name);
            !(joins_before || joins_after)
        });
        if let Some((at, _)) = found {
            pos.column = line[..start + at].chars().count() + 1;
        }
        s.diagnostic(pos, message).about(key_path)
    }

    /// A diagnostic at the key of `key_path` in file `source`.
    pub fn at_key(&self, source: usize, key_path: &str, message: impl Into<String>) -> Diagnostic {
        let s = &self.sources[source];
        s.diagnostic(s.spans.key(key_path), message).about(key_path)
    }
}

/// The largest spec or included file read (the format is text a person writes; 16 MiB is many
/// thousands of methods).
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Loads `path` and its includes; every problem found is returned. Includes must be regular
/// files inside the spec's directory tree, or inside one of `include_dirs`.
pub fn load(path: &Path, include_dirs: &[PathBuf]) -> Result<Spec, Vec<Diagnostic>> {
    load_with(path, None, include_dirs)
}

/// Loads a spec whose text is given (named `path` in diagnostics; includes are still read
/// relative to it). The fuzzer and tools that hold a spec in memory use this.
pub fn load_text(
    path: &Path,
    text: &str,
    include_dirs: &[PathBuf],
) -> Result<Spec, Vec<Diagnostic>> {
    load_with(path, Some(text), include_dirs)
}

fn load_with(
    path: &Path,
    text: Option<&str>,
    include_dirs: &[PathBuf],
) -> Result<Spec, Vec<Diagnostic>> {
    let root = canonical(
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    );
    let mut allowed = vec![root];
    allowed.extend(include_dirs.iter().map(|d| canonical(d)));
    let mut loader = Loader {
        sources: Vec::new(),
        diagnostics: Vec::new(),
        warnings: Vec::new(),
        stack: Vec::new(),
        allowed,
        schema: serde_json::to_value(super::model::schema()).unwrap_or_default(),
    };
    let parsed = match text {
        Some(text) => loader.parse(path, text),
        None => loader.read(path, None),
    };
    let Some(mut file) = parsed else {
        return Err(loader.diagnostics);
    };
    let mut profiles = IndexMap::new();
    let mut types = IndexMap::new();
    let own_profiles = std::mem::take(&mut file.profiles);
    let own_types = std::mem::take(&mut file.types);
    loader.merge(0, own_profiles, own_types, &mut profiles, &mut types);
    let includes = file.include.clone();
    loader.include(0, &includes, &mut profiles, &mut types);
    let mut imported_files = Vec::new();
    if let Some(openapi) = file.openapi.clone() {
        imported_files = loader.openapi(&openapi, &mut file, &mut profiles, &mut types);
    }

    if file.client.is_none() {
        let pos = Pos { line: 1, column: 1 };
        loader.diagnostics.push(
            Diagnostic::new(path, pos, "missing `client:`: a spec describes one client").help(
                "add `client: MyClient` (include files are named in another spec's `include:`)",
            ),
        );
    }
    if loader.diagnostics.is_empty() {
        Ok(Spec {
            sources: loader.sources,
            file,
            profiles,
            types,
            imported_files,
            warnings: loader.warnings,
        })
    } else {
        Err(loader.diagnostics)
    }
}

pub(super) struct Loader {
    pub(super) sources: Vec<Source>,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) warnings: Vec<Diagnostic>,
    /// Canonical paths of the files being included, to find cycles.
    pub(super) stack: Vec<PathBuf>,
    /// Canonical directories includes may come from: the spec's own, and those the user allowed.
    pub(super) allowed: Vec<PathBuf>,
    /// The format's JSON Schema, for finding unknown keys; made once, for every file read.
    pub(super) schema: serde_json::Value,
}

impl Loader {
    /// Reads and parses one file; `None` when it could not be (a diagnostic says why).
    fn read(&mut self, path: &Path, from: Option<(usize, &str)>) -> Option<SpecFile> {
        let at_include = |loader: &Self, message: String| match from {
            Some((source, key)) => {
                let s = &loader.sources[source];
                s.diagnostic(s.spans.value(key), message)
            }
            None => Diagnostic::new(path, Pos { line: 1, column: 1 }, message),
        };
        let text = match read_spec_file(path) {
            Ok(text) => text,
            Err(message) => {
                let d = at_include(self, message);
                self.diagnostics.push(d);
                return None;
            }
        };
        if from.is_none() {
            return self.parse(path, &text);
        }
        // An included file is quoted in no error until it has read as a spec: it could be any
        // file of the tree (`.env`, a key), and one line of it may be the secret.
        let source = self.sources.len();
        let reported = self.diagnostics.len();
        let Some(file) = self.parse_text(path, &text, false) else {
            // Nor in the words of an error: what the parsers quote of it is left out.
            for d in &mut self.diagnostics[reported..] {
                d.message = without_quotes_of(&d.message, &text);
                if d.help
                    .as_deref()
                    .is_some_and(|help| without_quotes_of(help, &text) != help)
                {
                    d.help = None;
                }
            }
            return None;
        };
        self.sources[source].text = text;
        Some(file)
    }

    fn include(
        &mut self,
        source: usize,
        includes: &[String],
        profiles: &mut IndexMap<String, Located<Profile>>,
        types: &mut IndexMap<String, Located<TypeDef>>,
    ) {
        let here = self.sources[source].path.clone();
        self.stack.push(canonical(&here));
        for (i, include) in includes.iter().enumerate() {
            let key = format!("include.{i}");
            let path = here.parent().unwrap_or(Path::new("")).join(include);
            let path = normalize(&path);
            let canon = canonical(&path);
            if self.stack.contains(&canon) {
                let s = &self.sources[source];
                self.diagnostics.push(
                    s.diagnostic(
                        s.spans.value(&key),
                        format!("include cycle: `{include}` includes this file again"),
                    )
                    .help(
                        "move the shared `configs:` and `types:` into a file that includes nothing",
                    ),
                );
                continue;
            }
            if !self.allowed.iter().any(|dir| canon.starts_with(dir)) {
                let s = &self.sources[source];
                self.diagnostics.push(
                    s.diagnostic(
                        s.spans.value(&key),
                        format!("`{include}` is outside the spec's directory"),
                    )
                    .help("move it beside the spec, or allow its directory: `remcall gen --include-dir DIR`, `Builder::include_dir(DIR)`"),
                );
                continue;
            }
            if self.sources.iter().any(|s| canonical(&s.path) == canon) {
                continue; // already merged through another include
            }
            let Some(mut file) = self.read(&path, Some((source, &key))) else {
                continue;
            };
            let index = self.sources.len() - 1;
            if file.client.is_some() || !file.methods.is_empty() {
                let s = &self.sources[index];
                self.diagnostics.push(s.diagnostic(
                    s.spans.key(if file.client.is_some() {
                        "client"
                    } else {
                        "methods"
                    }),
                    "an included file may hold only `configs:`, `types:` and `include:`",
                ));
            }
            let (c, t) = (
                std::mem::take(&mut file.profiles),
                std::mem::take(&mut file.types),
            );
            self.merge(index, c, t, profiles, types);
            self.include(index, &file.include, profiles, types);
        }
        self.stack.pop();
    }

    pub(super) fn merge(
        &mut self,
        source: usize,
        new_profiles: IndexMap<String, Profile>,
        new_types: IndexMap<String, TypeDef>,
        profiles: &mut IndexMap<String, Located<Profile>>,
        types: &mut IndexMap<String, Located<TypeDef>>,
    ) {
        for (name, item) in new_profiles {
            if let Some(first) = profiles.get(&name) {
                let d = self.duplicate("configs", &name, source, first.source);
                self.diagnostics.push(d);
            } else {
                profiles.insert(name, Located { source, item });
            }
        }
        for (name, item) in new_types {
            if let Some(first) = types.get(&name) {
                let d = self.duplicate("types", &name, source, first.source);
                self.diagnostics.push(d);
            } else {
                types.insert(name, Located { source, item });
            }
        }
    }

    fn duplicate(&self, section: &str, name: &str, source: usize, first: usize) -> Diagnostic {
        let s = &self.sources[source];
        s.diagnostic(
            s.spans.key(&format!("{section}.{name}")),
            format!("`{name}` is already defined in {section}:"),
        )
        .help(format!(
            "the first definition is in {}",
            crate::diagnostic::shown_path(&self.sources[first].path)
        ))
    }
}

/// A spec file's text: a regular file (not a device, a FIFO or a directory), at most
/// [`MAX_FILE_BYTES`] as read, UTF-8. The error says what is wrong, never what the file holds.
fn read_spec_file(path: &Path) -> Result<String, String> {
    use remcall_openapi::files::{Unreadable, read_capped};
    let shown = crate::diagnostic::shown_path(path);
    read_capped(path, MAX_FILE_BYTES).map_err(|why| match why {
        Unreadable::Io(error) => format!("cannot read `{shown}`: {error}"),
        Unreadable::NotAFile => format!("`{shown}` is not a regular file"),
        other => format!("`{shown}` is {other}"),
    })
}

pub(super) fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// `specs/profiles/../x.yaml` → `specs/x.yaml`, for readable diagnostics.
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

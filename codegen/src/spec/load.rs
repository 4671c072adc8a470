//! Reading a spec file and the files it includes into one model.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use remcall_profile::Profile;

use super::keys;
use super::model::{SpecFile, TypeDef};
use super::spans::SpanIndex;
use crate::diagnostic::{Diagnostic, Pos, did_you_mean};

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
}

impl Spec {
    /// Every file read, for `cargo:rerun-if-changed`.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.sources.iter().map(|s| s.path.as_path())
    }

    /// A diagnostic at the value of `key_path` in file `source`.
    pub fn at(&self, source: usize, key_path: &str, message: impl Into<String>) -> Diagnostic {
        let s = &self.sources[source];
        s.diagnostic(s.spans.value(key_path), message)
    }

    /// A diagnostic at the key of `key_path` in file `source`.
    pub fn at_key(&self, source: usize, key_path: &str, message: impl Into<String>) -> Diagnostic {
        let s = &self.sources[source];
        s.diagnostic(s.spans.key(key_path), message)
    }
}

/// Loads `path` and its includes; every problem found is returned.
pub fn load(path: &Path) -> Result<Spec, Vec<Diagnostic>> {
    load_with(path, None)
}

/// Loads a spec whose text is given (named `path` in diagnostics; includes are still read
/// relative to it). The fuzzer and tools that hold a spec in memory use this.
pub fn load_text(path: &Path, text: &str) -> Result<Spec, Vec<Diagnostic>> {
    load_with(path, Some(text))
}

fn load_with(path: &Path, text: Option<&str>) -> Result<Spec, Vec<Diagnostic>> {
    let mut loader = Loader {
        sources: Vec::new(),
        diagnostics: Vec::new(),
        stack: Vec::new(),
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
        })
    } else {
        Err(loader.diagnostics)
    }
}

struct Loader {
    sources: Vec<Source>,
    diagnostics: Vec<Diagnostic>,
    /// Canonical paths of the files being included, to find cycles.
    stack: Vec<PathBuf>,
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
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                let d = at_include(self, format!("cannot read `{}`: {e}", path.display()));
                self.diagnostics.push(d);
                return None;
            }
        };
        self.parse(path, &text)
    }

    /// Parses one file's text: YAML syntax (positions from the parser), unknown keys (against
    /// the format's schema, each where it stands), then types (positions from the key path
    /// serde was at).
    fn parse(&mut self, path: &Path, text: &str) -> Option<SpecFile> {
        // A UTF-8 byte-order mark is legal in YAML but trips some parsers.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let spans = SpanIndex::build(text);
        self.sources.push(Source {
            path: path.to_path_buf(),
            spans: SpanIndex::default(),
            text: text.to_owned(),
        });
        let source = self.sources.len() - 1;
        let spans = match spans {
            Ok(spans) => spans,
            Err((pos, message)) => {
                let d = self.sources[source].diagnostic(pos, message);
                self.diagnostics.push(d);
                return None;
            }
        };
        self.sources[source].spans = spans;
        if text.trim().is_empty() {
            self.diagnostics.push(Diagnostic::new(
                path,
                Pos { line: 1, column: 1 },
                "the file is empty: a spec needs at least `client:` and `methods:`",
            ));
            return None;
        }
        let value = match serde_yaml::from_str::<serde_yaml::Value>(text) {
            Ok(value) => value,
            Err(e) => {
                // The parser above accepted what this one refuses: its message is all there is.
                let pos = e.location().map_or(Pos { line: 1, column: 1 }, |l| Pos {
                    line: l.line(),
                    column: l.column(),
                });
                let d = self.sources[source].diagnostic(pos, e.to_string());
                self.diagnostics.push(d);
                return None;
            }
        };
        let schema = serde_json::to_value(super::model::schema()).unwrap_or_default();
        let unknown = keys::unknown_keys(&value, &schema);
        if !unknown.is_empty() {
            for key in unknown {
                let s = &self.sources[source];
                let d = s
                    .diagnostic(s.spans.key(&key.path), format!("unknown key `{}`", key.key))
                    .help(
                        did_you_mean(&key.key, key.allowed.iter().map(String::as_str))
                            .unwrap_or_else(|| format!("allowed here: {}", key.allowed.join(", "))),
                    );
                self.diagnostics.push(d);
            }
            return None;
        }
        match serde_path_to_error::deserialize::<_, SpecFile>(value) {
            Ok(file) => Some(file),
            Err(e) => {
                let at = key_path(e.path());
                let s = &self.sources[source];
                let message = if at.is_empty() {
                    e.inner().to_string()
                } else {
                    format!("`{at}`: {}", e.inner())
                };
                self.diagnostics
                    .push(s.diagnostic(s.spans.value(&at), message));
                None
            }
        }
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

    fn merge(
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
            self.sources[first].path.display()
        ))
    }
}

/// A serde path as the span index names it: `methods.get.path.id`, `base_url.1`.
fn key_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        let part = match segment {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } => key.clone(),
            Segment::Enum { variant } => variant.clone(),
            Segment::Unknown => continue,
        };
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(&part);
    }
    out
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// `specs/profiles/../x.yaml` → `specs/x.yaml`, for readable diagnostics.
fn normalize(path: &Path) -> PathBuf {
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

//! Reading a spec file and the files it includes into one model.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use remcall_profile::Profile;

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

    /// Parses one file's text.
    fn parse(&mut self, path: &Path, text: &str) -> Option<SpecFile> {
        // A UTF-8 byte-order mark is legal in YAML but trips some parsers.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        self.sources.push(Source {
            path: path.to_path_buf(),
            spans: SpanIndex::build(text),
            text: text.to_owned(),
        });
        if text.trim().is_empty() {
            self.diagnostics.push(Diagnostic::new(
                path,
                Pos { line: 1, column: 1 },
                "the file is empty: a spec needs at least `client:` and `methods:`",
            ));
            return None;
        }
        match serde_yaml::from_str::<SpecFile>(text) {
            Ok(file) => Some(file),
            Err(e) => {
                self.diagnostics.push(from_serde(path, &e).in_text(text));
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

/// Turns a serde error into a diagnostic at its position, with a did-you-mean for misspelt keys.
fn from_serde(path: &Path, error: &serde_yaml::Error) -> Diagnostic {
    let pos = error
        .location()
        .map_or(Pos { line: 1, column: 1 }, |l| Pos {
            line: l.line(),
            column: l.column(),
        });
    let text = error.to_string();
    // serde_yaml writes " at line L column C" into its messages; the diagnostic carries the
    // position itself.
    let message = strip_positions(&text);
    let help = unknown_name_help(&message);
    Diagnostic::new(path, pos, message).maybe_help(help)
}

fn strip_positions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" at line ") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + " at line ".len()..];
        let skip_number = |t: &str| t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let after_line = &tail[tail.len() - skip_number(tail)..];
        match after_line.strip_prefix(" column ") {
            Some(col) => rest = &col[col.len() - skip_number(col)..],
            None => {
                out.push_str(" at line ");
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// For serde's "unknown field `x`, expected one of `a`, `b`": a did-you-mean.
fn unknown_name_help(message: &str) -> Option<String> {
    let rest = message
        .split_once("unknown field `")
        .or_else(|| message.split_once("unknown variant `"))?
        .1;
    let (wrong, expected) = rest.split_once('`')?;
    let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    did_you_mean(wrong, known)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_taken_out_of_serde_messages() {
        assert_eq!(
            strip_positions(
                "did not find expected ',' at line 4 column 26, while parsing a flow mapping"
            ),
            "did not find expected ',', while parsing a flow mapping"
        );
    }

    #[test]
    fn serde_unknown_fields_get_a_suggestion() {
        let help = unknown_name_help(
            "methods.get: unknown field `requets`, expected one of `doc`, `request`, `path`",
        );
        assert_eq!(help.as_deref(), Some("did you mean `request`?"));
    }
}

//! Reading a description and the files its `$ref`s point into, and following `$ref`s.
//!
//! Every file becomes a `serde_json::Value` tree (YAML read as such). A `$ref` is `#/pointer`
//! (this file), `other.yaml#/pointer` or `other.yaml` (a file relative to the one that refers to
//! it, inside the description's directory: a description is other parties' input, and may not
//! read the rest of the disk). `$ref` keys under `example`/`examples` are data and never followed.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

mod boundary;
mod read;
mod text;

use read::read;

use crate::Error;

/// The most bytes a description file may have: the largest public ones are a few MB.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// Which OpenAPI a description is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    /// Swagger 2.0.
    Swagger2,
    /// OpenAPI 3.0.x.
    V30,
    /// OpenAPI 3.1.x (and 3.2: read as 3.1).
    V31,
}

/// A place in a description: a file and a JSON pointer in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Place {
    pub(crate) file: PathBuf,
    pub(crate) pointer: String,
}

impl Place {
    /// The place of `key` below this one.
    pub(crate) fn child(&self, key: &str) -> Place {
        Place {
            file: self.file.clone(),
            pointer: format!("{}/{}", self.pointer, escape(key)),
        }
    }
}

/// The description's files, read as they are needed.
#[derive(Debug)]
pub(crate) struct Documents {
    /// The directories every file must be in (by real path): the nearest enclosing
    /// version-control root of the description (a folder holding `.git`), else its folder,
    /// and the ones `--ref-root` adds.
    roots: Vec<PathBuf>,
    /// The description's folder: notes name files relative to it.
    home: PathBuf,
    /// URL prefixes read from local directories instead (`--ref-dir URL=DIR`), the directories
    /// canonical; a file under one may be read too.
    mirrors: Vec<(String, PathBuf)>,
    /// The description itself.
    pub(crate) main: PathBuf,
    files: HashMap<PathBuf, Value>,
    /// Text files read for a `description`, so a build script reruns when they change.
    texts: Vec<PathBuf>,
    /// What reading found, for the summary: an overlay target that selects nothing, a text
    /// file read into a description or refused.
    pub(crate) notes: Vec<(Place, String)>,
    /// The overlays applied, in order, as the spec's header names them (relative paths).
    pub(crate) overlays: Vec<PathBuf>,
    /// JSON pointers, in the description, of the nodes an overlay updated or removed.
    pub(crate) overlaid: Vec<String>,
    pub(crate) version: Version,
}

impl Documents {
    /// Reads the description at `path`.
    pub(crate) fn open(
        path: &Path,
        ref_dirs: &[(String, PathBuf)],
        ref_roots: &[PathBuf],
        overlays: &[PathBuf],
    ) -> Result<Documents, Error> {
        let main = canonical(path)?;
        let mut mirrors = Vec::new();
        for (url, dir) in ref_dirs {
            mirrors.push((url.clone(), canonical(dir)?));
        }
        let home = main
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        // The tree a user points at: the repository the description is in, else its folder.
        let repository = home
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .map(Path::to_path_buf);
        let mut roots = vec![repository.unwrap_or_else(|| home.clone())];
        for root in ref_roots {
            roots.push(canonical(root)?);
        }
        let mut value = read(&main)?;
        let mut overlay_notes = Vec::new();
        let mut overlay_files = Vec::new();
        let mut overlaid = Vec::new();
        for overlay in overlays {
            let file = canonical(overlay)?;
            let place = |pointer: String| Place {
                file: file.clone(),
                pointer,
            };
            let notes = crate::overlay::apply(&mut value, &read(&file)?, &mut overlaid)
                .map_err(|(pointer, message)| Error::at(&place(pointer), message))?;
            overlay_notes.extend(
                notes
                    .into_iter()
                    .map(|(pointer, message)| (place(pointer), message)),
            );
            overlay_files.push(file);
        }
        let version = version(&value, &main)?;
        let overlays = overlay_files
            .iter()
            .map(|f| relative_to(&home, f))
            .collect();
        let mut documents = Documents {
            overlays,
            roots,
            home,
            mirrors,
            main: main.clone(),
            files: HashMap::new(),
            texts: overlay_files,
            overlaid,
            version,
            notes: overlay_notes,
        };
        documents.add(main, value);
        Ok(documents)
    }

    /// Every file read so far.
    pub(crate) fn files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self.files.keys().cloned().collect();
        files.extend(self.texts.iter().cloned());
        files.dedup();
        files
    }

    /// `file` as the notes name it: relative to the description's directory (`../common/x.yml`
    /// for a sibling folder), never an absolute path of this machine, which would end up in a
    /// committed spec.
    pub(crate) fn relative(&self, file: &Path) -> PathBuf {
        relative_to(&self.home, file)
    }

    /// Applies `overlay` (a document in memory) to the description's top document, as the
    /// overlays named when it was opened were; its notes, or where it is not one.
    pub(crate) fn apply_overlay(
        &mut self,
        overlay: &Value,
    ) -> Result<Vec<crate::overlay::OverlayNote>, crate::overlay::OverlayNote> {
        let main = self.main.clone();
        let Some(value) = self.files.get_mut(&main) else {
            return Ok(Vec::new());
        };
        crate::overlay::apply(value, overlay, &mut self.overlaid)
    }

    /// The description's top-level value.
    pub(crate) fn root_value(&self) -> &Value {
        &self.files[&self.main]
    }

    /// The place of the description's top.
    pub(crate) fn top(&self) -> Place {
        Place {
            file: self.main.clone(),
            pointer: String::new(),
        }
    }

    /// The value at `place`, and where it really is: a pointer that passes through a `$ref`
    /// on its way (`#/components/schemas/Pet/properties/id` where `Pet` is a `$ref` into
    /// another file) goes on from that reference's target, as the ecosystem's resolvers do.
    pub(crate) fn resolve(&mut self, place: &Place) -> Option<(Place, Value)> {
        if let Some(value) = self.files.get(&place.file)?.pointer(&place.pointer) {
            return Some((place.clone(), value.clone()));
        }
        let mut current = Place {
            file: place.file.clone(),
            pointer: String::new(),
        };
        for segment in place.pointer.split('/').skip(1) {
            for _ in 0..64 {
                let value = self.files.get(&current.file)?.pointer(&current.pointer)?;
                let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
                    break;
                };
                let reference = reference.to_owned();
                current = self.target(&current, &reference).ok()?;
            }
            current.pointer = format!("{}/{segment}", current.pointer);
        }
        let value = self.files.get(&current.file)?.pointer(&current.pointer)?;
        Some((current, value.clone()))
    }

    /// Follows `value`'s `$ref` (found at `at`), repeatedly, to the value it names and its place;
    /// a value without one is itself.
    pub(crate) fn follow(&mut self, at: &Place, value: &Value) -> Result<(Place, Value), Error> {
        let mut place = at.clone();
        let mut value = value.clone();
        for _ in 0..64 {
            let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
                return Ok((place, value));
            };
            let target = self.target(&place, reference)?;
            (place, value) = self.resolve(&target).ok_or_else(|| {
                Error::at(&place, format!("`$ref: {reference}` points at nothing"))
            })?;
        }
        Err(Error::at(&place, "`$ref`s go round in a circle"))
    }

    /// The place a `$ref` found at `from` names, its file read if it is new.
    pub(crate) fn target(&mut self, from: &Place, reference: &str) -> Result<Place, Error> {
        let (file, pointer) = match reference.split_once('#') {
            Some((file, pointer)) => (file, pointer),
            None => (reference, ""),
        };
        let pointer = percent_decode(pointer);
        let file = if file.is_empty() {
            from.file.clone()
        } else {
            let path = self.target_path(from, reference)?;
            if let Some(why) = self.not_a_description_file(&path) {
                return Err(Error::at(
                    from,
                    format!("`$ref: {reference}` is not read: {why}"),
                ));
            }
            if !self.files.contains_key(&path) {
                let value = read(&path).map_err(|e| {
                    Error::at(
                        from,
                        format!(
                            "`$ref: {reference}`: {}: {}",
                            relative_to(&self.home, &path).display(),
                            e.message
                        ),
                    )
                })?;
                self.add(path.clone(), value);
            }
            path
        };
        Ok(Place { file, pointer })
    }
}

/// What a description's top says it is.
fn version(value: &Value, file: &Path) -> Result<Version, Error> {
    let top = Place {
        file: file.to_path_buf(),
        pointer: String::new(),
    };
    if !value.is_object() {
        return Err(Error::at(
            &top,
            "not an OpenAPI description: the top is not a mapping",
        ));
    }
    if let Some(swagger) = value.get("swagger") {
        return match swagger.as_str() {
            Some(v) if v.starts_with("2.") => Ok(Version::Swagger2),
            _ => Err(Error::at(
                &top.child("swagger"),
                format!("unknown Swagger version {swagger}: 2.0 is read"),
            )),
        };
    }
    match value.get("openapi").and_then(Value::as_str) {
        Some(v) if v.starts_with("3.0") => Ok(Version::V30),
        Some(v) if v.starts_with("3.1") || v.starts_with("3.2") => Ok(Version::V31),
        Some(v) => Err(Error::at(
            &top.child("openapi"),
            format!("unknown OpenAPI version `{v}`: 2.0, 3.0.x, 3.1.x and 3.2.x are read"),
        )),
        None => Err(Error::at(
            &top,
            "not an OpenAPI description: no `openapi:` (or `swagger:`) version",
        )),
    }
}

/// `path` relative to the folder `base` (both absolute): `..` up to what they share, then down.
fn relative_to(base: &Path, path: &Path) -> PathBuf {
    let base: Vec<_> = base.components().collect();
    let target: Vec<_> = path.components().collect();
    let shared = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    if shared == 0 {
        // Nothing shared (another drive): the file's name alone says enough.
        return path.file_name().map(PathBuf::from).unwrap_or_default();
    }
    let mut out = PathBuf::new();
    for _ in shared..base.len() {
        out.push("..");
    }
    for part in &target[shared..] {
        out.push(part);
    }
    out
}

fn canonical(path: &Path) -> Result<PathBuf, Error> {
    path.canonicalize()
        .map_err(|e| Error::io(path, format!("cannot read it: {e}")))
}

/// `a/./b/../c` → `a/c`, without touching the disk (a missing file is reported when read).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A key as a JSON pointer segment.
pub(crate) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `text` with its `%XX` escapes decoded; one that is not an escape stays as it is.
pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The last segment of a JSON pointer, unescaped: a named schema's name.
pub(crate) fn last_segment(pointer: &str) -> String {
    pointer
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .replace("~1", "/")
        .replace("~0", "~")
}

//! Reading a description and the files its `$ref`s point into, and following `$ref`s.
//!
//! Every file becomes a `serde_json::Value` tree (YAML read as such). A `$ref` is `#/pointer`
//! (this file), `other.yaml#/pointer` or `other.yaml` (a file relative to the one that refers to
//! it, inside the description's directory: a description is other parties' input, and may not
//! read the rest of the disk). `$ref` keys under `example`/`examples` are data and never followed.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::Error;
use crate::files::read_capped;

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

    /// The file a `$ref` found at `from` names, if it may be read: beside the description or
    /// below its directory, no URL, no absolute path.
    fn target_path(&self, from: &Place, reference: &str) -> Result<PathBuf, Error> {
        let file = reference
            .split_once('#')
            .map_or(reference, |(file, _)| file);
        if file.contains("://") {
            let Some((url, dir, rest)) = self
                .mirrors
                .iter()
                .find_map(|(url, dir)| Some((url, dir, file.strip_prefix(url.as_str())?)))
            else {
                return Err(Error::at(
                    from,
                    format!(
                        "`$ref: {reference}` leaves the description: only files beside it are read (a local copy of it: --ref-dir URL=DIR)"
                    ),
                ));
            };
            // Judged by real path, as any other file: a symlink in the copy may point out.
            let path = normalize(&dir.join(percent_decode(rest.trim_start_matches('/'))));
            let path = path.canonicalize().unwrap_or(path);
            if !path.starts_with(dir) {
                return Err(Error::at(
                    from,
                    format!(
                        "`$ref: {reference}` is read from the local copy of {url} (--ref-dir), and leads out of that folder (a link, or `..`): not read"
                    ),
                ));
            }
            return Ok(path);
        }
        if Path::new(file).is_absolute() {
            return Err(Error::at(
                from,
                format!(
                    "`$ref: {reference}` leaves the description: only files beside it are read"
                ),
            ));
        }
        let joined = from
            .file
            .parent()
            .unwrap_or(Path::new(""))
            .join(percent_decode(file));
        let path = normalize(&joined);
        // A symlink inside the tree may point anywhere (`rootlink -> /`): where the file really
        // is decides. A file that is not there keeps its written path, for the "cannot read"
        // note.
        let path = path.canonicalize().unwrap_or(path);
        let allowed = self.roots.iter().any(|root| path.starts_with(root))
            || self.mirrors.iter().any(|(_, dir)| path.starts_with(dir));
        if !allowed {
            return Err(Error::at(
                from,
                format!(
                    "`$ref: {reference}` is outside the description's tree (its repository, else its folder); allow the folder it is in with --ref-root DIR"
                ),
            ));
        }
        Ok(path)
    }

    /// Keeps a file's value, its text references read: a `description` (or `summary`) that is
    /// a `$ref` to a Markdown, text or HTML page in the description's folder (or below, or in a
    /// `--ref-root`) is that page's text, where the specification expects a string. Each page
    /// read is named in a note; any other text reference is left out, and said so.
    fn add(&mut self, file: PathBuf, mut value: Value) {
        let mut texts = Vec::new();
        text_references(&mut value, &mut String::new(), &mut texts);
        let place = Place {
            file: file.clone(),
            pointer: String::new(),
        };
        for (pointer, reference) in texts {
            let at = Place {
                file: file.clone(),
                pointer: pointer.clone(),
            };
            let text = self.text_path(&place, &reference).and_then(|path| {
                let text = read_capped(&path, MAX_FILE_BYTES)
                    .map_err(|e| format!("cannot be read: {e}"))?;
                Ok((path, text))
            });
            let slot = value.pointer_mut(&pointer);
            match text {
                Ok((path, text)) => {
                    let shown = relative_to(&self.home, &path);
                    self.notes.push((
                        at,
                        format!("the text of `{}` is read as written here", shown.display()),
                    ));
                    self.texts.push(path);
                    if let Some(slot) = slot {
                        *slot = Value::String(text);
                    }
                }
                Err(why) => {
                    let reference = crate::escape::one_line(&reference);
                    self.notes.push((
                        at,
                        format!("the text `$ref: {reference}` is left out: {why}"),
                    ));
                    if let Some(slot) = slot {
                        *slot = Value::Null;
                    }
                }
            }
        }
        self.files.insert(file, value);
    }

    /// Why a file a structural `$ref` names is not read as part of the description, if it is
    /// not: only JSON and YAML files are (a `.env` or a key file reads as YAML too), and never
    /// a dotfile or a file in a dot-folder below the tree's root.
    fn not_a_description_file(&self, path: &Path) -> Option<&'static str> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !matches!(extension.as_deref(), Some("json" | "yaml" | "yml")) {
            return Some("only a `.json`, `.yaml` or `.yml` file is part of a description");
        }
        let folders = self
            .roots
            .iter()
            .chain(self.mirrors.iter().map(|(_, dir)| dir));
        let below = folders
            .filter_map(|folder| path.strip_prefix(folder).ok())
            .min_by_key(|rest| rest.components().count());
        below
            .is_some_and(hidden)
            .then_some("a dotfile or a file in a dot-folder is never read")
    }

    /// The page a text `$ref` found at `from` names, if it may be read into the client's docs
    /// (which are committed and often published): a `.md`, `.markdown`, `.txt` or `.html` file
    /// in the description's own folder or below it, or in a folder `--ref-root` names, and
    /// never a dotfile or a file in a dot-folder (`.env`, `.git/`, `.ssh/`). The wider tree a
    /// JSON or YAML `$ref` may reach is not enough: a secret kept elsewhere in the repository
    /// must not become documentation.
    fn text_path(&self, from: &Place, reference: &str) -> Result<PathBuf, String> {
        let extension = Path::new(reference)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !matches!(
            extension.as_deref(),
            Some("md" | "markdown" | "txt" | "html")
        ) {
            return Err(
                "only a `.md`, `.markdown`, `.txt` or `.html` page is read as text".to_owned(),
            );
        }
        let outside = "it is outside the description's folder (a text page is read only from there or below, or from a --ref-root DIR)";
        let path = self
            .target_path(from, reference)
            .map_err(|_| outside.to_owned())?;
        let folders = std::iter::once(&self.home)
            .chain(self.roots.iter().skip(1))
            .chain(self.mirrors.iter().map(|(_, dir)| dir));
        let below = folders
            .filter_map(|folder| path.strip_prefix(folder).ok())
            .min_by_key(|rest| rest.components().count());
        let Some(below) = below else {
            return Err(outside.to_owned());
        };
        if hidden(below) {
            return Err("a dotfile or a file in a dot-folder is never read".to_owned());
        }
        Ok(path)
    }
}

/// True when a part of `below` (a path below a folder) is a dotfile or a dot-folder.
fn hidden(below: &Path) -> bool {
    below.components().any(
        |part| matches!(part, Component::Normal(name) if name.to_string_lossy().starts_with('.')),
    )
}

/// The `description`/`summary` values below `value` that are a `$ref` to a text file (by its
/// extension: anything but JSON and YAML), as (JSON pointer, reference).
fn text_references(value: &mut Value, pointer: &mut String, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if matches!(key.as_str(), "example" | "examples") {
                    continue;
                }
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape(key));
                let reference = child
                    .as_object()
                    .filter(|o| o.len() == 1)
                    .and_then(|o| o.get("$ref"))
                    .and_then(Value::as_str);
                match reference {
                    Some(reference)
                        if matches!(key.as_str(), "description" | "summary")
                            && is_text_file(reference) =>
                    {
                        out.push((pointer.clone(), reference.to_owned()));
                    }
                    _ => text_references(child, pointer, out),
                }
                pointer.truncate(length);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                text_references(item, pointer, out);
                pointer.truncate(length);
            }
        }
        _ => {}
    }
}

/// True for a reference to a whole file that is not named as JSON or YAML (a Markdown page, or
/// a file without an extension, which is refused with a note rather than dropped unsaid).
fn is_text_file(reference: &str) -> bool {
    let extension = Path::new(reference)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    !reference.is_empty()
        && !reference.contains('#')
        && !matches!(extension.as_deref(), Some("json" | "yaml" | "yml"))
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

/// A file as a value tree: JSON, or YAML (by extension, else by trying JSON first).
fn read(path: &Path) -> Result<Value, Error> {
    let place = Place {
        file: path.to_path_buf(),
        pointer: String::new(),
    };
    let text = read_capped(path, MAX_FILE_BYTES).map_err(|e| Error::io(path, e.to_string()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let json_first = path.extension().is_some_and(|e| e == "json");
    let as_json = || {
        serde_json::from_str::<Value>(text).map_err(|e| {
            Error::at(
                &place,
                format!("invalid JSON at {}:{}: {e}", e.line(), e.column()),
            )
        })
    };
    if json_first {
        return as_json().or_else(|error| wide_numbers(text, true).ok_or(error));
    }
    if let Err(deep) = crate::nesting::check_flow_nesting(text) {
        return Err(Error::at(
            &place,
            format!("invalid YAML at {}:{}: {deep}", deep.line, deep.column),
        ));
    }
    match serde_yaml::from_str::<Value>(text) {
        Ok(value) => Ok(value),
        Err(e) => match as_json().ok().or_else(|| wide_numbers(text, false)) {
            Some(value) => Ok(value),
            None => {
                let at = e
                    .location()
                    .map(|l| format!(" at {}:{}", l.line(), l.column()))
                    .unwrap_or_default();
                let first = e.to_string();
                let first = first.lines().next().unwrap_or_default();
                Err(Error::at(&place, format!("invalid YAML{at}: {first}")))
            }
        },
    }
}

/// A description whose numbers do not all fit a JSON value (a `minimum` of `-1e30` written out
/// in digits), read again with each such integer written as a float: it becomes the nearest
/// `f64`. Only keywords hold such numbers, and none of them types anything. An integer counts
/// when it is a whole value (after `:`, `[`, `,` or a list's `- `, before `,`, `]`, `}` or the
/// line's end), so digits inside text are left alone.
fn wide_numbers(text: &str, json: bool) -> Option<Value> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let before = text[..start]
            .trim_end_matches(' ')
            .trim_end_matches('-')
            .trim_end_matches(' ');
        let after = text[i..].trim_start_matches(' ');
        let whole_value = matches!(before.chars().last(), Some(':' | '[' | ',' | '\n') | None)
            || before.ends_with("- ");
        let ends = after.is_empty() || after.starts_with([',', ']', '}', '\n', '\r']);
        if i - start > 18 && whole_value && ends {
            out.push_str(&text[last..i]);
            out.push_str(".0");
            last = i;
        }
    }
    out.push_str(&text[last..]);
    if json {
        serde_json::from_str(&out).ok()
    } else {
        serde_yaml::from_str(&out).ok()
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

fn percent_decode(text: &str) -> String {
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

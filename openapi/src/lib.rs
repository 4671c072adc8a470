//! OpenAPI import: a Swagger 2.0, OpenAPI 3.0, 3.1 or 3.2 description (JSON or YAML, with `$ref`s
//! into other files) becomes a remcall client spec — types, methods, base URL and credentials —
//! written as readable, deterministic YAML that `remcall check` accepts.
//!
//! The description is read as a plain value tree, not through a typed OpenAPI model: real
//! descriptions break the strict models (see docs/IMPORT.md for the evidence), and a value tree
//! lets every problem be reported with its file and JSON pointer. The importer's own model is
//! typed ([`ty::Ty`] for type expressions, `spec.rs` for what is written).
//!
//! Nothing in a description that can be read fails the import: a part that cannot be carried
//! over exactly becomes the nearest faithful thing (`serde_json::Value`, a renamed item, a
//! skipped operation when the operation itself cannot be called) with a [`Note`] that says
//! where and what was lost.

// A function past 80 lines (clippy.toml) does several things: split it by what they are.
#![warn(clippy::too_many_lines)]

mod doc_text;
mod document;
mod emit;
pub mod escape;
pub mod fence;
pub mod files;
pub mod learn;
mod markdown;
pub mod names;
pub mod nesting;
mod operations;
mod overlay;
mod paging;
mod schema;
mod security;
mod service;
mod settle;
mod shapes;
mod spec;
mod status;
mod ty;
mod walk;
mod webhooks;

use std::fmt;
use std::path::{Path, PathBuf};

use document::{Documents, Place};
pub use names::PRELUDE;

/// What to import.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The client's type name (default: from the description's title).
    pub client: Option<String>,
    /// Only operations with one of these tags (default: all).
    pub tags: Vec<String>,
    /// Only these operations, by operationId or method name (default: all).
    pub operations: Vec<String>,
    /// Local copies of remote documents: a `$ref` to a URL that starts with the first of a pair
    /// is read from the second, a directory (no network is ever used).
    pub ref_dirs: Vec<(String, PathBuf)>,
    /// Folders a `$ref` may also reach, besides the description's tree (its repository — the
    /// nearest folder above it holding `.git` — else its own folder).
    pub ref_roots: Vec<PathBuf>,
    /// Items of an earlier import of the same description that `remcall check` refused: left
    /// out of this one (a method as a skipped operation, a type as `serde_json::Value`
    /// wherever it was used), each with a note saying why.
    pub refused: Vec<Refused>,
    /// What `format: date-time` and `format: date` strings become.
    pub dates: Dates,
    /// Methods the spec renames (`rename:` in a spec's overlay), as (imported name, new name):
    /// the method keeps its imported name here, and the types named after it (its options'
    /// enums, inline bodies) take the new one.
    pub renames: Vec<(String, String)>,
    /// OpenAPI Overlay 1.0 documents applied, in order, to the description before it is read.
    pub overlays: Vec<PathBuf>,
}

/// What a description's `format: date-time` and `format: date` strings become.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dates {
    /// `String`, the text as the server sent it: no dependency, and a server whose dates are
    /// not RFC 3339 (`2024-01-01 10:00:00`, as descriptions often promise otherwise) still
    /// answers.
    #[default]
    Text,
    /// `chrono::DateTime<chrono::Utc>` and `chrono::NaiveDate` (what progenitor and typify
    /// write): the crate needs `chrono` with its `serde` feature; an answer whose date is not
    /// RFC 3339 fails to decode.
    Chrono,
}

impl std::str::FromStr for Dates {
    type Err = String;

    fn from_str(text: &str) -> Result<Dates, String> {
        match text {
            "text" | "string" => Ok(Dates::Text),
            "chrono" => Ok(Dates::Chrono),
            other => Err(format!(
                "dates are `text` (String, the default) or `chrono`, not `{}`",
                escape::one_line(other)
            )),
        }
    }
}

/// An item of an imported spec that `remcall check` refused, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// A method, by its name in the spec.
    Method { name: String, reason: String },
    /// A type, by its name in the spec.
    Type { name: String, reason: String },
}

/// An imported description.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The spec, as YAML.
    pub spec: String,
    /// Every file read: the description and the files its `$ref`s point into.
    pub files: Vec<PathBuf>,
    /// The figures of the import.
    pub summary: Summary,
}

/// What an import made of a description.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Operations in the description (after the tag and operation filters).
    pub operations: usize,
    /// Methods written.
    pub methods: usize,
    /// Operations left out, with the reason.
    pub skipped: Vec<(String, String)>,
    /// Types written.
    pub types: usize,
    /// Inline types of a shape met before, written once (each use names the first).
    pub shared_types: usize,
    /// Struct fields, parameters, bodies and returns written: what the fallbacks are counted
    /// against.
    pub fields: usize,
    /// Fields, parameters and bodies typed `serde_json::Value` for want of a schema remcall reads.
    pub value_fallbacks: usize,
    /// Operations whose method keeps the verb, the route, every declared parameter, the body
    /// and a result type for a 2xx with a body (an operation that answers JSON or a stream
    /// counts once, for its two methods).
    pub faithful: usize,
    /// Everything else worth knowing: renamed items, dropped parameters, unsupported schemes.
    pub notes: Vec<Note>,
    /// Methods named without their generator's affix (FastAPI's `_{path}_{verb}`, NestJS's
    /// `Controller_`, springfox's `Using{VERB}`), as (the name taken, the name the operationId
    /// spells): a spec's entry may name either.
    pub shortened: Vec<(String, String)>,
    /// Webhook events the description declares (`webhooks`, `x-webhooks`, `callbacks`): each
    /// operation of their path items.
    pub events_declared: usize,
    /// Webhook events written, each a method of the receiver.
    pub events: usize,
}

impl Summary {
    /// True when the spec says less than the description somewhere: an operation skipped, or
    /// a note that loses something (`remcall import --strict` fails on it).
    pub fn loses_anything(&self) -> bool {
        !self.skipped.is_empty() || self.notes.iter().any(|n| n.loses)
    }
}

/// What the import did at one place of the description on the user's behalf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The file, relative to the description's directory (`../common/x.yml` for a sibling).
    pub file: PathBuf,
    /// The JSON pointer in it (empty: the file as a whole).
    pub pointer: String,
    /// What was done, and what was lost.
    pub message: String,
    /// True when the spec says less than the description here (a `Value` for a schema, a
    /// dropped parameter); false for a rename or a choice that keeps everything.
    pub loses: bool,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // What a note quotes comes from the description: on one inert line wherever it is shown.
        let file = self.file.display().to_string();
        write!(f, "{}", escape::one_line(&file))?;
        if !self.pointer.is_empty() {
            write!(f, "#{}", escape::one_line(&self.pointer))?;
        }
        write!(f, ": {}", escape::one_line(&self.message))?;
        if self.loses {
            f.write_str(" [loses]")?;
        }
        Ok(())
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} operation(s): {} method(s), {} faithful, {} skipped; {} type(s) ({} inline repeat(s) shared); {} of {} field(s) serde_json::Value; {} note(s)",
            self.operations,
            self.methods,
            self.faithful,
            self.skipped.len(),
            self.types,
            self.shared_types,
            self.value_fallbacks,
            self.fields,
            self.notes.len()
        )?;
        if self.events_declared > 0 {
            write!(
                f,
                "; {} of {} webhook event(s) received",
                self.events, self.events_declared
            )?;
        }
        Ok(())
    }
}

/// Why a description cannot be imported: the file, the JSON pointer in it, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {}", escape::one_line(&file.display().to_string()), if pointer.is_empty() { String::new() } else { format!(" at {}", escape::one_line(pointer)) }, escape::one_line(message))]
pub struct Error {
    /// The file.
    pub file: PathBuf,
    /// The JSON pointer of the offending value (empty: the file as a whole).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl Error {
    pub(crate) fn at(place: &Place, message: impl Into<String>) -> Error {
        Error {
            file: place.file.clone(),
            pointer: place.pointer.clone(),
            message: message.into(),
        }
    }

    pub(crate) fn io(file: &Path, message: impl Into<String>) -> Error {
        Error {
            file: file.to_path_buf(),
            pointer: String::new(),
            message: message.into(),
        }
    }
}

/// Imports the description at `path`. Only a description that cannot be read at all (no such
/// file, not JSON or YAML, not OpenAPI) is an error; everything else is a note.
pub fn import(path: &Path, options: &Options) -> Result<Imported, Error> {
    let mut documents = Documents::open(
        path,
        &options.ref_dirs,
        &options.ref_roots,
        &options.overlays,
    )?;
    let mut spec = walk::build(&mut documents, options);
    // A shared part (a `$ref`'d response used by two operations) is read once per use: say
    // what was done there once.
    let mut seen = std::collections::HashSet::new();
    spec.summary.notes.retain(|note| {
        seen.insert((
            note.file.clone(),
            note.pointer.clone(),
            note.message.clone(),
        ))
    });
    let summary = spec.summary.clone();
    let text = emit::yaml(&spec, path);
    let mut files = documents.files();
    files.sort();
    Ok(Imported {
        spec: text,
        files,
        summary,
    })
}

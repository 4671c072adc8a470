//! remcall-codegen turns a YAML client spec into a plain Rust client module.
//!
//! The pipeline, each stage in its own module: `spec` (YAML → model, includes merged) →
//! `validate` (every semantic check, all diagnostics at once, into the `checked` model) →
//! `ir` (names cased, types and profiles written out; cannot fail) → `render` (askama → syn →
//! prettyplease). [`generate`] runs it for many specs; [`output::write`] and [`output::check`]
//! put the result on disk. [`Builder`] is the build.rs API.

// A function past 80 lines (clippy.toml) does several things: split it by what they are.
#![warn(clippy::too_many_lines)]

mod builder;
mod checked;
mod diagnostic;
mod import;
mod ir;
pub mod learn;
mod names;
pub mod output;
mod render;
mod spec;
mod types;
mod validate;

use std::path::{Path, PathBuf};

pub use builder::Builder;
pub use diagnostic::{Diagnostic, shown_path};
pub use import::{ImportError, import};
/// What to import (the importer's options).
pub use remcall_openapi::Options as ImportOptions;
pub use render::RenderError;
pub use spec::model::schema;

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// File name, e.g. `user_client.rs`.
    pub file_name: String,
    /// Module name, e.g. `user_client`.
    pub module: String,
    /// The spec it came from.
    pub spec: PathBuf,
    /// The spec as the generated code names it: its directory's name and file name, so the
    /// same spec gives the same bytes from whatever directory, however its path is spelt.
    pub spec_label: String,
    /// Every file read for it (spec and includes).
    pub inputs: Vec<PathBuf>,
    /// The code.
    pub code: String,
    /// The typed stub (`stubs: true`): its file name (`user_client_stub.rs`, beside
    /// `file_name`, which includes it) and code.
    pub stub: Option<(String, String)>,
    /// What the spec's check warned of: it builds, but likely not as its author means.
    pub warnings: Vec<Diagnostic>,
}

/// Why generation failed.
/// Its `Debug` is its `Display` without the first `error: `: a build script's `main` that
/// returns it prints `Error: ` and its `Debug`, and `Builder::generate()?` should read like the
/// CLI.
#[derive(thiserror::Error)]
pub enum Error {
    /// Specs with problems; every problem of every spec.
    #[error("{}", render_diagnostics(.0, false))]
    Invalid(Vec<Diagnostic>),
    /// Reading or writing files failed.
    #[error("{0}")]
    Io(String),
    /// A spec passed validation but its code could not be rendered: a bug in remcall-codegen.
    #[error("{}: {source}; this is a bug in remcall-codegen, please report it with the spec", diagnostic::shown_path(.spec))]
    Render {
        /// The spec being rendered.
        spec: PathBuf,
        /// What went wrong.
        source: RenderError,
    },
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Printed after `Error: ` (a `main` that returns it): the first `error: ` would repeat it.
        let shown = self.to_string();
        f.write_str(shown.strip_prefix("error: ").unwrap_or(&shown))
    }
}

/// Every diagnostic rendered like rustc's, then a count; `color` for a terminal.
pub fn render_diagnostics(diagnostics: &[Diagnostic], color: bool) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&d.render(color));
        out.push_str("\n\n");
    }
    out.push_str(&format!(
        "{} error{} found; nothing was written",
        diagnostics.len(),
        if diagnostics.len() == 1 { "" } else { "s" }
    ));
    out
}

/// Expands directories to the `*.yaml` / `*.yml` files directly inside them, sorted. A directory
/// with none, or a file that does not exist, is an I/O error: there is no spec to check.
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut specs = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let entries = std::fs::read_dir(input).map_err(|e| {
                Error::Io(format!(
                    "cannot read directory {}: {e}",
                    diagnostic::shown_path(input)
                ))
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
                })
                .collect();
            if found.is_empty() {
                return Err(Error::Io(format!(
                    "no specs (*.yaml, *.yml) in {}",
                    diagnostic::shown_path(input)
                )));
            }
            found.sort();
            specs.extend(found);
        } else if input.exists() {
            specs.push(input.clone());
        } else {
            return Err(Error::Io(format!(
                "cannot read {}: there is no such file",
                diagnostic::shown_path(input)
            )));
        }
    }
    Ok(specs)
}

/// What generation may read beyond each spec's own directory tree.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Directories whose files a spec may include, besides its own directory and below.
    pub include_dirs: Vec<PathBuf>,
    /// Generate every client's stub, as `stubs: true` in each spec would.
    pub stubs: bool,
}

/// Loads, validates and renders every spec; fails with all diagnostics of all specs.
pub fn generate(specs: &[PathBuf]) -> Result<Vec<Generated>, Error> {
    generate_with(specs, &Options::default())
}

/// [`generate`], with `options`.
pub fn generate_with(specs: &[PathBuf], options: &Options) -> Result<Vec<Generated>, Error> {
    let mut diagnostics = Vec::new();
    let mut generated = Vec::new();
    for path in specs {
        let loaded = spec::load(path, &options.include_dirs).map_err(Error::Invalid);
        match loaded.and_then(|spec| render_spec(path, spec, options.stubs)) {
            Ok(file) => generated.push(file),
            Err(Error::Invalid(mut found)) => diagnostics.append(&mut found),
            Err(error) => return Err(error),
        }
    }
    let mut modules: Vec<(&str, &Path)> = Vec::new();
    for file in &generated {
        if let Some((_, first)) = modules.iter().find(|(m, _)| *m == file.module) {
            diagnostics.push(
                Diagnostic::new(
                    &file.spec,
                    diagnostic::Pos { line: 1, column: 1 },
                    format!(
                        "module `{}` is also generated from {}",
                        file.module,
                        diagnostic::shown_path(first)
                    ),
                )
                .help("give the clients different names"),
            );
        } else {
            modules.push((&file.module, &file.spec));
        }
    }
    if diagnostics.is_empty() {
        Ok(generated)
    } else {
        diagnostics.sort();
        Err(Error::Invalid(diagnostics))
    }
}

/// Loads, validates and renders one spec.
pub fn generate_one(path: &Path) -> Result<Generated, Error> {
    render_spec(path, spec::load(path, &[]).map_err(Error::Invalid)?, false)
}

/// Validates and renders a spec held in memory, named `path` in diagnostics and the header.
pub fn generate_text(path: &Path, text: &str) -> Result<Generated, Error> {
    render_spec(
        path,
        spec::load_text(path, text, &[]).map_err(Error::Invalid)?,
        false,
    )
}

/// Validates a spec held in memory, named `path` in diagnostics, without rendering it (what
/// `remcall import` asks of what it writes; `gen` renders it).
pub fn check_text(path: &Path, text: &str) -> Result<(), Error> {
    let spec = spec::load_text(path, text, &[]).map_err(Error::Invalid)?;
    validate::validate(&spec).map_err(Error::Invalid)?;
    Ok(())
}

/// A spec as the header names it: its directory's name and its file name (`specs/user.yaml`),
/// `/`-separated. Nothing around them counts, so the same spec gives the same bytes from
/// whatever directory, however its path is spelt, and whether or not a `Cargo.toml` has since
/// appeared above it (`cargo init` after the first `gen` would otherwise make it stale).
fn spec_label(path: &Path) -> String {
    let resolved = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut parts: Vec<String> = resolved
        .components()
        .rev()
        .filter_map(|c| match c {
            std::path::Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .take(2)
        .collect();
    parts.reverse();
    parts.join("/")
}

fn render_spec(path: &Path, spec: spec::Spec, stubs: bool) -> Result<Generated, Error> {
    let mut checked = validate::validate(&spec).map_err(Error::Invalid)?;
    checked.stubs |= stubs;
    let warnings = std::mem::take(&mut checked.warnings);
    let client = ir::lower(&checked);
    let shown = spec_label(path);
    // The path is written into the header comment and `mod.rs`: a line break in a file name
    // would end the comment and make the rest of the name code.
    if shown.chars().any(char::is_control) {
        return Err(Error::Invalid(vec![
            Diagnostic::new(
                path,
                diagnostic::Pos { line: 1, column: 1 },
                "the spec's file name holds a control character (a line break, a tab, an escape), and it is written into the generated code",
            )
            .help("rename the file"),
        ]));
    }
    let module = heck::ToSnakeCase::to_snake_case(client.name.as_str());
    let stub_file = format!("{module}_stub.rs");
    let rendered = render::render(&client, &shown, &stub_file)
        .and_then(|code| Ok((code, render::render_stub(&client, &shown)?)));
    let (code, stub) = rendered.map_err(|source| Error::Render {
        spec: path.to_path_buf(),
        source,
    })?;
    Ok(Generated {
        file_name: format!("{module}.rs"),
        stub: stub.map(|code| (stub_file, code)),
        module,
        spec: path.to_path_buf(),
        spec_label: shown,
        inputs: spec.files().map(Path::to_path_buf).collect(),
        code,
        warnings,
    })
}

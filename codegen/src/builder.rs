//! The build.rs API: `Builder::new().spec("specs/user_service.yaml").generate()?`.

use std::path::{Path, PathBuf};

use crate::{Error, Options, generate_with, output};

/// Generates clients from a build script into `OUT_DIR`, for `remcall::include_client!`.
#[derive(Debug, Default)]
pub struct Builder {
    specs: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    options: Options,
    deny_warnings: bool,
}

impl Builder {
    /// A builder with no specs.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Adds a spec file (or a directory of them), relative to the crate's manifest directory.
    pub fn spec(&mut self, path: impl Into<PathBuf>) -> &mut Builder {
        self.specs.push(path.into());
        self
    }

    /// Lets specs include files from `dir` (relative to the crate's manifest directory) as well
    /// as from their own directory tree.
    pub fn include_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Builder {
        self.options.include_dirs.push(dir.into());
        self
    }

    /// Generates each client's stub for tests too, as `stubs: true` in the spec would.
    pub fn stubs(&mut self, stubs: bool) -> &mut Builder {
        self.options.stubs = stubs;
        self
    }

    /// Fails, writing nothing, when a spec has a warning (an overlay action that selects
    /// nothing, a retry that cannot happen), as `remcall gen --deny-warnings` does.
    pub fn deny_warnings(&mut self, deny: bool) -> &mut Builder {
        self.deny_warnings = deny;
        self
    }

    /// Writes somewhere other than `OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Builder {
        self.out_dir = Some(dir.into());
        self
    }

    /// Generates every spec, writes the changed files and prints `cargo:rerun-if-changed` for
    /// every file read. Fails with every diagnostic of every spec, writing nothing.
    pub fn generate(&mut self) -> Result<(), Error> {
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::Io("OUT_DIR is not set: call generate() from a build script or set out_dir(..)".to_owned()))?,
        };
        for spec in &self.specs {
            rerun_if_changed(spec);
        }
        let specs = crate::expand_inputs(&self.specs)?;
        let generated = generate_with(&specs, &self.options)?;
        for file in &generated {
            for input in &file.inputs {
                rerun_if_changed(input);
            }
            // cargo shows a build script's warnings one line each.
            for warning in &file.warnings {
                for line in warning.to_string().lines() {
                    println!("cargo:warning={line}");
                }
            }
        }
        if self.deny_warnings {
            let warnings: Vec<crate::diagnostic::Diagnostic> = generated
                .iter()
                .flat_map(|file| file.warnings.iter().cloned())
                .collect();
            if !warnings.is_empty() {
                return Err(Error::Invalid(warnings));
            }
        }
        output::write(&out_dir, &output::files(&generated))?;
        Ok(())
    }
}

/// Tells cargo to run the build script again when `path` changes. A line break in the name
/// would end the instruction and start another (`cargo:rustc-link-arg=…`): such a file is
/// watched through its folder instead.
fn rerun_if_changed(path: &Path) {
    let text = path.to_string_lossy();
    if text.contains(['\n', '\r']) {
        let folder = path.parent().unwrap_or(Path::new("."));
        if !folder.to_string_lossy().contains(['\n', '\r']) {
            println!("cargo:rerun-if-changed={}", folder.display());
        }
        return;
    }
    println!("cargo:rerun-if-changed={text}");
}

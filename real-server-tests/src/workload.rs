//! A workload: the user's spec (`real-server-tests/specs/<name>.yaml`, whose `openapi:` names
//! the description read from the server and any overlays beside it), generated as a user's
//! build would, into a crate whose `main` is `real-server-tests/workloads/<name>.rs`; built and
//! run against the server. The program asserts what it expects at each step and exits non-zero
//! on the first that fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// The target directory the scratch crates share (with `cargo xtask conformance`'s), so the
/// runtime and its dependencies are built once.
pub const SCRATCH_TARGET: &str = "target/scratch-build";

/// The scratch crate's root: the generated client and the workload beside it, warnings denied
/// (clippy does not see the workloads: they are built only here).
const MAIN: &str = "//! A real server's workload, with the client generated from its description.\n\
#![deny(warnings)]\n\
mod api;\n\
mod workload;\n\
fn main() -> Result<(), remcall::Error> {\n    workload::main()\n}\n";

/// One server's workload, being put together.
#[derive(Debug)]
pub struct Workload {
    name: String,
    crate_dir: PathBuf,
    /// Features of remcall the program needs beyond its defaults.
    features: Vec<String>,
    /// `[dependencies]` lines beyond remcall and tokio (each crate in the workspace's lock).
    dependencies: Vec<String>,
    /// Holds the crate's folder: outside the checkout, so the description a live server gave
    /// (untrusted text) has no repository around it for its `$ref`s to reach into.
    _folder: tempfile::TempDir,
}

impl Workload {
    /// The workload `name`, in a fresh crate in a temporary folder holding the spec and the
    /// overlays of `real-server-tests/specs/` whose names start with `<name>` (as
    /// `kinto-paging.yaml`).
    pub fn new(name: &str) -> anyhow::Result<Workload> {
        let root = crate::workspace();
        let folder = tempfile::Builder::new()
            .prefix(&format!("remcall-real-server-{name}-"))
            .tempdir()?;
        let crate_dir = folder.path().join(name);
        std::fs::create_dir_all(crate_dir.join("spec"))?;
        std::fs::create_dir_all(crate_dir.join("src"))?;
        for entry in std::fs::read_dir(root.join("real-server-tests/specs"))? {
            let path = entry?.path();
            let file = path
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or_default();
            if file.starts_with(name) {
                std::fs::copy(&path, crate_dir.join("spec").join(file))?;
            }
        }
        Ok(Workload {
            name: name.to_owned(),
            crate_dir,
            features: Vec::new(),
            dependencies: Vec::new(),
            _folder: folder,
        })
    }

    /// Builds the program with remcall's `features` and the crates of `dependencies` (lines of
    /// a `[dependencies]` table), each a crate the workspace's lock holds at its version.
    pub fn with(mut self, features: &[&str], dependencies: &[&str]) -> Workload {
        self.features
            .extend(features.iter().map(|f| (*f).to_owned()));
        self.dependencies
            .extend(dependencies.iter().map(|d| (*d).to_owned()));
        self
    }

    /// Puts `bytes` (the description the server gave) beside the spec as `file`.
    pub fn description(self, file: &str, bytes: &[u8]) -> anyhow::Result<Workload> {
        std::fs::write(self.crate_dir.join("spec").join(file), bytes)?;
        Ok(self)
    }

    /// Generates the client, builds the program and runs it with `env`; its output, or what
    /// failed.
    pub fn run(self, env: &[(&str, &str)]) -> anyhow::Result<String> {
        let root = crate::workspace();
        let spec = self
            .crate_dir
            .join("spec")
            .join(format!("{}.yaml", self.name));
        let generated = remcall_codegen::generate_one(&spec)
            .map_err(|e| anyhow::anyhow!("generating the client: {e}"))?;
        for warning in &generated.warnings {
            eprintln!("{warning}");
        }
        let files = remcall_codegen::output::files(std::slice::from_ref(&generated));
        remcall_codegen::output::write(&self.crate_dir.join("src/api"), &files)
            .map_err(|e| anyhow::anyhow!("writing the client: {e}"))?;
        let program = root
            .join("real-server-tests/workloads")
            .join(format!("{}.rs", self.name));
        std::fs::copy(&program, self.crate_dir.join("src/workload.rs"))
            .with_context(|| format!("reading {}", program.display()))?;
        std::fs::write(self.crate_dir.join("src/main.rs"), MAIN)?;
        self.manifest(&root)?;
        let binary = self.build(&root)?;
        let output = Command::new(&binary)
            .envs(env.iter().copied())
            .output()
            .context("running the workload")?;
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        if !output.status.success() {
            bail!(
                "the workload failed ({}):\n{stdout}{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(stdout)
    }

    fn manifest(&self, root: &Path) -> anyhow::Result<()> {
        std::fs::write(
            self.crate_dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"workload-{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
                 [dependencies]\nremcall = {{ path = {:?}, features = {:?} }}\n\
                 tokio = {{ version = \"1\", features = [\"rt-multi-thread\", \"macros\"] }}\n{}\n[workspace]\n",
                self.name,
                root.join("runtime"),
                self.features,
                self.dependencies
                    .iter()
                    .map(|line| format!("{line}\n"))
                    .collect::<String>()
            ),
        )?;
        // The workspace's lock: the versions the workspace is tested with, none resolved anew.
        std::fs::copy(root.join("Cargo.lock"), self.crate_dir.join("Cargo.lock"))?;
        Ok(())
    }

    fn build(&self, root: &Path) -> anyhow::Result<PathBuf> {
        let target = root.join(SCRATCH_TARGET);
        let built = Command::new(env!("CARGO"))
            .current_dir(&self.crate_dir)
            .args(["build", "--quiet"])
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .context("running cargo build")?;
        if !built.status.success() {
            bail!(
                "the workload does not build:\n{}",
                String::from_utf8_lossy(&built.stderr)
            );
        }
        Ok(target.join("debug").join(format!("workload-{}", self.name)))
    }
}

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

/// The profile of every crate built in [`SCRATCH_TARGET`]: no debug information, which would
/// double what the runtime and its dependencies take on disk (twice over: with and without a
/// workload's features) and make each link slower, for backtraces nobody reads there.
pub const SCRATCH_PROFILE: &str = "[profile.dev]\ndebug = false\n";

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
    /// The description's file beside the spec, once given.
    description: Option<String>,
    /// When the run is recorded and learned from: the spec's overlays applied before
    /// learning (those that add what the description leaves out, not fixes of what it says).
    learning: Option<Vec<String>>,
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
            description: None,
            learning: None,
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
    pub fn description(mut self, file: &str, bytes: &[u8]) -> anyhow::Result<Workload> {
        std::fs::write(self.crate_dir.join("spec").join(file), bytes)?;
        self.description = Some(file.to_owned());
        Ok(self)
    }

    /// Records the run (the spec's profile says `record: { file: "${REMCALL_RECORD:-}" }`),
    /// then learns from the recording what the description gets wrong — with `overlays` of the
    /// spec's applied first, and no other: a hand-written fix of what the server sends is not
    /// one of them — and fails unless every recorded answer then checks strictly, nothing
    /// lost (`remcall learn`, docs/learn.md).
    pub fn learning(mut self, overlays: &[&str]) -> Workload {
        self.learning = Some(overlays.iter().map(|o| (*o).to_owned()).collect());
        self
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
        let recording = self.crate_dir.join("recording.jsonl");
        let mut command = Command::new(&binary);
        command.envs(env.iter().copied());
        if self.learning.is_some() {
            command.env("REMCALL_RECORD", &recording);
        }
        let output = command.output().context("running the workload")?;
        let mut stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        if !output.status.success() {
            bail!(
                "the workload failed ({}):\n{stdout}{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        if let Some(overlays) = &self.learning {
            stdout.push_str(&self.learn(&recording, overlays)?);
        }
        Ok(stdout)
    }

    /// `remcall learn` over the run's recording: what it learned, or why it does not pass.
    fn learn(&self, recording: &Path, overlays: &[String]) -> anyhow::Result<String> {
        let spec = self.crate_dir.join("spec");
        let description = spec.join(
            self.description
                .as_deref()
                .context("learning needs the description (`Workload::description`)")?,
        );
        let overlays: Vec<PathBuf> = overlays.iter().map(|o| spec.join(o)).collect();
        let out = spec.join(format!("{}-learned.yaml", self.name));
        let report = remcall_codegen::learn::learn(&description, recording, &overlays, Some(&out))
            .map_err(|e| anyhow::anyhow!("learning from the recording: {e}"))?;
        let learned = report.learned.as_ref().context("an overlay was learned")?;
        // To refresh a committed learned overlay (`specs/<name>-learned.yaml`): run the test
        // with `REMCALL_KEEP_LEARNED` naming a folder, and review what lands there.
        if let Some(keep) = std::env::var_os("REMCALL_KEEP_LEARNED") {
            std::fs::copy(
                &out,
                Path::new(&keep).join(format!("{}-learned.yaml", self.name)),
            )?;
        }
        let mut said = format!(
            "learned {} action(s), {} proposal(s) from the recording\n",
            learned.actions, learned.proposals
        );
        let mut answers = 0;
        for (method, seen) in &report.methods {
            answers += seen.answers;
            said.push_str(&format!(
                "  {method}: {} answer(s), {} strict, {} lost\n",
                seen.answers, seen.strict, seen.lost
            ));
            for problem in &seen.problems {
                said.push_str(&format!("    {problem}\n"));
            }
        }
        if answers == 0 {
            bail!("the recording holds no answer with a JSON body:\n{said}");
        }
        if !report.passes() {
            bail!(
                "the recorded answers do not all check strictly with the learned overlay:\n{said}{:?}\n{}",
                report.overlay_notes,
                learned.overlay
            );
        }
        Ok(said)
    }

    fn manifest(&self, root: &Path) -> anyhow::Result<()> {
        std::fs::write(
            self.crate_dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"workload-{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
                 [dependencies]\nremcall = {{ path = {:?}, features = {:?} }}\n\
                 tokio = {{ version = \"1\", features = [\"rt-multi-thread\", \"macros\"] }}\n{}\n{}\n[workspace]\n",
                self.name,
                root.join("runtime"),
                self.features,
                self.dependencies
                    .iter()
                    .map(|line| format!("{line}\n"))
                    .collect::<String>(),
                SCRATCH_PROFILE
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

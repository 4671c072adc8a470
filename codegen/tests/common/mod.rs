//! What several test files share: a crate of generated clients, checked with clippy against the
//! real runtime.

use std::path::Path;

/// Writes `generated` into a crate beside the workspace (its root `remcall gen`'s mod.rs, with
/// the lint allowances) and runs `clippy -D warnings` on it, with the workspace's lock file so no
/// dependency is re-resolved and a target directory of its own that stays warm between runs.
/// Returns clippy's stderr when it fails.
pub fn clippy_clean(generated: &[remcall_codegen::Generated]) -> Result<(), String> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    for (name, content) in remcall_codegen::output::files(generated) {
        let (name, content) = match name.as_str() {
            "mod.rs" => ("lib.rs".to_owned(), format!("//! Sample.\n{content}")),
            _ => (name, content),
        };
        std::fs::write(src.join(name), content).unwrap();
    }
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"sample\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[dependencies]\nremcall = {{ path = {:?} }}\n\n[workspace]\n",
            workspace.join("runtime")
        ),
    )
    .unwrap();
    std::fs::copy(workspace.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    let output = std::process::Command::new(env!("CARGO"))
        .args([
            "clippy",
            "--quiet",
            "--offline",
            "--message-format",
            "short",
            "--",
            "-D",
            "warnings",
        ])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", workspace.join("target/sample-check"))
        .output()
        .unwrap();
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

//! The real servers of `real-server-tests/` (remcall-real-server-tests' `PACKAGES`), installed
//! from PyPI with pip into `target/servers/<name>` when missing or of another lock. Each is
//! installed from its lock (`real-server-tests/locks/`: pinned, hashed, wheels only, nothing
//! resolved anew) into a folder of its own beside that one and moved into place whole: an
//! install that fails leaves nothing a test would take for a server.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};
use remcall_real_server_tests::{PACKAGES, servers_dir};

pub(crate) fn provision(root: &Path) -> anyhow::Result<()> {
    let dir = servers_dir(root);
    std::fs::create_dir_all(&dir)?;
    for package in PACKAGES {
        let home = dir.join(package.name);
        let marker = home.join(".installed");
        if std::fs::read_to_string(&marker).is_ok_and(|m| m == package.lock) {
            continue;
        }
        eprintln!("installing {} into {}", package.requirement, home.display());
        let partial = dir.join(format!("{}.partial", package.name));
        let _ = std::fs::remove_dir_all(&partial);
        std::fs::create_dir_all(&partial)?;
        let lock = dir.join(format!("{}.lock.txt", package.name));
        std::fs::write(&lock, package.lock)?;
        let mut pip = Command::new("python3");
        pip.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-input",
            "--root-user-action=ignore",
            "--require-hashes",
            "--only-binary",
            ":all:",
            "--no-deps",
            "--target",
        ])
        .arg(&partial)
        .arg("--requirement")
        .arg(&lock);
        let status = pip
            .status()
            .context("running pip (python3 -m pip; Debian: apt-get install python3-pip)")?;
        if !status.success() {
            bail!("pip could not install {}", package.requirement);
        }
        std::fs::write(partial.join(".installed"), package.lock)?;
        let _ = std::fs::remove_dir_all(&home);
        std::fs::rename(&partial, &home)?;
    }
    Ok(())
}

//! `cargo xtask fresh-machine`: the README's two commands on a machine that has none of what the
//! tests start. A Debian root made by `debootstrap` (kept in `target/fresh-machine/base`, made
//! once) with only what a new machine of this kind has — gcc, git, CA certificates; no Redis, no
//! Chromium, no Node — is copied afresh, this checkout's committed `HEAD` cloned into it, and the
//! machine's Rust toolchain lent to it (`~/.rustup` and `~/.cargo` bind-mounted, with cargo's
//! download cache) and its certificate authorities copied in. In it, as a
//! new user would: `cargo run -p remcall-demo`, then `cargo xtask test`, which must install what
//! it needs and pass. Needs root (debootstrap, chroot, mount) and Debian's package mirror.
//! Not in `.ci/run`: it builds the workspace a second time (about half an hour on 2 cores).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// What a new machine of this kind has besides Rust (see the workplace's machine notes).
const BASE_PACKAGES: &str = "gcc,libc6-dev,git,ca-certificates,pkg-config,python3,procps";

/// The README's two commands, in order.
const README_COMMANDS: [&str; 2] = ["cargo run -p remcall-demo", "cargo xtask test"];

pub(crate) fn run(root: &Path) -> anyhow::Result<()> {
    let home = PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?);
    let machine = root.join("target/fresh-machine");
    let base = machine.join("base");
    if !base.join("usr/bin/apt-get").exists() {
        std::fs::create_dir_all(&machine)?;
        sh(Command::new("debootstrap").args([
            "--variant=minbase",
            &format!("--include={BASE_PACKAGES}"),
            "bookworm",
            &base.to_string_lossy(),
            "http://deb.debian.org/debian",
        ]))
        .context("debootstrap (Debian: apt-get install -y debootstrap)")?;
    }
    let fresh = machine.join("root");
    // A run stopped by a signal leaves its mounts: unmount them before anything is removed,
    // for removing a root with `/dev` or the toolchain still mounted in it would remove those.
    unmount_under(&fresh)?;
    if fresh.exists() {
        std::fs::remove_dir_all(&fresh)
            .with_context(|| format!("removing the last run's {}", fresh.display()))?;
    }
    sh(Command::new("cp").arg("-a").arg(&base).arg(&fresh))?;
    for absent in ["usr/bin/redis-server", "usr/bin/chromium", "usr/bin/npm"] {
        if fresh.join(absent).exists() {
            bail!(
                "the fresh root already has {absent}: remove {}",
                base.display()
            );
        }
    }
    std::fs::copy("/etc/resolv.conf", fresh.join("etc/resolv.conf"))?;
    let trust = machine_trust(&fresh)?;
    let checkout = fresh.join("work/remcall");
    sh(Command::new("git")
        .args(["clone", "--quiet", "--no-hardlinks"])
        .arg(root)
        .arg(&checkout))?;

    let mounts = Mounts::new(&fresh, &home)?;
    let script = format!(
        "set -e; cd /work/remcall; {}",
        README_COMMANDS
            .iter()
            .map(|c| format!("echo \"== fresh machine: {c}\"; {c}"))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let result = sh(Command::new("chroot")
        .arg(&fresh)
        .args(["/bin/sh", "-c", &script])
        .env_clear()
        .env("HOME", &home)
        .env(
            "PATH",
            format!(
                "{}/.cargo/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                home.display()
            ),
        )
        .env("RUSTUP_HOME", home.join(".rustup"))
        .env("CARGO_HOME", home.join(".cargo"))
        .env("DEBIAN_FRONTEND", "noninteractive")
        .env("NO_COLOR", "1")
        .envs(trust));
    drop(mounts);
    result.context("the README's commands on the fresh machine")?;
    eprintln!("== fresh machine: the README's two commands passed");
    Ok(())
}

/// The machine's own certificate authorities, as a new machine of this kind has them: the
/// files its CA variables name (`SSL_CERT_FILE`, `NODE_EXTRA_CA_CERTS`, …; registries may be
/// reached through a proxy that signs with them) copied to the same place in the fresh root,
/// and the variables passed on.
fn machine_trust(fresh: &Path) -> anyhow::Result<Vec<(String, String)>> {
    const VARIABLES: &[&str] = &[
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "NODE_EXTRA_CA_CERTS",
        "CURL_CA_BUNDLE",
        "GIT_SSL_CAINFO",
        "REQUESTS_CA_BUNDLE",
        "CARGO_HTTP_CAINFO",
    ];
    let mut passed = Vec::new();
    for name in VARIABLES {
        let Ok(value) = std::env::var(name) else {
            continue;
        };
        let source = Path::new(&value);
        let target = fresh.join(relative(source));
        // A directory (`SSL_CERT_DIR`) is left as the fresh root's own: its hashed links point
        // at the root's files, and the bundles carry the machine's authorities.
        if source.is_file() {
            std::fs::create_dir_all(target.parent().unwrap_or(fresh))?;
            // A symlink there points at an absolute path, which is the machine's: replace it.
            if target.symlink_metadata().is_ok() {
                std::fs::remove_file(&target)?;
            }
            std::fs::copy(source, &target)?;
        }
        passed.push(((*name).to_owned(), value));
    }
    Ok(passed)
}

/// `/proc`, `/dev` and the toolchain, mounted into the fresh root; unmounted when dropped, in
/// reverse order, whatever happened in between.
struct Mounts(Vec<PathBuf>);

impl Mounts {
    fn new(fresh: &Path, home: &Path) -> anyhow::Result<Mounts> {
        let mut mounts = Mounts(Vec::new());
        let proc = fresh.join("proc");
        sh(Command::new("mount")
            .args(["-t", "proc", "proc"])
            .arg(&proc))?;
        mounts.0.push(proc);
        let binds = [
            (PathBuf::from("/dev"), "dev".to_owned()),
            (PathBuf::from("/dev/shm"), "dev/shm".to_owned()),
            (home.join(".rustup"), format!("{}/.rustup", relative(home))),
            (home.join(".cargo"), format!("{}/.cargo", relative(home))),
        ];
        for (from, to) in binds {
            let target = fresh.join(to);
            std::fs::create_dir_all(&target)?;
            sh(Command::new("mount").arg("--bind").arg(&from).arg(&target))?;
            mounts.0.push(target);
        }
        Ok(mounts)
    }
}

impl Drop for Mounts {
    fn drop(&mut self) {
        for target in self.0.iter().rev() {
            let _ = Command::new("umount").arg("--lazy").arg(target).status();
        }
    }
}

/// Unmounts everything mounted at or below `root` (deepest first), and fails if anything is
/// still mounted there afterwards.
fn unmount_under(root: &Path) -> anyhow::Result<()> {
    let mounted = || -> anyhow::Result<Vec<String>> {
        let table = std::fs::read_to_string("/proc/self/mounts")?;
        let prefix = root.to_string_lossy().into_owned();
        let mut points: Vec<String> = table
            .lines()
            .filter_map(|line| line.split(' ').nth(1))
            .filter(|point| *point == prefix || point.starts_with(&format!("{prefix}/")))
            .map(str::to_owned)
            .collect();
        points.sort_by_key(|p| std::cmp::Reverse(p.len()));
        Ok(points)
    };
    for point in mounted()? {
        let _ = Command::new("umount").arg("--lazy").arg(&point).status();
    }
    let left = mounted()?;
    if !left.is_empty() {
        bail!("still mounted, not removing: {}", left.join(", "));
    }
    Ok(())
}

/// `/root` as `root`, for joining under the fresh root.
fn relative(path: &Path) -> String {
    path.to_string_lossy().trim_start_matches('/').to_owned()
}

fn sh(command: &mut Command) -> anyhow::Result<()> {
    let shown = format!("{command:?}");
    let status = command
        .status()
        .with_context(|| format!("running {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}

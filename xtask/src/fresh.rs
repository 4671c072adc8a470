//! `cargo xtask fresh-machine`: the README's two commands on a machine that has none of what the
//! tests start. A Debian root made by `debootstrap` (kept in `target/fresh-machine/base`, made
//! once) with only what a new machine of this kind has — gcc, git, CA certificates; no Redis, no
//! Chromium, no Node — is copied afresh, this checkout's committed `HEAD` cloned into it, and the
//! machine's Rust toolchain lent to it (`~/.rustup` and `~/.cargo` bind-mounted, with cargo's
//! download cache) and its certificate authorities copied in. In it, as a
//! new user would: `cargo run -p remcall-demo`, then `cargo xtask test`, which must install what
//! it needs and pass. Needs root (debootstrap, chroot, mount) and Debian's package mirror.
//! Not in `.ci/run`: it builds the workspace a second time (about half an hour on 2 cores).
//!
//! The fresh root is no sandbox: the tests run as root in it, and the machine's toolchain and
//! `/dev` are mounted in writable. Before it removes a last run's root it unmounts what is
//! still mounted there and refuses to remove anything on another device, so an interrupted run
//! cannot take the host's `/dev`, `~/.rustup` or `~/.cargo` with it.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// Debian's archive keys, which debootstrap checks the mirror's `Release` file against.
const DEBIAN_KEYRING: &str = "/usr/share/keyrings/debian-archive-keyring.gpg";

/// What a new machine of this kind has besides Rust (see the workplace's machine notes).
const BASE_PACKAGES: &str = "gcc,libc6-dev,git,ca-certificates,pkg-config,python3,procps";

/// What `cargo xtask fresh-machine --help` says.
pub(crate) const HELP: &str =
    "cargo xtask fresh-machine: runs the README's two commands in a fresh Debian root \
(made with debootstrap into target/fresh-machine, as root) that has none of what the tests start.
The root is no sandbox: the tests run as root in it, and this machine's /dev, ~/.rustup and \
~/.cargo are bind-mounted into it writable; what they do to those is done to this machine.";

/// The README's two commands, in order.
const README_COMMANDS: [&str; 2] = ["cargo run -p remcall-demo", "cargo xtask test"];

pub(crate) fn run(root: &Path) -> anyhow::Result<()> {
    let home = PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?);
    let machine = root.join("target/fresh-machine");
    let base = machine.join("base");
    if !base.join("usr/bin/apt-get").exists() {
        // The mirror is plain HTTP: what it sends is trusted only as Debian's archive key
        // signed it, and debootstrap checks that only when given the keyring.
        if !Path::new(DEBIAN_KEYRING).is_file() {
            bail!(
                "{DEBIAN_KEYRING} is missing: debootstrap would not check what the mirror sends (Debian: apt-get install -y debian-archive-keyring)"
            );
        }
        std::fs::create_dir_all(&machine)?;
        sh(Command::new("debootstrap").args([
            "--variant=minbase",
            &format!("--keyring={DEBIAN_KEYRING}"),
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
        remove_on_one_device(&fresh)
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
    for point in mounted_under(root)? {
        let _ = Command::new("umount").arg("--lazy").arg(&point).status();
    }
    let left = mounted_under(root)?;
    if !left.is_empty() {
        let shown: Vec<String> = left.iter().map(|p| p.display().to_string()).collect();
        bail!("still mounted, not removing: {}", shown.join(", "));
    }
    Ok(())
}

/// The mount points at or below `root` (compared as canonical paths, component by component),
/// deepest first; none when `root` does not exist.
fn mounted_under(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let Ok(root) = std::fs::canonicalize(root) else {
        return Ok(Vec::new());
    };
    let table = std::fs::read("/proc/self/mounts")?;
    let mut points: Vec<PathBuf> = mount_points(&table)
        .into_iter()
        .filter(|point| point.starts_with(&root))
        .collect();
    points.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
    points.dedup();
    Ok(points)
}

/// The mount points of a mount table (`/proc/self/mounts`: device, point, type, … a line), as
/// paths: the kernel writes a space, tab, newline and backslash in a point as the octal
/// escapes `\040`, `\011`, `\012` and `\134`, which are decoded here.
fn mount_points(table: &[u8]) -> Vec<PathBuf> {
    table
        .split(|&b| b == b'\n')
        .filter_map(|line| line.split(|&b| b == b' ').nth(1))
        .map(|field| PathBuf::from(OsString::from_vec(unescape_octal(field))))
        .collect()
}

/// `field` with each `\` and three octal digits as the byte they name.
fn unescape_octal(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let octal = field
            .get(i + 1..i + 4)
            .filter(|digits| field[i] == b'\\' && digits.iter().all(|d| (b'0'..=b'7').contains(d)));
        match octal {
            Some(digits) => {
                let value = digits.iter().fold(0u32, |n, d| n * 8 + u32::from(d - b'0'));
                out.push(value as u8);
                i += 4;
            }
            None => {
                out.push(field[i]);
                i += 1;
            }
        }
    }
    out
}

/// Removes `root` and everything under it, after checking that all of it is on `root`'s own
/// device: a file system still mounted below it (a bind mount of the host's `/dev` or
/// toolchain that unmounting missed) is refused, not emptied.
fn remove_on_one_device(root: &Path) -> anyhow::Result<()> {
    // A bind mount from the same disk (where `~/.rustup` and `~/.cargo` usually are) has the
    // same device number as the tree: only the mount table tells it is one.
    if let Some(point) = mounted_under(root)?.first() {
        bail!(
            "{} is a mount point under {}: not removing",
            point.display(),
            root.display()
        );
    }
    if let Some(other) = on_another_device(root)? {
        bail!(
            "{} is on another device than {} (still mounted?): not removing",
            other.display(),
            root.display()
        );
    }
    std::fs::remove_dir_all(root)?;
    Ok(())
}

/// The first entry at or below `root` on another device than `root`, without following links.
fn on_another_device(root: &Path) -> anyhow::Result<Option<PathBuf>> {
    let device = std::fs::symlink_metadata(root)?.dev();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            let meta = std::fs::symlink_metadata(&path)?;
            if meta.dev() != device {
                return Ok(Some(path));
            }
            if meta.is_dir() {
                pending.push(path);
            }
        }
    }
    Ok(None)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mount_table_is_read_with_its_escapes_decoded() {
        let table = b"proc /proc proc rw 0 0\n\
/dev /work/my\\040checkout/target/fresh-machine/root/dev devtmpfs rw 0 0\n\
x /a\\011tab\\012newline\\134backslash\\0 tmpfs rw 0 0\n";
        assert_eq!(
            mount_points(table),
            [
                PathBuf::from("/proc"),
                PathBuf::from("/work/my checkout/target/fresh-machine/root/dev"),
                PathBuf::from("/a\ttab\nnewline\\backslash\\0"),
            ]
        );
    }

    /// A root whose path holds a space, with a tmpfs mounted below it (as a left-over bind
    /// mount of `/dev` would be): found, refused, unmounted, then removed. Needs root, as
    /// `fresh-machine` itself does.
    #[test]
    fn a_mount_below_a_root_with_a_space_is_found_and_never_removed_through() {
        let is_root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
        assert!(
            is_root,
            "this test mounts a tmpfs: run it as root, as fresh-machine runs"
        );
        let base = std::env::temp_dir().join(format!("fresh machine {}", std::process::id()));
        let root = base.join("root");
        let mounted = root.join("dev");
        // A bind mount of a folder on the same disk, as `~/.rustup` is: same device number.
        let toolchain = base.join("host toolchain");
        let bound = root.join("toolchain");
        for dir in [&mounted, &toolchain, &bound] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let canonical = std::fs::canonicalize(&base).unwrap();
        sh(Command::new("mount")
            .args(["-t", "tmpfs", "tmpfs"])
            .arg(&mounted))
        .unwrap();
        let kept = mounted.join("host file");
        std::fs::write(&kept, "the host's").unwrap();
        let kept_toolchain = toolchain.join("rustc");
        std::fs::write(&kept_toolchain, "the host's").unwrap();
        sh(Command::new("mount")
            .arg("--bind")
            .arg(&toolchain)
            .arg(&bound))
        .unwrap();
        let same_device =
            std::fs::metadata(&bound).unwrap().dev() == std::fs::metadata(&root).unwrap().dev();

        let mut found = mounted_under(&root).unwrap();
        found.sort();
        let refused = remove_on_one_device(&root).unwrap_err().to_string();
        let still_there = kept.exists();
        let _ = Command::new("umount").arg(&mounted).status();
        let refused_bind = remove_on_one_device(&root).map_err(|e| e.to_string());
        let still_there = still_there && kept_toolchain.exists();
        unmount_under(&root).unwrap();
        let after = mounted_under(&root).unwrap();
        remove_on_one_device(&root).unwrap();
        let removed = !root.exists();
        let toolchain_kept = kept_toolchain.exists();
        let _ = std::fs::remove_dir_all(&base);

        assert_eq!(
            found,
            [canonical.join("root/dev"), canonical.join("root/toolchain")]
        );
        assert!(refused.contains("is a mount point under"), "{refused}");
        assert!(
            same_device,
            "the bind mount shares the tree's device number"
        );
        let refused_bind = refused_bind.unwrap_err();
        assert!(
            refused_bind.contains("toolchain is a mount point"),
            "{refused_bind}"
        );
        assert!(still_there, "nothing on a mounted tree was removed");
        assert!(after.is_empty(), "{after:?}");
        assert!(removed);
        assert!(toolchain_kept, "the bound folder itself is untouched");
    }
}

//! Writing generated files: atomically, only when changed, and checking committed output.

use std::path::{Path, PathBuf};

use crate::{Error, Generated, render, shown_path};

/// The files a set of generated modules makes in an output directory: each module and `mod.rs`.
pub fn files(generated: &[Generated]) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = generated
        .iter()
        .flat_map(|g| std::iter::once((g.file_name.clone(), g.code.clone())).chain(g.stub.clone()))
        .collect();
    let modules: Vec<(String, String)> = generated
        .iter()
        .map(|g| (g.module.clone(), g.spec_label.clone()))
        .collect();
    files.push(("mod.rs".to_owned(), render::module_index(&modules)));
    files
}

/// Writes one file at `path` (relative: in the current folder) as [`write`] writes a folder's
/// files: whole or not at all.
pub fn write_one(path: &Path, content: String) -> Result<Vec<PathBuf>, Error> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    write(&dir, &[(name, content)])
}

/// Writes `files` into `dir`, only those whose content changed (so cargo does not rebuild for
/// nothing), and all of them or none: each is written to a temporary file first, created anew
/// (a link placed where the temporary goes is replaced, never followed), and only when every one
/// is written are they renamed into place. Returns the files written.
pub fn write(dir: &Path, files: &[(String, String)]) -> Result<Vec<PathBuf>, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", shown_path(dir))))?;
    // Each changed file: where it goes, its temporary, the new content, and the old one (to put
    // back should a later rename fail).
    let mut changed: Vec<(PathBuf, PathBuf, &String, Option<Vec<u8>>)> = Vec::new();
    for (name, content) in files {
        let path = dir.join(name);
        let old = std::fs::read(&path).ok();
        if old.as_deref() != Some(content.as_bytes()) {
            changed.push((path, dir.join(format!(".{name}.remcall-tmp")), content, old));
        }
    }
    let remove_temps = |changed: &[(PathBuf, PathBuf, &String, Option<Vec<u8>>)]| {
        for (_, temp, ..) in changed {
            let _ = std::fs::remove_file(temp);
        }
    };
    for (path, temp, content, _) in &changed {
        if let Err(e) = write_new(temp, content) {
            remove_temps(&changed);
            return Err(Error::Io(format!("cannot write {}: {e}", shown_path(path))));
        }
    }
    for (i, (path, temp, ..)) in changed.iter().enumerate() {
        if let Err(e) = std::fs::rename(temp, path) {
            // Put back what the renames before this one replaced.
            for (done, _, _, old) in &changed[..i] {
                let _ = match old {
                    Some(old) => std::fs::write(done, old),
                    None => std::fs::remove_file(done),
                };
            }
            remove_temps(&changed);
            return Err(Error::Io(format!("cannot write {}: {e}", shown_path(path))));
        }
    }
    Ok(changed.into_iter().map(|(path, ..)| path).collect())
}

/// Writes `content` to a file created anew at `path`: whatever is there (a stale temporary, a
/// link) is removed first, and the creation fails rather than follow a link put there since.
fn write_new(path: &Path, content: &str) -> std::io::Result<()> {
    use std::io::Write;
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(content.as_bytes())
}

/// The files in `dir` that differ from `files` or are missing.
pub fn check(dir: &Path, files: &[(String, String)]) -> Vec<PathBuf> {
    files
        .iter()
        .map(|(name, content)| (dir.join(name), content))
        .filter(|(path, content)| std::fs::read(path).map_or(true, |old| old != content.as_bytes()))
        .map(|(path, _)| path)
        .collect()
}

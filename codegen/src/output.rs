//! Writing generated files: atomically, only when changed, and checking committed output.

use std::path::{Path, PathBuf};

use crate::{Error, Generated, render};

/// The files a set of generated modules makes in an output directory: each module and `mod.rs`.
pub fn files(generated: &[Generated]) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = generated
        .iter()
        .map(|g| (g.file_name.clone(), g.code.clone()))
        .collect();
    let modules: Vec<(String, String)> = generated
        .iter()
        .map(|g| {
            (
                g.module.clone(),
                g.spec.to_string_lossy().replace('\\', "/"),
            )
        })
        .collect();
    files.push(("mod.rs".to_owned(), render::module_index(&modules)));
    files
}

/// Writes `files` into `dir`, each through a temporary file and a rename, and only when its
/// content changed (so cargo does not rebuild for nothing). Returns the files written.
pub fn write(dir: &Path, files: &[(String, String)]) -> Result<Vec<PathBuf>, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
    let mut written = Vec::new();
    for (name, content) in files {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|old| old == content.as_bytes()) {
            continue;
        }
        let temp = dir.join(format!(".{name}.remcall-tmp"));
        std::fs::write(&temp, content)
            .and_then(|()| std::fs::rename(&temp, &path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&temp);
                Error::Io(format!("cannot write {}: {e}", path.display()))
            })?;
        written.push(path);
    }
    Ok(written)
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

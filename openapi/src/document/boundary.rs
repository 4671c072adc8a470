//! Which files a description may read: where a `$ref` leads (the description's tree, a
//! `--ref-root`, a `--ref-dir` copy, by real path), which of them are part of a description (JSON
//! or YAML, no dotfile), and which pages a `description` may be read from (its own folder only).

use std::path::{Component, Path, PathBuf};

use super::{Documents, Place, normalize, percent_decode};
use crate::Error;

impl Documents {
    /// The file a `$ref` found at `from` names, if it may be read: beside the description or
    /// below its directory, no URL, no absolute path.
    pub(super) fn target_path(&self, from: &Place, reference: &str) -> Result<PathBuf, Error> {
        let file = reference
            .split_once('#')
            .map_or(reference, |(file, _)| file);
        if file.contains("://") {
            let Some((url, dir, rest)) = self
                .mirrors
                .iter()
                .find_map(|(url, dir)| Some((url, dir, file.strip_prefix(url.as_str())?)))
            else {
                return Err(Error::at(
                    from,
                    format!(
                        "`$ref: {reference}` leaves the description: only files beside it are read (a local copy of it: --ref-dir URL=DIR)"
                    ),
                ));
            };
            // Judged by real path, as any other file: a symlink in the copy may point out.
            let path = normalize(&dir.join(percent_decode(rest.trim_start_matches('/'))));
            let path = path.canonicalize().unwrap_or(path);
            if !path.starts_with(dir) {
                return Err(Error::at(
                    from,
                    format!(
                        "`$ref: {reference}` is read from the local copy of {url} (--ref-dir), and leads out of that folder (a link, or `..`): not read"
                    ),
                ));
            }
            return Ok(path);
        }
        if Path::new(file).is_absolute() {
            return Err(Error::at(
                from,
                format!(
                    "`$ref: {reference}` leaves the description: only files beside it are read"
                ),
            ));
        }
        let joined = from
            .file
            .parent()
            .unwrap_or(Path::new(""))
            .join(percent_decode(file));
        let path = normalize(&joined);
        // A symlink inside the tree may point anywhere (`rootlink -> /`): where the file really
        // is decides. A file that is not there keeps its written path, for the "cannot read"
        // note.
        let path = path.canonicalize().unwrap_or(path);
        let allowed = self.roots.iter().any(|root| path.starts_with(root))
            || self.mirrors.iter().any(|(_, dir)| path.starts_with(dir));
        if !allowed {
            return Err(Error::at(
                from,
                format!(
                    "`$ref: {reference}` is outside the description's tree (its repository, else its folder); allow the folder it is in with --ref-root DIR"
                ),
            ));
        }
        Ok(path)
    }

    /// Why a file a structural `$ref` names is not read as part of the description, if it is
    /// not: only JSON and YAML files are (a `.env` or a key file reads as YAML too), and never
    /// a dotfile or a file in a dot-folder below the tree's root.
    pub(super) fn not_a_description_file(&self, path: &Path) -> Option<&'static str> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !matches!(extension.as_deref(), Some("json" | "yaml" | "yml")) {
            return Some("only a `.json`, `.yaml` or `.yml` file is part of a description");
        }
        let folders = self
            .roots
            .iter()
            .chain(self.mirrors.iter().map(|(_, dir)| dir));
        below_nearest(path, folders)
            .is_some_and(hidden)
            .then_some("a dotfile or a file in a dot-folder is never read")
    }

    /// The page a text `$ref` found at `from` names, if it may be read into the client's docs
    /// (which are committed and often published): a `.md`, `.markdown`, `.txt` or `.html` file
    /// in the description's own folder or below it, or in a folder `--ref-root` names, and
    /// never a dotfile or a file in a dot-folder (`.env`, `.git/`, `.ssh/`). The wider tree a
    /// JSON or YAML `$ref` may reach is not enough: a secret kept elsewhere in the repository
    /// must not become documentation.
    pub(super) fn text_path(&self, from: &Place, reference: &str) -> Result<PathBuf, String> {
        let extension = Path::new(reference)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !matches!(
            extension.as_deref(),
            Some("md" | "markdown" | "txt" | "html")
        ) {
            return Err(
                "only a `.md`, `.markdown`, `.txt` or `.html` page is read as text".to_owned(),
            );
        }
        let outside = "it is outside the description's folder (a text page is read only from there or below, or from a --ref-root DIR)";
        let path = self
            .target_path(from, reference)
            .map_err(|_| outside.to_owned())?;
        let folders = std::iter::once(&self.home)
            .chain(self.roots.iter().skip(1))
            .chain(self.mirrors.iter().map(|(_, dir)| dir));
        let Some(below) = below_nearest(&path, folders) else {
            return Err(outside.to_owned());
        };
        if hidden(below) {
            return Err("a dotfile or a file in a dot-folder is never read".to_owned());
        }
        Ok(path)
    }
}

/// `path` below the nearest of `folders` that holds it, if one does.
fn below_nearest<'p, 'f>(
    path: &'p Path,
    folders: impl Iterator<Item = &'f PathBuf>,
) -> Option<&'p Path> {
    folders
        .filter_map(|folder| path.strip_prefix(folder).ok())
        .min_by_key(|rest| rest.components().count())
}

/// True when a part of `below` (a path below a folder) is a dotfile or a dot-folder.
fn hidden(below: &Path) -> bool {
    below.components().any(
        |part| matches!(part, Component::Normal(name) if name.to_string_lossy().starts_with('.')),
    )
}

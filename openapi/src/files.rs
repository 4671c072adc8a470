//! Reading a file another party wrote (a description, a spec, an include): a regular file only
//! (not a FIFO, a device or a directory), at most a cap of bytes **as read** (a `/proc` file
//! reports a size of 0 and holds more), UTF-8. The error says what is wrong, never what the file
//! holds. The generator reads specs and includes through it too.

use std::path::Path;

/// Why a file was not read.
#[derive(Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// It could not be opened or read (the I/O error's text).
    Io(String),
    /// A directory, a FIFO, a device.
    NotAFile,
    /// Larger than the cap, in bytes.
    TooLarge(u64),
    /// Not UTF-8 text.
    NotUtf8,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::Io(error) => write!(f, "cannot read it: {error}"),
            Unreadable::NotAFile => f.write_str("not a regular file"),
            Unreadable::TooLarge(cap) => write!(f, "larger than {} MiB", cap.div_ceil(1 << 20)),
            Unreadable::NotUtf8 => f.write_str("not UTF-8 text"),
        }
    }
}

/// The text of the file at `path`, read as the module says, at most `cap` bytes.
pub fn read_capped(path: &Path, cap: u64) -> Result<String, Unreadable> {
    use std::io::Read;
    let io = |e: std::io::Error| Unreadable::Io(e.to_string());
    // Looked at before opening: opening a FIFO waits for a writer.
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(Unreadable::NotAFile);
    }
    if meta.len() > cap {
        return Err(Unreadable::TooLarge(cap));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(Unreadable::TooLarge(cap));
    }
    String::from_utf8(bytes).map_err(|_| Unreadable::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/proc` files report a size of 0 and hold more: the cap counts the bytes read.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_cap_counts_bytes_read_not_the_size_a_file_reports() {
        let status = Path::new("/proc/self/status");
        assert_eq!(std::fs::metadata(status).unwrap().len(), 0);
        let error = read_capped(status, 16).unwrap_err();
        assert_eq!(error, Unreadable::TooLarge(16));
        assert!(read_capped(status, 1 << 20).unwrap().contains("Name:"));
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.yaml");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Opening it would wait for a writer forever; it is refused before that.
        assert_eq!(
            read_capped(&fifo, 1 << 20).unwrap_err(),
            Unreadable::NotAFile
        );
        assert_eq!(
            read_capped(dir.path(), 1 << 20).unwrap_err(),
            Unreadable::NotAFile
        );
    }
}

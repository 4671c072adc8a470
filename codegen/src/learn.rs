//! `remcall learn`: the loop that closes a description on its server. A recording of real
//! exchanges (a client's `record:`) is walked against the description; what they part on is
//! written as an overlay (`remcall_openapi::learn`); the description is imported again with it,
//! and every recorded answer checked against it as strict decoding reads: `passes` when every
//! answer of every method is taken whole. With `check` alone nothing is learned or written: the
//! recording is checked against the description and the overlays as they are (a user's CI,
//! after a new version of the description or of the server).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use remcall_openapi::learn::{Learned, MethodCheck, Recorded};

use crate::output;

/// The largest recording read: far past a fixture a person commits.
const MAX_RECORDING_BYTES: u64 = 256 << 20;

/// What `learn` did and found.
#[derive(Debug, Clone)]
pub struct Report {
    /// The overlay learned (none with `check`).
    pub learned: Option<Learned>,
    /// Per method, how its recorded answers fare against the description as overlaid.
    pub methods: BTreeMap<String, MethodCheck>,
    /// The import's notes about the overlays (an action that selects nothing).
    pub overlay_notes: Vec<String>,
}

impl Report {
    /// Every recorded answer is taken whole, and every overlay action selects something.
    pub fn passes(&self) -> bool {
        self.methods.values().all(MethodCheck::passes) && self.overlay_notes.is_empty()
    }
}

/// Why `learn` did nothing.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    /// The recording cannot be read, or a line of it is not an exchange.
    #[error("the recording {0}")]
    Recording(String),
    /// The description (or an overlay) cannot be read.
    #[error("{0}")]
    Description(#[from] remcall_openapi::Error),
    /// The overlay cannot be written.
    #[error("cannot write the overlay: {0}")]
    Write(String),
}

/// Learns from the recording at `recording` what the description at `description` (with
/// `overlays`) gets wrong, writes it to `out`, and checks the recording against the result;
/// with `out` `None`, only checks.
pub fn learn(
    description: &Path,
    recording: &Path,
    overlays: &[PathBuf],
    out: Option<&Path>,
) -> Result<Report, LearnError> {
    let text = remcall_openapi::files::read_capped(recording, MAX_RECORDING_BYTES)
        .map_err(|e| LearnError::Recording(format!("{}: {e}", crate::shown_path(recording))))?;
    let recorded: Vec<Recorded> = remcall_openapi::learn::read_recording(&text)
        .map_err(|e| LearnError::Recording(format!("{}: {e}", crate::shown_path(recording))))?;
    let mut overlays = overlays.to_vec();
    let learned = match out {
        Some(out) => {
            let learned = remcall_openapi::learn::learn(description, &overlays, &recorded)?;
            output::write_one(out, learned.overlay.clone())
                .map_err(|e| LearnError::Write(e.to_string()))?;
            overlays.push(out.to_path_buf());
            Some(learned)
        }
        None => None,
    };
    let methods = remcall_openapi::learn::check(description, &overlays, &recorded)?;
    // Imported again with every overlay: an action that selects nothing is said.
    let options = remcall_openapi::Options {
        overlays: overlays.clone(),
        ..remcall_openapi::Options::default()
    };
    let imported = remcall_openapi::import(description, &options)?;
    let overlay_notes = imported
        .summary
        .notes
        .iter()
        .filter(|note| note.message.contains("selects nothing"))
        .map(ToString::to_string)
        .collect();
    Ok(Report {
        learned,
        methods,
        overlay_notes,
    })
}

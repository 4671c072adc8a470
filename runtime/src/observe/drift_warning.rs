//! The warning a method logs the first time decoding notices drift at a place: apart from
//! `drift.rs` (which remembers the places) and `stats.rs` (which counts them), as it uses both.

use crate::decode::lax::Drift;
use crate::observe::stats::Counters;
use crate::spec::MethodSpec;

/// What decoding an answer noticed (the repairs `decode: lax` made, the keys no type declares,
/// an object with none of its struct's fields), counted on the method and logged once a place.
/// Here rather than with the call, so that every step that decodes (the call, an attempt's
/// error body, a stream's items) reports down into telemetry, never back up into `call/`.
#[cold]
pub(crate) fn warn_new(
    counters: &Counters,
    client: &'static str,
    method: &'static MethodSpec,
    drift: Vec<Drift>,
) {
    // What a server wrote (its keys, in `field`, `path` and `declared`) reaches a log only
    // escaped and cut: one line, no control character, whatever the key held.
    let shown = |text: &str| -> String {
        let mut out = String::new();
        let _ = crate::error::write_escaped(&mut out, &crate::error::cut(text, 200));
        out
    };
    for found in drift {
        if !counters.record_drift(&found) {
            continue;
        }
        let field = shown(found.field.as_deref().unwrap_or(""));
        let (path, declared) = (shown(&found.path), shown(&found.declared));
        match found.undeclared {
            Some(came) => tracing::warn!(
                target: super::outlets::log::TARGET,
                client,
                method = method.name,
                field,
                came,
                "the answer has a key the description does not declare: skipped; \
                 `Observer::drift_overlay()` adds it to the schema"
            ),
            None if found.came == crate::decode::undeclared::STRANGER => tracing::warn!(
                target: super::outlets::log::TARGET,
                client,
                method = method.name,
                declared,
                came = path,
                "the answer is an object with none of the fields of its type: read as an empty one"
            ),
            None => tracing::warn!(
                target: super::outlets::log::TARGET,
                client,
                method = method.name,
                path,
                field,
                declared,
                came = found.came,
                "the answer does not fit the description: repaired (decode: lax)"
            ),
        }
    }
}

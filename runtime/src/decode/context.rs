//! What a decode knows beside its input, on the thread doing it: one [`DecodeContext`].
//!
//! A generated type's serde impl cannot be handed anything but its deserializer, and the
//! decodes that need more — lax repair, saying where a body failed, bounding what unions throw
//! away — run synchronously, start to end, on one thread. So the context lives in one
//! thread-local, set for a decode's duration by the scope functions of the files that own each
//! part (`lax::decoding`, `lax::strictly`, `located::locate`, a union's `Scope`) and reset when
//! the scope ends, a panic included. Nothing else on the thread sees a decode's state.
//!
//! From a profile to a repair: the method's `decode:` setting (`Settings::decode`) → the call's
//! pipeline (`call/mod.rs`, `call/stream.rs`) wraps the synchronous decode in `lax::decoding` →
//! [`DecodeContext::lax`] is on → a decode that fails strictly is repaired by `lax::repaired`,
//! which reads the failed field from [`DecodeContext::failed_field`] and adds each repair to
//! [`DecodeContext::repaired`] → `lax::decoding` hands the repairs back as drift.

use std::cell::{Cell, RefCell};

use serde_json::Value;

/// One repair: where, what the description declares there and what came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Drift {
    /// The JSON path (`$.items[3].name`).
    pub(crate) path: String,
    /// The struct and field, when the place is one (`Contents.content`).
    pub(crate) field: Option<String>,
    /// What the description declares (`a string`).
    pub(crate) declared: String,
    /// What came (`null`, `missing`, `an array`).
    pub(crate) came: &'static str,
    /// For a key no type declares (`undeclared.rs`), the JSON type its value had (`string`,
    /// `object`): what the drift overlay adds to the schema.
    pub(crate) undeclared: Option<&'static str>,
}

/// The state of the decode under way on this thread.
pub(crate) struct DecodeContext {
    /// `decode: lax` is on for it (`lax.rs`).
    pub(crate) lax: Cell<bool>,
    /// The repairs lax mode made in it (`lax.rs`).
    pub(crate) repaired: RefCell<Vec<Drift>>,
    /// The innermost struct field that failed: (struct, wire name) (`located.rs`, noted by
    /// `record.rs`).
    pub(crate) failed_field: Cell<Option<(&'static str, &'static str)>>,
    /// A failed body is being read again to find where: a union then tracks the path inside
    /// each alternative it tries (`located.rs`).
    pub(crate) locating: Cell<bool>,
    /// Values the unions of the answer may still read and throw away; `None` when no union is
    /// being read (`union.rs`).
    pub(crate) waste_left: Cell<Option<u64>>,
    /// The value an `Owned` hands over to the union that asked for it, taken at once
    /// (`owned.rs`).
    pub(crate) handed_over: RefCell<Option<Value>>,
    /// The call's pipeline is decoding an answer: keys no type declares are noticed
    /// (`undeclared.rs`).
    pub(crate) noticing: Cell<bool>,
    /// The keys no type declared, and the objects that shared no key with their struct, in it
    /// (`undeclared.rs`).
    pub(crate) undeclared: RefCell<Vec<Drift>>,
}

thread_local! {
    static CONTEXT: DecodeContext = const {
        DecodeContext {
            lax: Cell::new(false),
            repaired: RefCell::new(Vec::new()),
            failed_field: Cell::new(None),
            locating: Cell::new(false),
            waste_left: Cell::new(None),
            handed_over: RefCell::new(None),
            noticing: Cell::new(false),
            undeclared: RefCell::new(Vec::new()),
        }
    };
}

/// Runs `f` with this thread's decode context.
pub(crate) fn context<R>(f: impl FnOnce(&DecodeContext) -> R) -> R {
    CONTEXT.with(f)
}

//! What a decode knows beside its input, on the thread doing it: one `DecodeContext`, sealed.
//!
//! A generated type's serde impl cannot be handed anything but its deserializer, and the
//! decodes that need more — lax repair, saying where a body failed, bounding what unions throw
//! away — run synchronously, start to end, on one thread. So the context lives in one
//! thread-local whose fields only this file touches: the other files of `decode/` call the
//! functions below, and a part set for a scope (a [`Switch`], the unions' budget) is put back
//! by the one guard, [`Restore`], when the scope ends, a panic included. Nothing else on the
//! thread sees a decode's state, and nothing outside `decode/` sees the context.
//!
//! From a profile to a repair: the method's `decode:` setting (`Settings::decode`) → the call's
//! pipeline (`call/mod.rs`, `call/stream.rs`) decodes through [`super::answer`], which turns
//! [`Switch::Lax`] on → a decode that fails strictly is repaired by `lax::repaired`, which reads
//! the failed field ([`take_failed_field`]) and adds each repair ([`add_repairs`]) →
//! `super::answer` hands the repairs back as drift.

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
struct DecodeContext {
    /// `decode: lax` is on for it (`lax.rs`).
    lax: Cell<bool>,
    /// The repairs lax mode made in it (`lax.rs`).
    repaired: RefCell<Vec<Drift>>,
    /// The innermost struct field that failed: (struct, wire name) (`located.rs`, noted by
    /// `record.rs`).
    failed_field: Cell<Option<(&'static str, &'static str)>>,
    /// A failed body is being read again to find where: a union then tracks the path inside
    /// each alternative it tries (`located.rs`).
    locating: Cell<bool>,
    /// Values the unions of the answer may still read and throw away; `None` when no union is
    /// being read (`union.rs`).
    waste_left: Cell<Option<u64>>,
    /// The value an `Owned` hands over to the union that asked for it, taken at once
    /// (`owned.rs`).
    handed_over: RefCell<Option<Value>>,
    /// The call's pipeline is decoding an answer: keys no type declares are noticed
    /// (`undeclared.rs`).
    noticing: Cell<bool>,
    /// The keys no type declared, and the objects that shared no key with their struct, in it
    /// (`undeclared.rs`).
    undeclared: RefCell<Vec<Drift>>,
    /// The tag field of the tagged union whose alternative is about to be read: that
    /// alternative's object has it whether its struct declares it or not (`union.rs` sets it,
    /// the first struct read takes it, `record.rs`).
    variant_tag: RefCell<Option<String>>,
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
            variant_tag: RefCell::new(None),
        }
    };
}

fn context<R>(f: impl FnOnce(&DecodeContext) -> R) -> R {
    CONTEXT.with(f)
}

/// A mode of the decode under way, on or off for a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Switch {
    /// `decode: lax`: a decode that fails strictly is repaired (`lax.rs`).
    Lax,
    /// A failed body is read again to say where (`located.rs`).
    Locating,
    /// Keys no type declares are noted (`undeclared.rs`).
    Noticing,
}

impl Switch {
    fn cell(self, c: &DecodeContext) -> &Cell<bool> {
        match self {
            Switch::Lax => &c.lax,
            Switch::Locating => &c.locating,
            Switch::Noticing => &c.noticing,
        }
    }
}

/// What a [`Restore`] puts back.
enum Saved {
    Switch(Switch, bool),
    Budget(Option<u64>),
}

/// Puts a part of the context back as it was when dropped: at the end of its scope, or should
/// the decode panic, so that the thread's next decode starts clean. The one guard of `decode/`.
#[must_use = "the part is put back when the guard drops"]
pub(crate) struct Restore(Saved);

impl Drop for Restore {
    fn drop(&mut self) {
        context(|c| match self.0 {
            Saved::Switch(switch, was) => switch.cell(c).set(was),
            Saved::Budget(was) => c.waste_left.set(was),
        });
    }
}

/// Whether `switch` is on for this thread's decode.
pub(crate) fn is_on(switch: Switch) -> bool {
    context(|c| switch.cell(c).get())
}

/// Turns `switch` on or off until the guard drops.
pub(crate) fn set(switch: Switch, on: bool) -> Restore {
    Restore(Saved::Switch(
        switch,
        context(|c| switch.cell(c).replace(on)),
    ))
}

/// The repairs lax mode made since the last call, taken.
pub(crate) fn take_repairs() -> Vec<Drift> {
    context(|c| std::mem::take(&mut *c.repaired.borrow_mut()))
}

/// Adds the repairs of a body that read after them.
pub(crate) fn add_repairs(repairs: Vec<Drift>) {
    context(|c| c.repaired.borrow_mut().extend(repairs));
}

/// Notes that field `field` of struct `name` did not read, unless a field inside it was noted
/// first.
pub(crate) fn note_failed_field(name: &'static str, field: &'static str) {
    context(|c| {
        if c.failed_field.get().is_none() {
            c.failed_field.set(Some((name, field)));
        }
    });
}

/// The field noted since the last [`forget_failed_field`], taken.
pub(crate) fn take_failed_field() -> Option<(&'static str, &'static str)> {
    context(|c| c.failed_field.take())
}

/// Forgets a noted field: the alternative of a union it was in was dropped.
pub(crate) fn forget_failed_field() {
    context(|c| c.failed_field.set(None));
}

/// The values the unions of this answer may still read and throw away; `None` outside a union.
pub(crate) fn waste_left() -> Option<u64> {
    context(|c| c.waste_left.get())
}

/// Opens the unions' budget of `values` until the guard drops, unless one is open already
/// (an outer union's, which the inner ones share).
pub(crate) fn open_budget(values: u64) -> Option<Restore> {
    context(|c| {
        c.waste_left.get().is_none().then(|| {
            c.waste_left.set(Some(values));
            Restore(Saved::Budget(None))
        })
    })
}

/// Charges `values` read and thrown away to the open budget.
pub(crate) fn charge(values: u64) {
    context(|c| {
        if let Some(left) = c.waste_left.get() {
            c.waste_left.set(Some(left.saturating_sub(values)));
        }
    });
}

/// Hands `value` over to the union that asked for it ([`take_handed_over`]).
pub(crate) fn hand_over(value: Value) {
    context(|c| *c.handed_over.borrow_mut() = Some(value));
}

/// The value handed over, taken.
pub(crate) fn take_handed_over() -> Option<Value> {
    context(|c| c.handed_over.borrow_mut().take())
}

/// Puts `tag` as the tag field of the alternative about to be read; what was there before.
pub(crate) fn replace_variant_tag(tag: Option<String>) -> Option<String> {
    context(|c| std::mem::replace(&mut *c.variant_tag.borrow_mut(), tag))
}

/// The tag field of the alternative being read, taken: only its own object has it.
pub(crate) fn take_variant_tag() -> Option<String> {
    context(|c| c.variant_tag.borrow_mut().take())
}

/// Runs `f` on the notes of undeclared keys made so far in this thread's decode.
pub(crate) fn with_undeclared<R>(f: impl FnOnce(&mut Vec<Drift>) -> R) -> R {
    context(|c| f(&mut c.undeclared.borrow_mut()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_is_put_back_when_its_scope_ends_a_panic_included() {
        assert!(!is_on(Switch::Lax));
        {
            let _lax = set(Switch::Lax, true);
            assert!(is_on(Switch::Lax));
            let strict = set(Switch::Lax, false);
            assert!(!is_on(Switch::Lax));
            drop(strict);
            assert!(is_on(Switch::Lax));
        }
        assert!(!is_on(Switch::Lax));
        let panicked = std::panic::catch_unwind(|| {
            let _locating = set(Switch::Locating, true);
            panic!("a decode that panics");
        });
        assert!(panicked.is_err());
        assert!(!is_on(Switch::Locating));
    }

    #[test]
    fn the_outermost_union_opens_the_budget_and_the_inner_ones_share_it() {
        let outer = open_budget(10);
        assert!(outer.is_some());
        assert!(open_budget(99).is_none());
        charge(4);
        assert_eq!(waste_left(), Some(6));
        drop(outer);
        assert_eq!(waste_left(), None);
    }
}

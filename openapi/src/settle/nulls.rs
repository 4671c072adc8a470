//! Nulls that can be sent: an optional property whose schema allows `null`, in a type a JSON
//! body sends (itself, or inside another's fields, items, values, parts or alternatives), is
//! `Nullable<T>` — absent, `null` or a value — so that a PATCH can clear a field. A type only
//! ever received keeps `Option<T>`: reading `null` and absent alike loses nothing there.

use std::collections::BTreeSet;

use crate::spec::TypeOut;
use crate::ty::{Encoding, Ty};
use crate::walk::Builder;

impl Builder<'_> {
    pub(super) fn settle_nulls(&mut self) {
        let sent = self.sent_types();
        for name in &sent {
            if let Some(TypeOut::Struct(s)) = self.spec.types.get_mut(name) {
                for field in s.fields.iter_mut().filter(|f| f.optional_null) {
                    if !matches!(field.ty, Ty::Nullable(_)) {
                        field.ty = Ty::Nullable(Box::new(field.ty.required().clone()));
                    }
                }
            }
        }
    }

    /// The names of every type a JSON body sends, and of every type inside one.
    fn sent_types(&self) -> BTreeSet<String> {
        let mut sent = BTreeSet::new();
        let mut next: Vec<String> = Vec::new();
        let reach = |ty: &Ty, next: &mut Vec<String>| {
            let mut ty = ty.clone();
            ty.visit_mut(&mut |part| {
                if let Ty::Named(name) = part {
                    next.push(name.clone());
                }
            });
        };
        for body in self.spec.methods.iter().filter_map(|m| m.body.as_ref()) {
            if body.encoding == Encoding::Json {
                reach(&body.ty, &mut next);
            }
        }
        while let Some(name) = next.pop() {
            if !sent.insert(name.clone()) {
                continue;
            }
            match self.spec.types.get(&name) {
                Some(TypeOut::Struct(s)) => {
                    for field in &s.fields {
                        reach(&field.ty, &mut next);
                    }
                    if let Some(additional) = &s.additional {
                        reach(additional, &mut next);
                    }
                    next.extend(s.all_of.iter().cloned());
                }
                Some(TypeOut::Union(u)) => {
                    for alternative in &u.alternatives {
                        reach(alternative, &mut next);
                    }
                }
                Some(TypeOut::Enum(_)) | None => {}
            }
        }
        sent
    }
}

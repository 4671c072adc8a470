//! The spec's `webhooks:`: the scheme the description says and each event.

use serde_yaml::{Mapping, Value as Yaml};

use super::values::{json, pairs, put_doc, ty};
use crate::spec::Webhooks;

/// `webhooks:`: the scheme, when the description says it, and each event.
pub(super) fn webhooks_value(webhooks: &Webhooks) -> Mapping {
    let mut out = Mapping::new();
    if let Some(signature) = webhooks.signature {
        out.insert("signature".into(), signature.into());
    }
    let mut events = Mapping::new();
    for event in &webhooks.events {
        let mut entry = Mapping::new();
        put_doc(&mut entry, event.doc.as_deref());
        if let Some(payload) = &event.payload {
            entry.insert("payload".into(), ty(payload));
        }
        if let Some(path) = &event.path {
            entry.insert("path".into(), path.as_str().into());
        }
        if !event.headers.is_empty() {
            let headers = event
                .headers
                .iter()
                .map(|(name, value)| (name.as_str(), Yaml::from(value.as_str())));
            entry.insert("headers".into(), pairs(headers));
        }
        if !event.fields.is_empty() {
            let fields = event
                .fields
                .iter()
                .map(|(key, value)| (key.as_str(), json(value)));
            entry.insert("fields".into(), pairs(fields));
        }
        if let Some(answer) = event.answer {
            entry.insert("answer".into(), u64::from(answer).into());
        }
        events.insert(event.name.as_str().into(), entry.into());
    }
    out.insert("events".into(), events.into());
    out
}

//! A streamed method's call, item decoder, events by name and declared error events.

use crate::checked;
use crate::names;
use crate::types::Ty;

use super::super::{ErrorEventsIr, EventEnum, StreamedIr};

impl StreamedIr {
    /// The method's result type, and no decoder: the stream decodes each item.
    pub(super) fn returns(&self) -> (String, String) {
        let wrapper = if self.lines { "Lines" } else { "Events" };
        (format!("remcall::{wrapper}<{}>", self.item), String::new())
    }
}

/// A stream's call and decoder, and the enum of its events by name when the spec maps them.
pub(super) fn streamed(
    method: &checked::Method,
    streamed: &checked::Streamed,
    keys_of: &dyn Fn(&Ty) -> Vec<String>,
) -> StreamedIr {
    let text = method.returns.bare() == Some("String");
    let how = |ty: &Ty| {
        if ty.bare() == Some("String") {
            "text"
        } else {
            "json"
        }
    };
    let cases = (!streamed.events.is_empty()).then(|| {
        let name = method.returns.render();
        let variants: Vec<_> = streamed
            .events
            .iter()
            .map(|case| {
                (
                    case.variant.clone(),
                    case.name.clone(),
                    case.ty.render(),
                    how(&case.ty),
                )
            })
            .collect();
        let taken: Vec<String> = variants.iter().map(|v| v.0.clone()).collect();
        EventEnum {
            doc: format!(" The events of `{}`, by their `event:` name.", method.name),
            open: names::unique_among("Other", "", &taken),
            name,
            variants,
        }
    });
    let decoder = match (&cases, streamed.lines, text) {
        (Some(cases), _, _) => format!("{}::from_event", cases.name),
        (None, true, true) => "remcall::__codegen::line_text".to_owned(),
        (None, true, false) => "remcall::__codegen::line_json".to_owned(),
        (None, false, true) => "remcall::__codegen::event_text".to_owned(),
        (None, false, false) => "remcall::__codegen::event_json".to_owned(),
    };
    StreamedIr {
        call: if streamed.lines {
            "call_lines"
        } else {
            "call_events"
        },
        static_name: format!("{}_STREAM", names::shouty(&method.name)),
        spec_type: if streamed.lines {
            "LinesSpec"
        } else {
            "EventsSpec"
        },
        decoder,
        lines: streamed.lines,
        item: method.returns.render(),
        end: streamed.end.clone(),
        error: streamed
            .error
            .as_ref()
            .map(|error| error_events(error, keys_of)),
        cases,
    }
}

/// The runtime's `ErrorEvents` for a stream's declared error events: their type, `event:` name
/// and declared keys, the text Debug-quoted (Rust literals).
fn error_events(
    error: &checked::ErrorEvents,
    keys_of: &dyn Fn(&Ty) -> Vec<String>,
) -> ErrorEventsIr {
    let keys: Vec<String> = keys_of(&error.ty)
        .iter()
        .map(|key| format!("{key:?}"))
        .collect();
    let event = match &error.event {
        Some(event) => format!("Some({event:?})"),
        None => "None".to_owned(),
    };
    ErrorEventsIr {
        expr: format!(
            "remcall::__codegen::ErrorEvents::of::<{}>({event}, &[{}])",
            error.ty.render(),
            keys.join(", ")
        ),
        ty: error.ty.render(),
        event: error.event.clone(),
    }
}

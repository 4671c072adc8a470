//! How a stub writes a streamed answer: Server-Sent Events frames and JSON lines, one frame an
//! item (the faults `cut_after`, `stall_after` and `slow_events` count them), and the writers a
//! generated stub passes for its items. Text from a test is kept to its line: a line break in
//! an event's name, id or a line would start another field or item.

use bytes::Bytes;

/// Each text a line of its own: a line break inside one would split it.
pub(super) fn line_frames(texts: impl Iterator<Item = String>) -> Vec<Bytes> {
    texts
        .map(|text| {
            let mut text = text.replace(['\r', '\n'], " ");
            text.push('\n');
            Bytes::from(text)
        })
        .collect()
}

pub(super) fn sse_frame<T>(
    event: &crate::stream::Event<T>,
    write: fn(&T) -> (Option<String>, String),
) -> Bytes {
    use std::fmt::Write as _;
    let (name, data) = write(&event.data);
    let one_line = |text: &str| text.replace(['\r', '\n'], " ");
    let mut frame = String::new();
    if let Some(name) = event.event.clone().or(name) {
        let _ = writeln!(frame, "event: {}", one_line(&name));
    }
    if let Some(id) = &event.id {
        let _ = writeln!(frame, "id: {}", one_line(id));
    }
    if let Some(retry) = event.retry {
        let _ = writeln!(frame, "retry: {}", retry.as_millis());
    }
    for line in data.split('\n') {
        let _ = writeln!(frame, "data: {}", line.strip_suffix('\r').unwrap_or(line));
    }
    frame.push('\n');
    Bytes::from(frame)
}

/// An event's data as JSON, under its own name (what a stub of a method of one event type
/// writes).
pub fn json_event<T: serde::Serialize>(data: &T) -> (Option<String>, String) {
    (None, serde_json::to_string(data).unwrap_or_default())
}

/// An event's data as the text it is.
#[allow(clippy::ptr_arg)] // a writer of `T = String` items, taken as `fn(&T)`
pub fn text_event(data: &String) -> (Option<String>, String) {
    (None, data.clone())
}

/// A line as JSON.
pub fn json_line<T: serde::Serialize>(line: &T) -> String {
    serde_json::to_string(line).unwrap_or_default()
}

/// A line as the text it is.
#[allow(clippy::ptr_arg)] // a writer of `T = String` items, taken as `fn(&T)`
pub fn text_line(line: &String) -> String {
    line.clone()
}

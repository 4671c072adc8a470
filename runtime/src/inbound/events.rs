//! What a generated receiver fixes in its static: the events a description declares and how a
//! delivery is told to be one of them.

/// The webhooks of one client: its name (for statistics and logs) and its events, in the order
/// the generated receiver's dispatch numbers them.
#[derive(Debug)]
pub struct Events {
    /// The client's name.
    pub client: &'static str,
    /// The events.
    pub events: &'static [EventSpec],
}

/// One event: its name and what a delivery of it looks like.
#[derive(Debug)]
pub struct EventSpec {
    /// The event's name (the receiver's method).
    pub name: &'static str,
    /// The path under the router it is delivered to (`/` when the description gives none).
    pub path: &'static str,
    /// Headers that name it (`X-GitHub-Event: issues`), each name lowercase.
    pub headers: &'static [(&'static str, &'static str)],
    /// Payload fields that name it, by dotted path (`type: invoice.paid`, `event.type: message`);
    /// a field's value as its JSON text when it is not a string.
    pub fields: &'static [(&'static str, &'static str)],
    /// The status a handled delivery is answered with.
    pub answer: u16,
    /// Its largest body in bytes; 0: the inbox's.
    pub max_body: u64,
    /// Whether the delivery carries a payload the receiver decodes.
    pub payload: bool,
}

impl Events {
    /// The distinct paths the events are delivered to, in their first event's order.
    pub(crate) fn paths(&self) -> Vec<&'static str> {
        let mut paths: Vec<&'static str> = Vec::new();
        for event in self.events {
            if !paths.contains(&event.path) {
                paths.push(event.path);
            }
        }
        paths
    }

    /// The most a delivery to `path` may hold: the inbox's `limit`, or less when every event
    /// of the path declares its own.
    pub(crate) fn read_limit(&self, path: &str, limit: usize) -> usize {
        let mut largest: u64 = 0;
        for event in self.events.iter().filter(|e| e.path == path) {
            if event.max_body == 0 {
                return limit;
            }
            largest = largest.max(event.max_body);
        }
        usize::try_from(largest).map_or(limit, |largest| largest.min(limit))
    }
}

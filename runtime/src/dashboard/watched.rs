//! What a dashboard shows: a service's clients and, with the `webhooks` feature, the receivers
//! of the deliveries their APIs send back (their inboxes' counts).

use std::fmt::Write;

use serde_json::Value;

use crate::client::Observer;

/// The clients (and receivers) a dashboard shows. A `Vec<Observer>` is one:
/// `dashboard::serve(addr, vec![users.observe()])`; with receivers,
/// `Watched::from(vec![users.observe()]).inbox(payments_inbox.clone())`.
#[derive(Clone, Debug, Default)]
pub struct Watched {
    pub(super) clients: Vec<Observer>,
    #[cfg(feature = "webhooks")]
    inboxes: Vec<crate::inbound::inbox::Inbox>,
}

impl From<Vec<Observer>> for Watched {
    fn from(clients: Vec<Observer>) -> Watched {
        Watched {
            clients,
            ..Watched::default()
        }
    }
}

impl Watched {
    /// Shows a receiver's counts too (its clones share them: pass the inbox its router took).
    #[cfg(feature = "webhooks")]
    #[must_use]
    pub fn inbox(mut self, inbox: crate::inbound::inbox::Inbox) -> Watched {
        self.inboxes.push(inbox);
        self
    }

    /// Each receiver's counts, when there is one.
    pub(super) fn webhooks(&self) -> Option<Value> {
        #[cfg(feature = "webhooks")]
        if !self.inboxes.is_empty() {
            let stats: Vec<_> = self.inboxes.iter().map(|inbox| inbox.stats()).collect();
            return serde_json::to_value(stats).ok();
        }
        None
    }

    /// `/metrics`: the clients' series, and each receiver's deliveries by outcome.
    pub(super) fn metrics(&self) -> String {
        let mut text = crate::client::prometheus::text(&self.clients);
        if let Some(Value::Array(inboxes)) = self.webhooks() {
            let name = "remcall_webhook_deliveries_total";
            let _ = writeln!(
                text,
                "# HELP {name} Webhook deliveries received, by what became of them.\n# TYPE {name} counter"
            );
            for inbox in &inboxes {
                let Some(fields) = inbox.as_object() else {
                    continue;
                };
                let client = fields
                    .get("client")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                for (outcome, count) in fields {
                    if let Some(count) = count.as_u64().filter(|_| outcome != "client") {
                        let _ = writeln!(
                            text,
                            "{name}{{client=\"{}\",outcome=\"{outcome}\"}} {count}",
                            crate::client::prometheus::escape(client)
                        );
                    }
                }
            }
        }
        text
    }
}

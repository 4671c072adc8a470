//! Headers every operation declares, which become the client's (a profile's `headers:` with a
//! `${VAR}`), but for those whose value belongs to one call.

use serde_json::Value;

use super::Found;
use crate::spec::ParamOut;
use crate::walk::Builder;

impl Builder<'_> {
    /// An optional header every operation with parameters declares, of one schema (Prefect's
    /// `x-prefect-api-version`, on all 186 of its 188 operations but `/health` and `/version`,
    /// which take none), is the client's to set, in its profile's `headers:`: no argument of
    /// every method that each call passes as `None`. Noted once; two operations at least.
    /// Decided over the whole description, never the operations selected: a method's signature
    /// does not change when another is selected too.
    pub(super) fn client_wide_headers(&mut self, every: &[Found]) {
        let common = self.headers_every_operation_declares(every);
        let wire = |param: &ParamOut| param.wire.clone().unwrap_or_else(|| param.key.clone());
        for name in &common {
            let mut removed = false;
            for method in &mut self.spec.methods {
                let before = method.headers.len();
                method
                    .headers
                    .retain(|param| !wire(param).eq_ignore_ascii_case(name));
                removed |= method.headers.len() != before;
            }
            if !removed {
                continue;
            }
            let place = self.docs.top().child("paths");
            self.note(
                &place,
                false,
                format!(
                    "`{name}`, an optional header every operation with parameters declares, is the client's to set in its profile (`headers: {{ {name}: … }}`), not an argument of each method"
                ),
            );
        }
    }

    /// The optional headers that every operation of the description with parameters declares,
    /// each with one schema everywhere: in the first such operation's order.
    fn headers_every_operation_declares(&mut self, every: &[Found]) -> Vec<String> {
        // Per operation with parameters: its optional headers (lower-cased name → schema).
        let mut operations: Vec<Vec<(String, Value)>> = Vec::new();
        for found in every {
            let mut parameters = self.parameters_of(&found.place, &found.operation);
            for param in &found.shared {
                if !parameters.iter().any(|p| p.0 == param.0 && p.1 == param.1) {
                    parameters.push(param.clone());
                }
            }
            if parameters.is_empty() {
                continue;
            }
            operations.push(
                parameters
                    .into_iter()
                    .filter(|(within, name, required, _)| {
                        within == "header" && !required && !says_something_of_one_call(name)
                    })
                    .map(|(_, name, _, shape)| (name.to_ascii_lowercase(), shape))
                    .collect(),
            );
        }
        let Some((first, rest)) = operations.split_first() else {
            return Vec::new();
        };
        if rest.is_empty() {
            return Vec::new();
        }
        first
            .iter()
            .filter(|header| rest.iter().all(|other| other.contains(header)))
            .map(|(name, _)| name.clone())
            .collect()
    }
}

/// A header whose value belongs to one call, however many operations declare it: HTTP's own
/// (conditions, ranges, content, preferences) and a call's identity (a request id, a trace).
/// Kinto declares `If-Match` on every operation; it stays an argument of each.
fn says_something_of_one_call(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    const OF_ONE_CALL: [&str; 14] = [
        "range",
        "accept",
        "accept-language",
        "accept-encoding",
        "content-type",
        "content-length",
        "content-encoding",
        "authorization",
        "cookie",
        "prefer",
        "idempotency-key",
        "expect",
        "cache-control",
        "origin",
    ];
    name.starts_with("if-")
        || OF_ONE_CALL.contains(&name.as_str())
        || ["trace", "span", "request-id", "correlation", "idempotency"]
            .iter()
            .any(|part| name.contains(part))
}

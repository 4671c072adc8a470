//! A stub of a client's API for the tests of the code that calls it (feature `stub`): a server
//! on a free loopback port that answers each operation as a test tells it, injects faults
//! (failures, a failure rate, latency, a reset connection, a slow body, `Retry-After`, a stall),
//! deterministic from a seed, and records every request. A generated `<Client>Stub` is a typed
//! layer over it; this is its untyped core, usable on its own with a client's `MethodSpec`s.
//!
//! Rules are kept in the order they are made. A request of an operation takes every fault rule
//! that matches it and the first answer rule that does; a request no answer rule matches (and no
//! fault answers) gets 501 with what the closest rule wanted. `expect(n)` is checked when the
//! stub is dropped.

#[cfg(feature = "stub")]
mod bodies;
mod compress;
mod faults;
mod frames;
mod running;
mod stubbing;
// Counted by the server, which only the `stub` feature builds.
#[cfg_attr(not(feature = "stub"), allow(dead_code))]
mod quota;
mod replay;
mod rules;
#[cfg(feature = "stub")]
mod server;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

pub use compress::Encoding;
pub use frames::{json_event, json_line, text_event, text_line};
pub use rules::Recorded;
use rules::{Answer, Does, Rule};
pub use running::METHOD_HEADER;
#[cfg(feature = "stub")]
pub(crate) use running::name_the_method;
pub use stubbing::{Faults, IntoStatus, Stubbing};

use crate::spec::{ClientSpec, MethodSpec};

/// A running stub of one client's API; it stops when dropped.
pub struct Stub {
    shared: Arc<Shared>,
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

struct Shared {
    spec: &'static ClientSpec,
    /// Whether a request is what the spec describes (a generated stub's decoding).
    #[cfg_attr(not(feature = "stub"), allow(dead_code))]
    check: Option<Check>,
    state: Mutex<State>,
    /// Accepts that failed (out of file descriptors): each is followed by a pause.
    #[cfg_attr(not(feature = "stub"), allow(dead_code))]
    accept_failures: std::sync::atomic::AtomicU64,
}

/// Reads a received request as the spec's types; the error says what does not fit.
pub type Check = fn(&Recorded) -> Result<(), String>;

struct State {
    rules: Vec<Rule>,
    recorded: Vec<Recorded>,
    /// Requests the check refused, with why: each fails the test when the stub is dropped.
    refused: Vec<String>,
    rng: fastrand::Rng,
    /// How much of each request body is recorded.
    #[cfg_attr(not(feature = "stub"), allow(dead_code))]
    keep_body_bytes: usize,
    /// The quota the stub announces, if a test set one.
    quota: Option<quota::StubQuota>,
    /// Quotas of some operations each (their names), announced on their answers only.
    route_quotas: Vec<(Vec<String>, quota::StubQuota)>,
}

/// How much of each request body a stub records unless told otherwise.
pub const KEEP_BODY_BYTES: usize = 1 << 20;

impl std::fmt::Debug for Stub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stub")
            .field("client", &self.shared.spec.name)
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// Why a stub cannot start without the `stub` feature.
const MISSING_FEATURE: &str = "a stub needs the `stub` feature of remcall: add `remcall = { version = \"…\", features = [\"stub\"] }` to [dev-dependencies]";

/// The error every stub of a test binary without the `stub` feature gives: its message is said
/// once on stderr as written, and the error's `Debug` (what a test's `unwrap()` prints) is that
/// text too, not an escaped string in an `io::Error`'s fields.
fn missing_feature() -> std::io::Error {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| eprintln!("error: {MISSING_FEATURE}"));
    std::io::Error::other(MissingFeature)
}

struct MissingFeature;

impl std::fmt::Display for MissingFeature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(MISSING_FEATURE)
    }
}

impl std::fmt::Debug for MissingFeature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for MissingFeature {}

impl Stub {
    /// Starts a stub of `spec`'s API on a free port of 127.0.0.1, with seed 0.
    ///
    /// Without the runtime's `stub` feature there is no server: this fails, saying so (a
    /// generated stub compiles either way, and works in the tests that turn the feature on).
    pub async fn start(spec: &'static ClientSpec) -> std::io::Result<Stub> {
        Stub::start_checked(spec, None).await
    }

    /// [`Stub::start`], reading each request with `check` first: one that does not fit the
    /// spec is answered 400 with the reason, and fails the test when the stub is dropped.
    pub async fn start_checked(
        spec: &'static ClientSpec,
        check: Option<Check>,
    ) -> std::io::Result<Stub> {
        if cfg!(not(feature = "stub")) {
            return Err(missing_feature());
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let registered = running::started(addr);
        let shared = Arc::new(Shared {
            spec,
            check,
            state: Mutex::new(State {
                rules: Vec::new(),
                recorded: Vec::new(),
                refused: Vec::new(),
                rng: fastrand::Rng::with_seed(0),
                keep_body_bytes: KEEP_BODY_BYTES,
                quota: None,
                route_quotas: Vec::new(),
            }),
            accept_failures: Default::default(),
        });
        #[cfg(feature = "stub")]
        let task = tokio::spawn(server::accept(
            server::Listening {
                _registered: registered,
                listener,
            },
            shared.clone(),
        ));
        #[cfg(not(feature = "stub"))]
        let task = tokio::spawn(async move { drop((registered, listener)) });
        Ok(Stub { shared, addr, task })
    }

    /// The base URL a client of the stubbed API is built with.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Records at most the first `bytes` of each request body ([`KEEP_BODY_BYTES`], 1 MiB,
    /// unless told): a test that uploads more and reads the upload back raises it. A cut body
    /// says so when read as JSON, a form or text.
    pub fn keep_body_bytes(&self, bytes: usize) {
        self.state().keep_body_bytes = bytes;
    }

    /// Accepts that failed so far, each followed by a pause (remcall's own tests).
    #[doc(hidden)]
    pub fn accept_failures(&self) -> u64 {
        self.shared
            .accept_failures
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Seeds the random faults (`fail_rate`, `latency`): the same seed, the same run.
    pub fn seed(&self, seed: u64) {
        self.state().rng = fastrand::Rng::with_seed(seed);
    }

    /// Announces a quota of `limit` calls per `window` on every answer (`X-RateLimit-Limit`,
    /// `-Remaining`, `-Reset`), and answers a call past it 429 with `Retry-After`, as a rate
    /// limited API does: [`Stub::quota_refusals`] then says whether the client kept under it.
    pub fn announce_quota(&self, limit: u64, window: Duration) {
        self.state().quota = Some(quota::StubQuota::new(
            limit,
            window,
            tokio::time::Instant::now(),
        ));
    }

    /// Announces a quota named `name` of `limit` calls per `window` on the answers of the
    /// `operations` named (`X-RateLimit-Resource: name` besides), counted apart from any other
    /// quota, as an API with a bucket per route does (a code host's `core` and `search`).
    pub fn announce_quota_of(&self, operations: &[&str], name: &str, limit: u64, window: Duration) {
        let quota = quota::StubQuota::new(limit, window, tokio::time::Instant::now()).named(name);
        let operations = operations.iter().map(|o| (*o).to_owned()).collect();
        self.state().route_quotas.push((operations, quota));
    }

    /// The calls the announced quotas refused (429): 0 for a client that paces by them.
    pub fn quota_refusals(&self) -> u64 {
        let state = self.state();
        state.quota.as_ref().map_or(0, |q| q.refused)
            + state
                .route_quotas
                .iter()
                .map(|(_, q)| q.refused)
                .sum::<u64>()
    }

    /// A new rule for `operation`: it answers 200 with no body until told otherwise.
    pub fn on(&self, operation: &'static MethodSpec) -> Stubbing<'_> {
        self.rule(Some(operation), Does::Answer(Answer::default()))
    }

    /// `operation`, for a rule made by the first matcher or answer given (none until then),
    /// its faults and its recorded calls: what a generated stub's `stub.get_user()` is.
    pub fn operation(&self, operation: &'static MethodSpec) -> Stubbing<'_> {
        Stubbing {
            stub: self,
            operation: Some(operation),
            index: None,
        }
    }

    /// Faults for every operation (`stub.all().fail(503).times(2)`).
    pub fn all(&self) -> Faults<'_> {
        Faults {
            stub: self,
            operation: None,
        }
    }

    /// Faults for `operation` alone.
    pub fn faults(&self, operation: &'static MethodSpec) -> Faults<'_> {
        Faults {
            stub: self,
            operation: Some(operation),
        }
    }

    /// The requests `operation` received, in order.
    pub fn calls(&self, operation: &'static MethodSpec) -> Vec<Recorded> {
        self.state()
            .recorded
            .iter()
            .filter(|r| r.index == operation.index)
            .cloned()
            .collect()
    }

    fn rule(&self, operation: Option<&'static MethodSpec>, does: Does) -> Stubbing<'_> {
        let mut state = self.state();
        state.rules.push(Rule::new(operation, does));
        Stubbing {
            stub: self,
            operation,
            index: Some(state.rules.len() - 1),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared.state()
    }
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        // The task's end unregisters the address (`running::Registered`), with its listener.
        self.task.abort();
        if std::thread::panicking() {
            return;
        }
        let state = self.state();
        let mut unmet: Vec<String> = state
            .rules
            .iter()
            .filter(|rule| rule.expected.is_some_and(|n| n != rule.matched))
            .map(|rule| {
                format!(
                    "`{}` expected {} call(s), got {}",
                    rule.operation.map_or("every operation", |o| o.name),
                    rule.expected.unwrap_or_default(),
                    rule.matched
                )
            })
            .collect();
        unmet.extend(
            state
                .refused
                .iter()
                .map(|why| format!("a request that does not fit the spec: {why}")),
        );
        drop(state);
        assert!(
            unmet.is_empty(),
            "{} stub: {}",
            self.shared.spec.name,
            unmet.join("; ")
        );
    }
}

/// A request an operation received, read as the spec's types: what a generated
/// `<Method>Received` is, and what [`Stubbing::calls_as`] and the stub's check read.
pub trait Received: Sized {
    /// Reads `raw` as the spec's types; the error says what does not fit.
    fn decode(raw: &Recorded) -> Result<Self, String>;
}

#[cfg(test)]
mod tests {
    #[test]
    fn without_the_feature_the_error_reads_plainly_in_a_failed_unwrap() {
        let error = super::missing_feature();
        let shown = format!("{error:?}");
        assert!(shown.contains(super::MISSING_FEATURE), "{shown}");
        assert!(!shown.contains('\\'), "escaped: {shown}");
        assert_eq!(error.to_string(), super::MISSING_FEATURE);
    }
}

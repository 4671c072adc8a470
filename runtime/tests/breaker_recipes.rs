//! The breaker recipes of docs/resilience.md, read from that file: each trips a client's breaker
//! against a loopback server, lets the open period pass on tokio's paused clock, and drives the
//! half-open trials `[200, 503, 503, 503, 503]`, checking every call's result and how many
//! requests the server saw for it (a trial is one attempt; a closed-state call is retried).

use std::sync::atomic::Ordering;
use std::time::Duration;

use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode};
use remcall::{BreakerState, ErrorKind, Profile};
use testkit::Flaky;

static GET_USER: MethodSpec = MethodSpec {
    index: 0,
    name: "get_user",
    http_method: "GET",
    path: "/users/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Recipes",
    base_urls: &[],
    base_path: "/v1/api",
    profile: "",
    methods: &[&GET_USER],
};

/// The half-open trials every recipe is driven with.
const TRIALS: [u16; 5] = [200, 503, 503, 503, 503];

/// The YAML block after `<!-- recipe: NAME -->` in docs/resilience.md.
fn recipe(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/resilience.md");
    let doc = std::fs::read_to_string(path).expect("docs/resilience.md");
    let marker = format!("<!-- recipe: {name} -->");
    let after = &doc[doc.find(&marker).unwrap_or_else(|| panic!("no {marker}")) + marker.len()..];
    let block = after
        .trim_start()
        .strip_prefix("```yaml\n")
        .expect("a yaml block after the marker");
    block[..block.find("```").expect("the block's end")].to_owned()
}

/// What one call did: its result and the requests the server got for it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Ok { requests: usize },
    Failed { requests: usize },
    ShortCircuited,
}

struct Harness {
    downstream: Flaky,
    client: Client,
}

impl Harness {
    /// A client with the recipe (and a 1 ms backoff, so trips are quick), its breaker tripped by
    /// failing calls; checks it opens at exactly `opens_after` calls.
    async fn tripped(name: &str, opens_after: usize) -> Harness {
        let yaml = format!(
            "{}retry: {{ backoff: {{ initial: 1ms, max: 1ms }} }}\n",
            recipe(name)
        );
        let downstream = Flaky::start().await;
        let client = ClientBuilder::new(&SPEC)
            .base_url(&downstream.server.url())
            .profile(Profile::from_yaml_str(&yaml).unwrap())
            .build()
            .unwrap();
        let harness = Harness { downstream, client };
        for call in 1..=opens_after {
            assert_eq!(
                harness.state(),
                BreakerState::Closed,
                "{name}: before call {call}"
            );
            assert!(matches!(harness.call(503).await, Seen::Failed { .. }));
        }
        assert_eq!(
            harness.state(),
            BreakerState::Open,
            "{name}: after {opens_after} failures"
        );
        assert_eq!(harness.call(200).await, Seen::ShortCircuited);
        harness
    }

    /// One call against a server answering `status`.
    async fn call(&self, status: u16) -> Seen {
        self.downstream.status.store(status, Ordering::SeqCst);
        let before = self.downstream.hits.load(Ordering::SeqCst);
        let result = self
            .client
            .call(
                GET_USER.request().path("id", 1),
                decode::json::<remcall::serde_json::Value>,
            )
            .await;
        let requests = self.downstream.hits.load(Ordering::SeqCst) - before;
        match result {
            Ok(_) => Seen::Ok { requests },
            Err(e) if e.kind() == ErrorKind::BreakerOpen => {
                assert_eq!(requests, 0, "a short-circuited call sends nothing");
                Seen::ShortCircuited
            }
            Err(_) => Seen::Failed { requests },
        }
    }

    async fn calls(&self, statuses: &[u16]) -> Vec<Seen> {
        let mut seen = Vec::new();
        for &status in statuses {
            seen.push(self.call(status).await);
        }
        seen
    }

    fn state(&self) -> BreakerState {
        self.client.stats_all().method("get_user").unwrap().breaker
    }
}

/// Moves tokio's clock on by `period` with nothing in flight, then lets it run again.
async fn let_pass(period: Duration) {
    tokio::time::pause();
    tokio::time::advance(period).await;
    tokio::time::resume();
}

const ONE_TRIAL: Seen = Seen::Ok { requests: 1 };
const FAILED_TRIAL: Seen = Seen::Failed { requests: 1 };

#[tokio::test]
async fn consecutive_count_reopens_at_the_first_failed_trial_and_closes_after_five_good_ones() {
    let run = Harness::tripped("consecutive", 5).await;
    // Not yet: one second short of the open period.
    let_pass(Duration::from_secs(59)).await;
    assert_eq!(run.call(200).await, Seen::ShortCircuited);
    let_pass(Duration::from_secs(1)).await;
    assert_eq!(
        run.calls(&TRIALS).await,
        [
            ONE_TRIAL,
            FAILED_TRIAL,
            Seen::ShortCircuited,
            Seen::ShortCircuited,
            Seen::ShortCircuited
        ],
        "the first failed trial re-opens it, and is not retried"
    );
    assert_eq!(run.state(), BreakerState::Open);

    // open_for_max is open_for: the next open period is 60 s again, not doubled.
    let_pass(Duration::from_secs(60)).await;
    assert_eq!(run.calls(&[200; 4]).await, [ONE_TRIAL; 4]);
    assert_eq!(
        run.state(),
        BreakerState::HalfOpen,
        "four good trials are not five"
    );
    assert_eq!(run.call(200).await, ONE_TRIAL);
    assert_eq!(run.state(), BreakerState::Closed);
}

#[tokio::test]
async fn hystrix_closes_on_one_good_trial_and_then_retries_as_usual() {
    let run = Harness::tripped("hystrix", 20).await;
    let_pass(Duration::from_secs(5)).await;
    assert_eq!(
        run.calls(&TRIALS).await,
        [
            ONE_TRIAL,
            // Closed again: ordinary calls, each retried (3 attempts), 4 of 4 failed but
            // under min_calls.
            Seen::Failed { requests: 3 },
            Seen::Failed { requests: 3 },
            Seen::Failed { requests: 3 },
            Seen::Failed { requests: 3 },
        ]
    );
    assert_eq!(run.state(), BreakerState::Closed);
}

#[tokio::test]
async fn hystrix_reopens_on_a_failed_trial_for_the_same_five_seconds() {
    let run = Harness::tripped("hystrix", 20).await;
    let_pass(Duration::from_secs(5)).await;
    assert_eq!(
        run.calls(&[503, 200]).await,
        [FAILED_TRIAL, Seen::ShortCircuited]
    );
    let_pass(Duration::from_secs(5)).await;
    assert_eq!(run.call(200).await, ONE_TRIAL);
    assert_eq!(run.state(), BreakerState::Closed);
}

#[tokio::test]
async fn resilience4j_judges_ten_trials_by_their_failure_rate() {
    for (rest, state) in [(200, BreakerState::Closed), (503, BreakerState::Open)] {
        let run = Harness::tripped("resilience4j", 100).await;
        let_pass(Duration::from_secs(60)).await;
        assert_eq!(
            run.calls(&TRIALS).await,
            [
                ONE_TRIAL,
                FAILED_TRIAL,
                FAILED_TRIAL,
                FAILED_TRIAL,
                FAILED_TRIAL
            ],
            "each trial is one attempt"
        );
        assert_eq!(run.state(), BreakerState::HalfOpen, "5 of 10 trials done");
        let trial = if rest == 200 { ONE_TRIAL } else { FAILED_TRIAL };
        assert_eq!(run.calls(&[rest; 5]).await, vec![trial; 5]);
        assert_eq!(run.state(), state, "the other five trials answered {rest}");
        let next = run.call(200).await;
        assert_eq!(
            next == Seen::ShortCircuited,
            state == BreakerState::Open,
            "{next:?}"
        );
    }
}

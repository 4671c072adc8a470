//! A stub that announces a quota (`Stub::announce_quota`): a fixed window of `limit` calls,
//! each answer carrying `X-RateLimit-Limit`, `-Remaining` and `-Reset` (seconds, rounded up as
//! servers do), and a call past the limit answered 429 with `Retry-After` — so a test can show
//! its client stays under the quota the API announces. On the tokio clock, so a test with a
//! paused clock sees its windows turn as it advances.

use std::time::Duration;

use tokio::time::Instant;

/// The quota's window and what it has taken.
#[derive(Debug)]
pub(crate) struct StubQuota {
    /// Its name (`X-RateLimit-Resource`), for a quota of some routes.
    name: Option<String>,
    limit: u64,
    window: Duration,
    started: Instant,
    taken: u64,
    pub(crate) refused: u64,
}

/// A request's place in the quota: the headers its answer carries, and the wait when spent.
#[derive(Debug)]
pub(crate) struct Counted {
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) spent_for: Option<Duration>,
}

impl StubQuota {
    pub(crate) fn new(limit: u64, window: Duration, now: Instant) -> StubQuota {
        StubQuota {
            name: None,
            limit,
            window: window.max(Duration::from_millis(1)),
            started: now,
            taken: 0,
            refused: 0,
        }
    }

    /// The same quota, named on every answer (`X-RateLimit-Resource`).
    pub(crate) fn named(self, name: &str) -> StubQuota {
        StubQuota {
            name: Some(name.to_owned()),
            ..self
        }
    }

    /// Counts one request at `now`.
    pub(crate) fn count(&mut self, now: Instant) -> Counted {
        while now >= self.started + self.window {
            self.started += self.window;
            self.taken = 0;
        }
        let spent = self.taken >= self.limit;
        if spent {
            self.refused += 1;
        } else {
            self.taken += 1;
        }
        let reset_in = self.started + self.window - now;
        let reset_secs = reset_in.as_secs() + u64::from(reset_in.subsec_nanos() > 0);
        let mut headers = vec![
            ("x-ratelimit-limit".to_owned(), self.limit.to_string()),
            (
                "x-ratelimit-remaining".to_owned(),
                (self.limit - self.taken).to_string(),
            ),
            ("x-ratelimit-reset".to_owned(), reset_secs.to_string()),
        ];
        if let Some(name) = &self.name {
            headers.push(("x-ratelimit-resource".to_owned(), name.clone()));
        }
        Counted {
            headers,
            spent_for: spent.then_some(reset_in),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_counts_down_refuses_past_its_limit_and_turns() {
        let t0 = Instant::now();
        let mut quota = StubQuota::new(2, Duration::from_secs(2), t0);
        let first = quota.count(t0);
        assert!(
            first
                .headers
                .contains(&("x-ratelimit-remaining".into(), "1".into()))
        );
        assert!(
            first
                .headers
                .contains(&("x-ratelimit-reset".into(), "2".into()))
        );
        assert!(quota.count(t0).spent_for.is_none());
        let third = quota.count(t0 + Duration::from_millis(500));
        assert_eq!(third.spent_for, Some(Duration::from_millis(1500)));
        assert_eq!(quota.refused, 1);
        let next = quota.count(t0 + Duration::from_secs(2));
        assert!(next.spent_for.is_none());
        assert!(
            next.headers
                .contains(&("x-ratelimit-remaining".into(), "1".into()))
        );
    }
}

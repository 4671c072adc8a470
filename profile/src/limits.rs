//! The largest value each size in a profile may take. A profile can come from another party (an
//! imported document, a configuration service), and a size is what a client allocates or starts
//! when it is built: `pool.workers: 3000` would start 3,000 threads, `window.calls: 1000000000`
//! would take gigabytes. Each limit is far above what a real client needs.

use crate::model::{Isolation, Profile, Window};

/// Worker threads of a pool bulkhead.
pub const MAX_POOL_WORKERS: u32 = 256;
/// Calls waiting in a pool bulkhead's queue.
pub const MAX_POOL_QUEUE: u32 = 100_000;
/// Calls in flight through a semaphore bulkhead.
pub const MAX_CONCURRENT: u32 = 1_000_000;
/// Calls a breaker's count window holds (one byte each).
pub const MAX_WINDOW_CALLS: u32 = 1_000_000;
/// Half-open trial calls.
pub const MAX_HALF_OPEN_CALLS: u32 = 10_000;
/// Attempts per call, the first included.
pub const MAX_ATTEMPTS: u32 = 100;
/// A rate limiter's burst.
pub const MAX_BURST: u32 = 1_000_000;
/// An endpoint's weight.
pub const MAX_WEIGHT: u32 = 10_000;

/// A value past its limit: the key path (`isolation.pool.workers`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverLimit {
    /// Where, as a dotted key path within the profile.
    pub path: String,
    /// What is wrong and the limit.
    pub message: String,
}

impl Profile {
    /// Every size of this profile past its limit.
    pub fn over_limits(&self) -> Vec<OverLimit> {
        let mut found = Vec::new();
        let mut check = |path: &str, value: Option<u32>, max: u32| {
            if let Some(value) = value.filter(|v| *v > max) {
                found.push(OverLimit {
                    path: path.to_owned(),
                    message: format!("`{path}` is {value}; at most {max}"),
                });
            }
        };
        match &self.isolation {
            Some(Isolation::Pool(pool)) => {
                check("isolation.pool.workers", pool.workers, MAX_POOL_WORKERS);
                check("isolation.pool.queue", pool.queue, MAX_POOL_QUEUE);
            }
            Some(Isolation::Semaphore(semaphore)) => check(
                "isolation.semaphore.max_concurrent",
                semaphore.max_concurrent,
                MAX_CONCURRENT,
            ),
            _ => {}
        }
        if let Some(breaker) = &self.breaker {
            if let Some(Window::Calls(calls)) = breaker.window {
                check("breaker.window.calls", Some(calls), MAX_WINDOW_CALLS);
            }
            check(
                "breaker.half_open_calls",
                breaker.half_open_calls,
                MAX_HALF_OPEN_CALLS,
            );
            check(
                "breaker.close_after",
                breaker.close_after,
                MAX_HALF_OPEN_CALLS,
            );
            check(
                "breaker.reopen_after",
                breaker.reopen_after,
                MAX_HALF_OPEN_CALLS,
            );
        }
        if let Some(retry) = &self.retry {
            check("retry.max_attempts", retry.max_attempts, MAX_ATTEMPTS);
        }
        if let Some(limit) = &self.rate_limit {
            check("rate_limit.burst", limit.burst, MAX_BURST);
        }
        if let Some(weights) = self.endpoints.as_ref().and_then(|e| e.weights.as_ref()) {
            for (i, weight) in weights.iter().enumerate() {
                check(&format!("endpoints.weights.{i}"), Some(*weight), MAX_WEIGHT);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_past_their_limits_are_found_with_their_paths() {
        let profile = Profile::from_yaml_str(
            "isolation: { pool: { workers: 3000, queue: 4294967295 } }\nbreaker: { window: { calls: 1000000000 } }",
        );
        let message = profile.unwrap_err().0;
        assert!(message.contains("isolation.pool.workers"), "{message}");
        let yaml = "isolation: { pool: { workers: 3000, queue: 4294967295 } }\nbreaker: { window: { calls: 1000000000 } }";
        let parsed: Profile = serde_yaml::from_str(yaml).unwrap();
        let paths: Vec<String> = parsed.over_limits().into_iter().map(|o| o.path).collect();
        assert_eq!(
            paths,
            [
                "isolation.pool.workers",
                "isolation.pool.queue",
                "breaker.window.calls"
            ]
        );
        assert!(Profile::from_yaml_str("isolation: { pool: { workers: 8, queue: 64 } }").is_ok());
    }
}

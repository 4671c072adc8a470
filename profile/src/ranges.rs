//! Values a profile's types accept but its meaning does not: a zero hedge delay, a percentile
//! outside p50–p99.9, an adaptive limit whose `min` is above its `max`. Reported with their key
//! paths, like sizes past their limits, so a spec names their place and a run-time profile fails
//! to parse.

use crate::limits::OverLimit;
use crate::model::{HedgeDelay, Isolation, Profile};

impl Profile {
    /// Every value of this profile outside the range its key allows.
    pub fn out_of_range(&self) -> Vec<OverLimit> {
        let mut found = Vec::new();
        let mut wrong = |path: &str, message: String| {
            found.push(OverLimit {
                path: path.to_owned(),
                message,
            });
        };
        if let Some(hedge) = &self.hedge {
            match hedge.delay {
                Some(HedgeDelay::After(delay)) if delay.is_zero() => wrong(
                    "hedge.delay",
                    "`hedge.delay` is zero: every call would be sent twice at once; write a duration above zero or a percentile (p95)".to_owned(),
                ),
                Some(HedgeDelay::Percentile(q)) if !(0.5 - 1e-9..=0.999 + 1e-9).contains(&q) => wrong(
                    "hedge.delay",
                    format!(
                        "`hedge.delay` is {}: a percentile from p50 to p99.9",
                        HedgeDelay::Percentile(q)
                    ),
                ),
                _ => {}
            }
            if hedge.max_extra == Some(0) {
                wrong(
                    "hedge.max_extra",
                    "`hedge.max_extra` is 0: no hedge could be sent; at least 1 (or leave `hedge` out)"
                        .to_owned(),
                );
            }
            if let Some(percent) = hedge.budget_percent
                && !(percent > 0.0 && percent <= 100.0)
            {
                wrong(
                    "hedge.budget_percent",
                    format!("`hedge.budget_percent` is {percent}: above 0, at most 100"),
                );
            }
        }
        if let Some(Isolation::Adaptive(adaptive)) = &self.isolation {
            if adaptive.min == Some(0) {
                wrong(
                    "isolation.adaptive.min",
                    "`isolation.adaptive.min` is 0: the limit could shut every call out; at least 1"
                        .to_owned(),
                );
            }
            if let (Some(min), Some(max)) = (adaptive.min, adaptive.max)
                && min > max
            {
                wrong(
                    "isolation.adaptive.min",
                    format!("`isolation.adaptive.min` ({min}) is above `max` ({max})"),
                );
            }
            let (min, max) = (adaptive.min.unwrap_or(2), adaptive.max.unwrap_or(500));
            if let Some(initial) = adaptive.initial.filter(|i| *i < min || *i > max) {
                wrong(
                    "isolation.adaptive.initial",
                    format!(
                        "`isolation.adaptive.initial` ({initial}) is outside min–max ({min}–{max})"
                    ),
                );
            }
        }
        self.basics_out_of_range(&mut wrong);
        self.fleet_and_deadline_out_of_range(&mut wrong);
        found
    }

    /// Attempts, rates and percentages: a zero that stops every call, a percentage past 100.
    fn basics_out_of_range(&self, wrong: &mut impl FnMut(&str, String)) {
        if self.retry.as_ref().and_then(|r| r.max_attempts) == Some(0) {
            wrong(
                "retry.max_attempts",
                "`retry.max_attempts` is 0: at least 1, the first attempt (1 means no retries)"
                    .to_owned(),
            );
        }
        if let Some(rate) = self.rate_limit.as_ref().and_then(|r| r.per_second)
            && !(rate > 0.0 && rate.is_finite())
        {
            wrong(
                "rate_limit.per_second",
                format!(
                    "`rate_limit.per_second` is {rate}: no call could pass; above 0 (or leave `rate_limit` out)"
                ),
            );
        }
        let breaker = self.breaker.as_ref();
        let rates = [
            ("breaker.failure_rate", breaker.and_then(|b| b.failure_rate)),
            (
                "breaker.slow_call.rate",
                breaker
                    .and_then(|b| b.slow_call.as_ref())
                    .and_then(|s| s.rate),
            ),
        ];
        for (path, rate) in rates {
            if let Some(rate) = rate.filter(|r| !(*r > 0.0 && *r <= 100.0)) {
                wrong(
                    path,
                    format!("`{path}` is {rate}: a percentage, above 0 and at most 100"),
                );
            }
        }
    }

    /// The ranges of the fleet's shared limit and budget, and of the deadline header.
    fn fleet_and_deadline_out_of_range(&self, wrong: &mut impl FnMut(&str, String)) {
        let shared_limit = self.rate_limit.as_ref().and_then(|r| r.shared.as_ref());
        if shared_limit.is_some_and(|shared| shared.replicas == Some(0)) {
            wrong(
                "rate_limit.shared.replicas",
                "`rate_limit.shared.replicas` is 0: at least 1 (the replicas sharing the key)"
                    .to_owned(),
            );
        }
        for (at, redis, key) in self.redis_stores() {
            shared_place(&mut *wrong, at, redis, key);
        }
        // Kept answers are scoped to a client; quotas and budgets are the server's and the
        // fleet's, shared by `key` alone.
        let budget = self.retry.as_ref().and_then(|r| r.budget.as_ref());
        let unscoped = [
            (
                "retry.budget.shared",
                budget.and_then(|b| b.shared.as_ref()),
            ),
            (
                "quota.shared",
                self.quota.as_ref().and_then(|q| q.shared.as_ref()),
            ),
        ];
        for (at, shared) in unscoped {
            if shared.is_some_and(|shared| shared.scope.is_some()) {
                wrong(
                    &format!("{at}.scope"),
                    format!(
                        "`{at}.scope`: `scope` says who shares kept answers (`cache.shared`); `{at}` is shared by its `key`"
                    ),
                );
            }
        }
        if let Some(header) = self.deadline.as_ref().and_then(|d| d.propagate.as_deref())
            && (header.is_empty()
                || !header
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)))
        {
            wrong(
                "deadline.propagate",
                format!("`deadline.propagate`: `{header}` is not a valid header name"),
            );
        }
    }
}

impl Profile {
    /// Each state the profile keeps in Redis for the fleet: where in the profile, and the
    /// Redis URL and key as written.
    pub fn redis_stores(&self) -> Vec<(&'static str, Option<&str>, Option<&str>)> {
        fn store<'a>(
            at: &'static str,
            shared: Option<&'a crate::model::SharedStore>,
        ) -> Option<(&'static str, Option<&'a str>, Option<&'a str>)> {
            shared.map(|s| (at, s.redis.as_deref(), s.key.as_deref()))
        }
        let limit = self.rate_limit.as_ref().and_then(|r| r.shared.as_ref());
        [
            limit.map(|s| ("rate_limit.shared", s.redis.as_deref(), s.key.as_deref())),
            store(
                "retry.budget.shared",
                self.retry
                    .as_ref()
                    .and_then(|r| r.budget.as_ref())
                    .and_then(|b| b.shared.as_ref()),
            ),
            store(
                "quota.shared",
                self.quota.as_ref().and_then(|q| q.shared.as_ref()),
            ),
            store(
                "cache.shared",
                self.cache.as_ref().and_then(|c| c.shared.as_ref()),
            ),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// A shared limit or budget needs where (a `redis://` or `rediss://` URL, or a `${VAR}` for one)
/// and under which key.
fn shared_place(
    wrong: &mut impl FnMut(&str, String),
    at: &str,
    redis: Option<&str>,
    key: Option<&str>,
) {
    match redis {
        None => wrong(
            &format!("{at}.redis"),
            format!("`{at}` needs `redis`, the server's URL (`redis: \"${{REDIS_URL}}\"`)"),
        ),
        Some(url)
            if !(url.starts_with("redis://")
                || url.starts_with("rediss://")
                || url.starts_with("redis+cluster://")
                || url.starts_with("rediss+cluster://")
                || url.starts_with("${")) =>
        {
            wrong(
                &format!("{at}.redis"),
                format!(
                    "`{at}.redis` is not a Redis URL: write redis://host:6379, rediss://host:6380 or redis+cluster://node:7000"
                ),
            )
        }
        _ => {}
    }
    if key.is_none_or(str::is_empty) {
        wrong(
            &format!("{at}.key"),
            format!("`{at}` needs `key`: replicas with the same key share it"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(yaml: &str) -> Vec<String> {
        let profile: Profile = serde_yaml::from_str(yaml).unwrap();
        profile.out_of_range().into_iter().map(|o| o.path).collect()
    }

    #[test]
    fn hedge_adaptive_and_deadline_values_out_of_range_are_found() {
        assert_eq!(
            paths("hedge: { delay: 0ms, max_extra: 0, budget_percent: 0 }"),
            ["hedge.delay", "hedge.max_extra", "hedge.budget_percent"]
        );
        assert_eq!(paths("hedge: { delay: p99.95 }"), ["hedge.delay"]);
        assert_eq!(paths("hedge: { delay: p40 }"), ["hedge.delay"]);
        assert!(paths("hedge: { delay: p99.9, max_extra: 2, budget_percent: 5 }").is_empty());
        assert!(paths("hedge: { delay: 20ms }").is_empty());
        assert_eq!(
            paths("isolation: { adaptive: { min: 10, max: 5, initial: 50 } }"),
            ["isolation.adaptive.min", "isolation.adaptive.initial"]
        );
        assert_eq!(
            paths("deadline: { propagate: \"X Timeout\" }"),
            ["deadline.propagate"]
        );
        let refused = Profile::from_yaml_str("hedge: { delay: p100 }").unwrap_err();
        assert!(refused.0.contains("p50 to p99.9"), "{refused}");
        let refused = Profile::from_yaml_str("hedge: { delay: -5ms }").unwrap_err();
        assert!(refused.0.contains("invalid duration"), "{refused}");
    }
}

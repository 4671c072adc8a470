//! What a client shares with its fleet: the rate limit and the retry budget kept in Redis (the
//! `redis` feature, runtime/src/fleet/redis/). This file is the seam the pipeline calls through; without
//! the feature, a profile that asks for a shared limit fails `build()` saying which feature to
//! turn on, and the pipeline's calls here are unreachable.

#[cfg(feature = "redis")]
pub(crate) mod redis;

use std::sync::Arc;

use remcall_profile::Settings;
use tokio::time::Instant;

use crate::error::{Error, ErrorKind};

#[cfg(feature = "redis")]
type SharedLimiter = crate::fleet::redis::SharedLimiter;
#[cfg(not(feature = "redis"))]
type SharedLimiter = std::convert::Infallible;

#[cfg(feature = "redis")]
type SharedBudget = crate::fleet::redis::SharedBudget;
#[cfg(not(feature = "redis"))]
type SharedBudget = std::convert::Infallible;

/// A method's shared rate limit, when its profile has `rate_limit.shared`.
pub(crate) type Limit = Option<Arc<SharedLimiter>>;

/// A client's shared retry budget, when its profile has `retry.budget.shared`.
pub(crate) type Budget = Option<Arc<SharedBudget>>;

/// What a shared limit decided: go (having waited for the turn, or not), or refused; and
/// whether Redis had a say.
pub(crate) struct Decision {
    pub(crate) admitted: bool,
    pub(crate) waited: bool,
    pub(crate) without_redis: bool,
}

#[cfg(not(feature = "redis"))]
fn needs_the_feature(field: &str) -> Error {
    Error::new(
        ErrorKind::Config,
        format!(
            "`{field}` keeps the limit in Redis, which needs remcall's `redis` feature: remcall = {{ version = \"…\", features = [\"redis\"] }}"
        ),
    )
}

/// The shared rate limit of `settings`, if it asks for one.
pub(crate) fn limiter(
    settings: &Settings,
    client: &'static str,
    now: Instant,
) -> Result<Limit, Error> {
    let Some(rate) = &settings.rate_limit else {
        return Ok(None);
    };
    let Some(shared) = &rate.shared else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    {
        let url = resolve(&shared.redis, "rate_limit.shared.redis")?;
        let link = crate::fleet::redis::Link::new(
            &url,
            shared.timeout,
            client,
            "rate_limit.shared.redis",
        )?;
        Ok(Some(Arc::new(crate::fleet::redis::SharedLimiter::new(
            rate, shared, link, now,
        ))))
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = (shared, client, now);
        Err(needs_the_feature("rate_limit.shared"))
    }
}

/// The shared retry budget of `settings`, if it asks for one.
pub(crate) fn budget(
    settings: &Settings,
    client: &'static str,
    now: Instant,
) -> Result<Budget, Error> {
    let Some(shared) = &settings.retry.budget_shared else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    {
        let url = resolve(&shared.redis, "retry.budget.shared.redis")?;
        let link = crate::fleet::redis::Link::new(
            &url,
            shared.timeout,
            client,
            "retry.budget.shared.redis",
        )?;
        Ok(Some(Arc::new(crate::fleet::redis::SharedBudget::new(
            shared,
            settings.retry.budget_ratio,
            settings.retry.budget_min_per_second,
            link,
            now,
        ))))
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = (shared, client, now);
        Err(needs_the_feature("retry.budget.shared"))
    }
}

#[cfg(feature = "redis")]
fn resolve(url: &str, field: &str) -> Result<String, Error> {
    // The error names the variable, never the URL (it may hold a password).
    remcall_profile::vars::expand_env(url)
        .map_err(|e| Error::new(ErrorKind::Config, format!("{field}: {e}")))
}

/// Step 1 of a call under a shared limit: asks for a turn and waits for it.
pub(crate) async fn admit(limiter: &SharedLimiter, now: Instant) -> Decision {
    #[cfg(feature = "redis")]
    {
        match limiter.admit(now).await {
            crate::fleet::redis::Admission::Go(turn) => {
                let (waited, without_redis) = (turn.waits(), turn.without_redis);
                turn.ready().await;
                Decision {
                    admitted: true,
                    waited,
                    without_redis,
                }
            }
            crate::fleet::redis::Admission::Refused { without_redis } => Decision {
                admitted: false,
                waited: false,
                without_redis,
            },
        }
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = now;
        match *limiter {}
    }
}

/// Counts a call in the fleet's budget.
pub(crate) fn deposit(budget: &Arc<SharedBudget>, now: Instant) {
    #[cfg(feature = "redis")]
    budget.deposit(now);
    #[cfg(not(feature = "redis"))]
    {
        let _ = now;
        match **budget {}
    }
}

/// Takes a retry from the fleet's budget; `None` when Redis could not say.
pub(crate) async fn withdraw(budget: &Arc<SharedBudget>) -> Option<bool> {
    #[cfg(feature = "redis")]
    {
        budget.withdraw().await
    }
    #[cfg(not(feature = "redis"))]
    {
        match **budget {}
    }
}

#[cfg(all(test, not(feature = "redis")))]
mod tests {
    use remcall_profile::Profile;

    use super::*;

    #[test]
    fn a_shared_limit_without_the_feature_says_which_feature() {
        let settings = Settings::from_profile(
            &Profile::from_yaml_str(
                "rate_limit: { per_second: 10, shared: { redis: \"redis://127.0.0.1:1\", key: k } }",
            )
            .unwrap(),
        );
        let error = limiter(&settings, "C", Instant::now()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config);
        assert!(
            error.to_string().contains("features = [\"redis\"]"),
            "{error}"
        );
    }
}

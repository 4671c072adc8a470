//! What a client shares with its fleet: the rate limit, the retry budget, the server's quotas
//! and kept answers, in Redis (the `redis` feature, runtime/src/fleet/redis/). This file is the seam the pipeline calls through; without
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

#[cfg(feature = "redis")]
pub(crate) type SharedQuotas = crate::fleet::redis::SharedQuotas;
#[cfg(not(feature = "redis"))]
pub(crate) type SharedQuotas = std::convert::Infallible;

/// A client's quotas shared by the fleet, when its profile has `quota.shared`.
pub(crate) type Quotas = Option<Arc<SharedQuotas>>;

/// A client's kept answers shared by the fleet, when its profile has `cache.shared`.
pub(crate) type Cache = Option<Arc<dyn crate::outbound::cache::SharedAnswers>>;

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

/// The shared rate limit of `settings`, if it asks for one and has a Redis to keep it in.
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
    let Some(link) = link(&shared.redis, shared.timeout, client, "rate_limit.shared")? else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    {
        Ok(Some(Arc::new(crate::fleet::redis::SharedLimiter::new(
            rate, shared, link, now,
        ))))
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = (rate, now);
        match link {}
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
    let Some(link) = link(&shared.redis, shared.timeout, client, "retry.budget.shared")? else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    {
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
        let _ = now;
        match link {}
    }
}

/// The fleet's quotas of `settings`, if it shares them.
pub(crate) fn quotas(settings: &Settings, client: &'static str) -> Result<Quotas, Error> {
    let Some(shared) = &settings.quota_shared else {
        return Ok(None);
    };
    let Some(link) = link(&shared.redis, shared.timeout, client, "quota.shared")? else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    {
        Ok(Some(Arc::new(crate::fleet::redis::SharedQuotas::new(
            shared, link,
        ))))
    }
    #[cfg(not(feature = "redis"))]
    match link {}
}

/// The fleet's kept answers of `settings`, if it shares them.
pub(crate) fn cache(settings: &Settings, client: &'static str) -> Result<Cache, Error> {
    let Some(shared) = settings.cache.as_ref().and_then(|c| c.shared.as_ref()) else {
        return Ok(None);
    };
    let Some(link) = link(&shared.redis, shared.timeout, client, "cache.shared")? else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    {
        let secret = match &shared.secret {
            Some(secret) => resolve(secret.expose_template(), "cache.shared.secret")?,
            None => String::new(),
        };
        if secret.is_empty() {
            return Err(Error::new(
                ErrorKind::Config,
                "cache.shared needs `secret:` (not empty): the fleet's key that keys its Redis keys and signs its entries",
            ));
        }
        Ok(Some(
            Arc::new(crate::fleet::redis::SharedCache::new(shared, &secret, link))
                as Arc<dyn crate::outbound::cache::SharedAnswers>,
        ))
    }
    #[cfg(not(feature = "redis"))]
    match link {}
}

#[cfg(feature = "redis")]
type Link = Arc<crate::fleet::redis::Link>;
#[cfg(not(feature = "redis"))]
type Link = std::convert::Infallible;

/// The connection to `redis` (its placeholders resolved) of what the profile shares at
/// `field`, waited on no longer than `timeout`; `None` when the URL is empty, as a spec says
/// with `${REDIS_URL:-}` for the runs (tests, a developer's machine) that have no Redis: what
/// it shares then stays in this process, and a warning says so.
fn link(
    redis: &str,
    timeout: std::time::Duration,
    client: &'static str,
    field: &str,
) -> Result<Option<Link>, Error> {
    #[cfg(feature = "redis")]
    {
        let at = format!("{field}.redis");
        let url = resolve(redis, &at)?;
        if url.is_empty() {
            tracing::warn!(
                client,
                "`{at}` is empty: nothing is shared with the fleet, the limit stays in this process"
            );
            return Ok(None);
        }
        crate::fleet::redis::Link::new(&url, timeout, client, &at).map(Some)
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = (redis, timeout, client);
        Err(needs_the_feature(field))
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

/// An attempt's turn in the fleet's quota `name`: `Some(None)` when Redis does not know the
/// quota yet, `None` when it cannot say; the replica's own quota decides then.
pub(crate) async fn quota_turn(
    quotas: &Arc<SharedQuotas>,
    name: Option<&str>,
    may_wait: std::time::Duration,
    longest_hold: std::time::Duration,
) -> Option<Option<crate::policy::quota::Turn>> {
    #[cfg(feature = "redis")]
    {
        quotas.turn(name, may_wait, longest_hold).await
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = (name, may_wait, longest_hold);
        match **quotas {}
    }
}

/// An answer's word on the fleet's quota `name`, sent in the background.
pub(crate) fn quota_heard(
    quotas: &Arc<SharedQuotas>,
    name: Option<&str>,
    said: &crate::policy::quota::Announcement,
    sent: Instant,
    in_turn: bool,
) {
    #[cfg(feature = "redis")]
    quotas.observe(name, said, sent, in_turn);
    #[cfg(not(feature = "redis"))]
    {
        let _ = (name, said, sent, in_turn);
        match **quotas {}
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

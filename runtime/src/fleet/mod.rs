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

// What Redis keeps for the fleet, one type a concern; without the `redis` feature each is a
// type with no value, so the pipeline's branches for them compile away. The kept answers are
// reached through a trait instead (`outbound::cache::SharedAnswers`): the cache that asks them
// sits below this module, and the entries Redis keeps are its type.
#[cfg(feature = "redis")]
use crate::fleet::redis::{BudgetInRedis, LimiterInRedis, QuotasInRedis};
#[cfg(not(feature = "redis"))]
type LimiterInRedis = std::convert::Infallible;
#[cfg(not(feature = "redis"))]
type BudgetInRedis = std::convert::Infallible;
#[cfg(not(feature = "redis"))]
pub(crate) type QuotasInRedis = std::convert::Infallible;

/// A client's quotas shared by the fleet, when its profile has `quota.shared` (the replica's
/// own are `policy::quota::Quotas`).
pub(crate) type SharedQuotas = Option<Arc<QuotasInRedis>>;

/// A client's kept answers shared by the fleet, when its profile has `cache.shared` (the
/// replica's own are `outbound::cache::Cache`).
pub(crate) type SharedCache = Option<Arc<dyn crate::outbound::cache::SharedAnswers>>;

/// A method's shared rate limit, when its profile has `rate_limit.shared`.
pub(crate) type SharedLimit = Option<Arc<LimiterInRedis>>;

/// A client's shared retry budget, when its profile has `retry.budget.shared`.
pub(crate) type SharedBudget = Option<Arc<BudgetInRedis>>;

/// An attempt's turn in the fleet's quota, as Redis gives it.
#[cfg_attr(
    not(feature = "redis"),
    allow(dead_code, reason = "only Redis gives a turn")
)]
pub(crate) enum FleetTurn {
    /// The fleet's turn: the replica's own count does not decide.
    Given(crate::policy::quota::Turn),
    /// Redis does not know the quota yet (no answer has announced it): the replica's own
    /// count decides.
    Unknown,
    /// Redis did not answer in time: the replica's own count decides, and the call counts as
    /// one made without Redis.
    Silent,
}

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
) -> Result<SharedLimit, Error> {
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
        let shared = remcall_profile::SharedLimitSettings {
            key: resolve(&shared.key, "rate_limit.shared.key")?,
            ..shared.clone()
        };
        Ok(Some(Arc::new(crate::fleet::redis::LimiterInRedis::new(
            rate, &shared, link, now,
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
) -> Result<SharedBudget, Error> {
    let Some(shared) = &settings.retry.budget_shared else {
        return Ok(None);
    };
    let Some(link) = link(&shared.redis, shared.timeout, client, "retry.budget.shared")? else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    {
        let shared = &with_key(shared, "retry.budget.shared")?;
        Ok(Some(Arc::new(crate::fleet::redis::BudgetInRedis::new(
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
pub(crate) fn quotas(settings: &Settings, client: &'static str) -> Result<SharedQuotas, Error> {
    let Some(shared) = &settings.quota_shared else {
        return Ok(None);
    };
    let Some(link) = link(&shared.redis, shared.timeout, client, "quota.shared")? else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    {
        let shared = with_key(shared, "quota.shared")?;
        Ok(Some(Arc::new(crate::fleet::redis::QuotasInRedis::new(
            &shared, link,
        ))))
    }
    #[cfg(not(feature = "redis"))]
    match link {}
}

/// The fewest bytes a `cache.shared.secret` may have: an HMAC-SHA256 key shorter than its
/// output is guessed more easily than the digests it keys.
#[cfg(feature = "redis")]
const MIN_SECRET_BYTES: usize = 32;

/// The fleet's kept answers of `settings`, if it shares them, scoped by `scope`: by default
/// the client's name and base URLs (`client` and `base_urls`), else the profile's
/// `cache.shared.scope`.
pub(crate) fn cache(
    settings: &Settings,
    client: &'static str,
    base_urls: &[String],
) -> Result<SharedCache, Error> {
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
        if secret.len() < MIN_SECRET_BYTES {
            // Named by its variable (or its key, for a literal), never by its value.
            let named = shared
                .secret
                .as_ref()
                .map_or_else(Vec::new, |secret| variables(secret.expose_template()));
            let which = match named.as_slice() {
                [] => "`cache.shared.secret`".to_owned(),
                vars => format!("`cache.shared.secret` (${{{}}})", vars.join("}, ${")),
            };
            return Err(Error::new(
                ErrorKind::Config,
                format!(
                    "{which} has {} bytes: the fleet's key needs {MIN_SECRET_BYTES} random bytes at least (e.g. `openssl rand -base64 32`)",
                    secret.len()
                ),
            ));
        }
        let shared = with_key(shared, "cache.shared")?;
        let scope = match &shared.scope {
            Some(scope) => vec!["scope".to_owned(), resolve(scope, "cache.shared.scope")?],
            None => {
                let mut urls: Vec<String> = base_urls
                    .iter()
                    .map(|url| remcall_profile::vars::expand_env(url).unwrap_or_default())
                    .collect();
                urls.sort();
                std::iter::once("client".to_owned())
                    .chain(std::iter::once(client.to_owned()))
                    .chain(urls)
                    .collect()
            }
        };
        Ok(Some(Arc::new(crate::fleet::redis::CacheInRedis::new(
            &shared, &secret, &scope, link,
        ))
            as Arc<dyn crate::outbound::cache::SharedAnswers>))
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = base_urls;
        match link {}
    }
}

/// The variables `text` names, in order.
#[cfg(feature = "redis")]
fn variables(text: &str) -> Vec<String> {
    let seen = std::cell::RefCell::new(Vec::new());
    let _ = remcall_profile::vars::expand(text, |name| {
        seen.borrow_mut().push(name.to_owned());
        Some(String::new())
    });
    seen.into_inner()
}

/// `shared` with its `key`'s placeholders resolved (`field` names it in an error).
#[cfg(feature = "redis")]
fn with_key(
    shared: &remcall_profile::SharedStoreSettings,
    field: &str,
) -> Result<remcall_profile::SharedStoreSettings, Error> {
    Ok(remcall_profile::SharedStoreSettings {
        key: resolve(&shared.key, &format!("{field}.key"))?,
        ..shared.clone()
    })
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
                target: crate::observe::outlets::log::TARGET,
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
pub(crate) async fn admit(limiter: &LimiterInRedis, now: Instant) -> Decision {
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

/// An attempt's turn in the fleet's quota `name`.
pub(crate) async fn quota_turn(
    quotas: &Arc<QuotasInRedis>,
    name: Option<&str>,
    may_wait: std::time::Duration,
    longest_hold: std::time::Duration,
) -> FleetTurn {
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
    quotas: &Arc<QuotasInRedis>,
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
pub(crate) fn deposit(budget: &Arc<BudgetInRedis>, now: Instant) {
    #[cfg(feature = "redis")]
    budget.deposit(now);
    #[cfg(not(feature = "redis"))]
    {
        let _ = now;
        match **budget {}
    }
}

/// Takes a retry from the fleet's budget; `None` when Redis could not say by `until`.
pub(crate) async fn withdraw(budget: &Arc<BudgetInRedis>, until: Option<Instant>) -> Option<bool> {
    #[cfg(feature = "redis")]
    {
        budget.withdraw(until).await
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = until;
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

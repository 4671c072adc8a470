//! The remcall profile: the call policies (timeouts, retries, breaker, isolation, rate limit,
//! auth, headers, logging, limits) that a spec names and a running client can override.
//!
//! A [`Profile`] is partial: each part is optional and profiles [`Layer`] field by field, so
//! `Profile::from_yaml_str("retry: { max_attempts: 1 }")` changes that value alone.
//! [`Settings::from_profile`] fills in the defaults.

// A function past 80 lines (clippy.toml) does several things: split it by what they are.
#![warn(clippy::too_many_lines)]

pub mod limits;
mod model;
mod ranges;
#[cfg(feature = "schema")]
pub mod schema;
mod settings;
pub mod suggest;
pub mod units;
pub mod vars;

pub use model::{
    AdaptivePolicy, Auth, Backoff, Basic, Bearer, BreakerPolicy, CachingPolicy, ClientAuth,
    Compression, Condition, Cookies, DEFAULT_CACHE_BYTES, DeadlinePolicy, DecodeMode, Dns, Eject,
    EndpointsPolicy, ErrorsPolicy, HeaderDef, Headers, HedgeDelay, HedgePolicy, Isolation, Jitter,
    Layer, LimitAlgorithm, LogLevel, OAuth2, OnRedisError, PoolPolicy, Profile, QueryParams,
    QuotaHeaders, QuotaPolicy, RateLimitPolicy, RecordPolicy, RedisUrl, RetryAfter,
    RetryBudgetPolicy, RetryPolicy, Roots, Scope, Secret, SemaphorePolicy, SharedLimit,
    SharedStore, SlowCall, Strategy, Timeouts, Tls, TraceContext, Window,
};
pub use settings::{
    BreakerSettings, CacheSettings, EndpointSettings, HalfOpenRule, HedgeSettings,
    IsolationSettings, RateLimitSettings, RecordSettings, RetrySettings, Settings,
    SharedLimitSettings, SharedStoreSettings,
};
pub use units::ByteSize;

/// A profile text that does not parse, or names something only a spec file may.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid profile: {0}")]
pub struct ProfileError(pub String);

impl Profile {
    /// Parses a profile written in the spec's `configs:` syntax.
    ///
    /// `extends` and `interceptors` name other spec profiles and Rust types, which exist only at
    /// generation time; here they are refused (add interceptors with the client builder).
    pub fn from_yaml_str(text: &str) -> Result<Profile, ProfileError> {
        if text.trim().is_empty() {
            return Ok(Profile::default());
        }
        let profile: Profile = serde_yaml::from_str(text).map_err(|e| {
            ProfileError(suggest::for_unknown_field(suggest::in_yaml_words(
                &e.to_string(),
            )))
        })?;
        profile.check()?;
        Ok(profile)
    }

    /// A profile written in code, key by key, as YAML writes it; [`Profile::build`] then checks
    /// it as [`Profile::from_yaml_str`] checks text:
    ///
    /// ```
    /// use std::time::Duration;
    /// use remcall_profile::{Auth, Bearer, Profile, RetryPolicy, Secret, Timeouts};
    ///
    /// let profile = Profile::builder()
    ///     .timeout(Timeouts::default().attempt(Duration::from_secs(2)))
    ///     .retry(RetryPolicy::default().max_attempts(4u32))
    ///     .auth(Auth::Bearer(Bearer { token: Secret::from_env("API_TOKEN") }))
    ///     .build()?;
    /// let written = "timeout: { attempt: 2s }\nretry: { max_attempts: 4 }\nauth: { bearer: { token: \"${API_TOKEN}\" } }";
    /// assert_eq!(profile, Profile::from_yaml_str(written)?);
    /// # Ok::<(), remcall_profile::ProfileError>(())
    /// ```
    pub fn builder() -> Profile {
        Profile::default()
    }

    /// The profile, once it passes [`Profile::check`].
    pub fn build(self) -> Result<Profile, ProfileError> {
        self.check()?;
        Ok(self)
    }

    /// Whether this profile, however it was made (read from YAML, from a service's own
    /// configuration through serde, or in code), holds what a run-time profile may: the checks
    /// [`Profile::from_yaml_str`] makes, and `ClientBuilder::build` makes again of every profile
    /// it is given.
    pub fn check(&self) -> Result<(), ProfileError> {
        if self.extends.is_some() {
            return Err(ProfileError(
                "`extends` works only inside a spec's `configs:`".to_owned(),
            ));
        }
        if self.interceptors.is_some() {
            return Err(ProfileError(
                "`interceptors` name Rust types and work only in a spec; at run time use the client builder's `.interceptor(..)`".to_owned(),
            ));
        }
        match self
            .over_limits()
            .into_iter()
            .chain(self.out_of_range())
            .next()
        {
            Some(over) => Err(ProfileError(over.message)),
            None => Ok(()),
        }
    }

    /// Writes the profile in the same syntax [`Profile::from_yaml_str`] reads.
    pub fn to_yaml_string(&self) -> String {
        // Serializing plain data to YAML cannot fail; an empty profile is the fallback.
        serde_yaml::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_run_time_window_written_as_a_duration_gets_the_help_check_gives() {
        let error = Profile::from_yaml_str("breaker: { window: 10s }").unwrap_err();
        assert!(
            error.0.ends_with("write it as `window: { time: 10s }`"),
            "{}",
            error.0
        );
    }

    use std::time::Duration;

    use super::*;

    #[test]
    fn a_literal_secret_in_a_runtime_profile_is_never_printed() {
        let profile = Profile::from_yaml_str(
            "auth: { oauth2: { token_url: \"http://t\", client_id: app, client_secret: lit-secret-1 } }\nheaders: { X-Key: { value: lit-secret-2, secret: true }, X-Ref: { value: \"${KEY}\", secret: true } }",
        )
        .unwrap();
        let printed = format!("{}\n{profile:?}", profile.to_yaml_string());
        assert!(
            !printed.contains("lit-secret-1") && !printed.contains("lit-secret-2"),
            "{printed}"
        );
        // A reference stays: generated code carries it, to be resolved at run time.
        assert!(printed.contains("${KEY}"), "{printed}");
        let bearer = Profile::from_yaml_str("auth: { bearer: { token: lit-secret-3 } }").unwrap();
        assert!(!bearer.to_yaml_string().contains("lit-secret-3"));
    }

    #[test]
    fn a_runtime_override_changes_only_the_fields_it_sets() {
        let spec = Profile::from_yaml_str(
            "timeout: { connect: 1s, attempt: 3s }\nretry: { max_attempts: 5, backoff: { initial: 50ms } }",
        )
        .unwrap();
        let over = Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap();
        let settings = Settings::from_profile(&spec.layer(over));
        assert_eq!(settings.retry.max_attempts, 1);
        assert_eq!(settings.retry.initial, Duration::from_millis(50));
        assert_eq!(settings.attempt_timeout, Duration::from_secs(3));
        assert_eq!(settings.total_timeout, Duration::from_secs(30));
    }

    #[test]
    fn the_whole_format_parses_and_round_trips() {
        let text = r#"
timeout: { connect: 2s, attempt: 10s, total: 30s }
retry:
  max_attempts: 3
  backoff: { initial: 100ms, max: 2s, multiplier: 2.0, jitter: full }
  on: [connect, timeout, 429, 502, 503, 504]
  retry_after: { max: 10s }
  budget: { ratio: 0.2, min_per_second: 10 }
breaker:
  scope: method
  window: { time: 10s }
  min_calls: 20
  failure_rate: 50
  slow_call: { over: 2s, rate: 100 }
  open_for: 5s
  open_for_max: 60s
  half_open_calls: 5
  close_after: 3
  reopen_after: 2
  record: [connect, timeout, 5xx]
isolation: { semaphore: { max_concurrent: 128, max_wait: 0s } }
rate_limit: { per_second: 100, burst: 20, max_wait: 0s }
auth:
  oauth2: { token_url: "${AUTH_URL}/oauth/token", client_id: "${CLIENT_ID}", client_secret: "${CLIENT_SECRET}", scopes: [users.read] }
headers: { X-App: crm }
log: basic
max_response_bytes: 16MiB
"#;
        let profile = Profile::from_yaml_str(text).unwrap();
        let again = Profile::from_yaml_str(&profile.to_yaml_string()).unwrap();
        assert_eq!(profile, again);
        let settings = Settings::from_profile(&profile);
        assert_eq!(settings.breaker.record[2], Condition::StatusClass(5));
        assert_eq!(
            settings.breaker.half_open,
            HalfOpenRule::Count {
                close_after: 3,
                reopen_after: 2
            }
        );
        assert_eq!(
            settings.breaker.slow_call,
            Some((Duration::from_secs(2), 100.0))
        );
        assert_eq!(settings.max_response_bytes, 16 << 20);
    }

    #[test]
    fn either_half_open_count_selects_the_counting_rule_with_the_other_defaulted() {
        let rule = |yaml: &str| {
            Settings::from_profile(&Profile::from_yaml_str(yaml).unwrap())
                .breaker
                .half_open
        };
        assert_eq!(rule("breaker: { half_open_calls: 3 }"), HalfOpenRule::Rate);
        assert_eq!(
            rule("breaker: { half_open_calls: 3, reopen_after: 2 }"),
            HalfOpenRule::Count {
                close_after: 3,
                reopen_after: 2
            }
        );
        assert_eq!(
            rule("breaker: { close_after: 4 }"),
            HalfOpenRule::Count {
                close_after: 4,
                reopen_after: 1
            }
        );
        assert_eq!(
            rule("breaker: { close_after: 0, reopen_after: 0 }"),
            HalfOpenRule::Count {
                close_after: 1,
                reopen_after: 1
            },
            "zero would close or re-open before any trial"
        );
    }

    #[test]
    fn isolation_none_and_pool_parse() {
        let none = Profile::from_yaml_str("isolation: none").unwrap();
        assert_eq!(none.isolation, Some(Isolation::None));
        let pool = Profile::from_yaml_str("isolation: { pool: { workers: 2 } }").unwrap();
        assert!(matches!(
            Settings::from_profile(&pool).isolation,
            IsolationSettings::Pool {
                workers: 2,
                queue: 64,
                ..
            }
        ));
    }

    #[test]
    fn unknown_keys_and_spec_only_fields_are_refused() {
        assert!(
            Profile::from_yaml_str("retry: { max_atempts: 1 }")
                .unwrap_err()
                .0
                .contains("max_atempts")
        );
        assert!(Profile::from_yaml_str("extends: base").is_err());
        assert!(Profile::from_yaml_str("interceptors: [crate::X]").is_err());
    }

    #[test]
    fn debug_never_shows_secrets() {
        let profile = Profile::from_yaml_str(
            "auth: { basic: { username: u, password: hunter2 } }\nheaders: { X-Api-Key: k3y-v4lue }",
        )
        .unwrap();
        let debug = format!("{profile:?}");
        assert!(
            !debug.contains("hunter2") && !debug.contains("k3y-v4lue"),
            "{debug}"
        );
        assert!(debug.contains("X-Api-Key"));
    }
}

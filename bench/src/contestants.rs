//! The load and isolation benches' contestants: the same `GET /v1/api/users/{id}` with a JSON
//! decode, made by raw reqwest, a remcall generated client, reqwest-middleware with
//! reqwest-retry, and a tower stack (tower-resilience's circuit breaker, tower's concurrency
//! limit and retry). With [`Setup::outsider`], the configuration an independent bench chose:
//! remcall with every policy on (three timeouts, four attempts with jittered backoff, a count
//! breaker, a semaphore, `log: none`) against reqwest with no timeout and tower's full stack
//! (a timeout layer added).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use remcall::Profile;
use remcall_example_committed::clients::user_client::{User, UserClient};
use tower::limit::ConcurrencyLimit;
use tower::retry::Retry;
use tower::timeout::Timeout;
use tower::{Layer, Service, ServiceExt};
use tower_resilience_circuitbreaker::{
    CircuitBreaker, CircuitBreakerLayer, DefaultClassifier, SlidingWindowType,
};

/// Who makes the calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contestant {
    /// reqwest alone: the floor.
    Reqwest,
    /// A remcall generated client: retry, breaker and semaphore bulkhead on.
    Remcall,
    /// reqwest-middleware + reqwest-retry: retries, no breaker.
    Middleware,
    /// tower-resilience circuit breaker → tower concurrency limit → tower retry.
    Tower,
}

impl Contestant {
    /// Every contestant, in the order rounds run them.
    pub const ALL: [Contestant; 4] = [
        Contestant::Reqwest,
        Contestant::Remcall,
        Contestant::Middleware,
        Contestant::Tower,
    ];

    /// The name printed in tables.
    pub fn name(self) -> &'static str {
        match self {
            Contestant::Reqwest => "raw reqwest",
            Contestant::Remcall => "remcall (retry, breaker, bulkhead)",
            Contestant::Middleware => "reqwest-middleware + reqwest-retry",
            Contestant::Tower => "tower (tower-resilience breaker, limit, retry)",
        }
    }
}

/// How the contestants are set up: the same limits for all.
#[derive(Clone, Copy, Debug, Default)]
pub struct Setup {
    /// Per-attempt timeout; `None`: none (reqwest's default).
    pub attempt_timeout: Option<Duration>,
    /// The outsider's configuration: raw reqwest and reqwest-middleware without a timeout,
    /// remcall with every policy on, tower's stack with a timeout layer (`attempt_timeout` is
    /// not used).
    pub outsider: bool,
}

/// remcall in the outsider's configuration: connect, attempt and total timeouts; four attempts
/// with backoff and full jitter; a breaker over the last 100 calls; a semaphore of 1,024;
/// `log: none`.
const OUTSIDER_PROFILE: &str = "
timeout: { connect: 2s, attempt: 10s, total: 30s }
retry: { max_attempts: 4, backoff: { initial: 50ms, max: 1s, jitter: full } }
breaker: { window: { calls: 100 }, min_calls: 20, failure_rate: 50 }
isolation: { semaphore: { max_concurrent: 1024 } }
log: none
";

/// One contestant's client, ready to call. Clone it per caller.
#[derive(Clone)]
pub enum Caller {
    Reqwest(reqwest::Client, Arc<str>),
    Remcall(UserClient),
    Middleware(reqwest_middleware::ClientWithMiddleware, Arc<str>),
    Tower(TowerStack),
    TowerFull(TowerFullStack),
}

/// The tower contestant's stack, outermost first (the breaker outside the retries, as in
/// remcall).
pub type TowerStack =
    CircuitBreaker<ConcurrencyLimit<Retry<RetryTransient, GetUser>>, DefaultClassifier>;

/// The outsider's tower stack: a timeout on each attempt inside the retries.
pub type TowerFullStack =
    CircuitBreaker<ConcurrencyLimit<Retry<RetryTransient, Timeout<GetUser>>>, DefaultClassifier>;

impl Caller {
    /// A client of `contestant` for the user service at `base`.
    pub fn new(contestant: Contestant, base: &str, setup: Setup) -> Caller {
        let url: Arc<str> = format!("{base}/v1/api/users/7").into();
        let reqwest_client = || {
            let mut builder = reqwest::Client::builder();
            if let Some(timeout) = setup.attempt_timeout.filter(|_| !setup.outsider) {
                builder = builder.timeout(timeout);
            }
            builder.build().expect("reqwest client")
        };
        if setup.outsider {
            match contestant {
                Contestant::Remcall => {
                    let yaml = std::env::var("BENCH_PROFILE")
                        .unwrap_or_else(|_| OUTSIDER_PROFILE.to_owned());
                    let profile = Profile::from_yaml_str(&yaml).expect("bench profile");
                    return Caller::Remcall(
                        UserClient::builder()
                            .base_url(base)
                            .profile(profile)
                            .build()
                            .expect("client"),
                    );
                }
                Contestant::Tower => {
                    let client = reqwest::Client::builder()
                        .connect_timeout(Duration::from_secs(2))
                        .build()
                        .expect("reqwest client");
                    let get = Timeout::new(GetUser { client, url }, Duration::from_secs(10));
                    let retried = Retry::new(RetryTransient { retries: 3 }, get);
                    let breaker = CircuitBreakerLayer::builder()
                        .failure_rate_threshold(0.5)
                        .sliding_window_type(SlidingWindowType::CountBased)
                        .sliding_window_size(100)
                        .minimum_number_of_calls(20)
                        .wait_duration_in_open(Duration::from_secs(5))
                        .build()
                        .expect("breaker");
                    return Caller::TowerFull(breaker.layer(ConcurrencyLimit::new(retried, 1024)));
                }
                Contestant::Reqwest | Contestant::Middleware => {}
            }
        }
        match contestant {
            Contestant::Reqwest => Caller::Reqwest(reqwest_client(), url),
            Contestant::Remcall => {
                // The spec's profile (retries, a breaker) plus a semaphore bulkhead sized above
                // the callers, so it admits every call.
                let mut yaml = "isolation: { semaphore: { max_concurrent: 256 } }".to_owned();
                if let Some(timeout) = setup.attempt_timeout {
                    yaml.push_str(&format!(
                        "\ntimeout: {{ attempt: {}ms }}",
                        timeout.as_millis()
                    ));
                }
                let profile = Profile::from_yaml_str(&yaml).expect("bench profile");
                Caller::Remcall(
                    UserClient::builder()
                        .base_url(base)
                        .profile(profile)
                        .build()
                        .expect("client"),
                )
            }
            Contestant::Middleware => {
                let policy = reqwest_retry::policies::ExponentialBackoff::builder()
                    .build_with_max_retries(2);
                let client = reqwest_middleware::ClientBuilder::new(reqwest_client())
                    .with(reqwest_retry::RetryTransientMiddleware::new_with_policy(
                        policy,
                    ))
                    .build();
                Caller::Middleware(client, url)
            }
            Contestant::Tower => {
                // As the spec's profile has remcall's: 50 % of the calls of the last 10 s, at
                // least 20. (A count window here would wait until it holds 100 calls.)
                let breaker = CircuitBreakerLayer::builder()
                    .failure_rate_threshold(0.5)
                    .sliding_window_type(SlidingWindowType::TimeBased)
                    .sliding_window_duration(Duration::from_secs(10))
                    .minimum_number_of_calls(20)
                    .wait_duration_in_open(Duration::from_secs(5))
                    .build()
                    .expect("breaker");
                let get = GetUser {
                    client: reqwest_client(),
                    url,
                };
                let retried = Retry::new(RetryTransient { retries: 2 }, get);
                Caller::Tower(breaker.layer(ConcurrencyLimit::new(retried, 256)))
            }
        }
    }

    /// One call; `true` when it answered with the user.
    pub async fn call(&mut self) -> bool {
        match self {
            // Every contestant sends what the generated client sends: the method's header
            // parameter and the spec profile's header.
            Caller::Reqwest(client, url) => match client
                .get(&**url)
                .header("x-request-id", "bench")
                .header("x-app", "remcall-demo")
                .send()
                .await
            {
                Ok(r) => r.json::<User>().await.is_ok(),
                Err(_) => false,
            },
            Caller::Remcall(client) => {
                matches!(client.get_user(7, None, "bench").await, Ok(Some(_)))
            }
            Caller::Middleware(client, url) => match client
                .get(&**url)
                .header("x-request-id", "bench")
                .header("x-app", "remcall-demo")
                .send()
                .await
            {
                Ok(r) => r.json::<User>().await.is_ok(),
                Err(_) => false,
            },
            Caller::Tower(stack) => match stack.ready().await {
                Ok(ready) => ready.call(7).await.is_ok(),
                Err(_) => false,
            },
            Caller::TowerFull(stack) => match stack.ready().await {
                Ok(ready) => ready.call(7).await.is_ok(),
                Err(_) => false,
            },
        }
    }
}

/// The tower contestant's innermost service: `GET /v1/api/users/{id}` and a JSON decode.
#[derive(Clone)]
pub struct GetUser {
    client: reqwest::Client,
    url: Arc<str>,
}

type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl Service<u64> for GetUser {
    type Response = User;
    type Error = reqwest::Error;
    type Future = Boxed<Result<User, reqwest::Error>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _id: u64) -> Self::Future {
        let request = self
            .client
            .get(&*self.url)
            .header("x-request-id", "bench")
            .header("x-app", "remcall-demo");
        Box::pin(async move { request.send().await?.error_for_status()?.json().await })
    }
}

/// Retries any failure twice, 50 ms apart (the request is a plain id, so cloning is free).
#[derive(Clone)]
pub struct RetryTransient {
    retries: u32,
}

impl<E> tower::retry::Policy<u64, User, E> for RetryTransient {
    type Future = tokio::time::Sleep;

    fn retry(&mut self, _: &mut u64, result: &mut Result<User, E>) -> Option<Self::Future> {
        if result.is_ok() || self.retries == 0 {
            return None;
        }
        self.retries -= 1;
        Some(tokio::time::sleep(Duration::from_millis(50)))
    }

    fn clone_request(&mut self, request: &u64) -> Option<u64> {
        Some(*request)
    }
}

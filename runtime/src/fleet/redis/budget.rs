//! The shared retry budget: the fleet's calls and retries of the last ten seconds, in one-second
//! buckets of a Redis hash, so that retries stay a share of the fleet's calls however they are
//! spread over replicas. A withdrawal is one round trip; deposits (one per call) are counted here
//! and sent with the next withdrawal, or every 100 ms in the background, so a call costs no
//! round trip. A withdrawal that cannot reach Redis falls back to the local budget.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use remcall_profile::SharedStoreSettings;
use tokio::time::Instant;

use super::{Link, tagged};

/// KEYS[1]: the hash; ARGV: ratio, min per second, calls to deposit, 1 to withdraw a retry.
/// Returns 1 when a retry was granted.
const BUDGET_LUA: &str = r"
local sec = tonumber(redis.call('TIME')[1])
local deposit = tonumber(ARGV[3])
if deposit > 0 then redis.call('HINCRBY', KEYS[1], 'c' .. sec, deposit) end
local granted = 0
if ARGV[4] == '1' then
  local calls, retries = 0, 0
  for s = sec - 9, sec do
    calls = calls + tonumber(redis.call('HGET', KEYS[1], 'c' .. s) or '0')
    retries = retries + tonumber(redis.call('HGET', KEYS[1], 'r' .. s) or '0')
  end
  local allowed = math.floor(tonumber(ARGV[2]) * 10 + tonumber(ARGV[1]) * calls)
  if retries < allowed then
    redis.call('HINCRBY', KEYS[1], 'r' .. sec, 1)
    granted = 1
  end
end
for s = sec - 20, sec - 10 do redis.call('HDEL', KEYS[1], 'c' .. s, 'r' .. s) end
redis.call('EXPIRE', KEYS[1], 30)
return granted
";

static BUDGET: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(BUDGET_LUA));

/// Deposits are sent at least this often while calls are made.
const FLUSH: Duration = Duration::from_millis(100);

#[derive(Debug)]
pub(crate) struct BudgetInRedis {
    link: Arc<Link>,
    key: String,
    ratio: f64,
    min_per_second: u32,
    /// Calls counted here and not yet sent.
    pending: Arc<AtomicU64>,
    base: Instant,
    /// When deposits were last sent, in ms since `base`.
    flushed: AtomicU64,
}

impl BudgetInRedis {
    pub(crate) fn new(
        shared: &SharedStoreSettings,
        ratio: f64,
        min_per_second: u32,
        link: Arc<Link>,
        now: Instant,
    ) -> BudgetInRedis {
        BudgetInRedis {
            link,
            key: tagged(&shared.key, "budget"),
            ratio: ratio.max(0.0),
            min_per_second,
            pending: Arc::new(AtomicU64::new(0)),
            base: now,
            flushed: AtomicU64::new(0),
        }
    }

    /// Counts a call; sends the counted calls when the last sending is 100 ms old.
    pub(crate) fn deposit(self: &Arc<Self>, now: Instant) {
        self.pending.fetch_add(1, Ordering::Relaxed);
        let at = u64::try_from(now.saturating_duration_since(self.base).as_millis()).unwrap_or(0);
        let last = self.flushed.load(Ordering::Relaxed);
        if at.saturating_sub(last) < FLUSH.as_millis() as u64
            || self
                .flushed
                .compare_exchange(last, at, Ordering::AcqRel, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let budget = self.clone();
            runtime.spawn(async move {
                let _ = budget.send(false, None).await;
            });
        }
    }

    /// Takes a retry from the fleet's budget: `Some(granted)`, or `None` when Redis could not
    /// say by `until` (the local budget decides then).
    pub(crate) async fn withdraw(&self, until: Option<Instant>) -> Option<bool> {
        self.send(true, until).await
    }

    /// One round trip: the pending deposits, and a withdrawal if asked for. Deposits that
    /// cannot be sent are dropped: while Redis is away the local budget decides anyway.
    async fn send(&self, withdraw: bool, until: Option<Instant>) -> Option<bool> {
        let deposit = self.pending.swap(0, Ordering::AcqRel);
        let answer: Option<i64> = self
            .link
            .run_until(until, |mut conn| async move {
                BUDGET
                    .key(&self.key)
                    .arg(self.ratio)
                    .arg(self.min_per_second)
                    .arg(deposit)
                    .arg(if withdraw { "1" } else { "0" })
                    .invoke_async(&mut conn)
                    .await
            })
            .await;
        if answer.is_none() && withdraw {
            let _ = self.link.without_redis();
        }
        answer.map(|granted| granted == 1)
    }
}

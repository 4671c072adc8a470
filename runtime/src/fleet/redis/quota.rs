//! Quotas shared by a fleet (`quota.shared`): each quota the server announces is one Redis hash
//! that every replica's answers update and every replica's attempts take their turns from, so N
//! replicas split one quota instead of each spending it, and one replica's refusal pauses all.
//!
//! The rules are those of the local quota (`policy/quota`), moved by two Lua scripts on Redis's
//! clock (`TIME`, microseconds), so the replicas' clocks do not matter: a turn is one round trip;
//! an answer's word is sent in the background. A quota Redis does not know yet (no replica's
//! answer reached it, or Redis restarted), or Redis not answering within `timeout`: the
//! replica's own quota decides, as it does without `shared`.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use tokio::time::Instant;

use remcall_profile::SharedStoreSettings;

use super::{Link, tagged};
use crate::fleet::FleetTurn;
use crate::policy::quota::{Announcement, MAX_QUOTAS, Turn};

/// KEYS[1]: the quota's hash; ARGV[1]: the time the call may still wait (µs); ARGV[2]: the
/// longest a hold lasts at a time (µs), after which one call goes through as the fleet's probe.
/// Returns {kind, wait µs}: 0 now, 1 at (its turn reserved), 2 held, 3 refused, -1 unknown.
/// As `Quota::turn`: past the reset a new window of `limit` calls; spent or paused, held until
/// then; else the calls left spread evenly until `until` (half way from when the window was
/// learned to its reset), a tenth of the limit ahead. The calls left are the server's lowest
/// count in the window less the turns out (before its first count: the limit less the turns).
const TURN_LUA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local deadline = now + tonumber(ARGV[1])
local h = redis.call('HMGET', KEYS[1], 'limit', 'heard', 'reset', 'paused', 'next', 'until',
  'taken', 'answered')
local limit, heard, reset = tonumber(h[1]), tonumber(h[2]), tonumber(h[3])
local paused, nxt, spread = tonumber(h[4]), tonumber(h[5]), tonumber(h[6])
local taken, answered = tonumber(h[7] or '0'), tonumber(h[8] or '0')
if not limit and not heard and not reset and not paused then return {-1, 0} end
if reset and now >= reset then
  redis.call('HDEL', KEYS[1], 'reset', 'next', 'until', 'heard')
  redis.call('HSET', KEYS[1], 'opened', string.format('%.0f', reset), 'taken', 0, 'answered', 0,
    'carried', 0)
  heard, reset, nxt, spread, taken, answered = nil, nil, nil, nil, 0, 0
end
local remaining = nil
if heard then remaining = math.max(heard - (taken - answered), 0)
elseif limit then remaining = math.max(limit - taken, 0) end
local held = nil
if remaining == 0 and reset then held = reset end
-- Spent before the new window's first answer says when it resets: ask again shortly.
if remaining == 0 and not reset then held = now + 20000 end
if paused and paused > now and (not held or paused > held) then held = paused end
if held then
  local ends = tonumber(redis.call('HGET', KEYS[1], 'ends'))
  if not ends then
    ends = now + tonumber(ARGV[2])
    redis.call('HSET', KEYS[1], 'ends', string.format('%.0f', ends))
  end
  if ends < held then held = ends end
  if held > now then
    if held > deadline then return {3, held - now} end
    return {2, held - now}
  end
  redis.call('HSET', KEYS[1], 'ends', string.format('%.0f', now + tonumber(ARGV[2])),
    'taken', taken + 1)
  return {0, 0}
end
redis.call('HDEL', KEYS[1], 'ends')
local at = now
local function interval(from)
  return math.floor(math.max(spread - from, 0) / math.max(remaining, 1))
end
if remaining and spread then
  local from = math.max(nxt or now, now)
  local burst = math.min(math.max(math.floor((limit or remaining) / 10), 1), 1000)
  at = math.max(from - interval(from) * burst, now)
end
if at > deadline then return {3, at - now} end
if remaining and spread then
  local from = math.max(nxt or at, at)
  redis.call('HSET', KEYS[1], 'next', string.format('%.0f', from + interval(from)))
end
redis.call('HSET', KEYS[1], 'taken', taken + 1)
if at > now then return {1, at - now} end
return {0, 0}
";

/// KEYS[1]: the quota's hash; KEYS[2]: the names of the quotas the key knows, each scored by
/// when its hash ends (µs); ARGV: how long ago the answered request was sent (µs), 1 when it
/// took a turn here, then limit, remaining, reset in (µs), pause (µs), each '' when not said,
/// then the quota's name and the most names the key keeps.
/// The hash lives a minute past what it speaks of (its reset, its pause), a day at most past
/// its last answer; a quota the key does not know is taken only while it knows fewer than the
/// most: a server naming a new quota on each answer fills no Redis (the replica's own count
/// paces the calls it names, as it does without `shared`).
/// As `Quota::observe`: an older window's answer only brings a carried turn in; a new window
/// opens at the roll-over, or with this request when the server turned it early (the turns out
/// carried into it); within a window the server's lowest count stands; a pause holds the whole
/// quota.
const OBSERVE_LUA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if not redis.call('ZSCORE', KEYS[2], ARGV[7])
    and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[8]) then
    return 0
  end
end
local sent = now - tonumber(ARGV[1])
local h = redis.call('HMGET', KEYS[1], 'opened', 'reset', 'heard', 'paused', 'taken',
  'answered', 'carried')
local opened, known, heard, paused = tonumber(h[1]), tonumber(h[2]), tonumber(h[3]), tonumber(h[4])
local taken, answered = tonumber(h[5] or '0'), tonumber(h[6] or '0')
local carried = tonumber(h[7] or '0')
local in_turn = ARGV[2] == '1'
if opened and sent < opened then
  if in_turn and carried > 0 then
    redis.call('HSET', KEYS[1], 'carried', carried - 1, 'answered', math.min(answered + 1, taken))
  end
  return 0
end
local limit, remaining = tonumber(ARGV[3]), tonumber(ARGV[4])
local reset_in, pause = tonumber(ARGV[5]), tonumber(ARGV[6])
if limit then redis.call('HSET', KEYS[1], 'limit', limit) end
local new_window = false
if reset_in then
  local reset = now + reset_in
  new_window = (not known) or reset > known + 1500000
  if new_window then
    redis.call('HDEL', KEYS[1], 'next')
    redis.call('HSET', KEYS[1], 'until', string.format('%.0f', now + reset_in / 2))
    if known then
      redis.call('HSET', KEYS[1], 'opened', string.format('%.0f', sent))
      carried = taken - answered
      taken, answered = carried, 0
      redis.call('HSET', KEYS[1], 'carried', carried, 'taken', taken, 'answered', 0)
    end
  else
    reset = math.min(known, reset)
  end
  redis.call('HSET', KEYS[1], 'reset', string.format('%.0f', reset))
end
if in_turn then
  redis.call('HSET', KEYS[1], 'answered', math.min(answered + 1, taken))
end
if remaining then
  if heard and not new_window then remaining = math.min(heard, remaining) end
  redis.call('HSET', KEYS[1], 'heard', remaining)
end
if pause then
  local till = now + pause
  if paused and paused > till then till = paused end
  redis.call('HSET', KEYS[1], 'paused', string.format('%.0f', till))
end
local lives = math.min(math.max(reset_in or 0, pause or 0) + 60000000, 86400000000)
redis.call('PEXPIRE', KEYS[1], math.floor(lives / 1000) + 1)
redis.call('ZADD', KEYS[2], string.format('%.0f', now + lives + 1000), ARGV[7])
redis.call('PEXPIRE', KEYS[2], 86460000)
return 1
";

static TURN: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(TURN_LUA));
static OBSERVE: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(OBSERVE_LUA));

/// The fleet's quotas, one hash each under the profile's key.
#[derive(Debug)]
pub(crate) struct QuotasInRedis {
    link: Arc<Link>,
    key: String,
}

impl QuotasInRedis {
    pub(crate) fn new(shared: &SharedStoreSettings, link: Arc<Link>) -> QuotasInRedis {
        QuotasInRedis {
            link,
            key: shared.key.clone(),
        }
    }

    /// The hash of the quota named `name` (the server's name, cut to 64 characters where it
    /// was read; any bytes are a valid Redis key).
    fn hash(&self, name: Option<&str>) -> String {
        tagged(&self.key, &format!("quota:{}", name.unwrap_or("")))
    }

    /// The names of the quotas the key knows (in the hashes' slot: one hash tag).
    fn names(&self) -> String {
        tagged(&self.key, "quota-names")
    }

    /// An attempt's turn in the fleet's quota `name`, for a call that may wait `may_wait`
    /// (the times are from now).
    pub(crate) async fn turn(
        &self,
        name: Option<&str>,
        may_wait: Duration,
        longest_hold: Duration,
    ) -> FleetTurn {
        let hash = self.hash(name);
        // Redis's answer is waited on no longer than the call may wait.
        let until = tokio::time::Instant::now() + may_wait;
        let Some((kind, wait)): Option<(i64, i64)> = self
            .link
            .run_until(Some(until), |mut conn| async move {
                TURN.key(&hash)
                    .arg(micros(may_wait))
                    .arg(micros(longest_hold))
                    .invoke_async(&mut conn)
                    .await
            })
            .await
        else {
            return FleetTurn::Silent;
        };
        let wait = Duration::from_micros(u64::try_from(wait).unwrap_or(0));
        let now = tokio::time::Instant::now();
        match kind {
            0 => FleetTurn::Given(Turn::Now),
            1 => FleetTurn::Given(Turn::At(now + wait)),
            2 => FleetTurn::Given(Turn::Held(now + wait)),
            3 => FleetTurn::Given(Turn::Refused(wait)),
            _ => FleetTurn::Unknown,
        }
    }

    /// An answer's word on the quota `name`, sent in the background: the request was sent at
    /// `sent`, in a turn the fleet gave when `in_turn`.
    pub(crate) fn observe(
        self: &Arc<Self>,
        name: Option<&str>,
        said: &Announcement,
        sent: Instant,
        in_turn: bool,
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (hash, names) = (self.hash(name), self.names());
        let count = |n: Option<u64>| n.map_or_else(String::new, |n| n.to_string());
        let time = |d: Option<Duration>| d.map_or_else(String::new, |d| micros(d).to_string());
        let args = [
            if in_turn { "1" } else { "0" }.to_owned(),
            count(said.limit),
            count(said.remaining),
            time(said.reset_in),
            time(said.pause_for),
            name.unwrap_or("").to_owned(),
            MAX_QUOTAS.to_string(),
        ];
        let quotas = self.clone();
        runtime.spawn(async move {
            let _: Option<i64> = quotas
                .link
                .run(|mut conn| async move {
                    // How long ago it was sent, read as the script goes: Redis places the send
                    // on its own clock, and a connection made first must not move it later.
                    let sent_ago = Instant::now().saturating_duration_since(sent);
                    let mut script = OBSERVE.key(&hash);
                    script.key(&names);
                    script.arg(micros(sent_ago));
                    for arg in &args {
                        script.arg(arg);
                    }
                    script.invoke_async(&mut conn).await
                })
                .await;
        });
    }
}

/// Whole microseconds, bounded (every duration here is a day at most).
fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

//! Isolation: a semaphore bulkhead caps the calls in flight; a pool bulkhead runs a client's calls
//! on a dedicated runtime with its own workers and a bounded queue, so a hanging downstream
//! cannot take the caller's threads; an adaptive one moves its cap with the downstream's latency
//! (adaptive.rs). A client's pools (its own and its methods') share one runtime with as many
//! threads as the largest of them has workers, so twenty methods with `workers: 256` start 256
//! threads, not 5,120; each pool still runs only its own `workers` calls at once.

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use remcall_profile::IsolationSettings;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::policy::adaptive::{AdaptiveLimit, Admitted};

/// Why a call was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

/// A client's isolation policy.
#[derive(Debug)]
pub enum Bulkhead {
    /// A semaphore whose calls never wait (`max_wait: 0s`, the default): a counter, so admitting
    /// and releasing a call are one atomic operation each, with no lock and no waiter list.
    Counter {
        in_flight: AtomicU32,
        max: u32,
    },
    /// A semaphore whose calls may wait for a slot, in turn.
    Semaphore {
        slots: Arc<Semaphore>,
        max: u32,
        max_wait: Duration,
    },
    Pool(Pool),
    Adaptive(AdaptiveLimit),
    None,
}

/// An admitted call's slot; released when dropped, including when the call is cancelled.
#[derive(Debug)]
pub enum Slot<'a> {
    Counted(Counted<'a>),
    Semaphore(#[allow(dead_code)] OwnedSemaphorePermit),
    /// A place among running plus queued calls, and a running slot.
    Pool(#[allow(dead_code)] (OwnedSemaphorePermit, OwnedSemaphorePermit)),
    Adaptive(Admitted<'a>),
    None,
}

impl Slot<'_> {
    /// Releases the slot after the call: an adaptive limit learns from `rtt` and whether the
    /// downstream dropped the call; the others just let the next call in.
    pub(crate) fn finish(self, rtt: Duration, dropped: bool) {
        if let Slot::Adaptive(admitted) = self {
            admitted.finish(rtt, dropped);
        }
    }
}

/// A counter bulkhead's place: one less in flight when dropped.
#[derive(Debug)]
pub struct Counted<'a>(&'a AtomicU32);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Release);
    }
}

impl Bulkhead {
    /// The bulkhead `settings` describe; a pool runs on `threads`.
    pub fn new(settings: &IsolationSettings, threads: &PoolThreads) -> std::io::Result<Bulkhead> {
        Ok(match settings {
            IsolationSettings::Semaphore {
                max_concurrent,
                max_wait,
            } if max_wait.is_zero() => Bulkhead::Counter {
                in_flight: AtomicU32::new(0),
                max: *max_concurrent,
            },
            IsolationSettings::Semaphore {
                max_concurrent,
                max_wait,
            } => Bulkhead::Semaphore {
                slots: Arc::new(Semaphore::new(*max_concurrent as usize)),
                max: *max_concurrent,
                max_wait: *max_wait,
            },
            IsolationSettings::Pool {
                workers,
                queue,
                queue_timeout,
            } => Bulkhead::Pool(Pool::new(threads.get()?, *workers, *queue, *queue_timeout)),
            IsolationSettings::Adaptive {
                algorithm,
                initial,
                min,
                max,
                max_wait,
            } => Bulkhead::Adaptive(AdaptiveLimit::new(
                *algorithm, *initial, *min, *max, *max_wait,
            )),
            IsolationSettings::None => Bulkhead::None,
        })
    }

    /// Takes a slot, waiting at most `max_wait` (or the pool's `queue_timeout`).
    pub async fn acquire(&self) -> Result<Slot<'_>, Full> {
        match self {
            Bulkhead::Counter { in_flight, max } => counted(in_flight, *max),
            Bulkhead::Semaphore {
                slots, max_wait, ..
            } => acquire(slots, *max_wait).await.map(Slot::Semaphore),
            Bulkhead::Pool(pool) => pool.admit().await.map(Slot::Pool),
            Bulkhead::Adaptive(limit) => limit.admit().await.map(Slot::Adaptive).ok_or(Full),
            Bulkhead::None => Ok(Slot::None),
        }
    }

    /// A slot without waiting: one that is free, or the answer of a bulkhead that never
    /// waits. `None` when the call has to wait for one ([`Bulkhead::acquire`]).
    pub fn try_acquire(&self) -> Option<Result<Slot<'_>, Full>> {
        match self {
            Bulkhead::Counter { in_flight, max } => Some(counted(in_flight, *max)),
            Bulkhead::None => Some(Ok(Slot::None)),
            Bulkhead::Semaphore {
                slots, max_wait, ..
            } => match slots.clone().try_acquire_owned() {
                Ok(permit) => Some(Ok(Slot::Semaphore(permit))),
                Err(_) if max_wait.is_zero() => Some(Err(Full)),
                Err(_) => None,
            },
            Bulkhead::Pool(_) | Bulkhead::Adaptive(_) => None,
        }
    }

    /// True when a call may wait for its slot, so the time it is admitted is not the time it
    /// starts.
    pub(crate) fn may_wait(&self) -> bool {
        match self {
            Bulkhead::Semaphore { .. } | Bulkhead::Pool(_) => true,
            Bulkhead::Adaptive(limit) => !limit.max_wait().is_zero(),
            Bulkhead::Counter { .. } | Bulkhead::None => false,
        }
    }

    /// Calls in flight through it and how many it allows now; `None` without a bulkhead.
    pub(crate) fn use_and_limit(&self) -> Option<(u32, u32)> {
        match self {
            Bulkhead::Counter { in_flight, max } => Some((in_flight.load(Ordering::Relaxed), *max)),
            Bulkhead::Semaphore { slots, max, .. } => {
                let free = u32::try_from(slots.available_permits()).unwrap_or(u32::MAX);
                Some((max.saturating_sub(free), *max))
            }
            Bulkhead::Pool(pool) => Some(pool.use_and_limit()),
            Bulkhead::Adaptive(limit) => Some((limit.in_flight(), limit.limit())),
            Bulkhead::None => None,
        }
    }

    /// The adaptive limit now, when there is one.
    pub(crate) fn adaptive_limit(&self) -> Option<u32> {
        match self {
            Bulkhead::Adaptive(limit) => Some(limit.limit()),
            _ => None,
        }
    }

    /// The pool's runtime, when calls run on one.
    pub(crate) fn pool(&self) -> Option<&Pool> {
        match self {
            Bulkhead::Pool(pool) => Some(pool),
            _ => None,
        }
    }
}

/// A counter bulkhead's place, if one is left. A compare-exchange, not an add undone on
/// failure: a call refused at the limit must not, for a moment, make another one look over it.
fn counted(in_flight: &AtomicU32, max: u32) -> Result<Slot<'_>, Full> {
    in_flight
        .fetch_update(Ordering::Acquire, Ordering::Relaxed, |n| {
            (n < max).then_some(n + 1)
        })
        .map(|_| Slot::Counted(Counted(in_flight)))
        .map_err(|_| Full)
}

async fn acquire(slots: &Arc<Semaphore>, max_wait: Duration) -> Result<OwnedSemaphorePermit, Full> {
    if let Ok(permit) = slots.clone().try_acquire_owned() {
        return Ok(permit);
    }
    if max_wait.is_zero() {
        return Err(Full);
    }
    match tokio::time::timeout(max_wait, slots.clone().acquire_owned()).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(Full),
    }
}

/// The worker threads a client's pools share: a runtime started when the first pool is made.
#[derive(Debug)]
pub struct PoolThreads {
    name: String,
    threads: usize,
    started: Mutex<Option<Arc<PoolRuntime>>>,
}

impl PoolThreads {
    /// Threads named `remcall-<client>`, `threads` of them (at least one) once started.
    pub fn new(client: &str, threads: u32) -> PoolThreads {
        PoolThreads {
            name: format!("remcall-{client}"),
            threads: threads.max(1) as usize,
            started: Mutex::new(None),
        }
    }

    fn get(&self) -> std::io::Result<Arc<PoolRuntime>> {
        let mut started = self.started.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(runtime) = &*started {
            return Ok(runtime.clone());
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(self.threads)
            .thread_name(self.name.clone())
            .enable_all()
            .build()?;
        let runtime = Arc::new(PoolRuntime(Some(runtime)));
        *started = Some(runtime.clone());
        Ok(runtime)
    }
}

/// A runtime that winds down in the background when the last pool on it goes.
#[derive(Debug)]
struct PoolRuntime(Option<tokio::runtime::Runtime>);

impl Drop for PoolRuntime {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which panics inside another runtime: let it wind down alone.
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// A pool bulkhead on the client's pool threads: `workers` calls run at once, `queue` more may
/// wait up to `queue_timeout`, the rest are rejected at once.
#[derive(Debug)]
pub struct Pool {
    runtime: Arc<PoolRuntime>,
    /// Running plus queued calls.
    admitted: Arc<Semaphore>,
    /// Running calls.
    running: Arc<Semaphore>,
    workers: u32,
    queue_timeout: Duration,
}

impl Pool {
    fn new(runtime: Arc<PoolRuntime>, workers: u32, queue: u32, queue_timeout: Duration) -> Pool {
        Pool {
            runtime,
            admitted: Arc::new(Semaphore::new(workers.saturating_add(queue) as usize)),
            running: Arc::new(Semaphore::new(workers.max(1) as usize)),
            workers: workers.max(1),
            queue_timeout,
        }
    }

    /// Calls running, and workers.
    fn use_and_limit(&self) -> (u32, u32) {
        let workers = self.workers;
        let free = u32::try_from(self.running.available_permits()).unwrap_or(u32::MAX);
        (workers.saturating_sub(free), workers)
    }

    async fn admit(&self) -> Result<(OwnedSemaphorePermit, OwnedSemaphorePermit), Full> {
        // Past workers + queue: rejected at once, as a full queue should be.
        let place = self
            .admitted
            .clone()
            .try_acquire_owned()
            .map_err(|_| Full)?;
        let running = acquire(&self.running, self.queue_timeout).await?;
        Ok((place, running))
    }

    /// Runs `work` on the pool's runtime. Dropping the returned future aborts the work.
    pub(crate) fn run<T, W>(&self, work: W) -> impl Future<Output = Option<T>> + Send + use<T, W>
    where
        T: Send + 'static,
        W: Future<Output = T> + Send + 'static,
    {
        let handle = self
            .runtime
            .0
            .as_ref()
            .map(|rt| AbortOnDrop(rt.spawn(work)));
        async move {
            let mut handle = handle?;
            (&mut handle.0).await.ok()
        }
    }
}

/// A task handle that aborts the task when dropped: a cancelled call stops its work.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn semaphore(max: u32, wait_ms: u64) -> Bulkhead {
        Bulkhead::new(
            &IsolationSettings::Semaphore {
                max_concurrent: max,
                max_wait: Duration::from_millis(wait_ms),
            },
            &PoolThreads::new("C", 1),
        )
        .unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_semaphore_rejects_at_once_or_after_max_wait() {
        let bulkhead = semaphore(2, 0);
        let a = bulkhead.acquire().await.unwrap();
        let _b = bulkhead.acquire().await.unwrap();
        assert_eq!(bulkhead.acquire().await.unwrap_err(), Full);
        drop(a);
        assert!(
            bulkhead.acquire().await.is_ok(),
            "a released slot is free again"
        );

        let waiting = semaphore(1, 100);
        let held = waiting.acquire().await.unwrap();
        let started = tokio::time::Instant::now();
        assert_eq!(waiting.acquire().await.unwrap_err(), Full);
        assert_eq!(started.elapsed(), Duration::from_millis(100));
        drop(held);
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiter_gets_a_slot_freed_within_max_wait() {
        let bulkhead = Arc::new(semaphore(1, 100));
        let held = bulkhead.acquire().await.unwrap();
        let waiter = tokio::spawn({
            let bulkhead = bulkhead.clone();
            async move { bulkhead.acquire().await.is_ok() }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(held);
        assert!(waiter.await.unwrap());
    }

    #[tokio::test]
    async fn the_pool_queues_then_rejects_and_runs_work_on_its_own_threads() {
        let settings = IsolationSettings::Pool {
            workers: 1,
            queue: 1,
            queue_timeout: Duration::from_secs(5),
        };
        let bulkhead =
            Arc::new(Bulkhead::new(&settings, &PoolThreads::new("PoolTest", 1)).unwrap());
        let running = bulkhead.acquire().await.unwrap();
        let queued = tokio::spawn({
            let bulkhead = bulkhead.clone();
            async move { bulkhead.acquire().await.is_ok() }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            bulkhead.acquire().await.unwrap_err(),
            Full,
            "one running, one queued: full"
        );
        drop(running);
        assert!(
            queued.await.unwrap(),
            "the queued call ran once the worker was free"
        );

        let pool = bulkhead.pool().unwrap();
        let thread = pool
            .run(async { std::thread::current().name().map(str::to_owned) })
            .await
            .flatten();
        assert_eq!(thread.as_deref(), Some("remcall-PoolTest"));
    }
}

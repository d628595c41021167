//! CPU-heavy checks, off the async runtime and shared fairly between tenants.
//!
//! Checking a tenant's JSON Schema, compiling it and validating a large
//! payload against it can take milliseconds to (bounded) hundreds of
//! milliseconds of one core. On the async runtime that time would stall
//! every other request and delivery sharing the worker thread. [`CpuPool::run`]
//! runs such work on tokio's blocking threads instead, and bounds it:
//!
//! - at most [`CpuPool::threads`] checks run at once in the process;
//! - one tenant runs at most [`CpuPool::per_tenant`] of them at once (fewer
//!   than the threads, so one tenant never holds them all), and has at most
//!   [`MAX_QUEUED_PER_TENANT`] running or waiting: past that it is answered
//!   `429 busy` with `Retry-After`, so its queued requests cannot pile up
//!   bodies in memory either.
//!
//! Cheap work (a small payload against a small schema) stays inline: the
//! hop to another thread would cost more than the check.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use tokio::sync::Semaphore;

use crate::error::ApiError;

/// The most checks one tenant may have running or waiting for a thread.
pub const MAX_QUEUED_PER_TENANT: usize = 8;

/// Blocking threads for CPU-heavy checks, shared fairly between tenants.
pub struct CpuPool {
    threads: usize,
    per_tenant: usize,
    global: Arc<Semaphore>,
    tenants: Arc<Mutex<HashMap<String, Tenant>>>,
}

struct Tenant {
    running: Arc<Semaphore>,
    queued: usize,
}

impl Default for CpuPool {
    /// As many threads as cores (at least 2).
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        CpuPool::new(cores.max(2))
    }
}

impl CpuPool {
    /// A pool of `threads` (at least 2); one tenant may use half of them.
    pub fn new(threads: usize) -> Self {
        let threads = threads.max(2);
        CpuPool {
            threads,
            per_tenant: (threads / 2).max(1),
            global: Arc::new(Semaphore::new(threads)),
            tenants: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Checks that may run at once in the process.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Checks one tenant may run at once.
    pub fn per_tenant(&self) -> usize {
        self.per_tenant
    }

    /// Runs `work` for `tenant` on a blocking thread once the tenant's share
    /// and a thread are free; `429 busy` when the tenant already has
    /// [`MAX_QUEUED_PER_TENANT`] checks running or waiting. The work keeps
    /// its share, its thread and its place in the queue until it ends, even
    /// when the request that started it is dropped (the client went away).
    pub async fn run<T, F>(&self, tenant: &str, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let running = {
            let mut tenants = self.tenants.lock().map_err(|_| ApiError::internal())?;
            let t = tenants.entry(tenant.to_string()).or_insert_with(|| Tenant {
                running: Arc::new(Semaphore::new(self.per_tenant)),
                queued: 0,
            });
            if t.queued >= MAX_QUEUED_PER_TENANT {
                return Err(busy());
            }
            t.queued += 1;
            t.running.clone()
        };
        let queued = Queued {
            tenants: self.tenants.clone(),
            tenant: tenant.to_string(),
        };
        let mine = running
            .acquire_owned()
            .await
            .map_err(|_| ApiError::internal())?;
        let thread = self
            .global
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ApiError::internal())?;
        tokio::task::spawn_blocking(move || {
            let _held = (queued, mine, thread);
            work()
        })
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "a CPU-heavy check failed");
            ApiError::internal()
        })
    }
}

/// Counts a check as its tenant's until it ends, or until its request is
/// dropped before it started.
struct Queued {
    tenants: Arc<Mutex<HashMap<String, Tenant>>>,
    tenant: String,
}

impl Drop for Queued {
    fn drop(&mut self) {
        if let Ok(mut tenants) = self.tenants.lock()
            && let Some(t) = tenants.get_mut(&self.tenant)
        {
            t.queued = t.queued.saturating_sub(1);
            if t.queued == 0 {
                tenants.remove(&self.tenant);
            }
        }
    }
}

/// `429 busy`: the tenant's checks are queued up to the limit.
pub fn busy() -> ApiError {
    let mut e = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "busy",
        format!(
            "this tenant already has {MAX_QUEUED_PER_TENANT} schema checks or validations running or waiting; retry shortly"
        ),
    );
    e.retry_after = Some(1);
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// One tenant holding its whole share leaves threads to another; past
    /// its queue it is refused, and its slots come back when work ends.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn tenants_share_the_threads() {
        let pool = Arc::new(CpuPool::new(4));
        assert_eq!(pool.per_tenant(), 2);
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate));
        let started = Arc::new(AtomicUsize::new(0));
        let mut held = Vec::new();
        for _ in 0..MAX_QUEUED_PER_TENANT {
            let (pool, gate, started) = (pool.clone(), gate.clone(), started.clone());
            held.push(tokio::spawn(async move {
                pool.run("a", move || {
                    started.fetch_add(1, Ordering::SeqCst);
                    let _ = gate.lock().unwrap().recv();
                })
                .await
            }));
        }
        // Tenant a runs at most its share; the rest of its checks wait.
        // (Every spawned check counted in the tenant's queue first: on a
        // loaded machine some may not have been polled yet.)
        let queued = |pool: &CpuPool| {
            pool.tenants
                .lock()
                .unwrap()
                .get("a")
                .map_or(0, |a| a.queued)
        };
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while (started.load(Ordering::SeqCst) < 1 || queued(&pool) < MAX_QUEUED_PER_TENANT)
            && tokio::time::Instant::now() < deadline
        {
            tokio::task::yield_now().await;
        }
        let e = pool.run("a", || ()).await.unwrap_err();
        assert_eq!(
            (e.status, e.code, e.retry_after),
            (StatusCode::TOO_MANY_REQUESTS, "busy", Some(1))
        );
        // Tenant b still gets a thread at once.
        let b = tokio::time::timeout(Duration::from_secs(5), pool.run("b", || 7)).await;
        assert_eq!(b.unwrap().unwrap(), 7);
        assert!(started.load(Ordering::SeqCst) <= pool.per_tenant());
        for _ in 0..MAX_QUEUED_PER_TENANT {
            release.send(()).unwrap();
        }
        for h in held {
            h.await.unwrap().unwrap();
        }
        assert!(pool.tenants.lock().unwrap().is_empty());
        assert_eq!(pool.run("a", || 1).await.unwrap(), 1);
    }

    /// A request dropped while its check runs (the client went away) leaves
    /// the check its share of the tenant's threads until it ends.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dropped_request_keeps_its_share_until_the_work_ends() {
        let pool = Arc::new(CpuPool::new(2));
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let (started_tx, started) = tokio::sync::oneshot::channel::<()>();
        let request = {
            let pool = pool.clone();
            tokio::spawn(async move {
                pool.run("a", move || {
                    let _ = started_tx.send(());
                    let _ = gate.recv();
                })
                .await
            })
        };
        started.await.unwrap();
        request.abort();
        assert!(request.await.unwrap_err().is_cancelled());
        {
            let tenants = pool.tenants.lock().unwrap();
            let a = tenants.get("a").expect("the running check still counts");
            assert_eq!((a.queued, a.running.available_permits()), (1, 0));
        }
        assert_eq!(pool.global.available_permits(), 1);
        release.send(()).unwrap();
        // The tenant's entry and the thread's permit are given back one
        // after the other: wait for both.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !pool.tenants.lock().unwrap().is_empty() || pool.global.available_permits() < 2 {
            assert!(std::time::Instant::now() < deadline, "the share came back");
            tokio::task::yield_now().await;
        }
        assert_eq!(pool.global.available_permits(), 2);
    }
}

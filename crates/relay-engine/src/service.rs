//! The shape every background loop of the engine has: a [`Service`].
//!
//! A service is one loop with a name, its slice of [`crate::EngineConfig`]
//! (a small struct made from it, so what a loop reads is written next to
//! it), one pass ([`Service::run_once`], at the injected clock's now, for
//! tests) and its loop ([`Service::run`], until its stop signal). The
//! services share the dispatcher's state ([`crate::Dispatcher`]: the store,
//! the clock, the lanes, the in-flight permits) through an `Arc`; the
//! [`crate::engine`] starts them and stops them in a written order.
//!
//! | service | module | its pass |
//! |---|---|---|
//! | [`crate::Claimer`] | `claim` | claim due messages, attempt them |
//! | [`crate::Completer`] | `completer` | write completions in batches |
//! | [`crate::Rescuer`] | `rescue` | expired leases back to scheduled |
//! | [`crate::CircuitSync`] | `circuit_sync` | this node's circuits with the cluster's (PostgreSQL) |
//! | [`crate::Purger`] | `purge` | what is past the retention period |
//! | [`crate::Sweeper`] | `sweep` | TTLs and delivery windows that ended |
//! | [`crate::JobRunner`] | `jobs` | bulk retries, batch by batch |
//! | [`crate::LedgerWriter`] | `inbound` | inbound receipts into the ledger |
//! | [`crate::BatchWriter`] | `batch_writer` | object storage batches that are due |
//! | [`crate::ClockSync`] | `clock_sync` | the clock's offset to the database's |
//! | [`crate::ShareKeeper`] | `shares` | this node's shares of the limits (PostgreSQL) |

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;

/// One of the engine's background loops (see the module's docs).
pub trait Service: Send + Sync + Sized + 'static {
    /// Its name, in logs and in the engine's start and stop order.
    const NAME: &'static str;
    /// Its slice of [`crate::EngineConfig`].
    type Config: Clone + std::fmt::Debug + Send + Sync;

    /// What it runs with.
    fn config(&self) -> &Self::Config;

    /// One pass at the clock's now; how many things it handled (claimed
    /// messages, rescued leases, purged events, ...).
    fn run_once(&self) -> impl Future<Output = Result<u64, relay_store::StoreError>> + Send;

    /// Runs until `stop` turns true, then ends as its docs say (most finish
    /// the pass in hand; the claimer first lets its attempts finish).
    fn run(self, stop: watch::Receiver<bool>) -> impl Future<Output = ()> + Send;
}

/// A service running in a task of its own.
pub(crate) struct Running {
    pub(crate) name: &'static str,
    task: tokio::task::JoinHandle<()>,
}

/// Starts `service`'s loop in a task of its own.
pub(crate) fn spawn<S: Service>(service: S, stop: watch::Receiver<bool>) -> Running {
    Running {
        name: S::NAME,
        task: tokio::spawn(service.run(stop)),
    }
}

impl Running {
    /// Waits for the service to end (it has seen the stop signal).
    pub(crate) async fn join(self) {
        if let Err(e) = self.task.await {
            tracing::error!(error = %e, service = self.name, "an engine service failed");
        }
    }

    /// Waits for the service to end for at most `grace`, then cuts it short.
    pub(crate) async fn join_within(mut self, grace: Duration) {
        match tokio::time::timeout(grace, &mut self.task).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::error!(error = %e, service = self.name, "an engine service failed")
            }
            Err(_) => {
                tracing::warn!(
                    service = self.name,
                    "an engine service did not end within the grace period; it is cut short"
                );
                self.task.abort();
                let _ = self.task.await;
            }
        }
    }
}

/// The loop of a service that makes a pass every `interval` (the first at
/// once unless `first_at_once` is false) until `stop` turns true; a pass in
/// hand when it does is finished.
pub(crate) async fn every<F: Future<Output = ()>>(
    interval: Duration,
    first_at_once: bool,
    mut stop: watch::Receiver<bool>,
    mut pass: impl FnMut() -> F,
) {
    let mut wait = !first_at_once;
    loop {
        if wait {
            tokio::select! {
                _ = tokio::time::sleep(interval) => {}
                _ = stopped(&mut stop) => {}
            }
        }
        if *stop.borrow() {
            break;
        }
        pass().await;
        wait = true;
    }
}

/// Completes once `stop` turns true; never, when no stop signal can come
/// any more (its sender is gone).
pub(crate) async fn stopped(stop: &mut watch::Receiver<bool>) {
    if stop.wait_for(|s| *s).await.is_err() {
        std::future::pending::<()>().await;
    }
}

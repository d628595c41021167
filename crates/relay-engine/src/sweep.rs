//! The sweep: ends waiting messages whose delivery window has closed, at the
//! time it closes, without an attempt.
//!
//! A message waits (`scheduled` for a later retry or behind a full lane, a
//! rate limit or an open circuit; `held` by a paused or disabled endpoint)
//! without being claimed, so the check the attempt makes (`attempt.rs`) would
//! only end it when it is next claimed, which for a held message may be
//! never. Every `sweep_interval` the dispatcher loop (and
//! [`Dispatcher::run_once`]) asks the store for the waiting messages whose
//! event's time-to-live has passed at the injected clock's now, a bounded
//! batch per short transaction, read from an index that holds only those
//! messages (`Store::expire_due`); they become `expired` (`ttl_expired`).

use relay_store::StoreError;

use crate::Dispatcher;

impl Dispatcher {
    /// Ends every waiting message whose event's time-to-live has passed at
    /// the clock's now: `expired`, [`crate::EngineConfig::sweep_batch`] per
    /// transaction, until a batch comes back short. Returns how many.
    pub async fn expire_due(&self) -> Result<u64, StoreError> {
        let batch = self.config().sweep_batch.max(1);
        let mut total = 0;
        loop {
            let now = self.attempter.clock.now();
            let n = self.store().expire_due(now, batch).await?;
            total += n;
            if n < u64::from(batch) {
                break;
            }
            // Let other writers in between batches.
            tokio::task::yield_now().await;
        }
        if total > 0 {
            tracing::info!(
                messages = total,
                "messages expired: their event's time-to-live passed while they waited"
            );
        }
        Ok(total)
    }

    /// The sweep the loop runs every `sweep_interval`.
    pub(crate) async fn sweep(&self) {
        if let Err(e) = self.expire_due().await {
            tracing::error!(error = %e, "expiring messages past their time-to-live failed; the next sweep retries");
        }
    }
}

//! Retention, the [`Purger`] service: what is older than the retention
//! period is purged.

use super::*;
use relay_store::{Commit, ExecutorExt as _, retention};

/// How long the latency histogram's hours are kept.
pub(crate) const LATENCY_KEPT_SECONDS: i64 = 2 * 86_400;

impl Dispatcher {
    /// When the retention period that ends at `now` began: events created
    /// before it are purged once none of their messages is live, and bulk
    /// retries restart none of their messages.
    pub fn retention_cutoff(
        &self,
        now: relay_core::time::Timestamp,
    ) -> relay_core::time::Timestamp {
        now.plus_millis(-(self.config().retention.as_millis() as i64))
    }

    /// Deletes what is older than the retention period, a batch per short
    /// transaction, until nothing is left to purge (events with a live
    /// message stay until it ends). Returns how many events went.
    pub async fn purge(&self) -> Result<u64, relay_store::StoreError> {
        let cfg = self.config();
        let cutoff = self.retention_cutoff(self.attempter.clock.now());
        let mut total = 0;
        loop {
            let batch = cfg.purge_batch;
            let n = self
                .store()
                .write(Commit::Durable, move |mut x| {
                    Box::pin(async move { retention::purge_before(&mut x, cutoff, batch).await })
                })
                .await?;
            total += n;
            if n < u64::from(cfg.purge_batch) {
                break;
            }
            // Let other writers in between batches.
            tokio::task::yield_now().await;
        }
        if total > 0 {
            tracing::info!(events = total, "purged events past the retention period");
        }
        // The health view reads 24 hours of latency; two days are kept.
        let latency_cutoff = self
            .attempter
            .clock
            .now()
            .plus_seconds(-LATENCY_KEPT_SECONDS);
        self.store()
            .write(Commit::Durable, move |mut x| {
                Box::pin(
                    async move { retention::purge_latency_before(&mut x, latency_cutoff).await },
                )
            })
            .await?;
        // Share rows a crashed node left (several nodes on PostgreSQL).
        let orphans = self
            .store()
            .write(Commit::Durable, |mut x| {
                Box::pin(async move { relay_store::shares::purge_expired(&mut x).await })
            })
            .await?;
        if orphans > 0 {
            tracing::debug!(rows = orphans, "purged expired shares of endpoints' limits");
        }
        Ok(total)
    }
}

/// The purge's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct PurgeConfig {
    /// Events older than this are purged (`retention`).
    pub retention: Duration,
    /// How often the purge runs (`purge_interval`).
    pub interval: Duration,
    /// Events one transaction removes at most (`purge_batch`).
    pub batch: u32,
}

impl From<&EngineConfig> for PurgeConfig {
    fn from(c: &EngineConfig) -> Self {
        PurgeConfig {
            retention: c.retention,
            interval: c.purge_interval,
            batch: c.purge_batch,
        }
    }
}

/// The retention purge service: a purge at once, then every `interval`.
pub struct Purger {
    dispatcher: Arc<Dispatcher>,
    config: PurgeConfig,
}

impl Purger {
    pub fn new(dispatcher: Arc<Dispatcher>) -> Self {
        let config = PurgeConfig::from(dispatcher.config());
        Purger { dispatcher, config }
    }
}

impl Service for Purger {
    const NAME: &'static str = "retention purge";
    type Config = PurgeConfig;

    fn config(&self) -> &PurgeConfig {
        &self.config
    }

    /// One purge ([`Dispatcher::purge`]); how many events went.
    async fn run_once(&self) -> Result<u64, relay_store::StoreError> {
        self.dispatcher.purge().await
    }

    async fn run(self, stop: watch::Receiver<bool>) {
        crate::service::every(self.config.interval, true, stop, || async {
            if let Err(e) = self.dispatcher.purge().await {
                tracing::error!(error = %e, "purging past the retention period failed");
            }
        })
        .await;
    }
}

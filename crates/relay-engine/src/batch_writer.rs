//! The batch writer, the [`BatchWriter`] service: writes object storage
//! endpoints' open batches once they are due (`crate::batches` makes and
//! writes them; this service only decides when).
//!
//! Attempts add their messages to open batches; a batch is due when its
//! first message has waited its endpoint's `max_wait_seconds` (the engine's
//! clock). The writer sleeps until the earliest batch is due, and looks
//! again every [`BATCH_LOOK`] for batches opened meanwhile (in memory: the
//! look costs nothing).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::{Dispatcher, EngineConfig, Service};

/// How often the writer looks for batches opened while it waited.
pub const BATCH_LOOK: Duration = Duration::from_millis(100);

/// The batch writer's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct BatchConfig {
    /// The longest it waits between looks ([`BATCH_LOOK`], or
    /// `poll_interval` when shorter).
    pub look: Duration,
}

impl From<&EngineConfig> for BatchConfig {
    fn from(c: &EngineConfig) -> Self {
        BatchConfig {
            look: c.poll_interval.min(BATCH_LOOK),
        }
    }
}

/// The batch writer service (see the module's docs). On shutdown a write in
/// hand finishes, so its members' completions land while their leases hold;
/// open batches hold only leases, released with the others.
pub struct BatchWriter {
    dispatcher: Arc<Dispatcher>,
    config: BatchConfig,
}

impl BatchWriter {
    pub fn new(dispatcher: Arc<Dispatcher>) -> Self {
        let config = BatchConfig::from(dispatcher.config());
        BatchWriter { dispatcher, config }
    }
}

impl Service for BatchWriter {
    const NAME: &'static str = "batch writer";
    type Config = BatchConfig;

    fn config(&self) -> &BatchConfig {
        &self.config
    }

    /// Writes the batches due now; how many fewer messages wait in open
    /// batches afterwards (those written, or given back).
    async fn run_once(&self) -> Result<u64, relay_store::StoreError> {
        let d = &self.dispatcher;
        let before = d.attempter.batches.waiting() as u64;
        d.write_due_batches().await;
        let after = d.attempter.batches.waiting() as u64;
        Ok(before.saturating_sub(after))
    }

    /// Each pass of due batches runs in a task of its own, so a slow
    /// endpoint's write does not hold up the batches due after it.
    async fn run(self, mut stop: watch::Receiver<bool>) {
        let d = &self.dispatcher;
        let mut writes = tokio::task::JoinSet::new();
        loop {
            if *stop.borrow() {
                break;
            }
            while writes.try_join_next().is_some() {}
            let now = d.attempter.clock.now();
            let wait = match d.attempter.batches.next_deadline() {
                Some(due) if due <= now => {
                    let d = d.clone();
                    writes.spawn(async move { d.write_due_batches().await });
                    // Once the write has taken them, the next batch's time.
                    Duration::from_millis(1)
                }
                Some(due) => Duration::from_millis((due.millis() - now.millis()).max(1) as u64)
                    .min(self.config.look),
                None => self.config.look,
            };
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = crate::service::stopped(&mut stop) => {}
            }
        }
        // The writes in hand finish (the engine bounds the wait).
        while writes.join_next().await.is_some() {}
    }
}

//! One clock for every node: the [`ClockSync`] service keeps the
//! dispatcher's [`OffsetClock`] at the database's time.
//!
//! Several nodes on one PostgreSQL stamp leases (`lease_until`), due times
//! and records, and judge them (rescue, completion guards, claims), each
//! with its own clock; a node whose clock ran 30 s ahead would rescue other
//! nodes' live leases 30 s early. So the engine stamps and compares with
//! the database's clock as seen from the node: its own (injected) clock
//! plus an offset measured against the database ([`Offset::measure`]: the
//! database's `clock_timestamp()` read between two readings of the node's
//! clock), measured before anything is stamped and again every
//! `clock_sync_interval`. Nodes then agree to within their offsets' error
//! bounds (half a round trip to the database, milliseconds) plus what their
//! clocks drift between two measurements. On SQLite (one process) the
//! offset stays 0 and nothing is read.

use relay_core::time::{Offset, OffsetClock};
use relay_store::{ExecutorExt as _, Store, StoreError};

use super::*;

/// A measurement less sure than this (the database answered slowly) is
/// logged; the offset is still taken (it holds to within its bound).
pub const WARN_ERROR_MILLIS: i64 = 100;
/// A measurement less sure than this is not taken once an offset is set:
/// the last one is kept until a better one comes.
pub const MAX_ERROR_MILLIS: i64 = 1_000;
/// An offset that moved more than this since the last measurement (this
/// node's clock or the database's was set) is logged.
pub const WARN_JUMP_MILLIS: i64 = 500;

/// The clock sync's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct ClockSyncConfig {
    /// How often the offset is measured again (`clock_sync_interval`).
    pub interval: Duration,
}

impl From<&EngineConfig> for ClockSyncConfig {
    fn from(c: &EngineConfig) -> Self {
        ClockSyncConfig {
            interval: c.clock_sync_interval,
        }
    }
}

/// The clock sync service: measures `clock`'s offset against the store's
/// database every `interval` (the engine makes the first measurement
/// itself, before the first rescue and claim).
pub struct ClockSync {
    store: Arc<dyn Store>,
    clock: Arc<OffsetClock>,
    metrics: Arc<Metrics>,
    /// The offset taken last.
    last: std::sync::Mutex<Option<Offset>>,
    config: ClockSyncConfig,
}

impl ClockSync {
    pub fn new(dispatcher: &Dispatcher, clock: Arc<OffsetClock>) -> Self {
        ClockSync {
            store: dispatcher.attempter.store.clone(),
            clock,
            metrics: dispatcher.metrics(),
            last: Default::default(),
            config: ClockSyncConfig::from(dispatcher.config()),
        }
    }

    /// One measurement; 1 when an offset was taken, 0 when none was (SQLite,
    /// or a measurement too unsure to take).
    pub async fn sync(&self) -> Result<u64, StoreError> {
        let local = self.clock.local();
        let t0 = local.now();
        let db = self
            .store
            .read(|mut x| Box::pin(async move { relay_store::clock::database_now(&mut x).await }))
            .await?;
        let t1 = local.now();
        let Some(db) = db else { return Ok(0) };
        let Some(o) = Offset::measure(t0, db, t1) else {
            tracing::warn!(
                "this node's clock went back while the database's was read; the offset is measured again later"
            );
            return Ok(0);
        };
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(before) = *last {
            if o.error_millis > MAX_ERROR_MILLIS {
                tracing::warn!(
                    error_ms = o.error_millis,
                    kept_offset_ms = before.millis,
                    "the database answered too slowly to measure the clock offset; the last offset is kept"
                );
                return Ok(0);
            }
            if (o.millis - before.millis).abs() > WARN_JUMP_MILLIS {
                tracing::warn!(
                    offset_ms = o.millis,
                    previous_ms = before.millis,
                    "the offset to the database's clock jumped (a clock was set); leases follow the database's clock"
                );
            }
        } else if o.millis.abs() > WARN_JUMP_MILLIS {
            tracing::warn!(
                offset_ms = o.millis,
                "this node's clock differs from the database's; leases follow the database's clock"
            );
        }
        if o.error_millis > WARN_ERROR_MILLIS {
            tracing::warn!(
                error_ms = o.error_millis,
                "the clock offset to the database is known only this roughly (a slow round trip)"
            );
        }
        self.clock.set_offset(o.millis);
        *last = Some(o);
        use std::sync::atomic::Ordering::Relaxed;
        self.metrics.clock_offset_millis.store(o.millis, Relaxed);
        self.metrics
            .clock_error_millis
            .store(o.error_millis, Relaxed);
        Ok(1)
    }
}

impl Service for ClockSync {
    const NAME: &'static str = "clock sync";
    type Config = ClockSyncConfig;

    fn config(&self) -> &ClockSyncConfig {
        &self.config
    }

    /// One measurement ([`ClockSync::sync`]).
    async fn run_once(&self) -> Result<u64, StoreError> {
        self.sync().await
    }

    async fn run(self, stop: watch::Receiver<bool>) {
        crate::service::every(self.config.interval, false, stop, || async {
            if let Err(e) = self.sync().await {
                tracing::error!(error = %e, "measuring the clock offset to the database failed; the last offset is kept");
            }
        })
        .await;
    }
}

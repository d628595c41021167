//! Retention, the [`Purger`] service: what is older than the retention
//! period is purged.

use super::*;
use relay_store::{Commit, ExecutorExt as _, retention};
use std::sync::atomic::Ordering;

/// While deliveries run ([`Traffic`]) the purge's batches are this many times
/// smaller than `purge_batch`.
const BUSY_BATCH_DIVISOR: u32 = 5;

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
    /// message stay until it ends), at full speed. Returns how many events
    /// went.
    pub async fn purge(&self) -> Result<u64, relay_store::StoreError> {
        self.purge_paced(None).await
    }

    /// [`Dispatcher::purge`] as the service runs it (`stop` given): while
    /// deliveries run ([`Traffic`]) it takes batches five times smaller and
    /// rests after each so that it spends at most `purge_busy_share` of the
    /// time in the store's writes ([`rest_after`]), and it ends between two
    /// batches when `stop` turns true (a large backlog never holds up a
    /// shutdown).
    pub async fn purge_paced(
        &self,
        mut stop: Option<&mut watch::Receiver<bool>>,
    ) -> Result<u64, relay_store::StoreError> {
        let cfg = self.config();
        let cutoff = self.retention_cutoff(self.attempter.clock.now());
        let metrics = &self.attempter.metrics;
        let mut traffic = Traffic::new(metrics.attempts_ended());
        let mut total = 0;
        loop {
            // Beside live deliveries, smaller batches: each holds the
            // store's writer (SQLite's one) for a fifth as long, so a
            // publish or a completion waits less behind it.
            let busy = stop.is_some()
                && traffic.busy(
                    metrics.in_flight.load(Ordering::Relaxed),
                    metrics.attempts_ended(),
                );
            let batch = if busy {
                (cfg.purge_batch / BUSY_BATCH_DIVISOR).max(1)
            } else {
                cfg.purge_batch
            };
            let started = std::time::Instant::now();
            let n = self
                .store()
                .write(Commit::Durable, move |mut x| {
                    Box::pin(async move { retention::purge_before(&mut x, cutoff, batch).await })
                })
                .await?;
            total += n;
            metrics.purged_events.fetch_add(n, Ordering::Relaxed);
            if n < u64::from(batch) {
                break;
            }
            let Some(stop) = stop.as_deref_mut() else {
                // Let other writers in between batches.
                tokio::task::yield_now().await;
                continue;
            };
            let rest = if busy {
                rest_after(started.elapsed(), cfg.purge_busy_share)
            } else {
                Duration::ZERO
            };
            tokio::select! {
                _ = tokio::time::sleep(rest) => {}
                _ = crate::service::stopped(stop) => {}
            }
            if *stop.borrow() {
                tracing::info!(
                    events = total,
                    "the retention purge stopped for the shutdown"
                );
                return Ok(total);
            }
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

/// Whether live deliveries are running, as the purge sees them before each
/// batch: an attempt in flight now, or one that ended since the last look.
/// Attempts in flight alone would not do: a batch that holds SQLite's one
/// writer stalls the publishes and completions behind it, so the attempts
/// in flight at its start end during it and none starts, and a purge that
/// then found none in flight would go on at full speed, stalling them again.
pub(crate) struct Traffic {
    ended: u64,
}

impl Traffic {
    /// `ended`: the attempts ended so far.
    pub(crate) fn new(ended: u64) -> Self {
        Traffic { ended }
    }

    /// With `in_flight` attempts now and `ended` so far.
    pub(crate) fn busy(&mut self, in_flight: i64, ended: u64) -> bool {
        let moved = ended != self.ended;
        self.ended = ended;
        in_flight > 0 || moved
    }
}

/// How long the purge rests after a batch that took `took`, so that it
/// spends `share` of the time in batches: `took × (1 − share) / share`
/// (a share outside (0, 1] is taken as 1: no rest; at most a minute).
pub(crate) fn rest_after(took: Duration, share: f64) -> Duration {
    if !(share > 0.0 && share < 1.0) {
        return Duration::ZERO;
    }
    took.mul_f64((1.0 - share) / share)
        .min(Duration::from_secs(60))
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
        let pass_stop = stop.clone();
        let dispatcher = &self.dispatcher;
        crate::service::every(self.config.interval, true, stop, || {
            let mut stop = pass_stop.clone();
            async move {
                if let Err(e) = dispatcher.purge_paced(Some(&mut stop)).await {
                    tracing::error!(error = %e, "purging past the retention period failed");
                }
            }
        })
        .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traffic_is_an_attempt_in_flight_or_one_ended_since_the_last_look() {
        let mut t = Traffic::new(7);
        // (in flight, ended so far) at each look, and whether it is busy.
        for (in_flight, ended, busy) in [
            (0, 7, false), // nothing since the pass began
            (2, 7, true),  // attempts in flight
            (0, 9, true),  // none in flight, but two ended meanwhile
            (0, 9, false), // none since the last look
            (1, 9, true),
            (0, 10, true),
            (0, 10, false),
        ] {
            assert_eq!(
                t.busy(in_flight, ended),
                busy,
                "{in_flight} in flight, {ended} ended"
            );
        }
    }

    #[test]
    fn the_rest_keeps_the_purge_to_its_share() {
        let ms = Duration::from_millis;
        for (took, share, rest) in [
            (ms(10), 0.05, ms(190)),
            (ms(10), 0.5, ms(10)),
            (ms(10), 0.1, ms(90)),
            (ms(10), 1.0, ms(0)),
            (ms(10), 0.0, ms(0)),
            (ms(10), f64::NAN, ms(0)),
            (ms(10), -1.0, ms(0)),
            (Duration::from_secs(10), 0.01, Duration::from_secs(60)),
        ] {
            let got = rest_after(took, share);
            assert!(
                got.abs_diff(rest) < ms(1),
                "{took:?} at {share}: {got:?}, not {rest:?}"
            );
        }
    }
}

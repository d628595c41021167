//! Lease rescue, the [`Rescuer`] service: expired leases go back to
//! scheduled (delivery is at least once); and, every [`BACKLOG_EVERY`] at
//! most, a look at the backlog for `/metrics`.

use super::*;
use relay_store::{Commit, ExecutorExt as _, claims};

/// How often the backlog gauges are read from the store: each look counts
/// the waiting messages, so not at every rescue.
const BACKLOG_EVERY: Duration = Duration::from_secs(15);

impl Dispatcher {
    pub(crate) async fn rescue(&self) -> Result<u64, relay_store::StoreError> {
        let now = self.attempter.clock.now();
        let rescued = self
            .store()
            .write(Commit::Durable, move |mut x| {
                Box::pin(async move { claims::rescue_expired_leases(&mut x, now).await })
            })
            .await?;
        if rescued > 0 {
            self.attempter
                .metrics
                .leases_rescued
                .fetch_add(rescued, std::sync::atomic::Ordering::Relaxed);
            tracing::warn!(rescued, "expired leases returned to scheduled");
        }
        self.observe_backlog(now).await;
        Ok(rescued)
    }

    /// Updates `relay_backlog_messages` and `relay_oldest_message_age_seconds`
    /// when the last look is older than [`BACKLOG_EVERY`].
    async fn observe_backlog(&self, now: relay_core::time::Timestamp) {
        use std::sync::atomic::Ordering::Relaxed;
        let m = &self.attempter.metrics;
        let last = m.backlog_observed_at.load(Relaxed);
        let every = BACKLOG_EVERY.as_millis() as i64;
        if last != 0 && now.millis().saturating_sub(last) < every {
            return;
        }
        m.backlog_observed_at.store(now.millis().max(1), Relaxed);
        let summary = self
            .store()
            .read(|mut x| Box::pin(async move { claims::backlog_summary(&mut x).await }));
        match summary.await {
            Ok((n, oldest)) => {
                m.backlog_messages
                    .store(i64::try_from(n).unwrap_or(i64::MAX), Relaxed);
                m.oldest_message_age_millis.store(
                    oldest.map_or(0, |t| now.millis().saturating_sub(t.millis()).max(0)),
                    Relaxed,
                );
            }
            Err(e) => tracing::warn!(error = %e, "cannot read the backlog for the metrics"),
        }
    }
}

/// The rescuer's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct RescueConfig {
    /// How often expired leases are rescued (`rescue_interval`).
    pub interval: Duration,
}

impl From<&EngineConfig> for RescueConfig {
    fn from(c: &EngineConfig) -> Self {
        RescueConfig {
            interval: c.rescue_interval,
        }
    }
}

/// The lease rescue service: every `interval`, expired leases (of any
/// process) go back to scheduled. The engine makes its first pass itself,
/// before the claimer starts, so its loop waits an interval first.
pub struct Rescuer {
    dispatcher: Arc<Dispatcher>,
    config: RescueConfig,
}

impl Rescuer {
    pub fn new(dispatcher: Arc<Dispatcher>) -> Self {
        let config = RescueConfig::from(dispatcher.config());
        Rescuer { dispatcher, config }
    }
}

impl Service for Rescuer {
    const NAME: &'static str = "lease rescue";
    type Config = RescueConfig;

    fn config(&self) -> &RescueConfig {
        &self.config
    }

    /// One rescue; how many leases went back to scheduled.
    async fn run_once(&self) -> Result<u64, relay_store::StoreError> {
        self.dispatcher.rescue().await
    }

    async fn run(self, stop: watch::Receiver<bool>) {
        crate::service::every(self.config.interval, false, stop, || async {
            if let Err(e) = self.dispatcher.rescue().await {
                tracing::error!(error = %e, "lease rescue failed");
            }
        })
        .await;
    }
}

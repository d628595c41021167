//! Lease rescue: expired leases go back to scheduled (delivery is at least
//! once); and, every [`BACKLOG_EVERY`] at most, a look at the backlog for
//! `/metrics`.

use super::*;

/// How often the backlog gauges are read from the store: each look counts
/// the waiting messages, so not at every rescue.
const BACKLOG_EVERY: Duration = Duration::from_secs(15);

impl Dispatcher {
    pub(crate) async fn rescue(&self) -> Result<(), relay_store::StoreError> {
        let now = self.attempter.clock.now();
        let rescued = self.store().rescue_expired_leases(now).await?;
        if rescued > 0 {
            self.attempter
                .metrics
                .leases_rescued
                .fetch_add(rescued, std::sync::atomic::Ordering::Relaxed);
            tracing::warn!(rescued, "expired leases returned to scheduled");
        }
        self.observe_backlog(now).await;
        Ok(())
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
        match self.store().backlog_summary().await {
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

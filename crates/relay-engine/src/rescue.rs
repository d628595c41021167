//! Lease rescue: expired leases go back to scheduled (delivery is at least once).

use super::*;

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
        Ok(())
    }
}

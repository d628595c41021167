//! [`Upkeep`]: the dispatcher's background work on the store: retention
//! (purge, expiry) and durable jobs (bulk retry).

use async_trait::async_trait;
use relay_core::time::Timestamp;

use crate::backend::Backend;
use crate::exec::Commit;
use crate::{Job, LeasedJob, MessageFilter, Result, jobs, retention};

#[async_trait]
pub trait Upkeep: Send + Sync {
    /// Deletes up to `batch` events created before `cutoff`, with their
    /// messages and attempts, in one short transaction. An event with a
    /// message still live (scheduled, held or in flight) or leased is kept,
    /// however old, until that message ends. Returns how many events went;
    /// call again until it returns less than `batch`.
    async fn purge_before(&self, cutoff: Timestamp, batch: u32) -> Result<u64>;
    /// Ends up to `batch` waiting messages (`scheduled` or `held`, no live
    /// lease) whose event's time-to-live has passed by `now`: `expired` with
    /// reason `ttl_expired`, oldest expiry first, in one short transaction
    /// (an index holds only the waiting messages of events with a TTL).
    /// Returns how many; call again until it returns less than `batch`.
    async fn expire_due(&self, now: Timestamp, batch: u32) -> Result<u64>;
    /// Deletes the latency histogram's hours that started before `cutoff`.
    async fn purge_latency_before(&self, cutoff: Timestamp) -> Result<u64>;

    /// Leases the oldest queued (or abandoned running) job to `owner`.
    async fn lease_job(
        &self,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<LeasedJob>>;
    /// One batch of a bulk retry: restarts the next `batch` matching messages
    /// after the cursor (the `relay_core::transition::RESTARTABLE` states of
    /// live endpoints), moves the cursor and the counters, and marks the job
    /// done when nothing is left; one transaction, only while `owner` holds
    /// the lease. Returns the job after the batch.
    async fn advance_bulk_retry(
        &self,
        job: &LeasedJob,
        filter: &MessageFilter,
        owner: &str,
        batch: u32,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Job>;
}

#[async_trait]
impl<B: Backend> Upkeep for B {
    async fn purge_before(&self, cutoff: Timestamp, batch: u32) -> Result<u64> {
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { retention::purge_before(x, cutoff, batch).await })
        })
        .await
    }

    async fn expire_due(&self, now: Timestamp, batch: u32) -> Result<u64> {
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { retention::expire_due(x, now, batch).await })
        })
        .await
    }

    async fn purge_latency_before(&self, cutoff: Timestamp) -> Result<u64> {
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { retention::purge_latency_before(x, cutoff).await })
        })
        .await
    }

    async fn lease_job(
        &self,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<LeasedJob>> {
        let owner = owner.to_string();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { jobs::lease(x, &owner, now, lease_until).await })
        })
        .await
    }

    async fn advance_bulk_retry(
        &self,
        job: &LeasedJob,
        filter: &MessageFilter,
        owner: &str,
        batch: u32,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Job> {
        let (job, filter, owner) = (job.clone(), filter.clone(), owner.to_string());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                jobs::advance_bulk_retry(x, &job, &filter, &owner, batch, now, lease_until).await
            })
        })
        .await
    }
}

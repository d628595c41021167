//! [`Traffic`]: what the API does with a tenant's events and messages:
//! publishing, reading what happened, and recovering what failed (recover,
//! replay). Reading an event or a message, cancelling, bulk retry jobs, the
//! audit log and the health view run through the executor
//! (`crate::messages`, `crate::jobs`, `crate::audit`, `crate::health`).

use async_trait::async_trait;
use relay_core::model::{Attempt, Message, Page};
use relay_core::time::Timestamp;

use crate::backend::Backend;
use crate::exec::Commit;
use crate::{
    AuditEntry, MessageFilter, NewEvent, PageRequest, PublishOutcome, Result, Scope, StoreError,
    messages, recovery,
};

#[async_trait]
pub trait Traffic: Send + Sync {
    /// Writes the event and one message per matching endpoint in one
    /// transaction (shared with the publishes queued beside it, see
    /// `crate::group`); with an [`crate::Intake`] set, leases what it has
    /// room for.
    async fn publish(&self, scope: &Scope, event: NewEvent) -> Result<PublishOutcome>;
    async fn list_messages(
        &self,
        scope: &Scope,
        filter: &MessageFilter,
        page: &PageRequest,
    ) -> Result<Page<Message>>;
    /// One page of a message's attempts, by number.
    async fn list_attempts(
        &self,
        scope: &Scope,
        message_id: &str,
        page: &PageRequest,
    ) -> Result<Page<Attempt>>;

    /// Requeues an endpoint's failed and unattempted messages created in
    /// `[since, until)`: their schedule restarts at `audit.at`. Returns how
    /// many, and how many it left because a manual attempt held their
    /// lease. In chunks of at most [`recovery::RECOVER_CHUNK`] messages
    /// (sized to take about [`recovery::RECOVER_CHUNK_TARGET`] each), a
    /// transaction each ([`recovery::recover_chunk`]; the first writes
    /// `audit`), with a pause twice as long as each chunk took between
    /// them, so other tenants' writes take turns with it. Refused
    /// (`Conflict("endpoint_not_active")`) unless the endpoint is active; a
    /// state change between chunks stops it there
    /// (`Conflict("endpoint_state_changed")`), what it restarted staying
    /// restarted.
    async fn recover(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        since: Timestamp,
        until: Timestamp,
        audit: &AuditEntry,
    ) -> Result<recovery::Recovered>;
    /// Creates messages for this endpoint for the events created in
    /// `[since, until)` that it subscribes to (narrowed to `event_types` when
    /// given), keeping each event's id; events it already has a message for
    /// are skipped (`(endpoint_id, event_id)` is unique). Returns how many.
    /// In chunks of [`recovery::REPLAY_CHUNK`] events, a transaction each
    /// ([`recovery::replay_chunk`]; the first writes `audit`).
    async fn replay(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        since: Timestamp,
        until: Timestamp,
        event_types: Option<&[String]>,
        audit: &AuditEntry,
    ) -> Result<u64>;
}

#[async_trait]
impl<B: Backend> Traffic for B {
    async fn publish(&self, scope: &Scope, event: NewEvent) -> Result<PublishOutcome> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.publishes().push(crate::group::PublishJob {
            scope: scope.clone(),
            event,
            reply,
        });
        answer
            .await
            .map_err(|_| StoreError::Unavailable("the publish committer has stopped"))?
    }

    async fn list_messages(
        &self,
        scope: &Scope,
        filter: &MessageFilter,
        page: &PageRequest,
    ) -> Result<Page<Message>> {
        messages::list(&mut *self.reader().await?, scope, filter, page).await
    }

    async fn list_attempts(
        &self,
        scope: &Scope,
        message_id: &str,
        page: &PageRequest,
    ) -> Result<Page<Attempt>> {
        messages::attempts(&mut *self.reader().await?, scope, message_id, page).await
    }

    async fn recover(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        since: Timestamp,
        until: Timestamp,
        audit: &AuditEntry,
    ) -> Result<recovery::Recovered> {
        let mut total = recovery::Recovered::default();
        let mut after = String::new();
        let mut limit = recovery::RECOVER_CHUNK_FIRST;
        let mut first = Some(audit.clone());
        // The first chunk (with the audit entry) and the last are durable;
        // those between are `Commit::Lease`, made durable by the last (the
        // log is written in order): a publish that shares the writer with
        // them waits for one flush, its own, not for theirs as well.
        let mut durable = true;
        loop {
            let (scope, endpoint_id) = (scope.clone(), endpoint_id.to_string());
            let (audit, now, from) = (first.take(), audit.at, after.clone());
            let started = audit.is_some();
            let commit = if durable {
                Commit::Durable
            } else {
                Commit::Lease
            };
            let sent = std::time::Instant::now();
            let chunk = self
                .write(commit, move |x| {
                    Box::pin(async move {
                        recovery::recover_chunk(
                            x,
                            &scope,
                            &endpoint_id,
                            since,
                            until,
                            &from,
                            limit,
                            now,
                            audit.as_ref(),
                        )
                        .await
                    })
                })
                .await
                .map_err(|e| match e {
                    // Paused or disabled since the first chunk.
                    StoreError::Conflict("endpoint_not_active") if !started => {
                        StoreError::Conflict("endpoint_state_changed")
                    }
                    other => other,
                })?;
            total.requeued += chunk.done.requeued;
            total.in_flight += chunk.done.in_flight;
            limit = recovery::next_recover_chunk(limit, chunk.took);
            match (chunk.next, durable) {
                (Some(next), _) => {
                    after = next;
                    durable = false;
                }
                (None, true) => return Ok(total),
                // The end, not yet durable: one more chunk, durable, after
                // the last message looked at (it finds nothing, or what
                // came since).
                (None, false) => {
                    if let Some(last) = chunk.last {
                        after = last;
                    }
                    durable = true;
                }
            }
            // At most about a third of the writer's time (and of a core):
            // twice as long as the chunk took, for the others' transactions.
            tokio::time::sleep(sent.elapsed() * 2).await;
        }
    }

    async fn replay(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        since: Timestamp,
        until: Timestamp,
        event_types: Option<&[String]>,
        audit: &AuditEntry,
    ) -> Result<u64> {
        let mut created = 0;
        let mut after: Option<recovery::ReplayCursor> = None;
        let mut first = Some(audit.clone());
        let event_types = event_types.map(<[String]>::to_vec);
        loop {
            let (scope, endpoint_id) = (scope.clone(), endpoint_id.to_string());
            let (audit, now, from) = (first.take(), audit.at, after.take());
            let event_types = event_types.clone();
            let (n, next) = self
                .write(Commit::Durable, move |x| {
                    Box::pin(async move {
                        recovery::replay_chunk(
                            x,
                            &scope,
                            &endpoint_id,
                            since,
                            until,
                            event_types.as_deref(),
                            from.as_ref(),
                            now,
                            audit.as_ref(),
                        )
                        .await
                    })
                })
                .await?;
            created += n;
            match next {
                Some(next) => after = Some(next),
                None => return Ok(created),
            }
        }
    }
}

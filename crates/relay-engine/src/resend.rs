//! Manual attempts: resend a message, send a test event.

use super::*;

/// Why a manual attempt could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ManualError {
    #[error("message not found")]
    NotFound,
    /// Another attempt is in flight (or leased): at most one at a time.
    #[error("an attempt for this message is in flight")]
    Busy,
    /// The message's event's time to live has passed: no attempt is made.
    #[error("the event has expired")]
    EventExpired,
    /// The message's endpoint was deleted: no attempt is made.
    #[error("the endpoint was deleted")]
    EndpointDeleted,
    #[error(transparent)]
    Store(relay_store::StoreError),
}

/// The result of a manual attempt.
#[derive(Debug, Clone)]
pub struct ManualOutcome {
    /// The attempt made (`None` when the message ended without one, e.g. its TTL passed).
    pub attempt: Option<relay_core::model::Attempt>,
    /// Whether the message changed (it may have been cancelled meanwhile).
    pub applied: bool,
}

impl Dispatcher {
    /// One immediate attempt at a message, under a lease so it never runs
    /// beside an automatic one (reference "Recovery"): a success ends the
    /// message `delivered` and cancels pending attempts; a failure leaves the
    /// schedule (or the terminal state) as it was and does not count.
    pub async fn resend(
        &self,
        scope: &relay_store::Scope,
        message_id: &str,
    ) -> Result<ManualOutcome, ManualError> {
        let a = &self.attempter;
        let now = a.clock.now();
        let lease_until = now.plus_millis(a.config.lease.as_millis() as i64);
        let claimed = a
            .store
            .lease_for_manual_attempt(scope, message_id, &a.config.owner, now, lease_until)
            .await
            .map_err(|e| match e {
                relay_store::StoreError::NotFound => ManualError::NotFound,
                relay_store::StoreError::Conflict("event_expired") => ManualError::EventExpired,
                relay_store::StoreError::Conflict("endpoint_deleted") => {
                    ManualError::EndpointDeleted
                }
                other => ManualError::Store(other),
            })?
            .ok_or(ManualError::Busy)?;
        self.attempt_leased(&claimed).await
    }

    /// The endpoint's test action: `event` (a sample of a type it subscribes
    /// to) is written with one message for this endpoint only, and attempted
    /// at once through the normal signing and guard path.
    pub async fn send_test(
        &self,
        scope: &relay_store::Scope,
        endpoint_id: &str,
        event: relay_store::NewEvent,
    ) -> Result<(String, ManualOutcome), ManualError> {
        let a = &self.attempter;
        let lease_until = event.now.plus_millis(a.config.lease.as_millis() as i64);
        let claimed = a
            .store
            .publish_to_endpoint(scope, endpoint_id, event, &a.config.owner, lease_until)
            .await
            .map_err(|e| match e {
                relay_store::StoreError::NotFound => ManualError::NotFound,
                other => ManualError::Store(other),
            })?;
        let message_id = claimed.message.id.clone();
        Ok((message_id, self.attempt_leased(&claimed).await?))
    }

    /// One manual attempt at a message this process has leased.
    pub(crate) async fn attempt_leased(
        &self,
        claimed: &relay_store::Claimed,
    ) -> Result<ManualOutcome, ManualError> {
        let a = &self.attempter;
        let Some(completion) = a.attempt(claimed, AttemptTrigger::Manual).await else {
            // The lease lapses on its own; nothing changed.
            return Ok(ManualOutcome {
                attempt: None,
                applied: false,
            });
        };
        let applied = a
            .store
            .complete(std::slice::from_ref(&completion))
            .await
            .map_err(ManualError::Store)?;
        Ok(ManualOutcome {
            attempt: completion.attempt,
            applied: applied.applied.first().copied().unwrap_or(false),
        })
    }
}

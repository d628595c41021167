//! [`Publisher`]: publishing an event, the one store operation a caller
//! does not run through the executor (see `roles`'s documentation for why).

use async_trait::async_trait;

use crate::backend::Backend;
use crate::{NewEvent, PublishOutcome, Result, Scope, StoreError};

#[async_trait]
pub trait Publisher: Send + Sync {
    /// Writes the event and one message per matching endpoint in one
    /// transaction (shared with the publishes queued beside it, see
    /// `crate::group`); with an [`crate::Intake`] set, leases what it has
    /// room for.
    async fn publish(&self, scope: &Scope, event: NewEvent) -> Result<PublishOutcome>;
}

#[async_trait]
impl<B: Backend> Publisher for B {
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
}

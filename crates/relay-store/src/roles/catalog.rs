//! [`Catalog`]: what a tenant configures through the API: event types and
//! endpoints (consumers, `crate::consumers`, and endpoints' signing keys and
//! shape sources, `crate::endpoints`, run through the executor).
//!
//! Methods that read or change tenant data take a [`Scope`]; an object of
//! another tenant or environment is simply not found, which is how
//! isolation is enforced at the lowest layer.

use async_trait::async_trait;
use relay_core::model::{Endpoint, EndpointVersion, EventType, Page};
use relay_core::time::Timestamp;

use crate::backend::Backend;
use crate::exec::Commit;
use crate::{
    AuditEntry, EndpointKeyRecord, EndpointLimits, PageRequest, PutEventType, PutEventTypeOutcome,
    Result, Scope, endpoints, event_types,
};

#[async_trait]
pub trait Catalog: Send + Sync {
    async fn put_event_type(
        &self,
        scope: &Scope,
        put: &PutEventType,
    ) -> Result<(EventType, PutEventTypeOutcome)>;
    async fn get_event_type(&self, scope: &Scope, name: &str) -> Result<Option<EventType>>;
    /// One page of the scope's event types by name, with their versions.
    async fn list_event_types(&self, scope: &Scope, page: &PageRequest) -> Result<Page<EventType>>;

    /// Creates the endpoint with its signing keys, within the operator
    /// limits, and `audit` (if any) in the same transaction.
    async fn create_endpoint(
        &self,
        scope: &Scope,
        endpoint: &Endpoint,
        keys: &[EndpointKeyRecord],
        limits: EndpointLimits,
        audit: Option<&AuditEntry>,
    ) -> Result<()>;
    /// One page of the endpoint's versions (its payload settings), oldest
    /// first (`after` is a version number); `None` when there is no such
    /// endpoint.
    async fn endpoint_versions(
        &self,
        scope: &Scope,
        id: &str,
        page: &PageRequest,
    ) -> Result<Option<Page<EndpointVersion>>>;
    /// Applies a change of the endpoint's state decided by the one rule
    /// (`relay_core::lifecycle::decide`, from the state the caller read)
    /// with a conditional update (`crate::lifecycle::apply`): only while the
    /// endpoint is still in `change.from`, else
    /// `Conflict("endpoint_state_changed")` and nothing is written. Moves its
    /// messages and emits the operational event as the change says, audited
    /// in the same transaction (its parameters get `from` and `to`).
    async fn change_endpoint_state(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        change: &relay_core::lifecycle::Change,
        audit: &AuditEntry,
    ) -> Result<Endpoint>;
    async fn get_endpoint(&self, scope: &Scope, id: &str) -> Result<Option<Endpoint>>;
    async fn list_endpoints(
        &self,
        scope: &Scope,
        consumer_id: Option<&str>,
        page: &PageRequest,
    ) -> Result<Page<Endpoint>>;
    /// Replaces the endpoint's settings and its subscriptions, with every
    /// entry of `audit` in the same transaction, only while its revision is
    /// still `endpoint.revision` (the one read), else
    /// `Conflict("endpoint_changed")` and nothing is written; the revision
    /// goes up by one. Never changes the endpoint's state (that is
    /// `change_endpoint_state`).
    async fn update_endpoint(
        &self,
        scope: &Scope,
        endpoint: &Endpoint,
        audit: &[AuditEntry],
    ) -> Result<()>;
    /// Removes the endpoint; its messages that were still to be delivered become
    /// `dead_lettered` with reason `endpoint_removed`. `audit` (if any) is
    /// written in the same transaction.
    async fn delete_endpoint(
        &self,
        scope: &Scope,
        id: &str,
        now: Timestamp,
        audit: Option<&AuditEntry>,
    ) -> Result<()>;
}

#[async_trait]
impl<B: Backend> Catalog for B {
    async fn put_event_type(
        &self,
        scope: &Scope,
        put: &PutEventType,
    ) -> Result<(EventType, PutEventTypeOutcome)> {
        let (scope, put) = (scope.clone(), put.clone());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { event_types::put(x, &scope, &put).await })
        })
        .await
    }

    async fn get_event_type(&self, scope: &Scope, name: &str) -> Result<Option<EventType>> {
        event_types::get(&mut *self.reader().await?, scope, name).await
    }

    async fn list_event_types(&self, scope: &Scope, page: &PageRequest) -> Result<Page<EventType>> {
        event_types::list(&mut *self.reader().await?, scope, page).await
    }

    async fn create_endpoint(
        &self,
        scope: &Scope,
        endpoint: &Endpoint,
        keys: &[EndpointKeyRecord],
        limits: EndpointLimits,
        audit: Option<&AuditEntry>,
    ) -> Result<()> {
        let (scope, endpoint, keys) = (scope.clone(), endpoint.clone(), keys.to_vec());
        let audit = audit.cloned();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                endpoints::create(x, &scope, &endpoint, &keys, limits, audit.as_ref()).await
            })
        })
        .await
    }

    async fn endpoint_versions(
        &self,
        scope: &Scope,
        id: &str,
        page: &PageRequest,
    ) -> Result<Option<Page<EndpointVersion>>> {
        endpoints::versions(&mut *self.reader().await?, scope, id, page).await
    }

    async fn change_endpoint_state(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        change: &relay_core::lifecycle::Change,
        audit: &AuditEntry,
    ) -> Result<Endpoint> {
        let (scope, endpoint_id, change) = (scope.clone(), endpoint_id.to_string(), *change);
        let audit = audit.clone();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                endpoints::change_state(x, &scope, &endpoint_id, &change, &audit).await
            })
        })
        .await
    }

    async fn get_endpoint(&self, scope: &Scope, id: &str) -> Result<Option<Endpoint>> {
        endpoints::get(&mut *self.reader().await?, scope, id).await
    }

    async fn list_endpoints(
        &self,
        scope: &Scope,
        consumer_id: Option<&str>,
        page: &PageRequest,
    ) -> Result<Page<Endpoint>> {
        endpoints::list(&mut *self.reader().await?, scope, consumer_id, page).await
    }

    async fn update_endpoint(
        &self,
        scope: &Scope,
        endpoint: &Endpoint,
        audit: &[AuditEntry],
    ) -> Result<()> {
        let (scope, endpoint, audit) = (scope.clone(), endpoint.clone(), audit.to_vec());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { endpoints::update(x, &scope, &endpoint, &audit).await })
        })
        .await
    }

    async fn delete_endpoint(
        &self,
        scope: &Scope,
        id: &str,
        now: Timestamp,
        audit: Option<&AuditEntry>,
    ) -> Result<()> {
        let (scope, id, audit) = (scope.clone(), id.to_string(), audit.cloned());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { endpoints::delete(x, &scope, &id, now, audit.as_ref()).await })
        })
        .await
    }
}

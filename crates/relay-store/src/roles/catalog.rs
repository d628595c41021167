//! [`Catalog`]: what a tenant configures through the API: event types,
//! consumers, endpoints and their signing keys.
//!
//! Methods that read or change tenant data take a [`Scope`]; an object of
//! another tenant or environment is simply not found, which is how
//! isolation is enforced at the lowest layer.

use async_trait::async_trait;
use relay_core::model::{Consumer, Endpoint, EndpointVersion, EventType, Page};
use relay_core::time::Timestamp;

use crate::backend::Backend;
use crate::exec::Commit;
use crate::{
    AuditEntry, ConsumerPatch, EndpointKeyRecord, EndpointLimits, PageRequest, PutEventType,
    PutEventTypeOutcome, Result, Scope, ShapeKey, ShapeSource, consumers, endpoints, event_types,
};

#[async_trait]
pub trait Catalog: Send + Sync {
    async fn put_event_type(
        &self,
        scope: &Scope,
        put: &PutEventType,
    ) -> Result<(EventType, PutEventTypeOutcome)>;
    async fn get_event_type(&self, scope: &Scope, name: &str) -> Result<Option<EventType>>;
    async fn list_event_types(&self, scope: &Scope) -> Result<Vec<EventType>>;

    async fn create_consumer(&self, scope: &Scope, consumer: &Consumer) -> Result<()>;
    async fn get_consumer(&self, scope: &Scope, id: &str) -> Result<Option<Consumer>>;
    async fn list_consumers(&self, scope: &Scope, page: &PageRequest) -> Result<Page<Consumer>>;
    async fn update_consumer(
        &self,
        scope: &Scope,
        id: &str,
        patch: &ConsumerPatch,
        now: Timestamp,
    ) -> Result<Consumer>;
    /// Fails with `Conflict("consumer_has_endpoints")` while endpoints remain.
    async fn delete_consumer(&self, scope: &Scope, id: &str) -> Result<()>;

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
    /// The endpoint's signing keys, newest first (retired ones included).
    async fn endpoint_keys(&self, endpoint_id: &str) -> Result<Vec<EndpointKeyRecord>>;
    /// The endpoint's versions (its payload settings), oldest first; `None`
    /// when there is no such endpoint.
    async fn endpoint_versions(
        &self,
        scope: &Scope,
        id: &str,
    ) -> Result<Option<Vec<EndpointVersion>>>;
    /// What shapes the payloads of one endpoint version's messages of one
    /// event type; `None` when that endpoint version is not recorded.
    async fn shape_source(&self, key: &ShapeKey) -> Result<Option<ShapeSource>>;
    /// Adds `key` as the endpoint's newest signing key and sets its scheme;
    /// every older key that would sign past `retire_at` retires then. Audited
    /// with `audit` in the same transaction. Returns all keys, newest first.
    async fn rotate_endpoint_key(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        key: &EndpointKeyRecord,
        retire_at: Timestamp,
        audit: &AuditEntry,
    ) -> Result<Vec<EndpointKeyRecord>>;
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

    async fn list_event_types(&self, scope: &Scope) -> Result<Vec<EventType>> {
        event_types::list(&mut *self.reader().await?, scope).await
    }

    async fn create_consumer(&self, scope: &Scope, consumer: &Consumer) -> Result<()> {
        let (scope, consumer) = (scope.clone(), consumer.clone());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { consumers::create(x, &scope, &consumer).await })
        })
        .await
    }

    async fn get_consumer(&self, scope: &Scope, id: &str) -> Result<Option<Consumer>> {
        consumers::get(&mut *self.reader().await?, scope, id).await
    }

    async fn list_consumers(&self, scope: &Scope, page: &PageRequest) -> Result<Page<Consumer>> {
        consumers::list(&mut *self.reader().await?, scope, page).await
    }

    async fn update_consumer(
        &self,
        scope: &Scope,
        id: &str,
        patch: &ConsumerPatch,
        now: Timestamp,
    ) -> Result<Consumer> {
        let (scope, id, patch) = (scope.clone(), id.to_string(), patch.clone());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { consumers::update(x, &scope, &id, &patch, now).await })
        })
        .await
    }

    async fn delete_consumer(&self, scope: &Scope, id: &str) -> Result<()> {
        let (scope, id) = (scope.clone(), id.to_string());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { consumers::delete(x, &scope, &id).await })
        })
        .await
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

    async fn endpoint_keys(&self, endpoint_id: &str) -> Result<Vec<EndpointKeyRecord>> {
        endpoints::keys(&mut *self.reader().await?, endpoint_id).await
    }

    async fn endpoint_versions(
        &self,
        scope: &Scope,
        id: &str,
    ) -> Result<Option<Vec<EndpointVersion>>> {
        endpoints::versions(&mut *self.reader().await?, scope, id).await
    }

    async fn shape_source(&self, key: &ShapeKey) -> Result<Option<ShapeSource>> {
        endpoints::shape_source(&mut *self.reader().await?, key).await
    }

    async fn rotate_endpoint_key(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        key: &EndpointKeyRecord,
        retire_at: Timestamp,
        audit: &AuditEntry,
    ) -> Result<Vec<EndpointKeyRecord>> {
        let (scope, endpoint_id, key) = (scope.clone(), endpoint_id.to_string(), key.clone());
        let audit = audit.clone();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                endpoints::rotate_key(x, &scope, &endpoint_id, &key, retire_at, &audit).await
            })
        })
        .await
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

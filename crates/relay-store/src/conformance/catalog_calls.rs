//! The cases' calls through the executor (`crate::executor`) for what a
//! tenant configures (`crate::endpoints`, `crate::consumers`,
//! `crate::event_types`), one operation each; the public ones
//! ([`create_consumer`], [`put_event_type`], [`create_endpoint`],
//! [`get_endpoint`], [`update_endpoint`], [`change_endpoint_state`],
//! [`delete_endpoint`]) serve other crates' tests too.

use relay_core::lifecycle::Change;
use relay_core::model::{Consumer, Endpoint, EndpointState, EndpointVersion, EventType, Page};
use relay_core::time::Timestamp;

use crate::{
    AuditEntry, Commit, ConsumerPatch, EndpointKeyRecord, EndpointLimits, ExecutorExt as _,
    PageRequest, PutEventType, PutEventTypeOutcome, Result, Scope, ShapeKey, ShapeSource, Store,
    consumers, endpoints, event_types,
};

pub(crate) async fn endpoint_keys(
    s: &dyn Store,
    endpoint_id: &str,
) -> Result<Vec<EndpointKeyRecord>> {
    let id = endpoint_id.to_string();
    s.read(move |mut x| Box::pin(async move { endpoints::keys(&mut x, &id).await }))
        .await
}

pub(crate) async fn rotate_endpoint_key(
    s: &dyn Store,
    scope: &Scope,
    endpoint_id: &str,
    key: &EndpointKeyRecord,
    retire_at: Timestamp,
    audit: &AuditEntry,
) -> Result<Vec<EndpointKeyRecord>> {
    let (scope, id, key, audit) = (
        scope.clone(),
        endpoint_id.to_string(),
        key.clone(),
        audit.clone(),
    );
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move {
            endpoints::rotate_key(&mut x, &scope, &id, &key, retire_at, &audit).await
        })
    })
    .await
}

pub(crate) async fn shape_source(s: &dyn Store, key: &ShapeKey) -> Result<Option<ShapeSource>> {
    let key = key.clone();
    s.read(move |mut x| Box::pin(async move { endpoints::shape_source(&mut x, &key).await }))
        .await
}

/// Creates `consumer` in `scope` (other crates' tests set up with it too).
pub async fn create_consumer(s: &dyn Store, scope: &Scope, consumer: &Consumer) -> Result<()> {
    let (scope, consumer) = (scope.clone(), consumer.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { consumers::create(&mut x, &scope, &consumer).await })
    })
    .await
}

pub(crate) async fn get_consumer(
    s: &dyn Store,
    scope: &Scope,
    id: &str,
) -> Result<Option<Consumer>> {
    let (scope, id) = (scope.clone(), id.to_string());
    s.read(move |mut x| Box::pin(async move { consumers::get(&mut x, &scope, &id).await }))
        .await
}

pub(crate) async fn list_consumers(
    s: &dyn Store,
    scope: &Scope,
    page: &PageRequest,
) -> Result<Page<Consumer>> {
    let (scope, page) = (scope.clone(), page.clone());
    s.read(move |mut x| Box::pin(async move { consumers::list(&mut x, &scope, &page).await }))
        .await
}

pub(crate) async fn update_consumer(
    s: &dyn Store,
    scope: &Scope,
    id: &str,
    patch: &ConsumerPatch,
    now: Timestamp,
) -> Result<Consumer> {
    let (scope, id, patch) = (scope.clone(), id.to_string(), patch.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { consumers::update(&mut x, &scope, &id, &patch, now).await })
    })
    .await
}

pub(crate) async fn delete_consumer(s: &dyn Store, scope: &Scope, id: &str) -> Result<()> {
    let (scope, id) = (scope.clone(), id.to_string());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { consumers::delete(&mut x, &scope, &id).await })
    })
    .await
}

/// Creates or changes an event type (`crate::event_types::put`).
pub async fn put_event_type(
    s: &dyn Store,
    scope: &Scope,
    put: &PutEventType,
) -> Result<(EventType, PutEventTypeOutcome)> {
    let (scope, put) = (scope.clone(), put.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { event_types::put(&mut x, &scope, &put).await })
    })
    .await
}

pub(crate) async fn get_event_type(
    s: &dyn Store,
    scope: &Scope,
    name: &str,
) -> Result<Option<EventType>> {
    let (scope, name) = (scope.clone(), name.to_string());
    s.read(move |mut x| Box::pin(async move { event_types::get(&mut x, &scope, &name).await }))
        .await
}

pub(crate) async fn list_event_types(
    s: &dyn Store,
    scope: &Scope,
    page: &PageRequest,
) -> Result<Page<EventType>> {
    let (scope, page) = (scope.clone(), page.clone());
    s.read(move |mut x| Box::pin(async move { event_types::list(&mut x, &scope, &page).await }))
        .await
}

/// Creates `endpoint` with its signing keys (`crate::endpoints::create`).
pub async fn create_endpoint(
    s: &dyn Store,
    scope: &Scope,
    endpoint: &Endpoint,
    keys: &[EndpointKeyRecord],
    limits: EndpointLimits,
    audit: Option<&AuditEntry>,
) -> Result<EndpointState> {
    let (scope, endpoint, keys) = (scope.clone(), endpoint.clone(), keys.to_vec());
    let audit = audit.cloned();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move {
            endpoints::create(&mut x, &scope, &endpoint, &keys, limits, audit.as_ref()).await
        })
    })
    .await
}

pub(crate) async fn endpoint_versions(
    s: &dyn Store,
    scope: &Scope,
    id: &str,
    page: &PageRequest,
) -> Result<Option<Page<EndpointVersion>>> {
    let (scope, id, page) = (scope.clone(), id.to_string(), page.clone());
    s.read(move |mut x| {
        Box::pin(async move { endpoints::versions(&mut x, &scope, &id, &page).await })
    })
    .await
}

/// Applies a decided change of the endpoint's state
/// (`crate::endpoints::change_state`).
pub async fn change_endpoint_state(
    s: &dyn Store,
    scope: &Scope,
    endpoint_id: &str,
    change: &Change,
    audit: &AuditEntry,
) -> Result<Endpoint> {
    let (scope, id, change, audit) = (
        scope.clone(),
        endpoint_id.to_string(),
        *change,
        audit.clone(),
    );
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { endpoints::change_state(&mut x, &scope, &id, &change, &audit).await })
    })
    .await
}

/// The scope's endpoint `id`, if any (`crate::endpoints::get`).
pub async fn get_endpoint(s: &dyn Store, scope: &Scope, id: &str) -> Result<Option<Endpoint>> {
    let (scope, id) = (scope.clone(), id.to_string());
    s.read(move |mut x| Box::pin(async move { endpoints::get(&mut x, &scope, &id).await }))
        .await
}

pub(crate) async fn list_endpoints(
    s: &dyn Store,
    scope: &Scope,
    consumer_id: Option<&str>,
    page: &PageRequest,
) -> Result<Page<Endpoint>> {
    let (scope, consumer_id, page) = (scope.clone(), consumer_id.map(str::to_string), page.clone());
    s.read(move |mut x| {
        Box::pin(
            async move { endpoints::list(&mut x, &scope, consumer_id.as_deref(), &page).await },
        )
    })
    .await
}

/// Replaces the endpoint's settings while its revision is still
/// `endpoint.revision` (`crate::endpoints::update`).
pub async fn update_endpoint(
    s: &dyn Store,
    scope: &Scope,
    endpoint: &Endpoint,
    audit: &[AuditEntry],
) -> Result<EndpointState> {
    let (scope, endpoint, audit) = (scope.clone(), endpoint.clone(), audit.to_vec());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { endpoints::update(&mut x, &scope, &endpoint, &audit).await })
    })
    .await
}

/// Removes the endpoint (`crate::endpoints::delete`).
pub async fn delete_endpoint(
    s: &dyn Store,
    scope: &Scope,
    id: &str,
    now: Timestamp,
    audit: Option<&AuditEntry>,
) -> Result<()> {
    let (scope, id, audit) = (scope.clone(), id.to_string(), audit.cloned());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { endpoints::delete(&mut x, &scope, &id, now, audit.as_ref()).await })
    })
    .await
}

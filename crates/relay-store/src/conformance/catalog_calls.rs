//! The cases' calls through the executor (`crate::executor`) for the
//! `Catalog` operations whose role wrappers are gone, one operation each
//! (`crate::endpoints`, `crate::consumers`, `crate::event_types`), and
//! [`create_consumer`], which other crates' tests use too.

use relay_core::model::{Consumer, Page};
use relay_core::time::Timestamp;

use crate::{
    AuditEntry, Commit, ConsumerPatch, EndpointKeyRecord, ExecutorExt as _, PageRequest, Result,
    Scope, ShapeKey, ShapeSource, Store, consumers, endpoints,
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

//! The cases' calls through the executor (`crate::executor`), one
//! operation each, for the operations whose role is gone (and
//! [`create_tenant`], [`endpoint_warnings`], [`create_job`], [`get_job`],
//! [`cancel_message`], [`get_event`], [`get_message`], [`list_messages`]
//! and [`list_attempts`], which other crates' tests use too).

use relay_core::model::{ApiKey, Attempt, Event, Message, Page, Tenant};
use relay_core::time::Timestamp;

use crate::{
    AuditEntry, Commit, EndpointWarning, ExecutorExt as _, HealthFacts, Job, LeasedJob,
    MessageFilter, NewApiKey, PageRequest, Result, Scope, Store, audit, health, jobs, messages,
    retention, settings, tenants,
};

pub(crate) async fn purge_before(s: &dyn Store, cutoff: Timestamp, batch: u32) -> Result<u64> {
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { retention::purge_before(&mut x, cutoff, batch).await })
    })
    .await
}

pub(crate) async fn expire_due(s: &dyn Store, now: Timestamp, batch: u32) -> Result<u64> {
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { retention::expire_due(&mut x, now, batch).await })
    })
    .await
}

pub(crate) async fn purge_latency_before(s: &dyn Store, cutoff: Timestamp) -> Result<u64> {
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { retention::purge_latency_before(&mut x, cutoff).await })
    })
    .await
}

pub(crate) async fn lease_job(
    s: &dyn Store,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
) -> Result<Option<LeasedJob>> {
    let owner = owner.to_string();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { jobs::lease(&mut x, &owner, now, lease_until).await })
    })
    .await
}

pub(crate) async fn advance_bulk_retry(
    s: &dyn Store,
    job: &LeasedJob,
    filter: &MessageFilter,
    owner: &str,
    batch: u32,
    now: Timestamp,
    lease_until: Timestamp,
) -> Result<Job> {
    let (job, filter, owner) = (job.clone(), filter.clone(), owner.to_string());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move {
            jobs::advance_bulk_retry(&mut x, &job, &filter, &owner, batch, now, lease_until).await
        })
    })
    .await
}

/// Stores `tenant` (for the tests of every crate: tenants have no role).
pub async fn create_tenant(s: &dyn Store, tenant: &Tenant) {
    try_create_tenant(s, tenant)
        .await
        .expect("the tenant is stored");
}

pub(crate) async fn try_create_tenant(s: &dyn Store, tenant: &Tenant) -> Result<()> {
    let tenant = tenant.clone();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { tenants::create(&mut x, &tenant).await })
    })
    .await
}

pub(crate) async fn get_tenant(s: &dyn Store, id: &str) -> Result<Option<Tenant>> {
    let id = id.to_string();
    s.read(move |mut x| Box::pin(async move { tenants::get(&mut x, &id).await }))
        .await
}

pub(crate) async fn list_tenants(s: &dyn Store, page: &PageRequest) -> Result<Page<Tenant>> {
    let page = page.clone();
    s.read(move |mut x| Box::pin(async move { tenants::list(&mut x, &page).await }))
        .await
}

pub(crate) async fn create_api_key(s: &dyn Store, key: &NewApiKey) -> Result<ApiKey> {
    let key = key.clone();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { tenants::create_api_key(&mut x, &key).await })
    })
    .await
}

pub(crate) async fn list_api_keys(
    s: &dyn Store,
    tenant_id: &str,
    page: &PageRequest,
) -> Result<Page<ApiKey>> {
    let (tenant_id, page) = (tenant_id.to_string(), page.clone());
    s.read(move |mut x| {
        Box::pin(async move { tenants::list_api_keys(&mut x, &tenant_id, &page).await })
    })
    .await
}

pub(crate) async fn revoke_api_key(
    s: &dyn Store,
    tenant_id: &str,
    key_id: &str,
    now: Timestamp,
) -> Result<bool> {
    let (tenant_id, key_id) = (tenant_id.to_string(), key_id.to_string());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { tenants::revoke_api_key(&mut x, &tenant_id, &key_id, now).await })
    })
    .await
}

pub(crate) async fn find_api_key(s: &dyn Store, key_hash: &str) -> Result<Option<ApiKey>> {
    let key_hash = key_hash.to_string();
    s.read(move |mut x| Box::pin(async move { tenants::find_api_key(&mut x, &key_hash).await }))
        .await
}

pub(crate) async fn get_setting(s: &dyn Store, key: &str) -> Result<Option<String>> {
    let key = key.to_string();
    s.read(move |mut x| Box::pin(async move { settings::get(&mut x, &key).await }))
        .await
}

pub(crate) async fn put_setting_if_absent(s: &dyn Store, key: &str, value: &str) -> Result<String> {
    let (key, value) = (key.to_string(), value.to_string());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { settings::put_if_absent(&mut x, &key, &value).await })
    })
    .await
}

pub(crate) async fn health_facts(
    s: &dyn Store,
    endpoint_id: &str,
    now: Timestamp,
) -> Result<HealthFacts> {
    let endpoint_id = endpoint_id.to_string();
    s.read(move |mut x| Box::pin(async move { health::facts(&mut x, &endpoint_id, now).await }))
        .await
}

/// The endpoint's most recent health warnings, newest first (for the tests
/// of every crate: the health view has no role).
pub async fn endpoint_warnings(
    s: &dyn Store,
    endpoint_id: &str,
    limit: u32,
) -> Result<Vec<EndpointWarning>> {
    let endpoint_id = endpoint_id.to_string();
    s.read(move |mut x| {
        Box::pin(async move { health::warnings(&mut x, &endpoint_id, limit).await })
    })
    .await
}

pub(crate) async fn list_audit(
    s: &dyn Store,
    scope: &Scope,
    page: &PageRequest,
) -> Result<Page<AuditEntry>> {
    let (scope, page) = (scope.clone(), page.clone());
    s.read(move |mut x| Box::pin(async move { audit::list(&mut x, &scope, &page).await }))
        .await
}

/// Queues `job`, audited with `entry` in the same transaction (for the
/// tests of every crate: jobs have no role).
pub async fn create_job(s: &dyn Store, scope: &Scope, job: &Job, entry: &AuditEntry) -> Result<()> {
    let (scope, job, entry) = (scope.clone(), job.clone(), entry.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { jobs::create(&mut x, &scope, &job, &entry).await })
    })
    .await
}

/// The job `id` of `scope`'s tenant, if any.
pub async fn get_job(s: &dyn Store, scope: &Scope, id: &str) -> Result<Option<Job>> {
    let (scope, id) = (scope.clone(), id.to_string());
    s.read(move |mut x| Box::pin(async move { jobs::get(&mut x, &scope, &id).await }))
        .await
}

/// Cancels the message `id` (`crate::messages::cancel`), writing `entry`
/// (if any) in the same transaction.
pub async fn cancel_message(
    s: &dyn Store,
    scope: &Scope,
    id: &str,
    now: Timestamp,
    entry: Option<&AuditEntry>,
) -> Result<Message> {
    let (scope, id, entry) = (scope.clone(), id.to_string(), entry.cloned());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { messages::cancel(&mut x, &scope, &id, now, entry.as_ref()).await })
    })
    .await
}

/// The event `id` of `scope`, if any (`crate::messages::get_event`).
pub async fn get_event(s: &dyn Store, scope: &Scope, id: &str) -> Result<Option<Event>> {
    let (scope, id) = (scope.clone(), id.to_string());
    s.read(move |mut x| Box::pin(async move { messages::get_event(&mut x, &scope, &id).await }))
        .await
}

/// The message `id` of `scope`, if any (`crate::messages::get`).
pub async fn get_message(s: &dyn Store, scope: &Scope, id: &str) -> Result<Option<Message>> {
    let (scope, id) = (scope.clone(), id.to_string());
    s.read(move |mut x| Box::pin(async move { messages::get(&mut x, &scope, &id).await }))
        .await
}

/// One page of `scope`'s messages that `filter` matches
/// (`crate::messages::list`).
pub async fn list_messages(
    s: &dyn Store,
    scope: &Scope,
    filter: &MessageFilter,
    page: &PageRequest,
) -> Result<Page<Message>> {
    let (scope, filter, page) = (scope.clone(), filter.clone(), page.clone());
    s.read(move |mut x| {
        Box::pin(async move { messages::list(&mut x, &scope, &filter, &page).await })
    })
    .await
}

/// One page of the attempts of `scope`'s message `message_id`
/// (`crate::messages::attempts`).
pub async fn list_attempts(
    s: &dyn Store,
    scope: &Scope,
    message_id: &str,
    page: &PageRequest,
) -> Result<Page<Attempt>> {
    let (scope, id, page) = (scope.clone(), message_id.to_string(), page.clone());
    s.read(move |mut x| {
        Box::pin(async move { messages::attempts(&mut x, &scope, &id, &page).await })
    })
    .await
}

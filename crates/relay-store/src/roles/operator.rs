//! [`Operator`]: what the operator's side needs (`relay serve` at start,
//! the operator API): migrations, settings, tenants and their API keys.

use async_trait::async_trait;
use relay_core::model::{ApiKey, Page, Tenant};
use relay_core::sealed::MasterKey;
use relay_core::time::Timestamp;

use crate::backend::Backend;
use crate::exec::Commit;
use crate::{NewApiKey, PageRequest, Result, settings, tenants};

#[async_trait]
pub trait Operator: Send + Sync {
    /// `sqlite` or `postgres`.
    fn backend(&self) -> &'static str;

    /// Applies pending migrations; safe to call from several processes at once.
    async fn migrate(&self) -> Result<()> {
        self.migrate_with(crate::migrate::Options::ALL).await
    }
    /// Applies the pending migrations `options` allow; refuses a database
    /// whose schema is newer than this binary (`StoreError::Schema`).
    async fn migrate_with(&self, options: crate::migrate::Options) -> Result<()>;
    /// Where the schema stands against this binary's migrations (migrates nothing).
    async fn schema_status(&self) -> Result<crate::migrate::SchemaStatus>;

    /// One batch of a master key rotation: re-seals up to `limit` values
    /// under `master`'s current key, resuming where the last batch stopped
    /// (`crate::reseal`).
    async fn reseal_batch(&self, master: &MasterKey, limit: u32)
    -> Result<crate::reseal::Progress>;
    /// Whether a master key rotation was started and has not finished.
    async fn rotation_under_way(&self) -> Result<bool>;

    async fn get_setting(&self, key: &str) -> Result<Option<String>>;
    /// Stores `value` under `key` unless a value exists; returns the value now stored.
    async fn put_setting_if_absent(&self, key: &str, value: &str) -> Result<String>;

    async fn create_tenant(&self, tenant: &Tenant) -> Result<()>;
    async fn get_tenant(&self, id: &str) -> Result<Option<Tenant>>;
    async fn list_tenants(&self, page: &PageRequest) -> Result<Page<Tenant>>;

    async fn create_api_key(&self, key: &NewApiKey) -> Result<ApiKey>;
    /// One page of a tenant's keys, by id.
    async fn list_api_keys(&self, tenant_id: &str, page: &PageRequest) -> Result<Page<ApiKey>>;
    /// Returns `true` when an active key of that tenant was revoked now.
    async fn revoke_api_key(&self, tenant_id: &str, key_id: &str, now: Timestamp) -> Result<bool>;
    /// The active (not revoked) key with this hash.
    async fn find_api_key(&self, key_hash: &str) -> Result<Option<ApiKey>>;
}

#[async_trait]
impl<B: Backend> Operator for B {
    fn backend(&self) -> &'static str {
        self.dialect().backend
    }

    async fn migrate_with(&self, options: crate::migrate::Options) -> Result<()> {
        self.write(Commit::Durable, move |x| {
            Box::pin(crate::migrate::apply_list(
                x,
                crate::migrate::MIGRATIONS,
                options,
            ))
        })
        .await
    }

    async fn schema_status(&self) -> Result<crate::migrate::SchemaStatus> {
        self.write(Commit::Durable, |x| {
            Box::pin(async move {
                let applied = crate::migrate::applied(x).await?;
                Ok(crate::migrate::status_of(
                    &applied,
                    crate::migrate::MIGRATIONS,
                ))
            })
        })
        .await
    }

    async fn reseal_batch(
        &self,
        master: &MasterKey,
        limit: u32,
    ) -> Result<crate::reseal::Progress> {
        let master = master.clone();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { crate::reseal::batch(x, &master, limit).await })
        })
        .await
    }

    async fn rotation_under_way(&self) -> Result<bool> {
        crate::reseal::under_way(&mut *self.reader().await?).await
    }

    async fn get_setting(&self, key: &str) -> Result<Option<String>> {
        settings::get(&mut *self.reader().await?, key).await
    }

    async fn put_setting_if_absent(&self, key: &str, value: &str) -> Result<String> {
        let (key, value) = (key.to_string(), value.to_string());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { settings::put_if_absent(x, &key, &value).await })
        })
        .await
    }

    async fn create_tenant(&self, tenant: &Tenant) -> Result<()> {
        let tenant = tenant.clone();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { tenants::create(x, &tenant).await })
        })
        .await
    }

    async fn get_tenant(&self, id: &str) -> Result<Option<Tenant>> {
        tenants::get(&mut *self.reader().await?, id).await
    }

    async fn list_tenants(&self, page: &PageRequest) -> Result<Page<Tenant>> {
        tenants::list(&mut *self.reader().await?, page).await
    }

    async fn create_api_key(&self, key: &NewApiKey) -> Result<ApiKey> {
        let key = key.clone();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { tenants::create_api_key(x, &key).await })
        })
        .await
    }

    async fn list_api_keys(&self, tenant_id: &str, page: &PageRequest) -> Result<Page<ApiKey>> {
        tenants::list_api_keys(&mut *self.reader().await?, tenant_id, page).await
    }

    async fn revoke_api_key(&self, tenant_id: &str, key_id: &str, now: Timestamp) -> Result<bool> {
        let (tenant_id, key_id) = (tenant_id.to_string(), key_id.to_string());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { tenants::revoke_api_key(x, &tenant_id, &key_id, now).await })
        })
        .await
    }

    async fn find_api_key(&self, key_hash: &str) -> Result<Option<ApiKey>> {
        tenants::find_api_key(&mut *self.reader().await?, key_hash).await
    }
}

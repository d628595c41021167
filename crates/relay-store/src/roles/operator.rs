//! [`Operator`]: what `relay serve` and `relay migrate` need at start, and
//! `relay keys` for a master key rotation: migrations and re-sealing.
//! Settings, tenants and their API keys (`crate::settings`,
//! `crate::tenants`) run through the executor (`crate::executor`).

use async_trait::async_trait;
use relay_core::sealed::MasterKey;

use crate::Result;
use crate::backend::Backend;
use crate::exec::Commit;

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
}

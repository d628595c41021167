//! [`Operator`]: what `relay serve` and `relay migrate` need at start: the
//! backend's name and migrations, which run before any operation does.
//! Settings, tenants and their API keys (`crate::settings`,
//! `crate::tenants`) and a master key rotation's re-sealing
//! (`crate::reseal`) run through the executor (`crate::executor`).

use crate::Result;
use crate::backend::Backend;
use crate::exec::Commit;
use async_trait::async_trait;

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
}

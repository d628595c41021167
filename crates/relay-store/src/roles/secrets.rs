//! [`SecretStore`]: tenant secrets (`crate::secrets`): written sealed,
//! listed by name, read sealed by the resolver, deleted.

use async_trait::async_trait;
use relay_core::model::Page;

use crate::backend::Backend;
use crate::exec::Commit;
use crate::secrets::{self, PutOutcome, PutSecret, SecretInfo};
use crate::{AuditEntry, PageRequest, Result, Scope};

#[async_trait]
pub trait SecretStore: Send + Sync {
    /// Creates or replaces the secret, audited in the same transaction
    /// (the entry's action set to `secret.created` or `secret.updated`).
    async fn put_secret(
        &self,
        scope: &Scope,
        put: &PutSecret,
        audit: Option<&AuditEntry>,
    ) -> Result<(SecretInfo, PutOutcome)>;
    async fn get_secret(&self, scope: &Scope, name: &str) -> Result<Option<SecretInfo>>;
    /// The secret with its sealed value: for resolving a reference only.
    async fn get_sealed_secret(
        &self,
        scope: &Scope,
        name: &str,
    ) -> Result<Option<(SecretInfo, String)>>;
    async fn list_secrets(&self, scope: &Scope, page: &PageRequest) -> Result<Page<SecretInfo>>;
    /// `NotFound` when `scope` has no secret of that name.
    async fn delete_secret(
        &self,
        scope: &Scope,
        name: &str,
        audit: Option<&AuditEntry>,
    ) -> Result<()>;
}

#[async_trait]
impl<B: Backend> SecretStore for B {
    async fn put_secret(
        &self,
        scope: &Scope,
        put: &PutSecret,
        audit: Option<&AuditEntry>,
    ) -> Result<(SecretInfo, PutOutcome)> {
        let (scope, put, audit) = (scope.clone(), put.clone(), audit.cloned());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { secrets::put(x, &scope, &put, audit.as_ref()).await })
        })
        .await
    }

    async fn get_secret(&self, scope: &Scope, name: &str) -> Result<Option<SecretInfo>> {
        secrets::get(&mut *self.reader().await?, scope, name).await
    }

    async fn get_sealed_secret(
        &self,
        scope: &Scope,
        name: &str,
    ) -> Result<Option<(SecretInfo, String)>> {
        secrets::get_sealed(&mut *self.reader().await?, scope, name).await
    }

    async fn list_secrets(&self, scope: &Scope, page: &PageRequest) -> Result<Page<SecretInfo>> {
        secrets::list(&mut *self.reader().await?, scope, page).await
    }

    async fn delete_secret(
        &self,
        scope: &Scope,
        name: &str,
        audit: Option<&AuditEntry>,
    ) -> Result<()> {
        let (scope, name, audit) = (scope.clone(), name.to_string(), audit.cloned());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { secrets::delete(x, &scope, &name, audit.as_ref()).await })
        })
        .await
    }
}

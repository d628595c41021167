//! [`PortalStore`]: what the embeddable portal needs of the store: its
//! tokens (minted, found by hash, revoked) and the tenant's brand. The
//! portal's consumer API otherwise goes through the same roles as the
//! tenant API ([`Catalog`](super::Catalog), [`Traffic`](super::Traffic)).

use async_trait::async_trait;
use relay_core::time::Timestamp;

use crate::backend::Backend;
use crate::exec::Commit;
use crate::portal::{self, NewPortalToken, PortalToken};
use crate::{AuditEntry, Result, Scope};

#[async_trait]
pub trait PortalStore: Send + Sync {
    /// Stores a token of a consumer of `scope` (else
    /// `MissingReference("consumer")`), audited in the same transaction.
    async fn create_portal_token(
        &self,
        scope: &Scope,
        token: &NewPortalToken,
        audit: &AuditEntry,
    ) -> Result<()>;
    /// The token with this hash (active or not) while its consumer exists.
    async fn find_portal_token(&self, token_hash: &str) -> Result<Option<PortalToken>>;
    async fn get_portal_token(&self, scope: &Scope, id: &str) -> Result<Option<PortalToken>>;
    /// `NotFound` when `scope` has no such token; idempotent otherwise.
    async fn revoke_portal_token(
        &self,
        scope: &Scope,
        id: &str,
        now: Timestamp,
        audit: &AuditEntry,
    ) -> Result<()>;
    /// Revokes every unrevoked token of the consumer; returns how many.
    async fn revoke_consumer_portal_tokens(
        &self,
        scope: &Scope,
        consumer_id: &str,
        now: Timestamp,
        audit: &AuditEntry,
    ) -> Result<u64>;
    /// Sets the brand of the tenant's portal in the scope's environment.
    async fn put_portal_brand(
        &self,
        scope: &Scope,
        brand: &serde_json::Value,
        now: Timestamp,
    ) -> Result<()>;
    /// The scope's own brand.
    async fn get_portal_brand(&self, scope: &Scope) -> Result<Option<serde_json::Value>>;
    /// The scope's brand, else its tenant's nearest ancestor's (same
    /// environment), with whose it is.
    async fn effective_portal_brand(
        &self,
        scope: &Scope,
    ) -> Result<Option<(String, serde_json::Value)>>;
}

#[async_trait]
impl<B: Backend> PortalStore for B {
    async fn create_portal_token(
        &self,
        scope: &Scope,
        token: &NewPortalToken,
        audit: &AuditEntry,
    ) -> Result<()> {
        let (scope, token, audit) = (scope.clone(), token.clone(), audit.clone());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { portal::create_token(x, &scope, &token, &audit).await })
        })
        .await
    }

    async fn find_portal_token(&self, token_hash: &str) -> Result<Option<PortalToken>> {
        portal::find_token(&mut *self.reader().await?, token_hash).await
    }

    async fn get_portal_token(&self, scope: &Scope, id: &str) -> Result<Option<PortalToken>> {
        portal::get_token(&mut *self.reader().await?, scope, id).await
    }

    async fn revoke_portal_token(
        &self,
        scope: &Scope,
        id: &str,
        now: Timestamp,
        audit: &AuditEntry,
    ) -> Result<()> {
        let (scope, id, audit) = (scope.clone(), id.to_string(), audit.clone());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { portal::revoke_token(x, &scope, &id, now, &audit).await })
        })
        .await
    }

    async fn revoke_consumer_portal_tokens(
        &self,
        scope: &Scope,
        consumer_id: &str,
        now: Timestamp,
        audit: &AuditEntry,
    ) -> Result<u64> {
        let (scope, consumer_id, audit) = (scope.clone(), consumer_id.to_string(), audit.clone());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                portal::revoke_consumer_tokens(x, &scope, &consumer_id, now, &audit).await
            })
        })
        .await
    }

    async fn put_portal_brand(
        &self,
        scope: &Scope,
        brand: &serde_json::Value,
        now: Timestamp,
    ) -> Result<()> {
        let (scope, brand) = (scope.clone(), brand.clone());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { portal::put_brand(x, &scope, &brand, now).await })
        })
        .await
    }

    async fn get_portal_brand(&self, scope: &Scope) -> Result<Option<serde_json::Value>> {
        portal::get_brand(&mut *self.reader().await?, scope).await
    }

    async fn effective_portal_brand(
        &self,
        scope: &Scope,
    ) -> Result<Option<(String, serde_json::Value)>> {
        portal::effective_brand(&mut *self.reader().await?, scope).await
    }
}

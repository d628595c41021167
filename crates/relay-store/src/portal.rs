//! The embeddable portal's aggregate: portal tokens (minted by a tenant for
//! one of its consumers, stored as the SHA-256 of the token, never the
//! token) and the tenant's portal brand.
//!
//! A token is looked up by its hash joined with its consumer, so a token
//! whose consumer was deleted is never found. Whether a found token is
//! still usable (not revoked, not expired) is [`PortalToken::is_active`];
//! the caller tells the two refusals apart for its answer.

use relay_core::model::Environment;
use relay_core::time::Timestamp;

use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::{SqlBuilder, json_text};
use crate::{AuditEntry, Result, Scope, StoreError, audit};

/// A portal token as stored, without its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortalToken {
    pub id: String,
    pub tenant_id: String,
    pub environment: Environment,
    pub consumer_id: String,
    /// Capability names (`manage_endpoints`, …); empty is read-only.
    pub capabilities: Vec<String>,
    /// Origins (`https://app.example.com`) that may embed the portal with
    /// this token; empty allows none but Relay's own hosted page.
    pub allowed_origins: Vec<String>,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

impl PortalToken {
    /// Neither revoked nor expired at `now`.
    pub fn is_active(&self, now: Timestamp) -> bool {
        self.revoked_at.is_none() && now < self.expires_at
    }

    /// The tenant and environment it acts in.
    pub fn scope(&self) -> Scope {
        Scope {
            tenant_id: self.tenant_id.clone(),
            environment: self.environment,
        }
    }
}

/// A token to store: its fields and the SHA-256 (hex) of the secret token.
#[derive(Clone)]
pub struct NewPortalToken {
    pub token: PortalToken,
    pub token_hash: String,
}

impl std::fmt::Debug for NewPortalToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewPortalToken")
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

fn token_row<R: RowExt>(r: &R) -> Result<PortalToken> {
    Ok(PortalToken {
        id: r.text("id")?,
        tenant_id: r.text("tenant_id")?,
        environment: r.environment("environment")?,
        consumer_id: r.text("consumer_id")?,
        capabilities: r.json("capabilities")?,
        allowed_origins: r.json("allowed_origins")?,
        created_at: r.ts("created_at")?,
        expires_at: r.ts("expires_at")?,
        revoked_at: r.opt_ts("revoked_at")?,
    })
}

/// Stores a new token of a consumer of `scope` (else
/// `MissingReference("consumer")`), with `audit` in the same transaction.
pub async fn create_token<X: Exec>(
    x: &mut X,
    scope: &Scope,
    t: &NewPortalToken,
    audit: &AuditEntry,
) -> Result<()> {
    let consumer = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT id FROM consumers WHERE tenant_id = $1 AND environment = $2 AND id = $3",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                t.token.consumer_id.as_str().into(),
            ],
        ),
    )
    .await?;
    if consumer.is_none() {
        return Err(StoreError::MissingReference("consumer"));
    }
    x.execute(&SqlBuilder::of(
        "INSERT INTO portal_tokens (id, tenant_id, environment, consumer_id, token_hash, \
         capabilities, allowed_origins, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        [
            (&t.token.id).into(),
            scope.tenant_id.as_str().into(),
            scope.environment.as_str().into(),
            (&t.token.consumer_id).into(),
            (&t.token_hash).into(),
            json_text(&t.token.capabilities).into(),
            json_text(&t.token.allowed_origins).into(),
            t.token.created_at.into(),
            t.token.expires_at.into(),
        ],
    ))
    .await
    .map_err(|e| e.unique_as("portal_token"))?;
    audit::insert(x, scope, audit).await
}

/// The token with this hash, active or not, while its consumer exists.
pub async fn find_token<X: Exec>(x: &mut X, token_hash: &str) -> Result<Option<PortalToken>> {
    fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT t.* FROM portal_tokens t JOIN consumers c ON c.id = t.consumer_id \
             AND c.tenant_id = t.tenant_id AND c.environment = t.environment \
             WHERE t.token_hash = $1",
            [token_hash.into()],
        ),
    )
    .await?
    .map(|r| token_row(&r))
    .transpose()
}

/// The token of `scope` with this id.
pub async fn get_token<X: Exec>(x: &mut X, scope: &Scope, id: &str) -> Result<Option<PortalToken>> {
    fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT * FROM portal_tokens WHERE tenant_id = $1 AND environment = $2 AND id = $3",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                id.into(),
            ],
        ),
    )
    .await?
    .map(|r| token_row(&r))
    .transpose()
}

/// Revokes the token of `scope` with this id, audited in the same
/// transaction; `NotFound` when `scope` has no such token. Revoking a token
/// revoked already changes nothing (and writes no entry).
pub async fn revoke_token<X: Exec>(
    x: &mut X,
    scope: &Scope,
    id: &str,
    now: Timestamp,
    audit: &AuditEntry,
) -> Result<()> {
    if get_token(x, scope, id).await?.is_none() {
        return Err(StoreError::NotFound);
    }
    let done = x
        .execute(&SqlBuilder::of(
            "UPDATE portal_tokens SET revoked_at = $4 \
             WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND revoked_at IS NULL",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                id.into(),
                now.into(),
            ],
        ))
        .await?;
    if done == 1 {
        audit::insert(x, scope, audit).await?;
    }
    Ok(())
}

/// Revokes every unrevoked token of the consumer, audited in the same
/// transaction (when any was); returns how many.
pub async fn revoke_consumer_tokens<X: Exec>(
    x: &mut X,
    scope: &Scope,
    consumer_id: &str,
    now: Timestamp,
    audit: &AuditEntry,
) -> Result<u64> {
    let done = x
        .execute(&SqlBuilder::of(
            "UPDATE portal_tokens SET revoked_at = $4 \
             WHERE tenant_id = $1 AND environment = $2 AND consumer_id = $3 AND revoked_at IS NULL",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                consumer_id.into(),
                now.into(),
            ],
        ))
        .await?;
    if done > 0 {
        let mut a = audit.clone();
        if let serde_json::Value::Object(m) = &mut a.parameters {
            m.insert("revoked".into(), done.into());
        }
        audit::insert(x, scope, &a).await?;
    }
    Ok(done)
}

/// Sets the brand of the tenant's portal in the scope's environment (a
/// JSON document the API has checked).
pub async fn put_brand<X: Exec>(
    x: &mut X,
    scope: &Scope,
    brand: &serde_json::Value,
    now: Timestamp,
) -> Result<()> {
    x.execute(&SqlBuilder::of(
        "INSERT INTO portal_brands (tenant_id, environment, brand, updated_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, environment) \
         DO UPDATE SET brand = excluded.brand, updated_at = excluded.updated_at",
        [
            scope.tenant_id.as_str().into(),
            scope.environment.as_str().into(),
            json_text(brand).into(),
            now.into(),
        ],
    ))
    .await
    .map_err(|e| {
        if e.is_foreign_key_violation() {
            StoreError::MissingReference("tenant")
        } else {
            e
        }
    })?;
    Ok(())
}

/// The scope's own brand, if it set one.
pub async fn get_brand<X: Exec>(x: &mut X, scope: &Scope) -> Result<Option<serde_json::Value>> {
    fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT brand FROM portal_brands WHERE tenant_id = $1 AND environment = $2",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
            ],
        ),
    )
    .await?
    .map(|r| r.json("brand"))
    .transpose()
}

/// The brand the tenant's portal shows in the scope's environment: its
/// own, else the nearest ancestor's (a sub-tenant inherits its parent's),
/// with the tenant whose brand it is.
pub async fn effective_brand<X: Exec>(
    x: &mut X,
    scope: &Scope,
) -> Result<Option<(String, serde_json::Value)>> {
    let mut current = Some(scope.tenant_id.clone());
    // Tenants nest shallowly; the bound only guards against a cycle.
    for _ in 0..16 {
        let Some(id) = current else { break };
        let at = Scope {
            tenant_id: id.clone(),
            environment: scope.environment,
        };
        if let Some(b) = get_brand(x, &at).await? {
            return Ok(Some((id, b)));
        }
        current = fetch_optional(
            x,
            &SqlBuilder::of(
                "SELECT parent_id FROM tenants WHERE id = $1",
                [id.as_str().into()],
            ),
        )
        .await?
        .map(|r| r.opt_text("parent_id"))
        .transpose()?
        .flatten();
    }
    Ok(None)
}

//! Tenants (and sub-tenants) and their API keys.

use relay_core::model::{ApiKey, Page, Tenant};
use relay_core::time::Timestamp;

use crate::exec::{Exec, fetch_optional};
use crate::sql::{SqlBuilder, to_page};
use crate::{NewApiKey, PageRequest, Result, StoreError, rows};

/// Creates the tenant; its parent, if any, must exist.
pub async fn create<X: Exec>(x: &mut X, t: &Tenant) -> Result<()> {
    if let Some(parent) = &t.parent_id {
        let q = SqlBuilder::of("SELECT id FROM tenants WHERE id = $1", [parent.into()]);
        if fetch_optional(x, &q).await?.is_none() {
            return Err(StoreError::MissingReference("parent_id"));
        }
    }
    x.execute(&SqlBuilder::of(
        "INSERT INTO tenants (id, name, parent_id, created_at) VALUES ($1, $2, $3, $4)",
        [
            (&t.id).into(),
            (&t.name).into(),
            (&t.parent_id).into(),
            t.created_at.into(),
        ],
    ))
    .await
    .map_err(|e| e.unique_as("tenant_id"))?;
    Ok(())
}

pub async fn get<X: Exec>(x: &mut X, id: &str) -> Result<Option<Tenant>> {
    fetch_optional(
        x,
        &SqlBuilder::of("SELECT * FROM tenants WHERE id = $1", [id.into()]),
    )
    .await?
    .map(|r| rows::tenant(&r))
    .transpose()
}

pub async fn list<X: Exec>(x: &mut X, page: &PageRequest) -> Result<Page<Tenant>> {
    let mut q = SqlBuilder::new("SELECT * FROM tenants WHERE 1 = 1");
    q.paginate("id", page);
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(rows::tenant)
        .collect::<Result<Vec<_>>>()?;
    Ok(to_page(items, page.limit, |t| &t.id))
}

/// Stores a new API key (its hash); the tenant must exist.
pub async fn create_api_key<X: Exec>(x: &mut X, k: &NewApiKey) -> Result<ApiKey> {
    x.execute(&SqlBuilder::of(
        "INSERT INTO api_keys (id, tenant_id, environment, name, prefix, key_hash, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        [
            (&k.id).into(),
            (&k.tenant_id).into(),
            k.environment.as_str().into(),
            (&k.name).into(),
            (&k.prefix).into(),
            (&k.key_hash).into(),
            k.created_at.into(),
        ],
    ))
    .await
    .map_err(|e| {
        if e.is_foreign_key_violation() {
            StoreError::MissingReference("tenant")
        } else {
            e.unique_as("api_key")
        }
    })?;
    Ok(ApiKey {
        id: k.id.clone(),
        tenant_id: k.tenant_id.clone(),
        environment: k.environment,
        name: k.name.clone(),
        prefix: k.prefix.clone(),
        created_at: k.created_at,
        revoked_at: None,
    })
}

/// One page of a tenant's API keys, by id.
pub async fn list_api_keys<X: Exec>(
    x: &mut X,
    tenant_id: &str,
    page: &PageRequest,
) -> Result<Page<ApiKey>> {
    let mut q = SqlBuilder::new("SELECT * FROM api_keys WHERE tenant_id = ");
    q.bind(tenant_id.into());
    q.paginate("id", page);
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(rows::api_key)
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, |k| &k.id))
}

/// Returns `true` when an active key of that tenant was revoked now.
pub async fn revoke_api_key<X: Exec>(
    x: &mut X,
    tenant_id: &str,
    key_id: &str,
    now: Timestamp,
) -> Result<bool> {
    let done = x
        .execute(&SqlBuilder::of(
            "UPDATE api_keys SET revoked_at = $3 WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL",
            [tenant_id.into(), key_id.into(), now.into()],
        ))
        .await?;
    Ok(done == 1)
}

/// The active (not revoked) key with this hash.
pub async fn find_api_key<X: Exec>(x: &mut X, key_hash: &str) -> Result<Option<ApiKey>> {
    fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT * FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL",
            [key_hash.into()],
        ),
    )
    .await?
    .map(|r| rows::api_key(&r))
    .transpose()
}

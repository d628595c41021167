//! Consumers: the customers (or the tenant itself, kind `tenant`) whose
//! endpoints receive events.

use relay_core::model::{Consumer, ConsumerKind, Page};
use relay_core::time::Timestamp;

use crate::exec::{Exec, fetch_one, fetch_optional, list_scoped, scoped_row};
use crate::rows::{self, RowExt};
use crate::sql::SqlBuilder;
use crate::{ConsumerPatch, PageRequest, Result, Scope, StoreError};

const BY_ID: &str = "SELECT * FROM consumers WHERE tenant_id = $1 AND environment = $2 AND id = $3";

/// Creates the consumer; a tenant has at most one of kind `tenant` per
/// environment, and external ids are unique.
pub async fn create<X: Exec>(x: &mut X, scope: &Scope, c: &Consumer) -> Result<()> {
    if c.kind == ConsumerKind::Tenant {
        let existing = fetch_optional(
            x,
            &SqlBuilder::of(
                "SELECT id FROM consumers WHERE tenant_id = $1 AND environment = $2 AND kind = 'tenant'",
                [
                    scope.tenant_id.as_str().into(),
                    scope.environment.as_str().into(),
                ],
            ),
        )
        .await?;
        if existing.is_some() {
            return Err(StoreError::Conflict("tenant_consumer_exists"));
        }
    }
    x.execute(&SqlBuilder::of(
        "INSERT INTO consumers (id, tenant_id, environment, external_id, name, source, kind, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        [
            (&c.id).into(),
            scope.tenant_id.as_str().into(),
            scope.environment.as_str().into(),
            (&c.external_id).into(),
            (&c.name).into(),
            (&c.source).into(),
            c.kind.as_str().into(),
            c.created_at.into(),
            c.updated_at.into(),
        ],
    ))
    .await
    .map_err(|e| e.unique_as("external_id"))?;
    Ok(())
}

pub async fn get<X: Exec>(x: &mut X, scope: &Scope, id: &str) -> Result<Option<Consumer>> {
    scoped_row(x, BY_ID, scope, id)
        .await?
        .map(|r| rows::consumer(&r))
        .transpose()
}

pub async fn list<X: Exec>(x: &mut X, scope: &Scope, page: &PageRequest) -> Result<Page<Consumer>> {
    list_scoped(
        x,
        "consumers",
        scope,
        page,
        |_| {},
        rows::consumer,
        |c| &c.id,
    )
    .await
}

/// Applies `patch`; returns the consumer as it is now.
pub async fn update<X: Exec>(
    x: &mut X,
    scope: &Scope,
    id: &str,
    patch: &ConsumerPatch,
    now: Timestamp,
) -> Result<Consumer> {
    let Some(mut c) = get(x, scope, id).await? else {
        return Err(StoreError::NotFound);
    };
    if let Some(name) = &patch.name {
        c.name = name.clone();
    }
    if let Some(source) = &patch.source {
        c.source = source.clone();
    }
    c.updated_at = now;
    x.execute(&SqlBuilder::of(
        "UPDATE consumers SET name = $2, source = $3, updated_at = $4 WHERE id = $1",
        [
            (&c.id).into(),
            (&c.name).into(),
            (&c.source).into(),
            now.into(),
        ],
    ))
    .await?;
    Ok(c)
}

/// Fails with `Conflict("consumer_has_endpoints")` while endpoints remain.
pub async fn delete<X: Exec>(x: &mut X, scope: &Scope, id: &str) -> Result<()> {
    let scoped = || {
        [
            scope.tenant_id.as_str().into(),
            scope.environment.as_str().into(),
            id.into(),
        ]
    };
    let live = fetch_one(
        x,
        &SqlBuilder::of(
            "SELECT COUNT(*) AS n FROM endpoints WHERE tenant_id = $1 AND environment = $2 \
             AND consumer_id = $3 AND deleted_at IS NULL",
            scoped(),
        ),
    )
    .await?
    .int("n")?;
    if live > 0 {
        return Err(StoreError::Conflict("consumer_has_endpoints"));
    }
    let done = x
        .execute(&SqlBuilder::of(
            "DELETE FROM consumers WHERE tenant_id = $1 AND environment = $2 AND id = $3",
            scoped(),
        ))
        .await?;
    if done == 0 {
        return Err(StoreError::NotFound);
    }
    Ok(())
}

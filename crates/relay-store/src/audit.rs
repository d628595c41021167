//! The audit log: every audited change writes its entry in the change's
//! own transaction ([`insert`]), never on its own.

use relay_core::model::Page;

use crate::exec::{Exec, list_scoped};
use crate::sql::{SqlBuilder, json_text};
use crate::{AuditEntry, PageRequest, Result, Scope, rows};

/// Writes `a` in the caller's transaction.
pub async fn insert<X: Exec>(x: &mut X, scope: &Scope, a: &AuditEntry) -> Result<()> {
    x.execute(&SqlBuilder::of(
        "INSERT INTO audit_log (id, tenant_id, environment, actor, action, target, parameters, at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        [
            (&a.id).into(),
            scope.tenant_id.as_str().into(),
            scope.environment.as_str().into(),
            (&a.actor).into(),
            (&a.action).into(),
            (&a.target).into(),
            json_text(&a.parameters).into(),
            a.at.into(),
        ],
    ))
    .await?;
    Ok(())
}

/// Writes `a`, if any, in the caller's transaction.
pub async fn insert_opt<X: Exec>(x: &mut X, scope: &Scope, a: Option<&AuditEntry>) -> Result<()> {
    match a {
        Some(a) => insert(x, scope, a).await,
        None => Ok(()),
    }
}

/// The audit log, oldest first, keyset-paginated.
pub async fn list<X: Exec>(
    x: &mut X,
    scope: &Scope,
    page: &PageRequest,
) -> Result<Page<AuditEntry>> {
    list_scoped(
        x,
        "audit_log",
        scope,
        page,
        |_| {},
        rows::audit_entry,
        |a| &a.id,
    )
    .await
}

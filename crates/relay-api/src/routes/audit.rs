//! The audit log: who did what to which object, and when.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use relay_core::id::IdKind;
use relay_core::model::Page;
use relay_core::time::Timestamp;
use relay_store::{AuditEntry, ExecutorExt as _, new_id};

use super::ListQuery;
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::ApiError;
use crate::extract::QueryParams;

/// List the audit log
///
/// Lists who did what to which object, and when, in the key's tenant and
/// environment, a page at a time: endpoints created, changed, deleted,
/// paused, resumed, disabled, enabled, recovered and replayed, their keys
/// rotated, test sends; messages cancelled and resent, bulk retries; portal
/// tokens minted and revoked; inbound sources and tenant secrets written
/// and deleted. An entry names the API key that acted (`actor`) and never
/// holds a secret. Tenant API key.
#[utoipa::path(operation_id = "audit_log.list", get, path = "/v1/audit-log", tag = "audit", params(ListQuery),
    responses((status = 200, body = Page<AuditEntry>)), security(("api_key" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<ListQuery>,
) -> Result<Json<Page<AuditEntry>>, ApiError> {
    let (scope, page) = (auth.scope.clone(), q.page()?);
    let log = state.store.read(move |mut x| {
        Box::pin(async move { relay_store::audit::list(&mut x, &scope, &page).await })
    });
    Ok(Json(log.await?))
}

/// An audit entry for an action of `auth`'s key at `at`.
pub fn entry(
    auth: &TenantAuth,
    action: &str,
    target: &str,
    parameters: serde_json::Value,
    at: Timestamp,
) -> AuditEntry {
    AuditEntry {
        id: new_id(IdKind::Audit, at),
        actor: auth.key_id.clone(),
        action: action.to_string(),
        target: target.to_string(),
        parameters,
        at,
    }
}

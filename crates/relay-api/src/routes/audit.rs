//! The audit log: who did what to which object, and when.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use relay_core::model::Page;
use relay_store::AuditEntry;

use super::ListQuery;
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::ApiError;
use crate::extract::QueryParams;

#[utoipa::path(operation_id = "audit_list", get, path = "/v1/audit-log", tag = "audit", params(ListQuery),
    responses((status = 200, body = Page<AuditEntry>)), security(("api_key" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<ListQuery>,
) -> Result<Json<Page<AuditEntry>>, ApiError> {
    Ok(Json(state.store.list_audit(&auth.scope, &q.page()?).await?))
}

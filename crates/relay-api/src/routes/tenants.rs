//! Tenants and their API keys (operator token only).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::id::IdKind;
use relay_core::model::{ApiKey, Environment, Page, Tenant};
use relay_store::{Commit, ExecutorExt as _, NewApiKey, new_id, tenants};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::ListQuery;
use crate::AppState;
use crate::auth::{self, OperatorAuth};
use crate::error::{ApiError, Problem};
use crate::extract::{JsonBody, QueryParams};

/// A new tenant.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTenant {
    /// Its display name: 1 to 200 characters, not blank.
    pub name: String,
    /// Makes this a sub-tenant of an existing tenant.
    pub parent_id: Option<String>,
}

/// A new API key of a tenant.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateApiKey {
    /// The one environment the key reads and writes: `live` or `test`.
    pub environment: Environment,
    /// A label to recognise the key by in listings.
    pub name: Option<String>,
}

/// A new API key: `key` is shown here once and never again.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyCreated {
    #[serde(flatten)]
    pub api_key: ApiKey,
    /// The key itself (`rk_live_…` or `rk_test_…`), the bearer token for
    /// the tenant's API: shown in this answer only (Relay keeps its SHA-256).
    pub key: String,
}

fn check_name(name: &str) -> Result<(), ApiError> {
    if name.trim().is_empty() || name.len() > 200 {
        return Err(ApiError::invalid(
            "validation_failed",
            "/name",
            "must be 1 to 200 characters",
        ));
    }
    Ok(())
}

/// Create a tenant
///
/// Creates a tenant of the installation, or a sub-tenant of `parent_id`.
/// A tenant starts with no API key: create one with
/// `POST /v1/tenants/{id}/api-keys`.
///
/// Operator token only. Refused with `422` `validation_failed` (a `name`
/// that is blank or over 200 characters) or `unknown_reference` (no tenant
/// `parent_id`).
#[utoipa::path(operation_id = "tenants.create", post, path = "/v1/tenants", tag = "tenants", request_body = CreateTenant,
    responses((status = 201, body = Tenant), (status = 422, body = Problem)),
    security(("operator_token" = [])))]
pub async fn create(
    State(state): State<Arc<AppState>>,
    _: OperatorAuth,
    JsonBody(body): JsonBody<CreateTenant>,
) -> Result<(StatusCode, Json<Tenant>), ApiError> {
    check_name(&body.name)?;
    let now = state.clock.now();
    let tenant = Tenant {
        id: new_id(IdKind::Tenant, now),
        name: body.name,
        parent_id: body.parent_id,
        created_at: now,
    };
    let created = tenant.clone();
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { tenants::create(&mut x, &created).await })
        })
        .await?;
    Ok((StatusCode::CREATED, Json(tenant)))
}

/// List tenants
///
/// Lists the installation's tenants, sub-tenants included, a page at a
/// time (`limit`, `after`). Operator token only.
#[utoipa::path(operation_id = "tenants.list", get, path = "/v1/tenants", tag = "tenants", params(ListQuery),
    responses((status = 200, body = Page<Tenant>)), security(("operator_token" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    _: OperatorAuth,
    QueryParams(q): QueryParams<ListQuery>,
) -> Result<Json<Page<Tenant>>, ApiError> {
    let page = q.page()?;
    Ok(Json(
        state
            .store
            .read(move |mut x| Box::pin(async move { tenants::list(&mut x, &page).await }))
            .await?,
    ))
}

/// Get a tenant
///
/// Returns one tenant. Operator token only; `404` when no tenant has the id.
#[utoipa::path(operation_id = "tenants.get", get, path = "/v1/tenants/{id}", tag = "tenants",
    params(("id" = String, Path, description = "The tenant's id.")),
    responses((status = 200, body = Tenant), (status = 404, body = Problem)),
    security(("operator_token" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    _: OperatorAuth,
    Path(id): Path<String>,
) -> Result<Json<Tenant>, ApiError> {
    state
        .store
        .read(move |mut x| Box::pin(async move { tenants::get(&mut x, &id).await }))
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("tenant"))
}

/// Create an API key for a tenant
///
/// Mints a tenant API key for one environment (`rk_live_…` or `rk_test_…`).
/// The key is in this answer only: Relay keeps its SHA-256, and listings
/// show its `prefix`. A key grants the whole tenant API of its environment.
///
/// Operator token only; `404` when the tenant does not exist.
#[utoipa::path(operation_id = "tenants.api_keys.create", post, path = "/v1/tenants/{id}/api-keys", tag = "tenants",
    params(("id" = String, Path, description = "The tenant's id.")),
    request_body = CreateApiKey,
    responses((status = 201, body = ApiKeyCreated), (status = 404, body = Problem)),
    security(("operator_token" = [])))]
pub async fn create_key(
    State(state): State<Arc<AppState>>,
    _: OperatorAuth,
    Path(tenant_id): Path<String>,
    JsonBody(body): JsonBody<CreateApiKey>,
) -> Result<(StatusCode, Json<ApiKeyCreated>), ApiError> {
    if !tenant_exists(&state, &tenant_id).await? {
        return Err(ApiError::not_found("tenant"));
    }
    let now = state.clock.now();
    let key = auth::new_api_key(body.environment);
    let new = NewApiKey {
        id: new_id(IdKind::ApiKey, now),
        tenant_id,
        environment: body.environment,
        name: body.name,
        prefix: auth::key_prefix(&key),
        key_hash: auth::token_digest_hex(&key),
        created_at: now,
    };
    let api_key = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { tenants::create_api_key(&mut x, &new).await })
        })
        .await?;
    Ok((StatusCode::CREATED, Json(ApiKeyCreated { api_key, key })))
}

/// List a tenant's API keys
///
/// Lists the tenant's keys, revoked ones included (`revoked_at`), by id, a
/// page at a time; never the keys themselves, only their `prefix`.
/// Operator token only; `404` when the tenant does not exist.
#[utoipa::path(operation_id = "tenants.api_keys.list", get, path = "/v1/tenants/{id}/api-keys", tag = "tenants",
    params(("id" = String, Path, description = "The tenant's id."), ListQuery),
    responses((status = 200, description = "The tenant's keys by id, a page at a time.", body = Page<ApiKey>),
              (status = 400, body = Problem), (status = 404, body = Problem)),
    security(("operator_token" = [])))]
pub async fn list_keys(
    State(state): State<Arc<AppState>>,
    _: OperatorAuth,
    Path(tenant_id): Path<String>,
    QueryParams(q): QueryParams<ListQuery>,
) -> Result<Json<Page<ApiKey>>, ApiError> {
    let page = q.page()?;
    if !tenant_exists(&state, &tenant_id).await? {
        return Err(ApiError::not_found("tenant"));
    }
    Ok(Json(
        state
            .store
            .read(move |mut x| {
                Box::pin(async move { tenants::list_api_keys(&mut x, &tenant_id, &page).await })
            })
            .await?,
    ))
}

/// Revoke a tenant's API key
///
/// Revokes the key: this node refuses it (`401`) from this answer on,
/// other nodes sharing the database within a second.
/// Operator token only; `404` when the tenant has no active key with this id
/// (an unknown key, or one already revoked).
#[utoipa::path(operation_id = "tenants.api_keys.revoke", delete, path = "/v1/tenants/{id}/api-keys/{key_id}", tag = "tenants",
    params(("id" = String, Path, description = "The tenant's id."), ("key_id" = String, Path, description = "The API key's id.")),
    responses((status = 204), (status = 404, body = Problem)),
    security(("operator_token" = [])))]
pub async fn revoke_key(
    State(state): State<Arc<AppState>>,
    _: OperatorAuth,
    Path((tenant_id, key_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let now = state.clock.now();
    if state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { tenants::revoke_api_key(&mut x, &tenant_id, &key_id, now).await })
        })
        .await?
    {
        state.api_keys.clear();
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("active API key"))
    }
}

/// Whether the tenant `id` exists.
pub(crate) async fn tenant_exists(state: &AppState, id: &str) -> Result<bool, ApiError> {
    let id = id.to_string();
    let found = state
        .store
        .read(move |mut x| Box::pin(async move { tenants::get(&mut x, &id).await }))
        .await?;
    Ok(found.is_some())
}

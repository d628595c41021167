//! Consumers: the tenant itself or one of its customers.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::id::IdKind;
use relay_core::model::{Consumer, ConsumerKind, Page};
use relay_core::validate;
use relay_store::{
    Commit, ConsumerPatch, ExecutorExt as _, Scope, Store, StoreError, consumers, new_id,
};
use serde::Deserialize;
use utoipa::ToSchema;

use super::{ListQuery, present};
use crate::AppState;
use crate::auth::TenantAuth;
use crate::deliverable;
use crate::error::{ApiError, Problem, or_not_found};
use crate::extract::{JsonBody, OptionalJsonBody, QueryParams};

/// A new consumer.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateConsumer {
    /// Your identifier for this consumer; unique per tenant and environment.
    #[schema(min_length = 1, max_length = 255, pattern = "^[A-Za-z0-9_.:/@|-]+$")]
    pub external_id: String,
    /// A display name, at most 200 characters.
    pub name: Option<String>,
    /// CloudEvents `source` for deliveries to this consumer: a URI reference
    /// (RFC 3986) of at most 512 bytes; defaults to `/consumers/{external_id}`.
    pub source: Option<String>,
    /// `customer` (default) or `tenant`: the tenant itself, whose endpoints
    /// alone may subscribe to Relay's operational events. At most one
    /// `tenant` consumer per environment; fixed at creation.
    pub kind: Option<ConsumerKind>,
}

/// Changes to a consumer; absent fields stay as they are. Its
/// `external_id` and `kind` cannot change.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateConsumer {
    /// A display name of at most 200 characters, or `null` to clear it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub name: Option<Option<String>>,
    /// The CloudEvents `source` of its deliveries from now on: a URI
    /// reference (RFC 3986) of at most 512 bytes.
    pub source: Option<String>,
}

fn check_name(name: Option<&str>) -> Result<(), ApiError> {
    match name {
        Some(n) if n.len() > 200 => Err(ApiError::invalid(
            "validation_failed",
            "/name",
            "must be at most 200 characters",
        )),
        _ => Ok(()),
    }
}

/// Create a consumer
///
/// Registers a party that receives events: one of your customers (kind
/// `customer`, the default) or yourself (kind `tenant`, at most one per
/// environment, the only consumer whose endpoints may receive Relay's
/// operational events). Endpoints belong to a consumer; deliveries to them
/// carry its `source`.
///
/// Tenant API key; the consumer is in the key's environment. Refused with
/// `409` `conflict` (the `external_id` exists) or `tenant_consumer_exists`;
/// `422` `validation_failed` (`external_id`, `name`) or `invalid_source`.
#[utoipa::path(operation_id = "consumers.create", post, path = "/v1/consumers", tag = "consumers", request_body = CreateConsumer,
    responses((status = 201, body = Consumer), (status = 409, body = Problem), (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn create(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    JsonBody(body): JsonBody<CreateConsumer>,
) -> Result<(StatusCode, Json<Consumer>), ApiError> {
    validate::client_id(&body.external_id)
        .map_err(|m| ApiError::invalid("validation_failed", "/external_id", m))?;
    check_name(body.name.as_deref())?;
    let source = deliverable::consumer_source(&body.external_id, body.source)?;
    let now = state.clock.now();
    let consumer = Consumer {
        id: new_id(IdKind::Consumer, now),
        external_id: body.external_id,
        kind: body.kind.unwrap_or_default(),
        name: body.name,
        source,
        environment: auth.scope.environment,
        created_at: now,
        updated_at: now,
    };
    let (scope, created) = (auth.scope.clone(), consumer.clone());
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { consumers::create(&mut x, &scope, &created).await })
        })
        .await
        .map_err(|e| match e {
            StoreError::Conflict("tenant_consumer_exists") => ApiError::new(
                StatusCode::CONFLICT,
                "tenant_consumer_exists",
                "this environment has its tenant consumer already (kind `tenant`); there is one at most",
            ),
            other => other.into(),
        })?;
    Ok((StatusCode::CREATED, Json(consumer)))
}

/// List consumers
///
/// Lists the consumers of the key's tenant and environment, a page at a
/// time. Tenant API key.
#[utoipa::path(operation_id = "consumers.list", get, path = "/v1/consumers", tag = "consumers", params(ListQuery),
    responses((status = 200, body = Page<Consumer>)), security(("api_key" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<ListQuery>,
) -> Result<Json<Page<Consumer>>, ApiError> {
    let (scope, page) = (auth.scope.clone(), q.page()?);
    Ok(Json(
        state
            .store
            .read(move |mut x| {
                Box::pin(async move { consumers::list(&mut x, &scope, &page).await })
            })
            .await?,
    ))
}

/// Get a consumer
///
/// Returns one consumer. Tenant API key; `404` for a consumer of another
/// tenant or environment.
#[utoipa::path(operation_id = "consumers.get", get, path = "/v1/consumers/{id}", tag = "consumers",
    params(("id" = String, Path, description = "The consumer's id.")),
    responses((status = 200, body = Consumer), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<Consumer>, ApiError> {
    find(&*state.store, &auth.scope, &id)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("consumer"))
}

/// Update a consumer
///
/// Changes a consumer's `name` or `source`; absent fields stay as they are,
/// and an empty body changes nothing. A new `source` applies to the
/// deliveries made from then on, retries of earlier events included.
///
/// Tenant API key; `404` for an unknown consumer. Refused with `422`
/// `validation_failed` (a `name` over 200 characters) or `invalid_source`.
#[utoipa::path(operation_id = "consumers.update", patch, path = "/v1/consumers/{id}", tag = "consumers",
    params(("id" = String, Path, description = "The consumer's id.")),
    request_body = Option<UpdateConsumer>,
    responses((status = 200, body = Consumer), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn update(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    OptionalJsonBody(body): OptionalJsonBody<UpdateConsumer>,
) -> Result<Json<Consumer>, ApiError> {
    if let Some(name) = &body.name {
        check_name(name.as_deref())?;
    }
    if let Some(source) = &body.source {
        deliverable::source(source)?;
    }
    let patch = ConsumerPatch {
        name: body.name,
        source: body.source,
    };
    let (scope, now) = (auth.scope.clone(), state.clock.now());
    let updated = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { consumers::update(&mut x, &scope, &id, &patch, now).await })
        })
        .await
        .map_err(or_not_found("consumer"))?;
    Ok(Json(updated))
}

/// Delete a consumer
///
/// Deletes a consumer that has no endpoints left. Tenant API key; `404` for
/// an unknown consumer; `409` `conflict` while it still has endpoints
/// (delete them first).
#[utoipa::path(operation_id = "consumers.delete", delete, path = "/v1/consumers/{id}", tag = "consumers",
    params(("id" = String, Path, description = "The consumer's id.")),
    responses((status = 204), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn delete(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let scope = auth.scope.clone();
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { consumers::delete(&mut x, &scope, &id).await })
        })
        .await
        .map_err(or_not_found("consumer"))?;
    Ok(StatusCode::NO_CONTENT)
}

/// The scope's consumer `id`, if any: one read through the executor.
pub(crate) async fn find(
    store: &dyn Store,
    scope: &Scope,
    id: &str,
) -> Result<Option<Consumer>, StoreError> {
    let (scope, id) = (scope.clone(), id.to_string());
    store
        .read(move |mut x| Box::pin(async move { consumers::get(&mut x, &scope, &id).await }))
        .await
}

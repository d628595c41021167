//! The portal's endpoint operations: the consumer's endpoints, their keys,
//! health, tests and recovery. Each fixes the scope ([`PortalAuth::endpoint`]),
//! checks the capability, then runs the tenant API's handler.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use relay_core::model::{Message, Page, SignatureScheme};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::super::endpoints::{
    self, CreateEndpoint, EndpointCreated, EndpointOut, KeyRotated, RotateKey, SigningKeyOut,
    UpdateEndpoint, changes,
};
use super::super::health::{self, Health};
use super::super::portal_tokens::Capability;
use super::super::present;
use super::super::recovery::{
    self, EnableBody, Enabled, MissedQuery, RecoverBody, Recovered, TestSend, TestSent,
};
use super::PortalAuth;
use crate::AppState;
use crate::error::{ApiError, Problem};
use crate::extract::{JsonBody, OptionalJsonBody, QueryParams};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PortalListQuery {
    /// Page size, 1 to 250 (default 50).
    #[param(minimum = 1, maximum = 250)]
    pub limit: Option<u32>,
    /// The `next_after` of the previous page.
    pub after: Option<String>,
}

/// List the consumer's endpoints
///
/// Lists the endpoints of the token's consumer, a page at a time, each with
/// its warnings. Portal token.
#[utoipa::path(operation_id = "portal.endpoints.list", get, path = "/v1/portal/endpoints", tag = "portal",
    params(PortalListQuery),
    responses((status = 200, body = Page<EndpointOut>)),
    security(("portal_token" = [])))]
pub async fn list_endpoints(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    QueryParams(q): QueryParams<PortalListQuery>,
) -> Result<Json<Page<EndpointOut>>, ApiError> {
    endpoints::list(
        State(state),
        auth.as_tenant(),
        QueryParams(endpoints::EndpointQuery {
            consumer_id: Some(auth.token.consumer_id.clone()),
            limit: q.limit,
            after: q.after,
        }),
    )
    .await
}

/// A new endpoint of the token's consumer.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PortalCreateEndpoint {
    /// The `https://` URL deliveries go to.
    pub url: String,
    /// A note for people, at most 500 characters.
    pub description: Option<String>,
    /// Event types to receive (at most 256); `["*"]` receives all.
    #[schema(max_items = 256)]
    pub event_types: Vec<String>,
    /// `v1a` (Ed25519, default) or `v1` (HMAC-SHA256).
    pub signature_scheme: Option<SignatureScheme>,
    /// Attempts started per second at most, 1 to 100,000; absent: no limit.
    #[schema(minimum = 1, maximum = 100_000)]
    pub rate_limit_per_second: Option<u32>,
    /// Disable automatically after 5 days of continuous failure (default true).
    pub auto_disable: Option<bool>,
}

/// Create an endpoint for the consumer
///
/// Registers an HTTPS endpoint of the token's consumer, as
/// `POST /v1/endpoints` does (the same checks and answer: the HMAC `secret`
/// of a `v1` endpoint is in this answer only), with the settings the
/// portal offers. Audited with the portal token as the actor.
///
/// Portal token with `manage_endpoints` (`403` `capability_missing`
/// otherwise); refused with the codes of `POST /v1/endpoints`.
#[utoipa::path(operation_id = "portal.endpoints.create", post, path = "/v1/portal/endpoints", tag = "portal",
    request_body = PortalCreateEndpoint,
    responses((status = 201, body = EndpointCreated), (status = 422, body = Problem), (status = 429, description = "`busy`: the tenant already has 8 schema checks or validations running or waiting; retry after `Retry-After` seconds", body = Problem)),
    security(("portal_token" = [])))]
pub async fn create_endpoint(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    JsonBody(body): JsonBody<PortalCreateEndpoint>,
) -> Result<(StatusCode, Json<EndpointCreated>), ApiError> {
    auth.require(Capability::ManageEndpoints)?;
    endpoints::create(
        State(state),
        auth.as_tenant(),
        JsonBody(CreateEndpoint {
            consumer_id: auth.token.consumer_id.clone(),
            description: body.description,
            destination: relay_destinations::https::portal::destination(body.url),
            event_types: body.event_types,
            signature_scheme: body.signature_scheme,
            retry_schedule_seconds: None,
            max_concurrency: None,
            rate_limit_per_second: body.rate_limit_per_second,
            snapshot_fields: Vec::new(),
            allow_personal_data: false,
            event_type_versions: Default::default(),
            auto_disable: body.auto_disable,
            ordering: None,
            verify_ownership: None,
        }),
    )
    .await
}

/// Get one of the consumer's endpoints
///
/// Returns the endpoint with its warnings and its revision as the `ETag`.
/// Portal token; the consumer's own endpoints only (`404` otherwise).
#[utoipa::path(operation_id = "portal.endpoints.get", get, path = "/v1/portal/endpoints/{id}", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = EndpointOut, headers(("ETag" = String, description = "The endpoint's revision, for `If-Match` on `PATCH`"))), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn get_endpoint(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<(HeaderMap, Json<EndpointOut>), ApiError> {
    let endpoint = auth.endpoint(&state, &id).await?;
    Ok((
        changes::etag_headers(&endpoint),
        Json(EndpointOut {
            warnings: endpoints::warnings_of(&endpoint),
            endpoint,
        }),
    ))
}

/// Changes to an endpoint; absent fields stay as they are.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PortalUpdateEndpoint {
    /// A new `https://` URL. Refused when it moves to another host an
    /// endpoint whose tenant set credentials (secret headers, client
    /// authentication) for the current one.
    pub url: Option<String>,
    /// A note for people (at most 500 characters), or `null` to clear it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    /// Event types to receive, at most 256; `["*"]` receives all.
    #[schema(max_items = 256)]
    pub event_types: Option<Vec<String>>,
    /// Attempts started per second at most (1 to 100,000), or `null` for no limit.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 100_000)]
    pub rate_limit_per_second: Option<Option<u32>>,
    /// Whether 5 days of continuous failure disable the endpoint.
    pub auto_disable: Option<bool>,
}

/// Update one of the consumer's endpoints
///
/// Changes the fields given, as `PATCH /v1/endpoints/{id}` does (`If-Match`
/// included). A new URL on the same host keeps the headers and client
/// authentication the tenant set; one on another host is refused while the
/// endpoint has any (`422` `credentials_not_restated`), and an endpoint
/// that is not HTTPS changes its destination only through the tenant API
/// (`422` `destination_not_https`).
///
/// Portal token with `manage_endpoints`; the consumer's own endpoints only
/// (`404` otherwise); refused with the codes of `PATCH /v1/endpoints/{id}`.
#[utoipa::path(operation_id = "portal.endpoints.update", patch, path = "/v1/portal/endpoints/{id}", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id."),
        ("If-Match" = Option<String>, Header, description = "Apply only while the endpoint is at this `ETag` (its revision, from a read), else `412`")),
    request_body = Option<PortalUpdateEndpoint>,
    responses((status = 200, body = EndpointOut, headers(("ETag" = String, description = "The endpoint's new revision"))),
        (status = 404, body = Problem), (status = 409, body = Problem), (status = 412, body = Problem), (status = 422, body = Problem),
        (status = 429, description = "`busy`: the tenant already has 8 schema checks or validations running or waiting; retry after `Retry-After` seconds", body = Problem)),
    security(("portal_token" = [])))]
pub async fn update_endpoint(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    headers: HeaderMap,
    OptionalJsonBody(body): OptionalJsonBody<PortalUpdateEndpoint>,
) -> Result<(HeaderMap, Json<EndpointOut>), ApiError> {
    auth.require(Capability::ManageEndpoints)?;
    auth.endpoint(&state, &id).await?;
    let if_match = changes::IfMatch::from_headers(&headers)?;
    // Decided from each read of the endpoint: a new URL on the same host
    // keeps the custom headers and client authentication the tenant set
    // through the API; a new host would carry them to it, and the portal
    // cannot restate them, so it is refused while the endpoint has any.
    let guard = state.guard.clone();
    endpoints::update_with(&state, &auth.as_tenant(), &id, if_match, |current| {
        let destination = match body.url.as_deref().map(|url| {
            relay_destinations::https::portal::with_url(&current.destination, url)
        }) {
            None => None,
            Some(Some(next)) => {
                let moved = relay_core::model::Destination::from(&next);
                if changes::host_changed_with_credentials(&current.destination, &moved, &guard) {
                    return Err(changes::not_restated());
                }
                Some(next)
            }
            // Another kind's destination (its broker, its credentials) is
            // the tenant's to change, through the API.
            Some(None) => {
                if !changes::credentials(&current.destination).is_empty() {
                    return Err(changes::not_restated());
                }
                return Err(ApiError::invalid(
                    "destination_not_https",
                    "/url",
                    "this endpoint does not deliver to an HTTPS URL; its destination is changed through the API",
                ));
            }
        };
        Ok(UpdateEndpoint {
            description: body.description.clone(),
            destination,
            event_types: body.event_types.clone(),
            retry_schedule_seconds: None,
            max_concurrency: None,
            rate_limit_per_second: body.rate_limit_per_second,
            snapshot_fields: None,
            allow_personal_data: None,
            event_type_versions: None,
            auto_disable: body.auto_disable,
            ordering: None,
            verify_ownership: None,
            environment: None,
            consumer_id: None,
            signature_scheme: None,
            id: None,
        })
    })
    .await
}

/// Delete one of the consumer's endpoints
///
/// Deletes the endpoint as `DELETE /v1/endpoints/{id}` does. Portal token
/// with `manage_endpoints`; the consumer's own endpoints only.
#[utoipa::path(operation_id = "portal.endpoints.delete", delete, path = "/v1/portal/endpoints/{id}", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 204), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn delete_endpoint(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    auth.require(Capability::ManageEndpoints)?;
    auth.endpoint(&state, &id).await?;
    endpoints::delete(State(state), auth.as_tenant(), Path(id)).await
}

/// Disable one of the consumer's endpoints
///
/// Disables the endpoint as `POST /v1/endpoints/{id}/disable` does. Portal
/// token with `manage_endpoints`; the consumer's own endpoints only; `409`
/// `invalid_endpoint_state` when it is disabled already.
#[utoipa::path(operation_id = "portal.endpoints.disable", post, path = "/v1/portal/endpoints/{id}/disable", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = EndpointOut), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("portal_token" = [])))]
pub async fn disable_endpoint(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<Json<EndpointOut>, ApiError> {
    auth.require(Capability::ManageEndpoints)?;
    auth.endpoint(&state, &id).await?;
    recovery::disable(State(state), auth.as_tenant(), Path(id)).await
}

/// Enable one of the consumer's endpoints
///
/// Enables the endpoint as `POST /v1/endpoints/{id}/enable` does, and with
/// `{"recover": true}` queues what it missed. Portal token with
/// `manage_endpoints`, and `recover` too for `{"recover": true}`; the
/// consumer's own endpoints only.
#[utoipa::path(operation_id = "portal.endpoints.enable", post, path = "/v1/portal/endpoints/{id}/enable", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body(content = Option<EnableBody>),
    responses((status = 200, body = Enabled), (status = 404, body = Problem), (status = 409, body = Problem), (status = 422, body = Problem)),
    security(("portal_token" = [])))]
pub async fn enable_endpoint(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Json<Enabled>, ApiError> {
    auth.require(Capability::ManageEndpoints)?;
    auth.endpoint(&state, &id).await?;
    // Enabling with `recover` also requeues: that needs `recover` too.
    if !body.is_empty() {
        let parsed: EnableBody = crate::extract::parse_json(&body)?;
        if parsed.recover {
            auth.require(Capability::Recover)?;
        }
    }
    recovery::enable(State(state), auth.as_tenant(), Path(id), body).await
}

/// List an endpoint's signing keys
///
/// Lists the keys that sign the endpoint's deliveries, newest first: a
/// `v1a` key's public key verifies them. Portal token; the consumer's own endpoints only (`404` otherwise).
#[utoipa::path(operation_id = "portal.endpoints.signing_keys.list", get, path = "/v1/portal/endpoints/{id}/signing-keys", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id."), PortalListQuery),
    responses((status = 200, description = "The endpoint's signing keys, newest first (retired ones included), a page at a time.", body = Page<SigningKeyOut>),
              (status = 400, body = Problem), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn signing_keys(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<PortalListQuery>,
) -> Result<Json<Page<SigningKeyOut>>, ApiError> {
    auth.endpoint(&state, &id).await?;
    endpoints::signing_keys(
        State(state),
        auth.as_tenant(),
        Path(id),
        QueryParams(crate::routes::ListQuery {
            limit: q.limit,
            after: q.after,
        }),
    )
    .await
}

/// Rotate an endpoint's signing key
///
/// Rotates the key as `POST /v1/endpoints/{id}/rotate-key` does: the old
/// key signs beside the new one for the overlap; a new `v1` secret is in
/// this answer only. Portal token with `rotate_keys`; the consumer's own
/// endpoints only.
#[utoipa::path(operation_id = "portal.endpoints.rotate_key", post, path = "/v1/portal/endpoints/{id}/rotate-key", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = Option<RotateKey>,
    responses((status = 200, body = KeyRotated), (status = 404, body = Problem), (status = 422, body = Problem)),
    security(("portal_token" = [])))]
pub async fn rotate_key(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    body: OptionalJsonBody<RotateKey>,
) -> Result<Json<KeyRotated>, ApiError> {
    auth.require(Capability::RotateKeys)?;
    auth.endpoint(&state, &id).await?;
    endpoints::rotate_key(State(state), auth.as_tenant(), Path(id), body).await
}

/// Get an endpoint's health
///
/// Returns the endpoint's health as `GET /v1/endpoints/{id}/health` does.
/// Portal token; the consumer's own endpoints only (`404` otherwise).
#[utoipa::path(operation_id = "portal.endpoints.get_health", get, path = "/v1/portal/endpoints/{id}/health", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = Health), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn endpoint_health(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<Json<Health>, ApiError> {
    auth.endpoint(&state, &id).await?;
    health::get(State(state), auth.as_tenant(), Path(id)).await
}

/// Send a test event to an endpoint
///
/// Sends a sample event to the endpoint and answers with its first attempt,
/// as `POST /v1/endpoints/{id}/test` does. Portal token with `send_tests`;
/// the consumer's own endpoints only.
#[utoipa::path(operation_id = "portal.endpoints.send_test", post, path = "/v1/portal/endpoints/{id}/test", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = Option<TestSend>,
    responses((status = 200, body = TestSent), (status = 404, body = Problem), (status = 422, body = Problem),
              (status = 429, description = "too many manual attempts pending for the endpoint, or its circuit is open; see `Retry-After`", body = Problem)),
    security(("portal_token" = [])))]
pub async fn send_test(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    body: OptionalJsonBody<TestSend>,
) -> Result<Json<TestSent>, ApiError> {
    auth.require(Capability::SendTests)?;
    auth.endpoint(&state, &id).await?;
    recovery::test(State(state), auth.as_tenant(), Path(id), body).await
}

/// Recover what an endpoint missed
///
/// Restarts the endpoint's failed and held messages created in the range,
/// as `POST /v1/endpoints/{id}/recover` does. Portal token with `recover`;
/// the consumer's own endpoints only.
#[utoipa::path(operation_id = "portal.endpoints.recover", post, path = "/v1/portal/endpoints/{id}/recover", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = RecoverBody,
    responses((status = 200, body = Recovered), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("portal_token" = [])))]
pub async fn recover(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    body: JsonBody<RecoverBody>,
) -> Result<Json<Recovered>, ApiError> {
    auth.require(Capability::Recover)?;
    auth.endpoint(&state, &id).await?;
    recovery::recover(State(state), auth.as_tenant(), Path(id), body).await
}

/// List what an endpoint missed
///
/// Lists the endpoint's messages that were not delivered (every terminal
/// state but `delivered`, and `held`), as `GET /v1/endpoints/{id}/missed`
/// does. Portal token; the consumer's own endpoints only (`404` otherwise).
#[utoipa::path(operation_id = "portal.endpoints.list_failed", get, path = "/v1/portal/endpoints/{id}/failed", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id."), MissedQuery),
    responses((status = 200, body = Page<Message>), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn failed(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    q: QueryParams<MissedQuery>,
) -> Result<Json<Page<Message>>, ApiError> {
    auth.endpoint(&state, &id).await?;
    recovery::missed(State(state), auth.as_tenant(), Path(id), q).await
}

//! The portal's consumer API (`/v1/portal/…`, docs/portal.md): exactly the
//! portal's features, for the one consumer a portal token names.
//!
//! `Authorization: Bearer rpt_…` ([`PortalAuth`]). Every operation goes
//! through the tenant API's own handler (so the same validation and store
//! rules apply), called with the token's tenant and environment and with
//! the actor `portal:<consumer id>:<token id>` for the audit log, after
//! this module has fixed the scope: an endpoint must be the consumer's, a
//! message must be one of its endpoints'; anything else is "not found",
//! exactly as for another tenant's object. Changes need the token's
//! capability (`403 capability_missing` otherwise).
//!
//! Calls come from Relay's own hosted page or from a page of one of the
//! token's `allowed_origins` (the components embedded in the tenant's own
//! page): a request whose `Origin` is neither is refused. Answers allow any
//! origin for CORS, without credentials: no cookie is ever involved, so
//! there is nothing for another site to ride on (no CSRF).

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequestParts, Path, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use relay_core::model::{
    ConsumerKind, Destination, EventType, HttpsDestination, Message, MessageState, Page,
    SignatureScheme,
};
use relay_core::time::Timestamp;
use relay_store::MessageFilter;
use relay_store::portal::PortalToken;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::endpoints::{
    self, CreateEndpoint, EndpointCreated, EndpointOut, KeyRotated, RotateKey, SigningKeyList,
    UpdateEndpoint,
};
use super::health::{self, Health};
use super::portal_tokens::{Capability, PortalBrand, capabilities_of, effective_brand};
use super::recovery::{
    self, EnableBody, Enabled, MissedQuery, RecoverBody, Recovered, Resent, TestSend, TestSent,
};
use super::{messages, present};
use crate::AppState;
use crate::auth::{TenantAuth, token_digest_hex};
use crate::error::{ApiError, Problem};
use crate::extract::{JsonBody, OptionalJsonBody, QueryParams};

/// The caller holds an active portal token.
pub struct PortalAuth {
    pub token: PortalToken,
    pub capabilities: Vec<Capability>,
}

impl PortalAuth {
    /// The actor named in audit entries: `portal:<consumer id>:<token id>`.
    pub fn actor(&self) -> String {
        format!("portal:{}:{}", self.token.consumer_id, self.token.id)
    }

    /// The tenant API's view of this caller, to run its handlers with.
    fn as_tenant(&self) -> TenantAuth {
        TenantAuth {
            scope: self.token.scope(),
            key_id: self.actor(),
        }
    }

    fn require(&self, c: Capability) -> Result<(), ApiError> {
        if self.capabilities.contains(&c) {
            Ok(())
        } else {
            Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "capability_missing",
                format!("this portal token does not allow `{}`", c.as_str()),
            ))
        }
    }

    /// The consumer's endpoint `id`, else "not found".
    async fn endpoint(
        &self,
        state: &AppState,
        id: &str,
    ) -> Result<relay_core::model::Endpoint, ApiError> {
        state
            .store
            .get_endpoint(&self.token.scope(), id)
            .await?
            .filter(|e| e.consumer_id == self.token.consumer_id)
            .ok_or_else(|| ApiError::not_found("endpoint"))
    }

    /// A message of one of the consumer's endpoints, else "not found".
    async fn message(&self, state: &AppState, id: &str) -> Result<Message, ApiError> {
        let m = state
            .store
            .get_message(&self.token.scope(), id)
            .await?
            .ok_or_else(|| ApiError::not_found("message"))?;
        match self.endpoint(state, &m.endpoint_id).await {
            Ok(_) => Ok(m),
            Err(_) => Err(ApiError::not_found("message")),
        }
    }
}

/// Whether `origin` is the origin of the request's own `Host` (Relay's
/// hosted page calling its own API).
fn same_origin(parts: &Parts, origin: &str) -> bool {
    let Some(host) = parts
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
    else {
        return false;
    };
    origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))
        .is_some_and(|authority| authority.eq_ignore_ascii_case(host))
}

impl FromRequestParts<Arc<AppState>> for PortalAuth {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, ApiError> {
        let value = parts
            .headers
            .get(header::AUTHORIZATION)
            .ok_or_else(|| {
                ApiError::unauthorized("missing Authorization: Bearer <portal token> header")
            })?
            .to_str()
            .map_err(|_| ApiError::unauthorized("the Authorization header is not valid text"))?;
        let token = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                ApiError::unauthorized("the Authorization header must be `Bearer <portal token>`")
            })?;
        if !token.starts_with("rpt_") {
            return Err(ApiError::unauthorized(
                "the portal API takes a portal token (rpt_…), minted with POST /v1/portal-tokens",
            ));
        }
        let found = state
            .store
            .find_portal_token(&token_digest_hex(token))
            .await?
            .ok_or_else(|| ApiError::unauthorized("unknown portal token"))?;
        if found.revoked_at.is_some() {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "portal_token_revoked",
                "this portal token was revoked",
            ));
        }
        if !found.is_active(state.clock.now()) {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "portal_token_expired",
                "this portal token has expired; ask the page for a new one",
            ));
        }
        if let Some(origin) = parts
            .headers
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            && !same_origin(parts, origin)
            && !found.allowed_origins.iter().any(|o| o == origin)
        {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "origin_not_allowed",
                "this portal token may not be used from this page's origin",
            ));
        }
        Ok(PortalAuth {
            capabilities: capabilities_of(&found),
            token: found,
        })
    }
}

/// CORS for the portal API: any origin may ask (the token decides, see
/// [`PortalAuth`]); no credentials; answers are never cached.
pub async fn cors(req: Request, next: Next) -> Response {
    let preflight = req.method() == Method::OPTIONS;
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    if preflight {
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, PATCH, DELETE"),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("authorization, content-type"),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// What the portal shows about its own session.
#[derive(Debug, Serialize, ToSchema)]
pub struct PortalSession {
    pub token_id: String,
    pub consumer_id: String,
    pub consumer_name: Option<String>,
    pub environment: relay_core::model::Environment,
    pub capabilities: Vec<Capability>,
    pub allowed_origins: Vec<String>,
    pub expires_at: Timestamp,
    /// The tenant's brand (its own, else its parent's), without its
    /// `embed_origins`.
    pub brand: PortalBrand,
}

#[utoipa::path(operation_id = "portal_session", get, path = "/v1/portal/session", tag = "portal",
    responses((status = 200, body = PortalSession)),
    security(("portal_token" = [])))]
pub async fn session(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
) -> Result<Json<PortalSession>, ApiError> {
    let scope = auth.token.scope();
    let consumer = state
        .store
        .get_consumer(&scope, &auth.token.consumer_id)
        .await?
        .ok_or_else(|| ApiError::unauthorized("unknown portal token"))?;
    let mut brand = effective_brand(&state, &scope).await?.brand;
    brand.embed_origins.clear();
    Ok(Json(PortalSession {
        token_id: auth.token.id.clone(),
        consumer_id: consumer.id,
        consumer_name: consumer.name,
        environment: scope.environment,
        capabilities: auth.capabilities.clone(),
        allowed_origins: auth.token.allowed_origins.clone(),
        expires_at: auth.token.expires_at,
        brand,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PortalEventTypes {
    pub data: Vec<EventType>,
}

#[utoipa::path(operation_id = "portal_event_types", get, path = "/v1/portal/event-types", tag = "portal",
    responses((status = 200, body = PortalEventTypes)),
    security(("portal_token" = [])))]
pub async fn event_types(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
) -> Result<Json<PortalEventTypes>, ApiError> {
    let scope = auth.token.scope();
    let mut data = state.store.list_event_types(&scope).await?;
    // Relay's operational events go to the tenant's own consumer only.
    let own = state
        .store
        .get_consumer(&scope, &auth.token.consumer_id)
        .await?
        .is_some_and(|c| c.kind == ConsumerKind::Tenant);
    if own {
        data.extend(
            relay_core::operational::ALL
                .iter()
                .filter_map(|n| super::event_types::built_in(n, scope.environment)),
        );
    }
    Ok(Json(PortalEventTypes { data }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PortalListQuery {
    /// Page size, 1 to 250 (default 50).
    #[param(minimum = 1, maximum = 250)]
    pub limit: Option<u32>,
    pub after: Option<String>,
}

#[utoipa::path(operation_id = "portal_endpoints_list", get, path = "/v1/portal/endpoints", tag = "portal",
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
    pub description: Option<String>,
    /// Event types to receive; `["*"]` receives all.
    pub event_types: Vec<String>,
    /// `v1a` (Ed25519, default) or `v1` (HMAC-SHA256).
    pub signature_scheme: Option<SignatureScheme>,
    #[schema(minimum = 1, maximum = 100_000)]
    pub rate_limit_per_second: Option<u32>,
    /// Disable automatically after 5 days of continuous failure (default true).
    pub auto_disable: Option<bool>,
}

#[utoipa::path(operation_id = "portal_endpoints_create", post, path = "/v1/portal/endpoints", tag = "portal",
    request_body = PortalCreateEndpoint,
    responses((status = 201, body = EndpointCreated), (status = 422, body = Problem)),
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
            destination: Destination::Https(HttpsDestination {
                url: body.url,
                auth: None,
            }),
            event_types: body.event_types,
            signature_scheme: body.signature_scheme,
            retry_schedule_seconds: None,
            max_concurrency: None,
            rate_limit_per_second: body.rate_limit_per_second,
            snapshot_fields: Vec::new(),
            auto_disable: body.auto_disable,
        }),
    )
    .await
}

#[utoipa::path(operation_id = "portal_endpoints_get", get, path = "/v1/portal/endpoints/{id}", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = EndpointOut), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn get_endpoint(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<Json<EndpointOut>, ApiError> {
    let endpoint = auth.endpoint(&state, &id).await?;
    Ok(Json(EndpointOut {
        warnings: endpoints::warnings_of(&endpoint),
        endpoint,
    }))
}

/// Changes to an endpoint; absent fields stay as they are.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PortalUpdateEndpoint {
    pub url: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    pub event_types: Option<Vec<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 100_000)]
    pub rate_limit_per_second: Option<Option<u32>>,
    pub auto_disable: Option<bool>,
}

#[utoipa::path(operation_id = "portal_endpoints_update", patch, path = "/v1/portal/endpoints/{id}", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = Option<PortalUpdateEndpoint>,
    responses((status = 200, body = EndpointOut), (status = 404, body = Problem), (status = 422, body = Problem)),
    security(("portal_token" = [])))]
pub async fn update_endpoint(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    OptionalJsonBody(body): OptionalJsonBody<PortalUpdateEndpoint>,
) -> Result<Json<EndpointOut>, ApiError> {
    auth.require(Capability::ManageEndpoints)?;
    auth.endpoint(&state, &id).await?;
    endpoints::update(
        State(state),
        auth.as_tenant(),
        Path(id),
        OptionalJsonBody(UpdateEndpoint {
            description: body.description,
            destination: body
                .url
                .map(|url| Destination::Https(HttpsDestination { url, auth: None })),
            event_types: body.event_types,
            retry_schedule_seconds: None,
            max_concurrency: None,
            rate_limit_per_second: body.rate_limit_per_second,
            snapshot_fields: None,
            auto_disable: body.auto_disable,
            environment: None,
            consumer_id: None,
            signature_scheme: None,
            id: None,
        }),
    )
    .await
}

#[utoipa::path(operation_id = "portal_endpoints_delete", delete, path = "/v1/portal/endpoints/{id}", tag = "portal",
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

#[utoipa::path(operation_id = "portal_endpoints_disable", post, path = "/v1/portal/endpoints/{id}/disable", tag = "portal",
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

#[utoipa::path(operation_id = "portal_endpoints_enable", post, path = "/v1/portal/endpoints/{id}/enable", tag = "portal",
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

#[utoipa::path(operation_id = "portal_endpoints_signing_keys", get, path = "/v1/portal/endpoints/{id}/signing-keys", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = SigningKeyList), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn signing_keys(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<Json<SigningKeyList>, ApiError> {
    auth.endpoint(&state, &id).await?;
    endpoints::signing_keys(State(state), auth.as_tenant(), Path(id)).await
}

#[utoipa::path(operation_id = "portal_endpoints_rotate_key", post, path = "/v1/portal/endpoints/{id}/rotate-key", tag = "portal",
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

#[utoipa::path(operation_id = "portal_endpoints_health", get, path = "/v1/portal/endpoints/{id}/health", tag = "portal",
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

#[utoipa::path(operation_id = "portal_endpoints_test", post, path = "/v1/portal/endpoints/{id}/test", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = Option<TestSend>,
    responses((status = 200, body = TestSent), (status = 404, body = Problem), (status = 422, body = Problem)),
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

#[utoipa::path(operation_id = "portal_endpoints_recover", post, path = "/v1/portal/endpoints/{id}/recover", tag = "portal",
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

#[utoipa::path(operation_id = "portal_endpoints_failed", get, path = "/v1/portal/endpoints/{id}/failed", tag = "portal",
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

/// The delivery log's filters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DeliveryLogQuery {
    pub state: Option<MessageState>,
    pub event_type: Option<String>,
    pub event_id: Option<String>,
    /// Created at or after (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<Timestamp>,
    /// Created before (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub until: Option<Timestamp>,
    /// Page size, 1 to 250 (default 50).
    #[param(minimum = 1, maximum = 250)]
    pub limit: Option<u32>,
    /// The `next_after` of the previous page.
    pub after: Option<String>,
}

#[utoipa::path(operation_id = "portal_endpoints_messages", get, path = "/v1/portal/endpoints/{id}/messages", tag = "portal",
    params(("id" = String, Path, description = "The endpoint's id."), DeliveryLogQuery),
    responses((status = 200, body = Page<Message>), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn delivery_log(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<DeliveryLogQuery>,
) -> Result<Json<Page<Message>>, ApiError> {
    auth.endpoint(&state, &id).await?;
    let page = super::page_request(q.limit, q.after)?;
    let filter = MessageFilter {
        endpoint_id: Some(id),
        event_id: q.event_id,
        state: q.state,
        event_type: q.event_type,
        since: q.since,
        until: q.until,
        ..Default::default()
    };
    Ok(Json(
        state
            .store
            .list_messages(&auth.token.scope(), &filter, &page)
            .await?,
    ))
}

/// The event a message carries, as the consumer receives it.
#[derive(Debug, Serialize, ToSchema)]
pub struct PortalEvent {
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    pub subject: Option<String>,
    pub time: Timestamp,
    /// The payload exactly as published.
    #[schema(value_type = Object)]
    pub data: Box<serde_json::value::RawValue>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PortalMessage {
    #[serde(flatten)]
    pub message: Message,
    /// `null` once retention removed the event.
    pub event: Option<PortalEvent>,
}

#[utoipa::path(operation_id = "portal_messages_get", get, path = "/v1/portal/messages/{id}", tag = "portal",
    params(("id" = String, Path, description = "The message's id.")),
    responses((status = 200, body = PortalMessage), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn get_message(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<Json<PortalMessage>, ApiError> {
    let message = auth.message(&state, &id).await?;
    let event = state
        .store
        .get_event(&auth.token.scope(), &message.event_id)
        .await?
        .map(|e| PortalEvent {
            id: e.id,
            event_type: e.event_type,
            subject: e.subject,
            time: e.time,
            data: e.data,
        });
    Ok(Json(PortalMessage { message, event }))
}

#[utoipa::path(operation_id = "portal_messages_attempts", get, path = "/v1/portal/messages/{id}/attempts", tag = "portal",
    params(("id" = String, Path, description = "The message's id.")),
    responses((status = 200, body = messages::AttemptList), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn attempts(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<Json<messages::AttemptList>, ApiError> {
    auth.message(&state, &id).await?;
    messages::attempts(State(state), auth.as_tenant(), Path(id)).await
}

#[utoipa::path(operation_id = "portal_messages_resend", post, path = "/v1/portal/messages/{id}/resend", tag = "portal",
    params(("id" = String, Path, description = "The message's id.")),
    responses((status = 200, body = Resent), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("portal_token" = [])))]
pub async fn resend(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<Json<Resent>, ApiError> {
    auth.require(Capability::Recover)?;
    auth.message(&state, &id).await?;
    recovery::resend(State(state), auth.as_tenant(), Path(id)).await
}

/// A CORS preflight (`OPTIONS`): no token needed, [`cors`] adds the rest.
async fn preflight() -> StatusCode {
    StatusCode::NO_CONTENT
}

/// The portal API's routes, each answering preflights, with their CORS layer.
pub fn routes() -> axum::Router<Arc<AppState>> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/v1/portal/session", get(session).options(preflight))
        .route(
            "/v1/portal/event-types",
            get(event_types).options(preflight),
        )
        .route(
            "/v1/portal/endpoints",
            get(list_endpoints).post(create_endpoint).options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}",
            get(get_endpoint)
                .patch(update_endpoint)
                .delete(delete_endpoint)
                .options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}/disable",
            post(disable_endpoint).options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}/enable",
            post(enable_endpoint).options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}/signing-keys",
            get(signing_keys).options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}/rotate-key",
            post(rotate_key).options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}/health",
            get(endpoint_health).options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}/test",
            post(send_test).options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}/recover",
            post(recover).options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}/failed",
            get(failed).options(preflight),
        )
        .route(
            "/v1/portal/endpoints/{id}/messages",
            get(delivery_log).options(preflight),
        )
        .route(
            "/v1/portal/messages/{id}",
            get(get_message).options(preflight),
        )
        .route(
            "/v1/portal/messages/{id}/attempts",
            get(attempts).options(preflight),
        )
        .route(
            "/v1/portal/messages/{id}/resend",
            post(resend).options(preflight),
        )
        .layer(axum::middleware::from_fn(cors))
}

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
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use relay_core::model::{ConsumerKind, EventType, Message, Page};
use relay_core::time::Timestamp;
use relay_store::ExecutorExt as _;
use relay_store::portal::PortalToken;
use serde::Serialize;
use utoipa::ToSchema;

use super::portal_tokens::{Capability, PortalBrand, capabilities_of, effective_brand};
use crate::AppState;
use crate::auth::{TenantAuth, token_digest_hex};
use crate::error::{ApiError, Problem};
use crate::extract::QueryParams;
use crate::routes::ListQuery;

mod endpoints;
mod messages;
pub use endpoints::*;
pub use messages::*;

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
        super::endpoints::find(&*state.store, &self.token.scope(), id)
            .await?
            .filter(|e| e.consumer_id == self.token.consumer_id)
            .ok_or_else(|| ApiError::not_found("endpoint"))
    }

    /// A message of one of the consumer's endpoints, else "not found".
    async fn message(&self, state: &AppState, id: &str) -> Result<Message, ApiError> {
        self.message_of(state, id).await.map(|(m, _)| m)
    }

    /// A message of one of the consumer's endpoints, with the endpoint,
    /// else "not found".
    async fn message_of(
        &self,
        state: &AppState,
        id: &str,
    ) -> Result<(Message, relay_core::model::Endpoint), ApiError> {
        let m = state
            .store
            .read({
                let (sc, id) = (self.token.scope(), id.to_string());
                move |mut x| {
                    Box::pin(async move { relay_store::messages::get(&mut x, &sc, &id).await })
                }
            })
            .await?
            .ok_or_else(|| ApiError::not_found("message"))?;
        match self.endpoint(state, &m.endpoint_id).await {
            Ok(e) => Ok((m, e)),
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
        let hash = token_digest_hex(token);
        let found = state
            .store
            .read(move |mut x| {
                Box::pin(async move { relay_store::portal::find_token(&mut x, &hash).await })
            })
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
            HeaderValue::from_static("authorization, content-type, if-match"),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
    }
    // An endpoint's `ETag`, for `If-Match` on its `PATCH`.
    h.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("etag"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// What the portal shows about its own session.
#[derive(Debug, Serialize, ToSchema)]
pub struct PortalSession {
    /// The portal token's id (`ptk_…`).
    pub token_id: String,
    /// The consumer whose portal this is.
    pub consumer_id: String,
    /// The consumer's name, if it has one.
    pub consumer_name: Option<String>,
    /// The environment the token acts in.
    pub environment: relay_core::model::Environment,
    /// What the token allows beyond reading.
    pub capabilities: Vec<Capability>,
    /// Origins whose pages may use the token.
    pub allowed_origins: Vec<String>,
    /// When the token stops working.
    pub expires_at: Timestamp,
    /// The tenant's brand (its own, else its parent's), without its
    /// `embed_origins`.
    pub brand: PortalBrand,
}

/// Get the portal session
///
/// Returns what the portal token is: whose portal it opens, in which
/// environment, what it allows and until when, and the tenant's brand (its
/// own, else its parent's). The portal's first call. Portal token; `401`
/// `portal_token_revoked` or `portal_token_expired`; `403`
/// `origin_not_allowed` from a page of an origin the token does not allow.
#[utoipa::path(operation_id = "portal.get_session", get, path = "/v1/portal/session", tag = "portal",
    responses((status = 200, body = PortalSession)),
    security(("portal_token" = [])))]
pub async fn session(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
) -> Result<Json<PortalSession>, ApiError> {
    let scope = auth.token.scope();
    let consumer = super::consumers::find(&*state.store, &scope, &auth.token.consumer_id)
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

/// List the event types a consumer can subscribe to
///
/// Lists the tenant's event catalog (in the token's environment) by name, a
/// page at a time, for the portal's subscription picker; Relay's
/// operational types come first, on the first page, only when the consumer
/// is the tenant's own (kind `tenant`). Portal token.
#[utoipa::path(operation_id = "portal.event_types.list", get, path = "/v1/portal/event-types", tag = "portal",
    params(ListQuery),
    responses((status = 200, description = "The catalog by name, a page at a time (Relay's operational event types first, for the tenant's own consumer).", body = Page<EventType>),
              (status = 400, body = Problem)),
    security(("portal_token" = [])))]
pub async fn event_types(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    QueryParams(q): QueryParams<ListQuery>,
) -> Result<Json<Page<EventType>>, ApiError> {
    let scope = auth.token.scope();
    let page = q.page()?;
    let first = page.after.is_none();
    let stored = super::event_types::stored_page(&*state.store, &scope, &page).await?;
    // Relay's operational events go to the tenant's own consumer only.
    let own = first
        && super::consumers::find(&*state.store, &scope, &auth.token.consumer_id)
            .await?
            .is_some_and(|c| c.kind == ConsumerKind::Tenant);
    let built_ins = relay_core::operational::all()
        .filter(|_| own)
        .filter_map(|n| super::event_types::built_in(n, scope.environment));
    Ok(Json(super::event_types::with_built_ins(stored, built_ins)))
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

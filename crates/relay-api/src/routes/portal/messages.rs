//! The portal's messages: an endpoint's delivery log, a message with its
//! payload and attempts, resend.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use relay_core::model::{Attempt, Message, MessageState, Page};
use relay_core::time::Timestamp;
use relay_engine::shapes::ShapeError;
use relay_store::{ExecutorExt as _, MessageFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::super::messages;
use super::super::portal_tokens::Capability;
use super::super::recovery::{self, Resent};
use super::PortalAuth;
use crate::AppState;
use crate::error::{ApiError, Problem};
use crate::extract::QueryParams;

/// The delivery log's filters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DeliveryLogQuery {
    /// Only messages in this state.
    pub state: Option<MessageState>,
    /// Only messages of this event type.
    pub event_type: Option<String>,
    /// Only this event's message.
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

/// List an endpoint's delivery log
///
/// Lists the endpoint's messages, filtered by state, event type, event and
/// creation time, a page at a time. Portal token; the consumer's own
/// endpoints only (`404` otherwise).
#[utoipa::path(operation_id = "portal.endpoints.list_messages", get, path = "/v1/portal/endpoints/{id}/messages", tag = "portal",
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
    let page = super::super::page_request(q.limit, q.after)?;
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
        messages::page_of(&state, &auth.token.scope(), filter, page).await?,
    ))
}

/// The event a message carries, as the consumer receives it.
#[derive(Debug, Serialize, ToSchema)]
pub struct PortalEvent {
    /// The event's id (the deliveries' `webhook-id`).
    pub id: String,
    /// The event's type.
    #[serde(rename = "type")]
    pub event_type: String,
    /// The event's subject, if any.
    pub subject: Option<String>,
    /// When the event happened.
    pub time: Timestamp,
    /// The payload as this endpoint receives it: the event's data shaped by
    /// the message's endpoint version (thin fields, its snapshot allow
    /// list, personal data removed unless it allows personal data), the
    /// very `data` its deliveries carry. Never more than that.
    #[schema(value_type = Object)]
    pub data: Box<serde_json::value::RawValue>,
}

/// A message of one of the consumer's endpoints, with its event as the
/// endpoint receives it.
#[derive(Debug, Serialize, ToSchema)]
pub struct PortalMessage {
    #[serde(flatten)]
    pub message: Message,
    /// `null` once retention removed the event, or when it is not (or no
    /// longer) meant for this consumer (its message is then never sent).
    pub event: Option<PortalEvent>,
}

/// Get a message and its payload
///
/// Returns a message of one of the consumer's endpoints with its event as
/// that endpoint receives it: the `data` shaped by the message's endpoint
/// version (thin fields, the snapshot allow list, personal data removed),
/// exactly what its deliveries carry, never more. Portal token; `404` for a
/// message of another consumer's endpoint.
#[utoipa::path(operation_id = "portal.messages.get", get, path = "/v1/portal/messages/{id}", tag = "portal",
    params(("id" = String, Path, description = "The message's id.")),
    responses((status = 200, body = PortalMessage), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn get_message(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
) -> Result<Json<PortalMessage>, ApiError> {
    let (message, endpoint) = auth.message_of(&state, &id).await?;
    let scope = auth.token.scope();
    let (sc, event_id) = (scope.clone(), message.event_id.clone());
    let found = state.store.read(move |mut x| {
        Box::pin(async move { relay_store::messages::get_event(&mut x, &sc, &event_id).await })
    });
    let Some(event) = found.await? else {
        return Ok(Json(PortalMessage {
            message,
            event: None,
        }));
    };
    // Shaped as the message's attempts shape it, by the same code
    // (`relay_engine::shapes`): what was signed and sent, nothing more.
    let shaped = match state
        .engine
        .payload_of(&scope.tenant_id, &message, &endpoint, &event)
        .await
    {
        Ok(payload) => payload.and_then(|p| p.data),
        Err(ShapeError::NotAddressed | ShapeError::Invalid(_)) => {
            return Ok(Json(PortalMessage {
                message,
                event: None,
            }));
        }
        Err(ShapeError::Unavailable(e)) => {
            tracing::error!(error = %e, "the payload's shape cannot be read");
            return Err(ApiError::internal());
        }
    };
    let event = PortalEvent {
        data: shaped.unwrap_or(event.data),
        id: event.id,
        event_type: event.event_type,
        subject: event.subject,
        time: event.time,
    };
    Ok(Json(PortalMessage {
        message,
        event: Some(event),
    }))
}

/// List a message's attempts
///
/// Lists the attempts at delivering the message, by number, as
/// `GET /v1/messages/{id}/attempts` does. Portal token; the consumer's
/// messages only.
#[utoipa::path(operation_id = "portal.messages.attempts.list", get, path = "/v1/portal/messages/{id}/attempts", tag = "portal",
    params(("id" = String, Path, description = "The message's id."), super::super::ListQuery),
    responses((status = 200, description = "The message's attempts by number, a page at a time.", body = Page<Attempt>),
              (status = 400, body = Problem), (status = 404, body = Problem)),
    security(("portal_token" = [])))]
pub async fn attempts(
    State(state): State<Arc<AppState>>,
    auth: PortalAuth,
    Path(id): Path<String>,
    q: QueryParams<super::super::ListQuery>,
) -> Result<Json<Page<Attempt>>, ApiError> {
    auth.message(&state, &id).await?;
    messages::attempts(State(state), auth.as_tenant(), Path(id), q).await
}

/// Resend a message now
///
/// Makes one immediate attempt at the message, as
/// `POST /v1/messages/{id}/resend` does. Portal token with `recover`; the
/// consumer's messages only.
#[utoipa::path(operation_id = "portal.messages.resend", post, path = "/v1/portal/messages/{id}/resend", tag = "portal",
    params(("id" = String, Path, description = "The message's id.")),
    responses((status = 200, body = Resent), (status = 404, body = Problem), (status = 409, body = Problem),
              (status = 429, description = "too many manual attempts pending for the endpoint, or its circuit is open; see `Retry-After`", body = Problem)),
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

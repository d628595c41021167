//! Messages (one event for one endpoint) and their attempts.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use relay_core::model::{Attempt, Message, MessageState, Page};
use relay_core::time::Timestamp;
use relay_store::{ExecutorExt as _, MessageFilter, PageRequest, Scope};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem};
use crate::extract::QueryParams;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct MessageQuery {
    /// Only this endpoint's messages.
    pub endpoint_id: Option<String>,
    /// Only this event's messages.
    pub event_id: Option<String>,
    /// Only messages in this state.
    pub state: Option<MessageState>,
    /// Only messages of this event type.
    pub event_type: Option<String>,
    /// Only messages whose last failure had this code (`http_503`, `timeout`, …).
    pub error_code: Option<String>,
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

/// List messages
///
/// Lists the messages (one event for one endpoint) of the key's tenant and
/// environment, filtered by endpoint, event, state, event type, last error
/// code and creation time, a page at a time: the delivery log. With a
/// filter by state, error code, event type or time, each page reads at
/// most 10,000 messages (of the endpoint, or of the event, when one is
/// named): when few match, a page may hold fewer than `limit`, or none,
/// and still name `next_after`; page on until it is `null`.
///
/// Tenant API key. `400` `invalid_query` for an unknown parameter or a bad
/// value (a `limit` outside 1 to 250, an unknown `state`, a time that is not
/// RFC 3339).
#[utoipa::path(operation_id = "messages.list", get, path = "/v1/messages", tag = "messages", params(MessageQuery),
    responses((status = 200, body = Page<Message>), (status = 400, body = Problem)),
    security(("api_key" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<MessageQuery>,
) -> Result<Json<Page<Message>>, ApiError> {
    let page = super::page_request(q.limit, q.after)?;
    let filter = MessageFilter {
        endpoint_id: q.endpoint_id,
        event_id: q.event_id,
        state: q.state,
        states: None,
        event_type: q.event_type,
        error_code: q.error_code,
        since: q.since,
        until: q.until,
        events_since: None,
    };
    Ok(Json(page_of(&state, &auth.scope, filter, page).await?))
}

/// One page of `scope`'s messages that `filter` matches
/// (`relay_store::messages::list`): the message list, an event's messages,
/// an endpoint's missed messages and the portal's delivery log.
pub(crate) async fn page_of(
    state: &AppState,
    scope: &Scope,
    filter: MessageFilter,
    page: PageRequest,
) -> Result<Page<Message>, ApiError> {
    let scope = scope.clone();
    Ok(state
        .store
        .read(move |mut x| {
            Box::pin(
                async move { relay_store::messages::list(&mut x, &scope, &filter, &page).await },
            )
        })
        .await?)
}

/// Get a message
///
/// Returns one message: its state, attempts used, next attempt and last
/// error. Tenant API key; `404` for a message of another tenant or
/// environment.
#[utoipa::path(operation_id = "messages.get", get, path = "/v1/messages/{id}", tag = "messages",
    params(("id" = String, Path, description = "The message's id.")),
    responses((status = 200, body = Message), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<Message>, ApiError> {
    state
        .store
        .read({
            let (sc, id) = (auth.scope.clone(), id.clone());
            move |mut x| Box::pin(async move { relay_store::messages::get(&mut x, &sc, &id).await })
        })
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("message"))
}

/// List a message's attempts
///
/// Lists every attempt at delivering the message, by number, a page at a
/// time: when it started and how long it took, the address it went to, the
/// status code and the first 8 kB of the answer (HTTPS), the signature
/// sent, and what the attempt meant for the message. Tenant API key; `404`
/// for a message of another tenant or environment.
#[utoipa::path(operation_id = "messages.attempts.list", get, path = "/v1/messages/{id}/attempts", tag = "messages",
    params(("id" = String, Path, description = "The message's id."), super::ListQuery),
    responses((status = 200, description = "The message's attempts by number, a page at a time.", body = Page<Attempt>),
              (status = 400, body = Problem), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn attempts(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<super::ListQuery>,
) -> Result<Json<Page<Attempt>>, ApiError> {
    let page = q.page()?;
    if state
        .store
        .read({
            let (sc, id) = (auth.scope.clone(), id.clone());
            move |mut x| Box::pin(async move { relay_store::messages::get(&mut x, &sc, &id).await })
        })
        .await?
        .is_none()
    {
        return Err(ApiError::not_found("message"));
    }
    let scope = auth.scope.clone();
    Ok(Json(
        state
            .store
            .read(move |mut x| {
                Box::pin(async move {
                    relay_store::messages::attempts(&mut x, &scope, &id, &page).await
                })
            })
            .await?,
    ))
}

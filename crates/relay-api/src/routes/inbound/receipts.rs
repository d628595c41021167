//! Receipts (with their verdict and duplicate count), reprocessing, and
//! the ledger.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::model::Page;
use relay_core::time::Timestamp;
use relay_inbound::model::{LedgerEntry, Receipt, ReceiptState, Verdict};
use relay_store::StoreError;
use relay_store::inbound::{self, LedgerFilter, ReceiptFilter};
use relay_store::{Commit, ExecutorExt as _};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem};
use crate::extract::QueryParams;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ReceiptQuery {
    /// Only this source's receipts.
    pub source_id: Option<String>,
    /// Only verified, or only rejected, receipts.
    pub verdict: Option<Verdict>,
    /// Only receipts in this processing state.
    pub state: Option<ReceiptState>,
    /// Only the receipt of this provider event id.
    pub provider_event_id: Option<String>,
    /// Page size, 1 to 250 (default 50).
    #[param(minimum = 1, maximum = 250)]
    pub limit: Option<u32>,
    /// The `next_after` of the previous page.
    pub after: Option<String>,
}

/// List inbound receipts
///
/// Lists the requests the key's inbound sources received, verified and
/// rejected, each with its verdict (and refusal), how many times the
/// provider sent it, and its processing state, a page at a time. Tenant API
/// key.
#[utoipa::path(operation_id = "inbound_receipts.list", get, path = "/v1/inbound-receipts", tag = "inbound", params(ReceiptQuery),
    responses((status = 200, body = Page<Receipt>)), security(("api_key" = [])))]
pub async fn list_receipts(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<ReceiptQuery>,
) -> Result<Json<Page<Receipt>>, ApiError> {
    let page = crate::routes::page_request(q.limit, q.after)?;
    let filter = ReceiptFilter {
        source_id: q.source_id,
        verdict: q.verdict,
        state: q.state,
        provider_event_id: q.provider_event_id,
    };
    let scope = auth.scope.clone();
    Ok(Json(
        state
            .store
            .read(move |mut x| {
                Box::pin(
                    async move { inbound::list_receipts(&mut x, &scope, &filter, &page).await },
                )
            })
            .await?,
    ))
}

/// Get an inbound receipt
///
/// Returns one receipt with the headers kept and its raw body (base64; a
/// rejected receipt keeps its first 8 KiB). Tenant API key; `404` for a
/// receipt of another tenant or environment.
#[utoipa::path(operation_id = "inbound_receipts.get", get, path = "/v1/inbound-receipts/{id}", tag = "inbound",
    params(("id" = String, Path, description = "The receipt's id.")),
    responses((status = 200, body = Receipt), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get_receipt(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<Receipt>, ApiError> {
    let scope = auth.scope.clone();
    state
        .store
        .read(move |mut x| Box::pin(async move { inbound::get_receipt(&mut x, &scope, &id).await }))
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("inbound receipt"))
}

/// Reprocess an inbound receipt
///
/// Makes a verified receipt due for processing again (a `failed` one after
/// a fix, or a processed one): the ledger writer reads its events again;
/// entries already written are not written twice. Tenant API key; `404` for
/// an unknown receipt; `409` `receipt_rejected` (rejected receipts are never
/// processed) or `receipt_processing` (being processed now).
#[utoipa::path(operation_id = "inbound_receipts.reprocess", post, path = "/v1/inbound-receipts/{id}/reprocess", tag = "inbound",
    params(("id" = String, Path, description = "The receipt's id.")),
    responses((status = 202, body = Receipt), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn reprocess(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Receipt>), ApiError> {
    let (scope, now) = (auth.scope.clone(), state.clock.now());
    let receipt = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { inbound::reprocess(&mut x, &scope, &id, now).await })
        })
        .await
        .map_err(|e| match e {
            StoreError::NotFound => ApiError::not_found("inbound receipt"),
            StoreError::Conflict("receipt_rejected") => ApiError::new(
                StatusCode::CONFLICT,
                "receipt_rejected",
                "a rejected receipt is kept for diagnosis and never processed",
            ),
            StoreError::Conflict("receipt_processing") => ApiError::new(
                StatusCode::CONFLICT,
                "receipt_processing",
                "the receipt is being processed; look again in a moment",
            ),
            other => other.into(),
        })?;
    state.engine.wake_inbound();
    Ok((StatusCode::ACCEPTED, Json(receipt)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LedgerQuery {
    /// Only this source's entries.
    pub source_id: Option<String>,
    /// Only this provider's entries.
    pub provider: Option<String>,
    /// The event type as the provider names it.
    pub event_type: Option<String>,
    /// Only the entries of this provider event id.
    pub provider_event_id: Option<String>,
    /// Only the entries about this provider message id.
    pub message_id: Option<String>,
    /// Only the entries about this recipient.
    pub recipient: Option<String>,
    /// Only the entries read from this receipt.
    pub receipt_id: Option<String>,
    /// Received at or after (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<Timestamp>,
    /// Received before (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub until: Option<Timestamp>,
    /// Page size, 1 to 250 (default 50).
    #[param(minimum = 1, maximum = 250)]
    pub limit: Option<u32>,
    /// The `next_after` of the previous page.
    pub after: Option<String>,
}

/// List ledger entries
///
/// Lists the provider events Relay verified and recorded, one entry per
/// event (a SendGrid batch gives several), append-only, filtered by
/// source, provider, event type, ids, recipient and receipt time, a page at
/// a time. Tenant API key.
#[utoipa::path(operation_id = "ledger.list", get, path = "/v1/ledger", tag = "inbound", params(LedgerQuery),
    responses((status = 200, body = Page<LedgerEntry>)), security(("api_key" = [])))]
pub async fn ledger(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<LedgerQuery>,
) -> Result<Json<Page<LedgerEntry>>, ApiError> {
    let page = crate::routes::page_request(q.limit, q.after)?;
    let filter = LedgerFilter {
        source_id: q.source_id,
        provider: q.provider,
        event_type: q.event_type,
        provider_event_id: q.provider_event_id,
        message_id: q.message_id,
        recipient: q.recipient,
        receipt_id: q.receipt_id,
        received_from: q.since,
        received_until: q.until,
    };
    let scope = auth.scope.clone();
    Ok(Json(
        state
            .store
            .read(move |mut x| {
                Box::pin(async move { inbound::list_ledger(&mut x, &scope, &filter, &page).await })
            })
            .await?,
    ))
}

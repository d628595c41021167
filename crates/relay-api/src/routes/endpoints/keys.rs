//! An endpoint's signing keys: listing them (never a secret) and rotating
//! them, the old key signing beside the new one for an overlap.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use relay_core::model::{Page, SignatureScheme};
use relay_core::signature::SigningKey;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use relay_store::{Commit, ExecutorExt as _, endpoints};

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem, or_not_found};
use crate::extract::{OptionalJsonBody, QueryParams};

/// One signing key as a consumer may see it: never a secret.
#[derive(Debug, Serialize, ToSchema)]
pub struct SigningKeyOut {
    /// The key's id (`whk_…`).
    pub id: String,
    /// What the key signs with: `v1a` (Ed25519) or `v1` (HMAC-SHA256).
    pub scheme: SignatureScheme,
    /// `whpk_…` for `v1a`; `null` for `v1` (the HMAC secret is never readable).
    pub public_key: Option<String>,
    /// When the key was made (the endpoint's creation, or a rotation).
    pub created_at: relay_core::time::Timestamp,
    /// When this key stops signing; `null` while it is current.
    pub retires_at: Option<relay_core::time::Timestamp>,
}

/// List an endpoint's signing keys
///
/// Lists the keys that sign or signed the endpoint's deliveries, newest
/// first, retired ones included, with when each stops signing. A `v1a`
/// key shows its public key (`whpk_…`), which verifies deliveries; a `v1`
/// secret is never shown again. Tenant API key; `404` for an unknown
/// endpoint.
#[utoipa::path(operation_id = "endpoints.signing_keys.list", get, path = "/v1/endpoints/{id}/signing-keys", tag = "endpoints",
    params(("id" = String, Path, description = "The endpoint's id."), crate::routes::ListQuery),
    responses((status = 200, description = "The endpoint's signing keys, newest first (retired ones included), a page at a time.", body = Page<SigningKeyOut>),
              (status = 400, body = Problem), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn signing_keys(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<crate::routes::ListQuery>,
) -> Result<Json<Page<SigningKeyOut>>, ApiError> {
    let page = q.page()?;
    if super::find(&*state.store, &auth.scope, &id)
        .await?
        .is_none()
    {
        return Err(ApiError::not_found("endpoint"));
    }
    let keys = state
        .store
        .read(move |mut x| Box::pin(async move { endpoints::keys_page(&mut x, &id, &page).await }))
        .await?;
    Ok(Json(Page {
        data: keys.data.into_iter().map(key_out).collect(),
        next_after: keys.next_after,
    }))
}

/// A key rotation: how long the old key keeps signing, and the new key's scheme.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateKey {
    /// How long the old key keeps signing beside the new one, 0 to 168 hours (default 24).
    #[schema(maximum = 168)]
    pub overlap_hours: Option<u32>,
    /// The new key's scheme; switching `v1a` ↔ `v1` happens here. Defaults to the current scheme.
    pub signature_scheme: Option<SignatureScheme>,
}

/// The rotation result: the `v1` secret appears here once and never again.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeyRotated {
    /// The endpoint whose key was rotated.
    pub endpoint_id: String,
    /// Every key, newest first, with retirement times.
    pub keys: Vec<SigningKeyOut>,
    /// `whsec_…` of the new key when it is `v1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

pub const MAX_OVERLAP_HOURS: u32 = 168;

fn key_out(k: relay_store::EndpointKeyRecord) -> SigningKeyOut {
    SigningKeyOut {
        id: k.id,
        scheme: k.scheme,
        public_key: k.public_key,
        created_at: k.created_at,
        retires_at: k.retires_at,
    }
}

/// Rotate an endpoint's signing key
///
/// Makes a new signing key, which signs every delivery from now on; the
/// previous key keeps signing beside it for `overlap_hours` (24 by
/// default, 0 to 168), so receivers can deploy the new key without
/// downtime: during the overlap `webhook-signature` carries both
/// signatures, the new key's first. A rotation can switch the scheme (`v1a`
/// ↔ `v1`). A new `v1` secret is in this answer only.
///
/// Tenant API key; `404` for an unknown endpoint; `422` `validation_failed`
/// for an `overlap_hours` over 168.
#[utoipa::path(operation_id = "endpoints.rotate_key", post, path = "/v1/endpoints/{id}/rotate-key", tag = "endpoints",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = Option<RotateKey>,
    responses((status = 200, body = KeyRotated), (status = 404, body = Problem), (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn rotate_key(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    OptionalJsonBody(body): OptionalJsonBody<RotateKey>,
) -> Result<Json<KeyRotated>, ApiError> {
    let overlap = body.overlap_hours.unwrap_or(24);
    if overlap > MAX_OVERLAP_HOURS {
        return Err(ApiError::invalid(
            "validation_failed",
            "/overlap_hours",
            format!("must be between 0 and {MAX_OVERLAP_HOURS}"),
        ));
    }
    let endpoint = super::find(&*state.store, &auth.scope, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    let scheme = body.signature_scheme.unwrap_or(endpoint.signature_scheme);
    let now = state.clock.now();
    // Strictly after the endpoint's last change, so the dispatcher's key
    // cache (keyed by `updated_at`) sees the rotation.
    let now = if now <= endpoint.updated_at {
        endpoint.updated_at.plus_millis(1)
    } else {
        now
    };
    let (record, key) = relay_store::keys::generate(&state.master_key, &id, scheme, now);
    let secret = match &key {
        SigningKey::Hmac(h) => Some(h.expose_whsec()),
        SigningKey::Ed25519(_) => None,
    };
    let audit = crate::routes::audit::entry(
        &auth,
        "endpoint.key_rotated",
        &id,
        serde_json::json!({
            "overlap_hours": overlap,
            "signature_scheme": scheme.as_str(),
            "previous_scheme": endpoint.signature_scheme.as_str(),
            "new_key_id": record.id,
        }),
        now,
    );
    let retire_at = now.plus_seconds(i64::from(overlap) * 3600);
    let (scope, endpoint_id, key) = (auth.scope.clone(), id.clone(), record.clone());
    let keys = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move {
                endpoints::rotate_key(&mut x, &scope, &endpoint_id, &key, retire_at, &audit).await
            })
        })
        .await
        .map_err(or_not_found("endpoint"))?;
    Ok(Json(KeyRotated {
        endpoint_id: id,
        keys: keys.into_iter().map(key_out).collect(),
        secret,
    }))
}

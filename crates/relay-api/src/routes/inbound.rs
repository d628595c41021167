//! Inbound provider webhooks (see `docs/inbound.md`): the sources a tenant
//! points providers at, the unauthenticated receiving route, the receipts
//! and the ledger.
//!
//! The receiving route (`POST /inbound/{token}`) finds the source by the
//! unguessable token of its path, reads the raw body within the source's
//! limit (`413`), verifies it with the preset's scheme at receipt time
//! (`relay_inbound::verify`, with the current secret and, during a
//! rotation's overlap, the previous one), takes a token of the source's rate
//! limit (`429`) from the bucket of its verdict (verified requests and
//! refused ones each have a budget of their own, so that a flood of
//! refused requests from anyone who knows the URL never spends the real
//! provider's), writes the receipt durably, and only then answers: `200` for
//! a verified request (new or repeated), `401` for a refused one (kept as a
//! rejected receipt). The ledger writer (`relay-engine/src/inbound.rs`)
//! processes verified receipts afterwards.
//!
//! A source's secret is a write-only value (sealed under the master key)
//! or a secret reference (`secret_ref`), resolved in the source's tenant
//! and environment at registration and at every receipt (`503
//! source_secret_unavailable` when the current one does not resolve).
//! Creating, changing, rotating and deleting a source are audited.
//!
//! Nothing the sender sends is logged but through `Debug` (escaped), and
//! no answer echoes it; a source's secret is in no answer and no log.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::id::IdKind;
use relay_core::model::Page;
use relay_core::secret::SecretRef;
use relay_inbound::model::{
    DEFAULT_MAX_BODY_BYTES, DEFAULT_RATE_LIMIT_PER_SECOND, InboundSource, MAX_BODY_BYTES,
    MAX_RATE_LIMIT_PER_SECOND, SourceRecord, StoredSecret,
};
use relay_inbound::{Options, Preset, SourceSecret};
use relay_store::inbound::{self, SourcePatch, new_token, seal_secret};
use relay_store::{Commit, ExecutorExt as _};
use relay_store::{Scope, new_id};

use super::ListQuery;
use super::audit::entry;
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, FieldError, Problem, or_not_found};
use crate::extract::{JsonBody, OptionalJsonBody, QueryParams};

/// The longest a rotated-out secret keeps verifying.
pub const MAX_OVERLAP_HOURS: u32 = 168;

fn check_name(name: &str) -> Result<(), FieldError> {
    if name.is_empty() || name.chars().count() > 200 {
        return Err(FieldError {
            field: "/name".into(),
            message: "must have 1 to 200 characters".into(),
        });
    }
    Ok(())
}

fn check_limits(rate: Option<u32>, max_body: Option<u32>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(r) = rate
        && !(1..=MAX_RATE_LIMIT_PER_SECOND).contains(&r)
    {
        errors.push(FieldError {
            field: "/rate_limit_per_second".into(),
            message: format!("must be between 1 and {MAX_RATE_LIMIT_PER_SECOND}"),
        });
    }
    if let Some(b) = max_body
        && !(1..=MAX_BODY_BYTES).contains(&b)
    {
        errors.push(FieldError {
            field: "/max_body_bytes".into(),
            message: format!("must be between 1 and {MAX_BODY_BYTES}"),
        });
    }
    errors
}

fn check_options(options: &Options, preset: Preset) -> Vec<FieldError> {
    options
        .check(preset)
        .into_iter()
        .map(|(field, message)| FieldError {
            field: format!("/{}", field.replace('.', "/")),
            message,
        })
        .collect()
}

fn check_secret(secret: &str, preset: Preset, field: &str) -> Result<(), ApiError> {
    preset
        .check_secret(secret)
        .map_err(|m| ApiError::invalid("invalid_secret", field, m))
}

/// The secret to store for source `id`: the value sealed, or the reference
/// once it resolves (in the caller's scope, under the operator's policy)
/// to a secret the preset accepts. Exactly one of the two is given.
async fn stored_secret(
    state: &AppState,
    scope: &Scope,
    id: &str,
    preset: Preset,
    secret: Option<WriteOnly>,
    secret_ref: Option<SecretRef>,
) -> Result<StoredSecret, ApiError> {
    match (secret, secret_ref) {
        (Some(WriteOnly(value)), None) => {
            check_secret(&value, preset, "/secret")?;
            Ok(seal_secret(
                &state.master_key,
                id,
                &SourceSecret::new(value),
            ))
        }
        (None, Some(reference)) => {
            let value = state
                .engine
                .resolver()
                .resolve_one(scope, &reference)
                .await
                .map_err(|e| ApiError::invalid(e.code, "/secret_ref", e.to_string()))?;
            let text = value.expose_str().ok_or_else(|| {
                ApiError::invalid(
                    "invalid_secret",
                    "/secret_ref",
                    "the referenced secret is not UTF-8 text",
                )
            })?;
            check_secret(text, preset, "/secret_ref")?;
            Ok(StoredSecret::Reference(reference.to_string()))
        }
        _ => Err(ApiError::invalid(
            "validation_failed",
            "/secret",
            "give the secret as `secret` (a value) or `secret_ref` (a reference), one of the two",
        )),
    }
}

/// What an audit entry says of a source's secret: its kind and reference,
/// never a value.
fn secret_parameters(secret: &StoredSecret) -> serde_json::Value {
    serde_json::to_value(secret.info()).unwrap_or_default()
}

fn check_provider(p: &str) -> Result<(), FieldError> {
    let ok = !p.is_empty()
        && p.len() <= 64
        && p.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'.' | b'-')
        });
    if ok {
        Ok(())
    } else {
        Err(FieldError {
            field: "/provider".into(),
            message: "1 to 64 of a-z, 0-9, `_`, `.`, `-`".into(),
        })
    }
}

fn refuse(errors: Vec<FieldError>) -> Result<(), ApiError> {
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::fields(errors))
    }
}

/// The source as the API shows it: with the URL to give the provider when
/// this installation knows its public URL.
fn shown(state: &AppState, mut source: InboundSource) -> InboundSource {
    source.url = state
        .settings
        .public_url
        .as_deref()
        .map(|base| format!("{}{}", base.trim_end_matches('/'), source.path));
    source
}

/// Create an inbound source
///
/// Registers where one provider's webhooks (Stripe, GitHub, Twilio,
/// SendGrid, Mailgun, any Standard Webhooks sender, or a generic HMAC
/// signer) for the key's tenant and environment arrive: the answer's `path`
/// (`/inbound/<token>`, 128 random bits: treat it as a credential) and,
/// when the operator set a public URL, `url`, to give the provider. Relay
/// verifies every request there with the preset's scheme, keeps it as a
/// receipt and writes its events to the ledger. The signing secret is a
/// value (sealed at rest, never shown again) or a secret reference, which
/// must resolve now. Audited as `inbound_source.created`.
///
/// Tenant API key. Refused with `422`: `validation_failed` (`name`,
/// `provider`, the limits, the options, neither or both of `secret` and
/// `secret_ref`), `invalid_secret` (not a secret the preset accepts), a
/// reference that does not resolve (`secret_not_found`, …).
#[utoipa::path(operation_id = "inbound_sources.create", post, path = "/v1/inbound-sources", tag = "inbound",
    request_body = CreateInboundSource,
    responses((status = 201, body = InboundSource), (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn create(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    JsonBody(body): JsonBody<CreateInboundSource>,
) -> Result<(StatusCode, Json<InboundSource>), ApiError> {
    let options = body.options.unwrap_or_default();
    let mut errors: Vec<FieldError> = check_name(&body.name).err().into_iter().collect();
    if let Some(p) = &body.provider {
        errors.extend(check_provider(p).err());
    }
    errors.extend(check_limits(
        body.rate_limit_per_second,
        body.max_body_bytes,
    ));
    errors.extend(check_options(&options, body.preset));
    refuse(errors)?;
    let now = state.clock.now();
    let id = new_id(IdKind::InboundSource, now);
    let secret = stored_secret(
        &state,
        &auth.scope,
        &id,
        body.preset,
        body.secret,
        body.secret_ref,
    )
    .await?;
    let record = SourceRecord {
        source: InboundSource {
            id,
            environment: auth.scope.environment,
            name: body.name,
            preset: body.preset,
            provider: body
                .provider
                .unwrap_or_else(|| body.preset.as_str().to_owned()),
            options,
            secret: secret.info(),
            previous_secret_expires_at: None,
            rate_limit_per_second: body
                .rate_limit_per_second
                .unwrap_or(DEFAULT_RATE_LIMIT_PER_SECOND),
            max_body_bytes: body.max_body_bytes.unwrap_or(DEFAULT_MAX_BODY_BYTES),
            path: InboundSource::path_of(&new_token()),
            url: None,
            created_at: now,
            updated_at: now,
        },
        tenant_id: auth.scope.tenant_id.clone(),
        secret,
        previous: None,
    };
    let audit = entry(
        &auth,
        "inbound_source.created",
        &record.source.id,
        serde_json::json!({
            "preset": record.source.preset,
            "provider": record.source.provider,
            "secret": secret_parameters(&record.secret),
        }),
        now,
    );
    let created = record.clone();
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { inbound::create_source(&mut x, &created, Some(&audit)).await })
        })
        .await?;
    Ok((StatusCode::CREATED, Json(shown(&state, record.source))))
}

/// List inbound sources
///
/// Lists the inbound sources of the key's tenant and environment, a page at
/// a time; never their secrets, only where they are. Tenant API key.
#[utoipa::path(operation_id = "inbound_sources.list", get, path = "/v1/inbound-sources", tag = "inbound", params(ListQuery),
    responses((status = 200, body = Page<InboundSource>)), security(("api_key" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<ListQuery>,
) -> Result<Json<Page<InboundSource>>, ApiError> {
    let (scope, page) = (auth.scope.clone(), q.page()?);
    let page = state
        .store
        .read(move |mut x| {
            Box::pin(async move { inbound::list_sources(&mut x, &scope, &page).await })
        })
        .await?;
    Ok(Json(Page {
        data: page.data.into_iter().map(|s| shown(&state, s)).collect(),
        next_after: page.next_after,
    }))
}

/// Get an inbound source
///
/// Returns one inbound source, with its path and URL; never its secret.
/// Tenant API key; `404` for a source of another tenant or environment, or
/// a deleted one.
#[utoipa::path(operation_id = "inbound_sources.get", get, path = "/v1/inbound-sources/{id}", tag = "inbound",
    params(("id" = String, Path, description = "The source's id.")),
    responses((status = 200, body = InboundSource), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<InboundSource>, ApiError> {
    let record = source(&state, &auth.scope, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("inbound source"))?;
    Ok(Json(shown(&state, record.source)))
}

async fn current(state: &AppState, auth: &TenantAuth, id: &str) -> Result<SourceRecord, ApiError> {
    source(state, &auth.scope, id)
        .await?
        .ok_or_else(|| ApiError::not_found("inbound source"))
}

/// Update an inbound source
///
/// Changes a source's `name`, `options` (replaced whole),
/// `rate_limit_per_second` or `max_body_bytes`; the preset and the path
/// stay. Audited as `inbound_source.updated` with the fields changed.
///
/// Tenant API key; `404` for an unknown source; `422` `validation_failed`.
#[utoipa::path(operation_id = "inbound_sources.update", patch, path = "/v1/inbound-sources/{id}", tag = "inbound",
    params(("id" = String, Path, description = "The source's id.")),
    request_body = Option<UpdateInboundSource>,
    responses((status = 200, body = InboundSource), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn update(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    OptionalJsonBody(body): OptionalJsonBody<UpdateInboundSource>,
) -> Result<Json<InboundSource>, ApiError> {
    let record = current(&state, &auth, &id).await?;
    let mut errors: Vec<FieldError> = body
        .name
        .as_deref()
        .and_then(|n| check_name(n).err())
        .into_iter()
        .collect();
    errors.extend(check_limits(
        body.rate_limit_per_second,
        body.max_body_bytes,
    ));
    if let Some(o) = &body.options {
        errors.extend(check_options(o, record.source.preset));
    }
    refuse(errors)?;
    let now = state.clock.now();
    let changed: Vec<&str> = [
        ("name", body.name.is_some()),
        ("options", body.options.is_some()),
        (
            "rate_limit_per_second",
            body.rate_limit_per_second.is_some(),
        ),
        ("max_body_bytes", body.max_body_bytes.is_some()),
    ]
    .into_iter()
    .filter_map(|(field, given)| given.then_some(field))
    .collect();
    let audit = entry(
        &auth,
        "inbound_source.updated",
        &id,
        serde_json::json!({ "fields": changed }),
        now,
    );
    let patch = SourcePatch {
        name: body.name,
        options: body.options,
        rate_limit_per_second: body.rate_limit_per_second,
        max_body_bytes: body.max_body_bytes,
        rotate: None,
        now,
    };
    let updated = update_source(&state, &auth.scope, id, patch, audit)
        .await
        .map_err(or_not_found("inbound source"))?;
    Ok(Json(shown(&state, updated.source)))
}

/// Rotate an inbound source's secret
///
/// Sets a new signing secret (a value or a reference), which verifies at
/// once; the current one keeps verifying until `previous_secret_expires_at`
/// (`overlap_hours`, 24 by default, 0 to 168), while the provider switches.
/// Audited as `inbound_source.secret_rotated`, never with a secret.
///
/// Tenant API key; `404` for an unknown source. Refused with `422`
/// `validation_failed` (`overlap_hours` over 168, neither or both of
/// `secret` and `secret_ref`), `invalid_secret`, or a reference that does
/// not resolve.
#[utoipa::path(operation_id = "inbound_sources.rotate_secret", post, path = "/v1/inbound-sources/{id}/rotate-secret", tag = "inbound",
    params(("id" = String, Path, description = "The source's id.")),
    request_body = Option<RotateInboundSecret>,
    responses((status = 200, body = InboundSource), (status = 404, body = Problem), (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn rotate_secret(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    OptionalJsonBody(body): OptionalJsonBody<RotateInboundSecret>,
) -> Result<Json<InboundSource>, ApiError> {
    let overlap = body.overlap_hours.unwrap_or(24);
    if overlap > MAX_OVERLAP_HOURS {
        return Err(ApiError::invalid(
            "validation_failed",
            "/overlap_hours",
            format!("must be between 0 and {MAX_OVERLAP_HOURS}"),
        ));
    }
    let record = current(&state, &auth, &id).await?;
    let now = state.clock.now();
    let secret = stored_secret(
        &state,
        &auth.scope,
        &id,
        record.source.preset,
        body.secret,
        body.secret_ref,
    )
    .await?;
    let until = (overlap > 0).then(|| now.plus_seconds(i64::from(overlap) * 3600));
    let audit = entry(
        &auth,
        "inbound_source.secret_rotated",
        &id,
        serde_json::json!({
            "overlap_hours": overlap,
            "secret": secret_parameters(&secret),
        }),
        now,
    );
    let patch = SourcePatch {
        rotate: Some((secret, until)),
        now,
        ..SourcePatch::default()
    };
    let updated = update_source(&state, &auth.scope, id, patch, audit)
        .await
        .map_err(or_not_found("inbound source"))?;
    Ok(Json(shown(&state, updated.source)))
}

/// Delete an inbound source
///
/// Deletes a source: its path answers `404` from then on; its receipts and
/// ledger entries stay. Audited as `inbound_source.deleted`. Tenant API key;
/// `404` for an unknown or already deleted source.
#[utoipa::path(operation_id = "inbound_sources.delete", delete, path = "/v1/inbound-sources/{id}", tag = "inbound",
    params(("id" = String, Path, description = "The source's id.")),
    responses((status = 204), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn delete(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let now = state.clock.now();
    let audit = entry(
        &auth,
        "inbound_source.deleted",
        &id,
        serde_json::json!({}),
        now,
    );
    let scope = auth.scope.clone();
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(
                async move { inbound::delete_source(&mut x, &scope, &id, now, Some(&audit)).await },
            )
        })
        .await
        .map_err(or_not_found("inbound source"))?;
    Ok(StatusCode::NO_CONTENT)
}

mod bodies;
mod receipts;
mod receive;
pub use bodies::*;
pub use receipts::*;
pub use receive::*;

/// The tenant's source `id`, as stored (its secret sealed).
async fn source(
    state: &AppState,
    scope: &relay_store::Scope,
    id: &str,
) -> Result<Option<SourceRecord>, relay_store::StoreError> {
    let (scope, id) = (scope.clone(), id.to_string());
    state
        .store
        .read(move |mut x| Box::pin(async move { inbound::get_source(&mut x, &scope, &id).await }))
        .await
}

/// Applies `patch` to the tenant's source `id`, audited in the same
/// transaction.
async fn update_source(
    state: &AppState,
    scope: &relay_store::Scope,
    id: String,
    patch: SourcePatch,
    audit: relay_store::AuditEntry,
) -> Result<SourceRecord, relay_store::StoreError> {
    let scope = scope.clone();
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move {
                inbound::update_source(&mut x, &scope, &id, &patch, Some(&audit)).await
            })
        })
        .await
}

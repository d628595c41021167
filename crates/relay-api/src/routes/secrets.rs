//! Tenant secrets (`docs/security.md`): the credentials a destination names
//! by a `secret:NAME` reference. Write-only: `PUT` stores the value sealed
//! under the master key; every answer (and the audit entry) names the
//! secret and its times, never its value. A secret belongs to the key's
//! tenant and environment.
//!
//! Replacing or deleting a secret tells this process's dispatcher at once
//! (the endpoints naming it resolve it again at their next attempt); other
//! nodes notice within their refresh interval. A secret an endpoint or an
//! inbound source still names cannot be deleted (`409 secret_in_use`).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::model::Page;
use relay_core::secret::{MAX_VALUE_BYTES, SecretRef, SecretValue, valid_name};
use relay_store::secrets::{self, PutOutcome, PutSecret, SecretInfo, seal};
use relay_store::{Commit, ExecutorExt as _, PageRequest, Scope, endpoints};
use serde::Deserialize;
use utoipa::ToSchema;

use super::ListQuery;
use super::audit::entry;
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem};
use crate::extract::{JsonBody, QueryParams};

/// A secret's value, written once and never shown again.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutSecretBody {
    /// The value (a password, a token, a PEM private key): 1 byte to 64 KiB
    /// of text, sealed under the installation's master key. No answer ever
    /// returns it.
    #[schema(write_only, min_length = 1, max_length = 65536)]
    pub value: String,
}

impl std::fmt::Debug for PutSecretBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PutSecretBody { value: <redacted> }")
    }
}

fn check_name(name: &str) -> Result<(), ApiError> {
    if valid_name(name) {
        Ok(())
    } else {
        Err(ApiError::invalid(
            "invalid_secret_name",
            "name",
            "a secret name is 1 to 64 of A-Z, a-z, 0-9, `_`, `.`, `-`, starting with a letter or digit",
        ))
    }
}

fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "secret_not_found",
        "no secret of this name in this tenant and environment",
    )
}

/// Create or replace a tenant secret
///
/// Stores a credential (a password, a token, a PEM key) under a name, in
/// the key's tenant and environment, sealed under the installation's master
/// key: a destination or an inbound source names it `secret:<name>` instead
/// of holding the value. Write-only: no answer ever returns the value. A
/// replaced value is used from the next attempt on (on other nodes within
/// their refresh interval). Audited as `secret.created` or
/// `secret.updated`, never with the value.
///
/// Tenant API key. Refused with `422`: `invalid_secret_name`,
/// `invalid_secret_value` (empty), `secret_too_large` (over 64 KiB),
/// `limit_reached` (1,000 secrets per tenant and environment).
#[utoipa::path(operation_id = "secrets.put", put, path = "/v1/secrets/{name}", tag = "secrets",
    params(("name" = String, Path, description = "The secret's name (1 to 64 of `A-Z a-z 0-9 _ . -`); a destination names it `secret:<name>`.")),
    request_body = PutSecretBody,
    responses((status = 201, description = "created", body = SecretInfo),
              (status = 200, description = "the value replaced", body = SecretInfo),
              (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn put(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<PutSecretBody>,
) -> Result<(StatusCode, Json<SecretInfo>), ApiError> {
    check_name(&name)?;
    let value = SecretValue::from(body.value);
    if value.is_empty() {
        return Err(ApiError::invalid(
            "invalid_secret_value",
            "/value",
            "a secret's value is not empty",
        ));
    }
    if value.len() > MAX_VALUE_BYTES {
        return Err(ApiError::invalid(
            "secret_too_large",
            "/value",
            format!("a secret's value is at most {MAX_VALUE_BYTES} bytes"),
        ));
    }
    let now = state.clock.now();
    let put = PutSecret {
        sealed_value: seal(&state.master_key, &auth.scope, &name, &value),
        name: name.clone(),
        now,
    };
    drop(value);
    // The store names the action (`secret.created` or `secret.updated`).
    let audit = entry(&auth, "secret.put", &name, serde_json::json!({}), now);
    let scope = auth.scope.clone();
    let (info, outcome) = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { secrets::put(&mut x, &scope, &put, Some(&audit)).await })
        })
        .await?;
    let status = match outcome {
        PutOutcome::Created => StatusCode::CREATED,
        PutOutcome::Replaced => {
            state.engine.secret_changed(&auth.scope, &name);
            StatusCode::OK
        }
    };
    Ok((status, Json(info)))
}

/// List tenant secrets
///
/// Lists the secrets of the key's tenant and environment by name, with
/// their times; never a value. Tenant API key.
#[utoipa::path(operation_id = "secrets.list", get, path = "/v1/secrets", tag = "secrets", params(ListQuery),
    responses((status = 200, description = "The secrets' names and times, by name; never a value.", body = Page<SecretInfo>)),
    security(("api_key" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<ListQuery>,
) -> Result<Json<Page<SecretInfo>>, ApiError> {
    let (scope, page) = (auth.scope.clone(), q.page()?);
    Ok(Json(
        state
            .store
            .read(move |mut x| Box::pin(async move { secrets::list(&mut x, &scope, &page).await }))
            .await?,
    ))
}

/// Get a tenant secret's metadata
///
/// Returns a secret's name and times; never its value. Tenant API key;
/// `404` `secret_not_found`.
#[utoipa::path(operation_id = "secrets.get", get, path = "/v1/secrets/{name}", tag = "secrets",
    params(("name" = String, Path, description = "The secret's name.")),
    responses((status = 200, description = "The secret's name and times; never its value.", body = SecretInfo),
              (status = 404, body = Problem),
              (status = 422, description = "Not a secret name (`invalid_secret_name`).", body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(name): Path<String>,
) -> Result<Json<SecretInfo>, ApiError> {
    check_name(&name)?;
    let (scope, wanted) = (auth.scope.clone(), name.clone());
    state
        .store
        .read(move |mut x| Box::pin(async move { secrets::get(&mut x, &scope, &wanted).await }))
        .await?
        .map(Json)
        .ok_or_else(not_found)
}

/// The ids of the scope's endpoints whose destination names `secret:<name>`.
async fn endpoints_naming(
    state: &AppState,
    scope: &Scope,
    name: &str,
) -> Result<Vec<String>, ApiError> {
    let wanted = SecretRef::Secret(name.to_string());
    let mut users = Vec::new();
    let mut after = None;
    loop {
        let (scope, page) = (
            scope.clone(),
            PageRequest {
                after: after.take(),
                limit: 250,
            },
        );
        let page = state
            .store
            .read(move |mut x| {
                Box::pin(async move { endpoints::list(&mut x, &scope, None, &page).await })
            })
            .await?;
        users.extend(
            page.data
                .iter()
                .filter(|e| {
                    relay_destinations::Config::try_from(&e.destination)
                        .is_ok_and(|c| c.secret_refs().iter().any(|(_, r)| **r == wanted))
                })
                .map(|e| e.id.clone()),
        );
        match page.next_after {
            Some(next) => after = Some(next),
            None => return Ok(users),
        }
    }
}

/// The ids of the scope's inbound sources whose current secret is
/// `secret:<name>` (one rotated out keeps verifying only while it
/// resolves).
async fn sources_naming(
    state: &AppState,
    scope: &Scope,
    name: &str,
) -> Result<Vec<String>, ApiError> {
    let wanted = SecretRef::Secret(name.to_string()).to_string();
    let mut users = Vec::new();
    let mut after = None;
    loop {
        let (scope, page) = (
            scope.clone(),
            PageRequest {
                after: after.take(),
                limit: 250,
            },
        );
        let page = state
            .store
            .read(move |mut x| {
                Box::pin(
                    async move { relay_store::inbound::list_sources(&mut x, &scope, &page).await },
                )
            })
            .await?;
        users.extend(
            page.data
                .iter()
                .filter(|s| s.secret.reference.as_deref() == Some(wanted.as_str()))
                .map(|s| s.id.clone()),
        );
        match page.next_after {
            Some(next) => after = Some(next),
            None => return Ok(users),
        }
    }
}

/// Delete a tenant secret
///
/// Deletes a secret that nothing names any more. Audited as
/// `secret.deleted`. Tenant API key; `404` `secret_not_found`; `409`
/// `secret_in_use` while an endpoint or an inbound source names it.
#[utoipa::path(operation_id = "secrets.delete", delete, path = "/v1/secrets/{name}", tag = "secrets",
    params(("name" = String, Path, description = "The secret's name.")),
    responses((status = 204), (status = 404, body = Problem),
              (status = 422, description = "Not a secret name (`invalid_secret_name`).", body = Problem),
              (status = 409, description = "An endpoint or an inbound source still names the secret (`secret_in_use`); change it first.", body = Problem)),
    security(("api_key" = [])))]
pub async fn delete(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    check_name(&name)?;
    let mut users = endpoints_naming(&state, &auth.scope, &name).await?;
    users.extend(sources_naming(&state, &auth.scope, &name).await?);
    if !users.is_empty() {
        let shown: Vec<&str> = users.iter().take(10).map(String::as_str).collect();
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "secret_in_use",
            format!(
                "{} endpoint(s) or inbound source(s) name secret:{name} ({}); point them elsewhere first",
                users.len(),
                shown.join(", ")
            ),
        ));
    }
    let now = state.clock.now();
    let audit = entry(&auth, "secret.deleted", &name, serde_json::json!({}), now);
    let (scope, gone) = (auth.scope.clone(), name.clone());
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { secrets::delete(&mut x, &scope, &gone, Some(&audit)).await })
        })
        .await
        .map_err(|e| match e {
            relay_store::StoreError::NotFound => not_found(),
            other => other.into(),
        })?;
    state.engine.secret_changed(&auth.scope, &name);
    Ok(StatusCode::NO_CONTENT)
}

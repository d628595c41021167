//! An endpoint's payload settings (thin events and snapshots): the snapshot
//! allow list, the personal-data choice and the event type versions it
//! pins, checked against the catalog; and its versions.
//!
//! An allow list names fields across every event type the endpoint
//! receives, so a field need not be in every type's schema; one that no
//! subscribed type declares is accepted with a warning (it sends nothing
//! until a type declares it). A field that a subscribed type marks as
//! personal data needs `allow_personal_data`, and is then accepted with a
//! warning; without the flag it is refused. The engine removes personal
//! data from the payload of an endpoint without the flag in any case (a
//! wildcard subscription, or a type marked later), so the check here is
//! the early answer, not the only guard.
//!
//! No allow list can exceed the delivery limit: a payload is a projection
//! of the published data and never longer than it, and a publish whose
//! whole event does not fit the limit is refused at publish.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use relay_core::model::{Endpoint, EndpointVersion, EventType, EventTypeVersion, Page};
use relay_core::shape::{self, Allow, FieldPath};
use relay_core::time::Timestamp;
use relay_store::{ExecutorExt as _, Scope, endpoints};

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, FieldError, Problem};
use crate::extract::{QueryParams, pointer_token};

pub const EVERYTHING_WARNING: &str = "snapshot of every field (*): this endpoint receives each event's whole data, and any field later added to it";

/// The catalog versions whose fields an endpoint version's payloads take:
/// for each event type it names (subscription or pin), the version a new
/// endpoint version starting `now` is shaped by.
async fn shaping_versions(
    state: &AppState,
    scope: &Scope,
    e: &Endpoint,
    now: Timestamp,
) -> Result<Vec<(EventType, EventTypeVersion)>, ApiError> {
    let mut names: Vec<&str> = e
        .event_types
        .iter()
        .map(String::as_str)
        .filter(|t| *t != "*")
        .collect();
    names.extend(e.event_type_versions.keys().map(String::as_str));
    names.sort_unstable();
    names.dedup();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let et = match crate::routes::event_types::built_in(name, scope.environment) {
            Some(built_in) => Some(built_in),
            None => crate::routes::event_types::find(&*state.store, scope, name).await?,
        };
        let Some(et) = et else {
            return Err(ApiError::invalid(
                "unknown_event_type",
                &format!("/event_type_versions/{}", pointer_token(name)),
                format!("`{name}` is not in the event catalog"),
            ));
        };
        let pinned = e.event_type_versions.get(name).copied();
        if let Some(p) = pinned
            && !et.versions.iter().any(|v| v.version == p)
        {
            return Err(ApiError::invalid(
                "unknown_event_type_version",
                &format!("/event_type_versions/{}", pointer_token(name)),
                format!(
                    "`{name}` has no version {p} (its versions are 1 to {})",
                    et.current_version
                ),
            ));
        }
        let versions: Vec<(i64, Timestamp)> = et
            .versions
            .iter()
            .map(|v| (v.version, v.created_at))
            .collect();
        let chosen = shape::shaping_version(pinned, &versions, now)
            .and_then(|n| et.versions.iter().find(|v| v.version == n).cloned());
        if let Some(v) = chosen {
            out.push((et, v));
        }
    }
    Ok(out)
}

/// Checks `e`'s payload settings against the catalog (as of `now`, when a
/// new endpoint version would start) and returns their warnings.
pub async fn check(
    state: &AppState,
    scope: &Scope,
    e: &Endpoint,
    now: Timestamp,
) -> Result<Vec<String>, ApiError> {
    let allow = shape::parse_allow_list(&e.snapshot_fields).map_err(|err| {
        ApiError::fields(vec![FieldError {
            field: match err.index() {
                Some(i) => format!("/snapshot_fields/{i}"),
                None => "/snapshot_fields".into(),
            },
            message: err.to_string(),
        }])
    })?;
    let versions = shaping_versions(state, scope, e, now).await?;
    let mut warnings = Vec::new();
    if allow == Allow::Everything {
        warnings.push(EVERYTHING_WARNING.to_string());
    }
    if let Allow::Fields(fields) = &allow
        && !fields.is_empty()
    {
        // Walking the schemas is CPU work, bounded by one budget for the request.
        let schemas: Vec<serde_json::Value> =
            versions.iter().map(|(_, v)| v.schema.clone()).collect();
        let fields = fields.clone();
        let undeclared = state
            .cpu
            .run(&scope.tenant_id, move || {
                let mut budget = shape::CheckBudget::default();
                fields
                    .into_iter()
                    .filter(|f| {
                        !schemas
                            .iter()
                            .any(|s| shape::check_in_schema_within(s, f, &mut budget).is_ok())
                    })
                    .collect::<Vec<_>>()
            })
            .await?;
        for f in undeclared {
            warnings.push(format!(
                "snapshot field `{f}` is not declared by the schema of any event type this endpoint names; it sends nothing until one does"
            ));
        }
    }
    // Personal data the settings would send, by event type.
    let mut personal: Vec<(String, Vec<String>)> = Vec::new();
    for (et, v) in &versions {
        let marked = shape::parse_list(&v.personal_data_fields).unwrap_or_default();
        let sent: Vec<&FieldPath> = match &allow {
            Allow::Everything => marked.iter().collect(),
            Allow::Fields(f) => shape::personal_in_allow_list(f, &marked),
        };
        if !sent.is_empty() {
            personal.push((
                et.name.clone(),
                sent.iter().map(|p| p.as_str().to_string()).collect(),
            ));
        }
    }
    let listed = || {
        personal
            .iter()
            .map(|(t, f)| format!("{t} (v{}): {}", version_of(&versions, t), f.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if !personal.is_empty() && !e.allow_personal_data && allow != Allow::Everything {
        return Err(ApiError::invalid(
            "personal_data_not_allowed",
            "/snapshot_fields",
            format!(
                "the snapshot would send fields marked as personal data ({}); set allow_personal_data to send them",
                listed()
            ),
        ));
    }
    if !personal.is_empty() {
        warnings.push(if e.allow_personal_data {
            format!("this endpoint receives personal data: {}", listed())
        } else {
            format!(
                "fields marked as personal data are left out of this endpoint's snapshot ({}); set allow_personal_data to send them",
                listed()
            )
        });
    }
    Ok(warnings)
}

fn version_of(versions: &[(EventType, EventTypeVersion)], name: &str) -> i64 {
    versions
        .iter()
        .find(|(et, _)| et.name == name)
        .map_or(0, |(_, v)| v.version)
}

/// List an endpoint's versions
///
/// Lists the versions of the endpoint's payload settings, oldest first (the
/// last is the current one): each version's snapshot allow list, personal
/// data choice and event type pins, and when it started. A delivery's
/// `endpointversion` attribute names the version that shaped its `data`.
/// Tenant API key; `404` for an unknown endpoint; `400` `invalid_query`
/// when `after` is not a version number.
#[utoipa::path(operation_id = "endpoints.versions.list", get, path = "/v1/endpoints/{id}/versions", tag = "endpoints",
    params(("id" = String, Path, description = "The endpoint's id."), crate::routes::ListQuery),
    responses((status = 200, description = "The endpoint's versions, oldest first (the last of the last page is the current one), a page at a time; `after` is a version number.", body = Page<EndpointVersion>),
              (status = 400, body = Problem), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn versions(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<crate::routes::ListQuery>,
) -> Result<Json<Page<EndpointVersion>>, ApiError> {
    let page = q.page()?;
    if let Some(after) = &page.after
        && after.parse::<u32>().is_err()
    {
        return Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "invalid_query",
            "after must be the version number that ended the previous page",
        ));
    }
    let scope = auth.scope.clone();
    state
        .store
        .read(move |mut x| {
            Box::pin(async move { endpoints::versions(&mut x, &scope, &id, &page).await })
        })
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("endpoint"))
}

//! Endpoints: where a consumer's events are delivered.
//!
//! Create and update share one validation pass ([`validate_settings`]): the
//! destination URL goes through the outbound guard (early feedback; the guard
//! checks again at every connection), subscriptions must name catalog event
//! types or the explicit wildcard, and a retry schedule must fit the operator's
//! bounds. The environment and the consumer are fixed at creation. An
//! endpoint's signing keys (listing, rotation) are in `keys`.

use std::sync::Arc;

use super::present;
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, FieldError, Problem, or_not_found};
use crate::extract::{JsonBody, OptionalJsonBody, QueryParams};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use relay_core::id::IdKind;
use relay_core::model::{ConsumerKind, DeliveryOrder, Endpoint, EndpointState, Page, Profile};
use relay_core::retry::RetrySchedule;
use relay_core::signature::SigningKey;
use relay_core::validate;
use relay_destinations::Config;
use relay_store::{Commit, ExecutorExt as _, Scope, Store, StoreError, endpoints, new_id};

pub mod aws;
pub mod changes;
mod keys;
pub mod ownership;
pub mod payload;
mod types;
mod update;
pub use keys::*;
pub use types::*;
pub(crate) use update::update_with;

pub const WILDCARD_WARNING: &str = "subscribed to all event types (*): this endpoint receives every current and future event type you publish (Relay's operational events must be named)";
pub const EMPTY_WARNING: &str = "no event types selected: this endpoint receives nothing";

/// The most entries an endpoint's `event_types` (and `event_type_versions`)
/// may hold.
pub const MAX_SUBSCRIPTIONS: usize = 256;

/// Checks everything about an endpoint's settings that does not need the
/// consumer, and returns the warnings to show.
///
/// The retry schedule is checked when the request sets it
/// (`check_schedule`): one that breaks the operator's bounds is refused
/// then, with the broken bound's code (`retry_schedule_wait_below_minimum`,
/// …) when it is the only fault. A schedule accepted earlier is kept as it
/// was accepted, even if the bounds have tightened since: an update that
/// leaves it alone does not fail on it, and the dispatcher uses it as set.
async fn validate_settings(
    state: &AppState,
    scope: &Scope,
    e: &mut Endpoint,
    check_schedule: bool,
    destination_changed: bool,
) -> Result<Vec<String>, ApiError> {
    let mut schedule_code = None;
    let mut errors = Vec::new();
    let mut field = |field: &str, message: String| {
        errors.push(FieldError {
            field: field.to_string(),
            message,
        })
    };
    if e.description.as_ref().is_some_and(|d| d.len() > 500) {
        field("/description", "must be at most 500 characters".into());
    }
    // Each entry costs a catalog read when the payload settings are checked.
    if e.event_types.len() > MAX_SUBSCRIPTIONS {
        field(
            "/event_types",
            format!("at most {MAX_SUBSCRIPTIONS} entries (`*` subscribes to every type)"),
        );
        e.event_types.truncate(MAX_SUBSCRIPTIONS);
    }
    if e.event_type_versions.len() > MAX_SUBSCRIPTIONS {
        field(
            "/event_type_versions",
            format!("at most {MAX_SUBSCRIPTIONS} entries"),
        );
    }
    let mut unique = Vec::with_capacity(e.event_types.len());
    let mut seen = std::collections::HashSet::new();
    for (i, t) in e.event_types.iter().enumerate() {
        if let Err(m) = validate::subscription_entry(t) {
            field(&format!("/event_types/{i}"), m);
        } else if seen.insert(t.as_str()) {
            unique.push(t.clone());
        }
    }
    e.event_types = unique;
    if check_schedule
        && let Some(waits) = &e.retry_schedule_seconds
        && let Err(err) = RetrySchedule::new(waits, &state.settings.retry_bounds)
    {
        schedule_code = Some(err.code());
        field("/retry_schedule_seconds", format!("{err} ({})", err.code()));
    }
    let max = state.settings.max_endpoint_concurrency;
    if e.max_concurrency == 0 || e.max_concurrency > max {
        field("/max_concurrency", format!("must be between 1 and {max}"));
    }
    if let Some(r) = e.rate_limit_per_second
        && (r == 0 || r > 100_000)
    {
        field(
            "/rate_limit_per_second",
            "must be between 1 and 100000".into(),
        );
    }
    if let (Some(code), [only]) = (schedule_code, errors.as_slice()) {
        return Err(ApiError::invalid(code, &only.field, only.message.clone()));
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }

    let config = Config::try_from(&e.destination).map_err(|err| {
        ApiError::fields(vec![FieldError {
            field: "/destination".into(),
            message: err.to_string(),
        }])
    })?;
    if let Err(invalid) = relay_destinations::validate(&config, &state.guard).await {
        return Err(ApiError::invalid(
            invalid.code,
            invalid.pointer,
            invalid.message,
        ));
    }
    if config.profile() == Profile::A2aPush {
        a2a_profile(e)?;
    }
    // Every secret reference resolves now, under the operator's policy, or
    // the endpoint is refused: a typo is found at registration, not at the
    // first delivery. The answer names the reference, never a value.
    let mut values = relay_core::secret::Secrets::new();
    for (pointer, reference) in config.secret_refs() {
        match state.engine.resolver().resolve_one(scope, reference).await {
            Ok(value) => values.insert(reference.clone(), value),
            Err(err) => return Err(ApiError::invalid(err.code, pointer, err.to_string())),
        }
    }
    // Values a kind must be able to use (a client certificate and its key).
    if let Err(invalid) = relay_destinations::check_values(&config, &values) {
        return Err(ApiError::invalid(
            invalid.code,
            invalid.pointer,
            invalid.message,
        ));
    }
    drop(values);
    // The proof of ownership: asked for by the endpoint or required by the
    // installation, of HTTPS endpoints.
    let origin = relay_destinations::ownership_origin(&config, &state.guard);
    let https = origin.is_some();
    if e.verify_ownership && !https {
        return Err(ApiError::invalid(
            "ownership_proof_https_only",
            "/verify_ownership",
            "only an HTTPS endpoint's receiver can prove ownership",
        ));
    }
    e.verify_ownership = https
        && (e.verify_ownership
            || state.settings.ownership_proof == crate::OwnershipProof::Required);
    e.ownership_origin = origin.filter(|_| e.verify_ownership);
    // What only the service can tell (an AWS role: assumed once with the
    // tenant's ExternalId), when the destination is new: a change of
    // anything else (a description, the subscriptions) calls no service,
    // so it cannot fail because the service is unreachable now.
    if destination_changed
        && let Err(invalid) = state.engine.check_access(&config, &scope.tenant_id).await
    {
        return Err(ApiError::invalid(
            invalid.code,
            invalid.pointer,
            invalid.message,
        ));
    }

    // Operational events describe the tenant's endpoints (its customers'
    // among them): only the tenant's own consumer may subscribe to them. `*`
    // never includes them.
    if e.event_types
        .iter()
        .any(|t| relay_core::operational::is_operational(t))
    {
        let own = super::consumers::find(&*state.store, scope, &e.consumer_id)
            .await?
            .is_some_and(|c| c.kind == ConsumerKind::Tenant);
        if let Some((i, t)) = e
            .event_types
            .iter()
            .enumerate()
            .find(|(_, t)| relay_core::operational::is_operational(t))
            .filter(|_| !own)
        {
            return Err(ApiError::invalid(
                "operational_event_type_reserved",
                &format!("/event_types/{i}"),
                format!(
                    "`{t}` is one of Relay's operational events, delivered only to the endpoints of the \
                     tenant's own consumer (kind `tenant`), never to a customer's"
                ),
            ));
        }
    }
    for (i, t) in e.event_types.iter().enumerate() {
        if t != "*"
            && !relay_core::operational::is_operational(t)
            && super::event_types::find(&*state.store, scope, t)
                .await?
                .is_none()
        {
            return Err(ApiError::invalid(
                "unknown_event_type",
                &format!("/event_types/{i}"),
                format!(
                    "`{t}` is not in the event catalog; create it with PUT /v1/event-types/{t}"
                ),
            ));
        }
    }
    let mut warnings = warnings_of(e);
    // A destination whose kind cannot carry the largest body Relay may
    // deliver (the delivery limit): such a message is dead-lettered unsent.
    let largest = state.engine.max_payload_bytes() as u64;
    warnings.extend(relay_destinations::capacity_warning(&config, largest));
    Ok(warnings)
}

/// An A2A push endpoint (`a2a_push`, docs/a2a.md) receives only its task's
/// updates, one at a time in publish order: any other event would not be an
/// A2A notification, and the task's updates out of order would tell its
/// client a wrong state.
fn a2a_profile(e: &Endpoint) -> Result<(), ApiError> {
    let types = relay_core::a2a::TYPES;
    if e.event_types.is_empty() {
        return Err(ApiError::invalid(
            "a2a_event_type_not_allowed",
            "/event_types",
            format!(
                "an A2A push endpoint subscribes to the A2A update types: {}",
                types.join(", ")
            ),
        ));
    }
    if let Some((i, t)) = e
        .event_types
        .iter()
        .enumerate()
        .find(|(_, t)| !relay_core::a2a::is_update_type(t))
    {
        return Err(ApiError::invalid(
            "a2a_event_type_not_allowed",
            &format!("/event_types/{i}"),
            format!(
                "`{t}`: an A2A push endpoint receives only the A2A update types ({})",
                types.join(", ")
            ),
        ));
    }
    if e.ordering != DeliveryOrder::PerKey {
        return Err(ApiError::invalid(
            "a2a_ordering_required",
            "/ordering",
            "an A2A push endpoint delivers each task's updates in order: `ordering` is `per_key` \
             (the default for one)",
        ));
    }
    Ok(())
}

/// Create an endpoint
///
/// Registers where one consumer's events go: a destination (an HTTPS URL,
/// or a broker, queue or bucket, by `kind`), the event types it receives,
/// and how its deliveries are signed. Its first signing key is made with
/// it: for `v1a` (the default) the answer carries the Ed25519 `public_key`
/// (readable later too); for `v1` the HMAC `secret`, shown in this answer
/// only. From the answer on, events published of its types are delivered
/// to it. The answer's `warnings` name what deserves a second look.
///
/// Tenant API key; the endpoint is in the key's environment. Refused with
/// `422`: `validation_failed` (the fields at fault), `unknown_reference`
/// (no such consumer), `unknown_event_type`,
/// `operational_event_type_reserved` (Relay's operational types are for the
/// tenant's own consumer), a retry schedule outside the operator's bounds
/// (`retry_schedule_…`), the destination kind's codes (`invalid_url`,
/// `blocked_address`, `reserved_header`, `credentials_without_tls`, …), a
/// secret reference that does not resolve (`secret_not_found`, …),
/// `personal_data_not_allowed`, `unknown_event_type_version`,
/// `limit_reached` (the operator's limit on endpoints); an A2A push
/// endpoint (`destination.a2a_push`, docs/a2a.md; ordered `per_key` by
/// default) `a2a_event_type_not_allowed`, `a2a_ordering_required`,
/// `conflicting_authorization`, `invalid_secret_value`; `429` `busy`.
#[utoipa::path(operation_id = "endpoints.create", post, path = "/v1/endpoints", tag = "endpoints", request_body = CreateEndpoint,
    responses((status = 201, body = EndpointCreated), (status = 422, body = Problem), (status = 429, description = "`busy`: the tenant already has 8 schema checks or validations running or waiting; retry after `Retry-After` seconds", body = Problem)),
    security(("api_key" = [])))]
pub async fn create(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    JsonBody(body): JsonBody<CreateEndpoint>,
) -> Result<(StatusCode, Json<EndpointCreated>), ApiError> {
    let now = state.clock.now();
    let ordering_given = body.ordering.is_some();
    let mut endpoint = Endpoint {
        id: new_id(IdKind::Endpoint, now),
        consumer_id: body.consumer_id,
        environment: auth.scope.environment,
        description: body.description,
        destination: body.destination.into(),
        event_types: body.event_types,
        signature_scheme: body.signature_scheme.unwrap_or_default(),
        retry_schedule_seconds: body.retry_schedule_seconds,
        max_concurrency: body.max_concurrency.unwrap_or(10),
        rate_limit_per_second: body.rate_limit_per_second,
        snapshot_fields: body.snapshot_fields,
        allow_personal_data: body.allow_personal_data,
        event_type_versions: body.event_type_versions,
        version: 1,
        version_started_at: now,
        state: EndpointState::Active,
        disabled_reason: None,
        auto_disable: body.auto_disable.unwrap_or(true),
        ordering: body.ordering.unwrap_or_default(),
        verify_ownership: body.verify_ownership.unwrap_or(false),
        ownership_origin: None,
        created_at: now,
        updated_at: now,
        revision: 1,
    };
    // An A2A push endpoint is ordered per key (its task) unless told
    // otherwise, which `validate_settings` refuses.
    if !ordering_given
        && Config::try_from(&endpoint.destination).is_ok_and(|c| c.profile() == Profile::A2aPush)
    {
        endpoint.ordering = DeliveryOrder::PerKey;
    }
    let mut warnings = validate_settings(&state, &auth.scope, &mut endpoint, true, true).await?;
    warnings.extend(payload::check(&state, &auth.scope, &endpoint, now).await?);
    let (key_record, key) = relay_store::keys::generate(
        &state.master_key,
        &endpoint.id,
        endpoint.signature_scheme,
        now,
    );
    let (secret, public_key) = match &key {
        SigningKey::Hmac(h) => (Some(h.expose_whsec()), None),
        SigningKey::Ed25519(k) => (None, Some(k.public_key().to_whpk())),
    };
    let audit = super::audit::entry(
        &auth,
        "endpoint.created",
        &endpoint.id,
        serde_json::json!({
            "url": changes::describe(&endpoint.destination),
            "credentials": changes::credentials(&endpoint.destination),
            "event_types": endpoint.event_types,
            "signature_scheme": endpoint.signature_scheme.as_str(),
            "auto_disable": endpoint.auto_disable,
            "ordering": endpoint.ordering.as_str(),
            "verify_ownership": endpoint.verify_ownership,
        }),
        now,
    );
    let (scope, created) = (auth.scope.clone(), endpoint.clone());
    let limits = state.settings.endpoint_limits;
    // `unverified` while its receiver owes the ownership proof.
    endpoint.state = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move {
                let keys = std::slice::from_ref(&key_record);
                endpoints::create(&mut x, &scope, &created, keys, limits, Some(&audit)).await
            })
        })
        .await
        .map_err(|e| match e {
            relay_store::StoreError::MissingReference(_) => ApiError::invalid(
                "unknown_reference",
                "/consumer_id",
                "no consumer with this id in this environment",
            ),
            other => other.into(),
        })?;
    Ok((
        StatusCode::CREATED,
        Json(EndpointCreated {
            endpoint: EndpointOut { endpoint, warnings },
            secret,
            public_key,
        }),
    ))
}

pub fn warnings_of(e: &Endpoint) -> Vec<String> {
    let mut w = Vec::new();
    if e.event_types.iter().any(|t| t == "*") {
        w.push(WILDCARD_WARNING.to_string());
    }
    if e.event_types.is_empty() {
        w.push(EMPTY_WARNING.to_string());
    }
    w
}

/// List endpoints
///
/// Lists the endpoints of the key's tenant and environment, or of one
/// consumer (`consumer_id`), a page at a time, each with its warnings.
/// Literal credential headers stored before they were refused are shown as
/// `[redacted]`. Tenant API key.
#[utoipa::path(operation_id = "endpoints.list", get, path = "/v1/endpoints", tag = "endpoints", params(EndpointQuery),
    responses((status = 200, body = Page<EndpointOut>)), security(("api_key" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<EndpointQuery>,
) -> Result<Json<Page<EndpointOut>>, ApiError> {
    let page = super::page_request(q.limit, q.after)?;
    let (scope, consumer_id) = (auth.scope.clone(), q.consumer_id);
    let p = state
        .store
        .read(move |mut x| {
            Box::pin(
                async move { endpoints::list(&mut x, &scope, consumer_id.as_deref(), &page).await },
            )
        })
        .await?;
    Ok(Json(Page {
        data: p
            .data
            .into_iter()
            .map(|endpoint| EndpointOut {
                warnings: warnings_of(&endpoint),
                endpoint,
            })
            .collect(),
        next_after: p.next_after,
    }))
}

/// Get an endpoint
///
/// Returns one endpoint with its warnings, and its revision as the `ETag`
/// (`"<revision>"`) for a conditional `PATCH`. Tenant API key; `404` for an
/// endpoint of another tenant or environment, or a deleted one.
#[utoipa::path(operation_id = "endpoints.get", get, path = "/v1/endpoints/{id}", tag = "endpoints",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = EndpointOut, headers(("ETag" = String, description = "The endpoint's revision, for `If-Match` on `PATCH`")))),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<(HeaderMap, Json<EndpointOut>), ApiError> {
    let endpoint = find(&*state.store, &auth.scope, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    Ok((
        changes::etag_headers(&endpoint),
        Json(EndpointOut {
            warnings: warnings_of(&endpoint),
            endpoint,
        }),
    ))
}

/// Update an endpoint
///
/// Changes the fields given; absent fields stay as they are. A new
/// `destination` replaces the whole destination: credentials it does not
/// restate are dropped (with a warning when the host changes). A change of
/// `snapshot_fields`, `allow_personal_data` or `event_type_versions` opens
/// a new endpoint version; messages already made keep the version they
/// were made for. With `If-Match` the change applies only while the
/// endpoint is at that revision (`412` otherwise); without, it is decided
/// again from a fresh read if the endpoint changed meanwhile, and never
/// undoes a concurrent change (a pause, a disable).
///
/// Tenant API key; `404` for an unknown endpoint. Refused with `422`
/// `immutable_field` (`environment`, `consumer_id`, `signature_scheme`,
/// `id`: switch schemes with a key rotation) and the codes a create
/// refuses with; `400` `invalid_if_match`; `412` `precondition_failed`;
/// `409` `endpoint_changed` (it kept changing; retry); `429` `busy`.
#[utoipa::path(operation_id = "endpoints.update", patch, path = "/v1/endpoints/{id}", tag = "endpoints",
    params(("id" = String, Path, description = "The endpoint's id."),
        ("If-Match" = Option<String>, Header, description = "Apply only while the endpoint is at this `ETag` (its revision, from a read), else `412`")),
    request_body = Option<UpdateEndpoint>,
    responses((status = 200, body = EndpointOut, headers(("ETag" = String, description = "The endpoint's new revision"))),
        (status = 404, body = Problem), (status = 409, body = Problem), (status = 412, body = Problem), (status = 422, body = Problem),
        (status = 429, description = "`busy`: the tenant already has 8 schema checks or validations running or waiting; retry after `Retry-After` seconds", body = Problem)),
    security(("api_key" = [])))]
pub async fn update(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    headers: HeaderMap,
    OptionalJsonBody(body): OptionalJsonBody<UpdateEndpoint>,
) -> Result<(HeaderMap, Json<EndpointOut>), ApiError> {
    for (present, name, why) in [
        (
            body.environment.is_some(),
            "environment",
            "an endpoint stays in the environment it was created in",
        ),
        (
            body.consumer_id.is_some(),
            "consumer_id",
            "an endpoint belongs to one consumer for life",
        ),
        (body.id.is_some(), "id", "ids never change"),
        (
            body.signature_scheme.is_some(),
            "signature_scheme",
            "switch schemes by rotating the key (POST /v1/endpoints/{id}/rotate-key)",
        ),
    ] {
        if present {
            return Err(ApiError::invalid(
                "immutable_field",
                &format!("/{name}"),
                why,
            ));
        }
    }
    let if_match = changes::IfMatch::from_headers(&headers)?;
    update_with(&state, &auth, &id, if_match, |_| Ok(body.clone())).await
}

/// Delete an endpoint
///
/// Deletes the endpoint: nothing more is delivered to it, and its messages
/// still waiting (scheduled, held, in flight) end `dead_lettered`
/// (`endpoint_removed`); their records and attempts stay readable. Tenant
/// API key; `404` for an unknown or already deleted endpoint.
#[utoipa::path(operation_id = "endpoints.delete", delete, path = "/v1/endpoints/{id}", tag = "endpoints",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 204), (status = 404, body = Problem)), security(("api_key" = [])))]
pub async fn delete(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let now = state.clock.now();
    let audit = super::audit::entry(&auth, "endpoint.deleted", &id, serde_json::json!({}), now);
    let scope = auth.scope.clone();
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { endpoints::delete(&mut x, &scope, &id, now, Some(&audit)).await })
        })
        .await
        .map_err(or_not_found("endpoint"))?;
    Ok(StatusCode::NO_CONTENT)
}

/// The scope's endpoint `id`, if any: one read through the executor.
pub(crate) async fn find(
    store: &dyn Store,
    scope: &Scope,
    id: &str,
) -> Result<Option<Endpoint>, StoreError> {
    let (scope, id) = (scope.clone(), id.to_string());
    store
        .read(move |mut x| Box::pin(async move { endpoints::get(&mut x, &scope, &id).await }))
        .await
}

//! The event catalog: event types with versioned JSON Schemas.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::model::{EventType, Page};
use relay_core::{shape, validate};
use relay_store::{
    Commit, ExecutorExt as _, PageRequest, PutEventType, PutEventTypeOutcome, Scope, Store,
    StoreError, event_types,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, FieldError, Problem};
use crate::extract::{JsonBody, QueryParams};
use crate::routes::ListQuery;
use crate::schema;

/// An event type's definition: its schema and field lists (a new version
/// when they change), its description and audience.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutEventTypeBody {
    /// What the type's events mean, for the people who subscribe to them;
    /// at most 2000 characters. Default: empty.
    #[serde(default)]
    pub description: String,
    /// JSON Schema for the payload. A schema different from the current one opens a new version.
    #[schema(schema_with = relay_core::model::json_schema_field)]
    pub schema: serde_json::Value,
    /// A sample payload; it must satisfy `schema`.
    #[schema(value_type = Option<Object>)]
    pub sample: Option<serde_json::Value>,
    /// Fields always sent, even to a thin endpoint: identifiers a consumer
    /// needs to fetch the full event (`GET /v1/events/{id}`). JSON Pointers
    /// through object members that the schema declares (a pointer through an
    /// array applies to each element); at most 64; never personal data.
    /// Changing them opens a new version.
    #[serde(default)]
    pub thin_fields: Vec<String>,
    /// Fields that carry personal data: JSON Pointers the schema declares,
    /// as for `thin_fields`. An endpoint's snapshot takes them only with
    /// `allow_personal_data`, and with a warning.
    #[serde(default)]
    pub personal_data_fields: Vec<String>,
    /// Whom the type's events published without a `consumer_id` reach:
    /// `addressed` (the default: your own consumer, kind `tenant`, only) or
    /// `all_consumers` (every consumer subscribed to the type, your
    /// customers included). An event published with a `consumer_id`
    /// reaches that consumer only. Like every field of this `PUT`, an
    /// omitted audience is the default; changing it opens no new version.
    #[serde(default)]
    pub audience: relay_core::audience::Audience,
}

/// The version's field lists: each a list of field paths the schema
/// declares, and no thin field holding personal data. The paths' checks
/// share one [`shape::CheckBudget`].
fn check_field_lists(body: &PutEventTypeBody, errors: &mut Vec<FieldError>) {
    let mut budget = shape::CheckBudget::default();
    let mut parsed = Vec::with_capacity(2);
    for (name, list) in [
        ("thin_fields", &body.thin_fields),
        ("personal_data_fields", &body.personal_data_fields),
    ] {
        match shape::parse_list(list) {
            Ok(paths) => {
                for (i, p) in paths.iter().enumerate() {
                    if let Err(message) =
                        shape::check_in_schema_within(&body.schema, p, &mut budget)
                    {
                        errors.push(FieldError {
                            field: format!("/{name}/{i}"),
                            message,
                        });
                    }
                }
                parsed.push(paths);
            }
            Err(e) => {
                errors.push(FieldError {
                    field: match e.index() {
                        Some(i) => format!("/{name}/{i}"),
                        None => format!("/{name}"),
                    },
                    message: e.to_string(),
                });
                parsed.push(Vec::new());
            }
        }
    }
    let (thin, personal) = (&parsed[0], &parsed[1]);
    for (t, p) in shape::thin_personal_overlaps(thin, personal) {
        let i = thin.iter().position(|x| x == t).unwrap_or_default();
        errors.push(FieldError {
            field: format!("/thin_fields/{i}"),
            message: format!(
                "`{t}` holds personal data (`{p}` is in personal_data_fields); thin fields are sent to every endpoint, so they never do"
            ),
        });
    }
}

/// Everything `PUT` checks of a version that looks inside its schema, in
/// order: the schema's bounds (size and depth first, before anything walks
/// it), the sample's nesting, the field lists, the compiled schema (its
/// patterns), the sample against it. CPU-bound: runs on the CPU pool.
fn vet(body: &PutEventTypeBody, mut errors: Vec<FieldError>) -> Result<(), ApiError> {
    let cost = relay_core::schema_bounds::check(&body.schema).map_err(schema::bounds_error)?;
    if let Some(Err(m)) = body.sample.as_ref().map(validate::json_nesting) {
        errors.push(FieldError {
            field: "/sample".into(),
            message: m,
        });
    }
    check_field_lists(body, &mut errors);
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let validator = schema::compile(&body.schema)?;
    if let Some(sample) = &body.sample {
        schema::check_within(&validator, cost, sample, "/sample")?;
    }
    Ok(())
}

/// A built-in operational event type (`relay_core::operational`) as a catalog entry.
pub fn built_in(name: &str, environment: relay_core::model::Environment) -> Option<EventType> {
    let d = relay_core::operational::definition(name)?;
    let epoch = relay_core::time::Timestamp(0);
    Some(EventType {
        name: name.to_string(),
        description: d.description.to_string(),
        environment,
        current_version: 1,
        // Relay's own types reach the tenant's own consumer only
        // (`relay_core::audience`).
        audience: relay_core::audience::Audience::Addressed,
        versions: vec![relay_core::model::EventTypeVersion {
            version: 1,
            schema: d.schema,
            sample: Some(d.sample),
            thin_fields: d.thin_fields,
            personal_data_fields: d.personal_data_fields,
            created_at: epoch,
        }],
        created_at: epoch,
        updated_at: epoch,
    })
}

fn reserved(name: &str) -> ApiError {
    ApiError::invalid(
        "reserved_event_type",
        "name",
        format!(
            "`{name}` is one of Relay's operational event types; it cannot be redefined or published"
        ),
    )
}

/// Create or update an event type
///
/// Puts an event type in the catalog of the key's environment: the first
/// `PUT` creates it (`201`); a later one whose `schema` or `thin_fields`
/// differ from the current version's opens a new version (`200`), which
/// new events are validated against; one that changes only the
/// `description`, `audience`, `sample` or `personal_data_fields` updates the
/// type in place (`200`; marking data personal takes effect without a new
/// version).
/// Earlier versions stay, and events keep the version they were validated
/// against. The name is `noun.verb_past` in lower-case snake case
/// (`order.shipped`), at most 128 characters.
///
/// Tenant API key. Refused with `422`: `reserved_event_type` (one of Relay's
/// operational types), `validation_failed` (the name, the description, a
/// field list naming a field the schema does not declare, a thin field
/// holding personal data), `invalid_schema`, `schema_too_large`,
/// `schema_too_complex`, `unsupported_pattern`, `schema_violation` or
/// `validation_too_costly` (the sample); `429` `busy`.
#[utoipa::path(operation_id = "event_types.put", put, path = "/v1/event-types/{name}", tag = "event-types",
    params(("name" = String, Path, description = "The event type's name, e.g. `order.created`.")),
    request_body = PutEventTypeBody,
    responses((status = 201, description = "created", body = EventTypeOut),
              (status = 200, description = "updated, or a new version opened", body = EventTypeOut),
              (status = 422, description = "refused: `validation_failed`, `invalid_schema` (also a `$ref` outside the schema), `schema_too_large` (over 256 KiB), `schema_too_complex` (a `$ref` loop, or validation could cost over 10,000 subschemas per value), `unsupported_pattern` (look-around, backreferences, over 1 MiB compiled), `validation_too_costly` (the sample), `schema_violation` (the sample)", body = Problem),
              (status = 409, description = "`conflict`: another update of the same event type committed first; read it and try again", body = Problem),
              (status = 429, description = "`busy`: the tenant already has 8 schema checks or validations running or waiting; retry after `Retry-After` seconds", body = Problem)),
    security(("api_key" = [])))]
pub async fn put(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<PutEventTypeBody>,
) -> Result<(StatusCode, Json<EventTypeOut>), ApiError> {
    if relay_core::operational::is_operational(&name) {
        return Err(reserved(&name));
    }
    let mut errors = Vec::new();
    if let Err(m) = validate::event_type_name(&name) {
        errors.push(FieldError {
            field: "name".into(),
            message: m,
        });
    }
    if body.description.len() > 2000 {
        errors.push(FieldError {
            field: "/description".into(),
            message: "must be at most 2000 characters".into(),
        });
    }
    let (body, vetted) = state
        .cpu
        .run(&auth.scope.tenant_id, move || {
            let vetted = vet(&body, errors);
            (body, vetted)
        })
        .await?;
    vetted?;
    let (scope, put) = (
        auth.scope.clone(),
        PutEventType {
            name,
            description: body.description,
            schema: body.schema,
            sample: body.sample,
            thin_fields: body.thin_fields,
            personal_data_fields: body.personal_data_fields,
            audience: body.audience,
            now: state.clock.now(),
        },
    );
    let (et, outcome) = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { event_types::put(&mut x, &scope, &put).await })
        })
        .await?;
    state.event_types.clear();
    let status = match outcome {
        PutEventTypeOutcome::Created => StatusCode::CREATED,
        PutEventTypeOutcome::NewVersion | PutEventTypeOutcome::Updated => StatusCode::OK,
    };
    let warnings = et.current().map(thin_warnings).unwrap_or_default();
    Ok((
        status,
        Json(EventTypeOut {
            event_type: et,
            warnings,
        }),
    ))
}

/// An event type as `PUT` answers it, with the warnings its current version
/// deserves.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventTypeOut {
    #[serde(flatten)]
    pub event_type: EventType,
    /// What deserves a second look (a sample whose thin payload is over the
    /// 20 kB a thin event should stay under); empty when nothing does.
    pub warnings: Vec<String>,
}

/// A thin payload should stay under 20 kB (the reference): the version's
/// sample, projected onto its thin fields, says whether it does.
fn thin_warnings(v: &relay_core::model::EventTypeVersion) -> Vec<String> {
    let (Some(sample), Ok(thin)) = (&v.sample, shape::parse_list(&v.thin_fields)) else {
        return Vec::new();
    };
    let fields: Vec<&shape::FieldPath> = thin.iter().collect();
    match shape::project(&sample.to_string(), &fields) {
        Ok(p) if p.len() > shape::THIN_TARGET_BYTES => vec![format!(
            "the sample's thin payload is {} bytes, over the 20 kB a thin event should stay under: thin fields should name identifiers only",
            p.len()
        )],
        _ => Vec::new(),
    }
}

/// Get an event type
///
/// Returns an event type of the key's environment with all of its schema
/// versions, or one of Relay's own operational or system types. Tenant API
/// key; `404` when the catalog has no such type.
#[utoipa::path(operation_id = "event_types.get", get, path = "/v1/event-types/{name}", tag = "event-types",
    params(("name" = String, Path, description = "The event type's name, e.g. `order.created`.")),
    responses((status = 200, body = EventType), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(name): Path<String>,
) -> Result<Json<EventType>, ApiError> {
    if let Some(b) = built_in(&name, auth.scope.environment) {
        return Ok(Json(b));
    }
    find(&*state.store, &auth.scope, &name)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("event type"))
}

/// List event types
///
/// Lists the catalog of the key's environment by name, a page at a time,
/// each type with all of its schema versions. Relay's own operational
/// types come first, on the first page. Tenant API key.
#[utoipa::path(operation_id = "event_types.list", get, path = "/v1/event-types", tag = "event-types",
    params(ListQuery),
    responses((status = 200, description = "The catalog by name, a page at a time; Relay's operational event types come first, on the first page.", body = Page<EventType>),
              (status = 400, body = Problem)),
    security(("api_key" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    QueryParams(q): QueryParams<ListQuery>,
) -> Result<Json<Page<EventType>>, ApiError> {
    let page = q.page()?;
    let first = page.after.is_none();
    let stored = stored_page(&*state.store, &auth.scope, &page).await?;
    let built_ins = relay_core::operational::all()
        .filter(|_| first)
        .filter_map(|n| built_in(n, auth.scope.environment));
    Ok(Json(with_built_ins(stored, built_ins)))
}

/// A page of the stored catalog, with Relay's operational event types
/// before it when it is the first page (a fixed handful: the page stays
/// bounded, and the cursor stays the last stored name).
pub fn with_built_ins(
    stored: Page<EventType>,
    built_ins: impl Iterator<Item = EventType>,
) -> Page<EventType> {
    let mut data: Vec<EventType> = built_ins.collect();
    data.extend(stored.data);
    Page {
        data,
        next_after: stored.next_after,
    }
}

/// The scope's event type `name`, if any: one read through the executor.
pub(crate) async fn find(
    store: &dyn Store,
    scope: &Scope,
    name: &str,
) -> Result<Option<EventType>, StoreError> {
    let (scope, name) = (scope.clone(), name.to_string());
    store
        .read(move |mut x| Box::pin(async move { event_types::get(&mut x, &scope, &name).await }))
        .await
}

/// One page of the scope's stored event types by name (Relay's own are not
/// stored: [`with_built_ins`]).
pub(crate) async fn stored_page(
    store: &dyn Store,
    scope: &Scope,
    page: &PageRequest,
) -> Result<Page<EventType>, StoreError> {
    let (scope, page) = (scope.clone(), page.clone());
    store
        .read(move |mut x| Box::pin(async move { event_types::list(&mut x, &scope, &page).await }))
        .await
}

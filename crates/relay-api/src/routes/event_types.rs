//! The event catalog: event types with versioned JSON Schemas.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::model::EventType;
use relay_core::validate;
use relay_store::{PutEventType, PutEventTypeOutcome};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, FieldError, Problem};
use crate::extract::JsonBody;
use crate::schema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutEventTypeBody {
    #[serde(default)]
    pub description: String,
    /// JSON Schema for the payload. A schema different from the current one opens a new version.
    #[schema(schema_with = relay_core::model::json_schema_field)]
    pub schema: serde_json::Value,
    /// A sample payload; it must satisfy `schema`.
    #[schema(value_type = Option<Object>)]
    pub sample: Option<serde_json::Value>,
    /// JSON Pointers to fields that carry personal data.
    #[serde(default)]
    pub personal_data_fields: Vec<String>,
}

/// A built-in operational event type (`relay_core::operational`) as a catalog entry.
pub fn built_in(name: &str, environment: relay_core::model::Environment) -> Option<EventType> {
    let (description, schema, sample) = relay_core::operational::definition(name)?;
    let epoch = relay_core::time::Timestamp(0);
    Some(EventType {
        name: name.to_string(),
        description: description.to_string(),
        environment,
        current_version: 1,
        versions: vec![relay_core::model::EventTypeVersion {
            version: 1,
            schema,
            sample: Some(sample),
            personal_data_fields: vec![],
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

#[derive(Debug, Serialize, ToSchema)]
pub struct EventTypeList {
    pub data: Vec<EventType>,
}

#[utoipa::path(operation_id = "event_types_put", put, path = "/v1/event-types/{name}", tag = "event-types",
    params(("name" = String, Path, description = "The event type's name, e.g. `order.created`.")),
    request_body = PutEventTypeBody,
    responses((status = 201, description = "created", body = EventType),
              (status = 200, description = "updated, or a new version opened", body = EventType),
              (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn put(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<PutEventTypeBody>,
) -> Result<(StatusCode, Json<EventType>), ApiError> {
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
    for (i, p) in body.personal_data_fields.iter().enumerate() {
        if let Err(m) = validate::json_pointer(p) {
            errors.push(FieldError {
                field: format!("/personal_data_fields/{i}"),
                message: m,
            });
        }
    }
    if let Err(m) = validate::json_nesting(&body.schema) {
        errors.push(FieldError {
            field: "/schema".into(),
            message: m,
        });
    }
    if let Some(Err(m)) = body.sample.as_ref().map(validate::json_nesting) {
        errors.push(FieldError {
            field: "/sample".into(),
            message: m,
        });
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let validator = schema::compile(&body.schema)?;
    if let Some(sample) = &body.sample {
        schema::check(&validator, sample, "/sample")?;
    }
    let (et, outcome) = state
        .store
        .put_event_type(
            &auth.scope,
            &PutEventType {
                name,
                description: body.description,
                schema: body.schema,
                sample: body.sample,
                personal_data_fields: body.personal_data_fields,
                now: state.clock.now(),
            },
        )
        .await?;
    state.event_types.clear();
    let status = match outcome {
        PutEventTypeOutcome::Created => StatusCode::CREATED,
        PutEventTypeOutcome::NewVersion | PutEventTypeOutcome::Updated => StatusCode::OK,
    };
    Ok((status, Json(et)))
}

#[utoipa::path(operation_id = "event_types_get", get, path = "/v1/event-types/{name}", tag = "event-types",
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
    state
        .store
        .get_event_type(&auth.scope, &name)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("event type"))
}

#[utoipa::path(operation_id = "event_types_list", get, path = "/v1/event-types", tag = "event-types",
    responses((status = 200, body = EventTypeList)), security(("api_key" = [])))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
) -> Result<Json<EventTypeList>, ApiError> {
    let mut data = state.store.list_event_types(&auth.scope).await?;
    data.extend(
        relay_core::operational::ALL
            .iter()
            .filter_map(|n| built_in(n, auth.scope.environment)),
    );
    Ok(Json(EventTypeList { data }))
}

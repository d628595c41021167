//! `application/problem+json` errors with stable codes.
//!
//! Every failure the API returns is an [`ApiError`]: an HTTP status, a stable
//! machine `code`, a human `detail`, and for validation failures the list of
//! fields at fault. Store errors map here in one place; an infrastructure error
//! is logged with its source and shown to the client without internals.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use relay_store::StoreError;
use serde::Serialize;
use utoipa::ToSchema;

/// One field at fault in a request.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FieldError {
    /// Where: a JSON Pointer into the body (`/destination/url`) or a query parameter name.
    pub field: String,
    /// What is wrong with it, for people.
    pub message: String,
}

/// The problem+json body (RFC 9457) with Relay's `code` extension.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Problem {
    /// The problem type, a URI naming the code: `urn:relay:problem:<code>`.
    #[serde(rename = "type")]
    pub problem_type: String,
    /// The HTTP status's reason phrase (`Unprocessable Entity`).
    pub title: String,
    /// The HTTP status code, as answered.
    pub status: u16,
    /// What went wrong, for people; never a secret or an internal detail.
    pub detail: String,
    /// Stable machine-readable code, e.g. `schema_violation`, `invalid_url`, `limit_reached`.
    pub code: String,
    /// The fields at fault, for a refused body or query; absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    /// For malformed JSON: the line where parsing stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// For malformed JSON: the column where parsing stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub detail: String,
    pub errors: Vec<FieldError>,
    pub position: Option<(usize, usize)>,
    /// Sent as `Retry-After` (whole seconds), with a `429` or `503`.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            detail: detail.into(),
            errors: Vec::new(),
            position: None,
            retry_after: None,
        }
    }

    /// `429` with `Retry-After: seconds`.
    pub fn too_many(code: &'static str, detail: impl Into<String>, seconds: u64) -> Self {
        ApiError {
            retry_after: Some(seconds.max(1)),
            ..Self::new(StatusCode::TOO_MANY_REQUESTS, code, detail)
        }
    }

    pub fn not_found(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("{what} not found"),
        )
    }

    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", detail)
    }

    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", detail)
    }

    /// `422` with one field error.
    pub fn invalid(code: &'static str, field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        ApiError {
            errors: vec![FieldError {
                field: field.to_string(),
                message: message.clone(),
            }],
            ..Self::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                code,
                format!("{field}: {message}"),
            )
        }
    }

    /// `422 validation_failed` listing every field at fault.
    pub fn fields(errors: Vec<FieldError>) -> Self {
        let detail = errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect::<Vec<_>>()
            .join("; ");
        ApiError {
            errors,
            ..Self::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "validation_failed",
                detail,
            )
        }
    }

    pub fn internal() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "an internal error occurred; it has been logged",
        )
    }

    fn title(&self) -> String {
        self.status
            .canonical_reason()
            .unwrap_or("Error")
            .to_string()
    }

    pub fn problem(&self) -> Problem {
        Problem {
            problem_type: format!("urn:relay:problem:{}", self.code),
            title: self.title(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            code: self.code.to_string(),
            errors: self.errors.clone(),
            line: self.position.map(|p| p.0),
            column: self.position.map(|p| p.1),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::to_vec(&self.problem()).unwrap_or_default();
        let mut response = (self.status, body).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl From<relay_core::lifecycle::IllegalTransition> for ApiError {
    fn from(e: relay_core::lifecycle::IllegalTransition) -> Self {
        ApiError::new(
            StatusCode::CONFLICT,
            relay_core::lifecycle::IllegalTransition::CODE,
            e.message(),
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => ApiError::not_found("resource"),
            StoreError::Conflict("endpoint_state_changed") => ApiError::new(
                StatusCode::CONFLICT,
                "endpoint_state_changed",
                "the endpoint's state changed while this request ran; read it and try again",
            ),
            StoreError::Conflict(what) => ApiError::new(
                StatusCode::CONFLICT,
                "conflict",
                format!("conflict: {}", conflict_detail(what)),
            ),
            StoreError::LimitReached(what) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "limit_reached",
                format!(
                    "the operator's limit on {} is reached",
                    what.replace('_', " ")
                ),
            ),
            StoreError::MissingReference(field) => {
                ApiError::invalid("unknown_reference", field, "no such object")
            }
            other => {
                tracing::error!(error = %other, source = ?std::error::Error::source(&other), "store failure");
                ApiError::internal()
            }
        }
    }
}

fn conflict_detail(what: &str) -> &'static str {
    match what {
        "external_id" => "a consumer with this external_id already exists",
        "consumer_has_endpoints" => "the consumer still has endpoints; delete them first",
        "event_type_concurrent_update" => "the event type was changed concurrently; retry",
        "not_addressed" => "the event is not meant for this endpoint's consumer",
        _ => "the object already exists",
    }
}

/// Maps a store `NotFound` to a `404` naming `what`; other errors as usual.
pub fn or_not_found(what: &'static str) -> impl FnOnce(StoreError) -> ApiError {
    move |e| match e {
        StoreError::NotFound => ApiError::not_found(what),
        other => other.into(),
    }
}

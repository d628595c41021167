//! Request extractors that fail with problem+json.
//!
//! - [`JsonBody`]: reads the body within the configured limit (`413`), parses
//!   JSON (`400 malformed_json` with line and column), then maps it onto the
//!   request type (`422 validation_failed` naming the field).
//! - [`QueryParams`]: query strings, `400 invalid_query` naming the parameter.
//! - [`OperatorAuth`] and [`TenantAuth`]: who is calling (see `auth`).

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, FieldError};

/// A JSON request body of type `T`.
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "payload_too_large",
                    "the request body is larger than the configured limit (max_request_bytes)",
                )
            } else {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "unreadable_body",
                    "the request body could not be read",
                )
            }
        })?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// Parses `bytes` as JSON into `T`: syntax errors are `400` with the position,
/// shape errors `422` with the JSON path of the field.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // First: is it JSON at all? This separates syntax from shape errors.
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
        let detail = if bytes.is_empty() {
            "the request body is empty; a JSON object is expected".to_string()
        } else {
            format!("malformed JSON: {e}")
        };
        let mut err = ApiError::new(StatusCode::BAD_REQUEST, "malformed_json", detail);
        err.position = Some((e.line(), e.column()));
        return Err(err);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." {
            "/".to_string()
        } else {
            format!("/{}", path.replace('.', "/"))
        };
        let message = e.inner().to_string();
        // serde's message ends with " at line X column Y": drop it, the field says where.
        let message = match message.find(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        ApiError::fields(vec![FieldError { field, message }])
    })
}

/// Query parameters of type `T`.
pub struct QueryParams<T>(pub T);

impl<S, T> FromRequestParts<S> for QueryParams<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        let de = serde_urlencoded_deserializer(query);
        serde_path_to_error::deserialize(de)
            .map(QueryParams)
            .map_err(|e| {
                let mut err = ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "invalid_query",
                    format!("invalid query parameter `{}`: {}", e.path(), e.inner()),
                );
                err.errors = vec![FieldError {
                    field: e.path().to_string(),
                    message: e.inner().to_string(),
                }];
                err
            })
    }
}

fn serde_urlencoded_deserializer(query: &str) -> serde_urlencoded::Deserializer<'_> {
    serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()))
}

//! Request extractors that fail with problem+json.
//!
//! - [`JsonBody`]: reads the body within the configured limit (`413`), parses
//!   JSON (`400 malformed_json` with line and column), then maps it onto the
//!   request type (`422 validation_failed` naming the field).
//! - [`OptionalJsonBody`]: the same for a body whose fields are all optional;
//!   an empty body reads as `{}`.
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
        let bytes = body_bytes(req, state).await?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// A JSON request body of type `T` whose fields are all optional: an empty
/// body (no bytes, whatever the `Content-Type`, or none) reads as `{}`, so a
/// client may send nothing to take every default. Declare it in the
/// operation's annotation as `request_body = Option<T>` (not required).
pub struct OptionalJsonBody<T>(pub T);

impl<S, T> FromRequest<S> for OptionalJsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = body_bytes(req, state).await?;
        let bytes: &[u8] = if bytes.is_empty() { b"{}" } else { &bytes };
        parse_json(bytes).map(OptionalJsonBody)
    }
}

/// The body within the configured limit (`413`).
async fn body_bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|rejection| {
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
    })
}

/// Parses `bytes` as JSON into `T`: syntax errors are `400` with the position,
/// shape errors `422` with the JSON path of the field.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // JSON text is UTF-8; serde_json only notices bad bytes inside strings
    // when it decodes them, which would look like a shape error.
    if let Err(e) = std::str::from_utf8(bytes) {
        let valid = &bytes[..e.valid_up_to()];
        let line = 1 + valid.iter().filter(|b| **b == b'\n').count();
        let column = 1 + valid.len() - valid.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let mut err = ApiError::new(
            StatusCode::BAD_REQUEST,
            "malformed_json",
            format!("malformed JSON: invalid UTF-8 at line {line} column {column}"),
        );
        err.position = Some((line, column));
        return Err(err);
    }
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
        let message = e.inner().to_string();
        // serde's message ends with " at line X column Y": drop it, the field says where.
        let message = match message.find(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        let field = json_pointer(e.path(), &message);
        ApiError::fields(vec![FieldError { field, message }])
    })
}

/// A member name or index as a JSON Pointer token (RFC 6901: `~` → `~0`,
/// `/` → `~1`).
pub(crate) fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// The JSON Pointer of the field at fault: the path where deserializing
/// stopped, plus the name of a missing field (serde reports it at the parent).
fn json_pointer(path: &serde_path_to_error::Path, message: &str) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    let mut push = |token: &str| {
        pointer.push('/');
        pointer.push_str(&pointer_token(token));
    };
    for segment in path {
        match segment {
            Segment::Seq { index } => push(&index.to_string()),
            Segment::Map { key } => push(key),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    // A missing field is reported at its parent; an unknown one too when it
    // sits in buffered content (an internally tagged enum such as `destination`).
    let last = path.iter().next_back().and_then(|s| match s {
        Segment::Map { key } => Some(key.as_str()),
        _ => None,
    });
    for prefix in ["missing field `", "unknown field `"] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some(end) = rest.find('`')
            && (prefix.starts_with("missing") || last != Some(&rest[..end]))
        {
            push(&rest[..end]);
        }
    }
    if pointer.is_empty() {
        pointer.push('/');
    }
    pointer
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

//! Typed errors: a problem+json answer becomes [`Error::Problem`].

use std::time::Duration;

use serde_json::Value;

/// Anything that went wrong calling Relay.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Relay answered an error (RFC 9457 problem+json): see [`Problem`].
    #[error("{0}")]
    Problem(Box<Problem>),
    /// No answer: the connection failed (after the retries allowed).
    #[error("no answer from Relay ({message}); request {request_id}")]
    Connection { message: String, request_id: String },
    /// No answer within the client's timeout (after the retries allowed).
    #[error("Relay did not answer within {timeout:?}; request {request_id}")]
    Timeout {
        timeout: Duration,
        request_id: String,
    },
    /// A success answer that is not what the API documents.
    #[error("an answer of Relay could not be read ({message}); request {request_id}")]
    Decode { message: String, request_id: String },
    /// The request could not be made (a body that does not serialize, a
    /// header value that is not text).
    #[error("the request could not be made: {0}")]
    Request(String),
    /// The client's settings are wrong (a base URL that is no `http(s)` URL,
    /// a CA file that holds no certificate, …).
    #[error("invalid client settings: {0}")]
    Config(String),
}

impl Error {
    /// The problem, when Relay answered an error.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            Error::Problem(p) => Some(p),
            _ => None,
        }
    }

    /// The HTTP status of Relay's answer, when there was one.
    pub fn status(&self) -> Option<u16> {
        self.problem().map(|p| p.status)
    }

    /// Relay's stable code (`schema_violation`, `not_found`, …).
    pub fn code(&self) -> Option<&str> {
        self.problem().map(|p| p.code.as_str())
    }

    /// The request's id (quote it in a support request).
    pub fn request_id(&self) -> Option<&str> {
        match self {
            Error::Problem(p) => p.request_id.as_deref(),
            Error::Connection { request_id, .. }
            | Error::Timeout { request_id, .. }
            | Error::Decode { request_id, .. } => Some(request_id),
            Error::Request(_) | Error::Config(_) => None,
        }
    }
}

/// One field at fault: a JSON Pointer (or a query parameter) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

/// An error answer of Relay.
///
/// `status` is the HTTP status, `code` Relay's stable machine-readable code
/// (`schema_violation`, `unknown_event_type`, …; `http_<status>` when the
/// body had none), `errors` the fields at fault (empty when none),
/// `request_id` the request's id (the `X-Request-Id` the SDK sent with that
/// attempt, or the one Relay answered with), `body` the whole problem.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub status: u16,
    pub code: String,
    pub title: String,
    pub detail: String,
    pub errors: Vec<FieldError>,
    pub request_id: Option<String>,
    /// `Retry-After` of a `429`/`503` still answered after the last retry.
    pub retry_after: Option<Duration>,
    pub body: Value,
}

impl Problem {
    /// The problem of an error answer's body (any body: one that is not
    /// problem+json still gives the status and `http_<status>`).
    pub fn from_answer(
        status: u16,
        body: &[u8],
        request_id: Option<String>,
        retry_after: Option<Duration>,
    ) -> Problem {
        let body: Value = serde_json::from_slice(body)
            .ok()
            .filter(Value::is_object)
            .unwrap_or(Value::Null);
        let text = |name: &str| {
            body.get(name)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let errors = body
            .get("errors")
            .and_then(Value::as_array)
            .map(|errors| {
                errors
                    .iter()
                    .filter(|e| e.is_object())
                    .map(|e| FieldError {
                        field: e
                            .get("field")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        message: e
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let code = body
            .get("code")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("http_{status}"));
        Problem {
            status,
            code,
            title: text("title"),
            detail: text("detail"),
            errors,
            request_id,
            retry_after,
            body,
        }
    }

    /// `422`: the request was understood but refused.
    pub fn is_validation(&self) -> bool {
        self.status == 422
    }

    /// `404`: no such object (in this key's tenant and environment).
    pub fn is_not_found(&self) -> bool {
        self.status == 404
    }

    /// `401` or `403`: the key is missing, wrong, revoked or not allowed this.
    pub fn is_authentication(&self) -> bool {
        matches!(self.status, 401 | 403)
    }

    /// `409`: the object changed or already exists.
    pub fn is_conflict(&self) -> bool {
        self.status == 409
    }

    /// `429` or `503`: still refused after the last retry.
    pub fn is_rate_limited(&self) -> bool {
        matches!(self.status, 429 | 503)
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.detail.is_empty() {
            &self.title
        } else {
            &self.detail
        };
        write!(f, "{} {}: {}", self.status, self.code, what)?;
        if let Some(id) = &self.request_id {
            write!(f, " (request {id})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_body_gives_code_errors_and_the_request_id() {
        let body = br#"{"type":"https://relay.dev/problems/schema_violation","title":"Unprocessable","status":422,
            "detail":"data does not match","code":"schema_violation",
            "errors":[{"field":"/data","message":"\"total\" is a required property"}, 7]}"#;
        let p = Problem::from_answer(422, body, Some("req_1".into()), None);
        assert_eq!(p.code, "schema_violation");
        assert_eq!(
            p.errors,
            vec![FieldError {
                field: "/data".into(),
                message: "\"total\" is a required property".into()
            }]
        );
        assert!(p.is_validation() && !p.is_not_found());
        let e = Error::Problem(Box::new(p));
        assert_eq!(
            (e.status(), e.code(), e.request_id()),
            (Some(422), Some("schema_violation"), Some("req_1"))
        );
        assert_eq!(
            e.to_string(),
            "422 schema_violation: data does not match (request req_1)"
        );
    }

    #[test]
    fn a_body_that_is_no_problem_still_gives_the_status() {
        for body in [
            &b"<html>bad gateway</html>"[..],
            b"",
            b"[1,2]",
            b"{\"code\": 5}",
        ] {
            let p = Problem::from_answer(502, body, None, None);
            assert_eq!(
                (p.status, p.code.as_str(), p.errors.len()),
                (502, "http_502", 0)
            );
        }
    }
}

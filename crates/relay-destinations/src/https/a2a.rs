//! The A2A push profile of an HTTPS endpoint (`a2a_push`, docs/a2a.md): an
//! A2A task's push notification configuration (`TaskPushNotificationConfig`:
//! the URL is the endpoint's, the `token` and the `authentication`
//! credentials secret references) registered as an endpoint. Its
//! deliveries are the event's data, the task's `StreamResponse`, as
//! `application/a2a+json`, with `Authorization: {scheme} {credentials}` and
//! `X-A2A-Notification-Token: {token}` beside the Standard Webhooks headers;
//! everything else (the guard, the classification, retries) is the HTTPS
//! kind's.
//!
//! Pure checks here: [`check`] at registration, [`check_values`] once the
//! references resolve, [`request_headers`] when the client is built.

use relay_core::a2a::{MAX_TASK_ID, TOKEN_HEADER};
use relay_core::secret::{SecretRef, Secrets, Unresolved};
use relay_net::{HeaderName, HeaderValue};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::HttpsDestination;
use super::headers;
use crate::Invalid;

/// The longest authentication scheme name.
pub const MAX_SCHEME: usize = 64;

/// An A2A task's push notification configuration: deliveries to the
/// endpoint are that task's updates (`a2a.task.status_updated`,
/// `a2a.task.artifact_updated`), each the A2A `StreamResponse` JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct A2aPush {
    /// The A2A task whose updates the endpoint receives (the config's
    /// `taskId`): an update of any other task is never sent to it.
    #[schema(min_length = 1, max_length = 255)]
    pub task_id: String,
    /// A secret reference to the config's `token`, sent as
    /// `X-A2A-Notification-Token`; absent: no such header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = false, pattern = "^(secret:|env:|file:/)")]
    pub token: Option<SecretRef>,
    /// The config's `authentication`, sent as `Authorization: {scheme}
    /// {credentials}`; absent: no such header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(inline)]
    pub authentication: Option<A2aAuthentication>,
}

/// The config's `AuthenticationInfo`: the scheme and a secret reference to
/// the credentials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct A2aAuthentication {
    /// The HTTP authentication scheme (`Bearer`, `Basic`, …): an HTTP token.
    #[schema(min_length = 1, max_length = 64)]
    pub scheme: String,
    /// A secret reference to the credentials (for `Bearer`, the token).
    #[schema(value_type = String, pattern = "^(secret:|env:|file:/)")]
    pub credentials: SecretRef,
}

/// Checks the profile at registration: the task id, the scheme, and no
/// second source of the headers it sets (an OAuth 2.0 token or a custom
/// header of the same name).
pub fn check(config: &HttpsDestination) -> Result<(), Invalid> {
    let Some(a2a) = &config.a2a_push else {
        return Ok(());
    };
    if a2a.task_id.is_empty()
        || a2a.task_id.len() > MAX_TASK_ID
        || a2a.task_id.chars().any(char::is_control)
    {
        return Err(Invalid {
            code: "validation_failed",
            pointer: "/destination/a2a_push/task_id",
            message: format!("must be 1 to {MAX_TASK_ID} bytes without control characters"),
        });
    }
    if let Some(auth) = &a2a.authentication {
        if auth.scheme.len() > MAX_SCHEME || !headers::valid_name(&auth.scheme) {
            return Err(Invalid {
                code: "validation_failed",
                pointer: "/destination/a2a_push/authentication/scheme",
                message: format!(
                    "must be an HTTP authentication scheme (a token of 1 to {MAX_SCHEME} characters, such as Bearer)"
                ),
            });
        }
        if config.auth.as_ref().is_some_and(|a| a.oauth2.is_some()) {
            return Err(Invalid {
                code: "conflicting_authorization",
                pointer: "/destination/a2a_push/authentication",
                message:
                    "the A2A authentication and OAuth 2.0 would both set `Authorization`; keep one"
                        .into(),
            });
        }
    }
    let ours = |name: &str| {
        name.eq_ignore_ascii_case(TOKEN_HEADER)
            || (a2a.authentication.is_some() && name.eq_ignore_ascii_case("authorization"))
    };
    if let Some(h) = config.headers.iter().find(|h| ours(&h.name)) {
        return Err(Invalid {
            code: "reserved_header",
            pointer: "/destination/headers",
            message: format!(
                "`{}` is set by the A2A push profile (`a2a_push`); remove the custom header",
                h.name
            ),
        });
    }
    Ok(())
}

/// The secret references of the profile, with their pointer.
pub fn secret_refs(config: &HttpsDestination) -> Vec<(&'static str, &SecretRef)> {
    let Some(a2a) = &config.a2a_push else {
        return Vec::new();
    };
    a2a.token
        .iter()
        .map(|t| ("/destination/a2a_push/token", t))
        .chain(a2a.authentication.iter().map(|a| {
            (
                "/destination/a2a_push/authentication/credentials",
                &a.credentials,
            )
        }))
        .collect()
}

/// The `Authorization` value: `{scheme} {credentials}`.
fn authorization(auth: &A2aAuthentication, credentials: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(auth.scheme.len() + 1 + credentials.len());
    v.extend_from_slice(auth.scheme.as_bytes());
    v.push(b' ');
    v.extend_from_slice(credentials);
    v
}

/// Checks, once the references resolve, that the token and the
/// `Authorization` value are header values (printable ASCII, no leading or
/// trailing space, at most 1024 bytes), so that every delivery can carry
/// them. The message names the field, never the value.
pub fn check_values(config: &HttpsDestination, secrets: &Secrets) -> Result<(), Invalid> {
    let Some(a2a) = &config.a2a_push else {
        return Ok(());
    };
    let refused = |pointer: &'static str| Invalid {
        code: "invalid_secret_value",
        pointer,
        message: "the secret's value is not an HTTP header value (printable ASCII, no leading or \
                  trailing space, at most 1024 bytes)"
            .into(),
    };
    if let Some(t) = &a2a.token
        && let Some(value) = secrets.get(t)
        && (value.expose().is_empty() || !headers::valid_value(value.expose()))
    {
        return Err(refused("/destination/a2a_push/token"));
    }
    if let Some(auth) = &a2a.authentication
        && let Some(value) = secrets.get(&auth.credentials)
        && (value.expose().is_empty()
            || !headers::valid_value(&authorization(auth, value.expose())))
    {
        return Err(refused("/destination/a2a_push/authentication/credentials"));
    }
    Ok(())
}

/// The profile's headers, their values resolved and marked sensitive
/// (never in `Debug`, redacted from a response that echoes them).
pub fn request_headers(
    config: &HttpsDestination,
    secrets: &Secrets,
) -> Result<Vec<(HeaderName, HeaderValue)>, Unresolved> {
    let Some(a2a) = &config.a2a_push else {
        return Ok(Vec::new());
    };
    let sensitive = |bytes: &[u8], reference: &SecretRef| {
        if bytes.is_empty() || !headers::valid_value(bytes) {
            return Err(Unresolved(reference.clone()));
        }
        let mut v = HeaderValue::from_bytes(bytes).map_err(|_| Unresolved(reference.clone()))?;
        v.set_sensitive(true);
        Ok(v)
    };
    let mut out = Vec::with_capacity(2);
    if let Some(auth) = &a2a.authentication {
        let credentials = secrets.require(&auth.credentials)?;
        out.push((
            HeaderName::from_static("authorization"),
            sensitive(
                &authorization(auth, credentials.expose()),
                &auth.credentials,
            )?,
        ));
    }
    if let Some(t) = &a2a.token {
        let token = secrets.require(t)?;
        out.push((
            HeaderName::from_static(TOKEN_HEADER),
            sensitive(token.expose(), t)?,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

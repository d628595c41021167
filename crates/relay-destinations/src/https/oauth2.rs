//! OAuth 2.0 client credentials (RFC 6749 §4.4) for HTTPS endpoints.
//!
//! The pure parts are here: the configuration check at registration
//! ([`check`]; the token URL itself is checked by the guard in the kind's
//! `validate`), the token request ([`token_request`]: a form `POST`, the
//! client authenticated by `client_secret_basic` or `client_secret_post`),
//! the reading of the token endpoint's answer ([`read_answer`]) and how long
//! a token is reused ([`refresh_at`]). The token cache of one endpoint, with
//! its single flight and its fetch through the guarded client, is
//! [`source::TokenSource`].
//!
//! Nothing of the client secret or a token reaches an error, a record or
//! `Debug`: an error answer keeps only its status, its `error` code and a
//! bounded `error_description` of RFC 6749's characters with the client
//! secret cut out ([`TokenError`]).

pub mod source;

use std::net::SocketAddr;

use crate::https::{ClientAuthMethod, HttpsHeader, OAuth2ClientCredentials};
use bytes::Bytes;
use relay_core::outcome::{OAuthError, TokenFailure};
use relay_core::time::Timestamp;
use relay_net::{ErrorKind, HeaderName, HeaderValue};

use crate::Invalid;

/// The longest `client_id`.
pub const MAX_CLIENT_ID: usize = 256;
/// The most scopes, and the longest one.
pub const MAX_SCOPES: usize = 32;
pub const MAX_SCOPE: usize = 128;
/// The longest `audience`.
pub const MAX_AUDIENCE: usize = 512;
/// The longest token URL.
pub const MAX_TOKEN_URL: usize = 2048;
/// The most bytes of a token endpoint's answer read.
pub const MAX_ANSWER_BYTES: usize = 16 * 1024;
/// How long a token without `expires_in` is taken to live.
pub const DEFAULT_EXPIRES_IN: u64 = 300;
/// The longest lifetime honoured (a day): a token is fetched again at least daily.
pub const MAX_EXPIRES_IN: u64 = 86_400;
/// A token is fetched again this long before it expires at most (or 10 %
/// of its lifetime when that is shorter).
pub const REFRESH_MARGIN_SECONDS: u64 = 60;
/// The longest `error_description` kept.
pub const MAX_DESCRIPTION: usize = 200;
/// The longest `error` code kept.
pub const MAX_ERROR_CODE: usize = 64;

fn invalid(code: &'static str, pointer: &'static str, message: String) -> Invalid {
    Invalid {
        code,
        pointer,
        message,
    }
}

/// RFC 6749 VSCHAR: printable ASCII and space.
fn vschar(s: &str) -> bool {
    s.bytes().all(|b| (0x20..=0x7e).contains(&b))
}

/// RFC 6749 NQCHAR (a scope token's characters): printable ASCII without
/// space, `"` and `\`.
fn nqchar(s: &str) -> bool {
    s.bytes()
        .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
}

/// Checks the client credentials at registration, with the endpoint's
/// custom headers (an `Authorization` header would fight the bearer token).
pub fn check(config: &OAuth2ClientCredentials, headers: &[HttpsHeader]) -> Result<(), Invalid> {
    if headers
        .iter()
        .any(|h| h.name.eq_ignore_ascii_case("authorization"))
    {
        return Err(invalid(
            "authorization_header_conflict",
            "/destination/headers",
            "a custom Authorization header cannot be combined with auth.oauth2, which sets it"
                .into(),
        ));
    }
    if config.token_url.len() > MAX_TOKEN_URL {
        return Err(invalid(
            "invalid_token_url",
            "/destination/auth/oauth2/token_url",
            format!("the token URL is at most {MAX_TOKEN_URL} bytes"),
        ));
    }
    if config.client_id.is_empty()
        || config.client_id.len() > MAX_CLIENT_ID
        || !vschar(&config.client_id)
    {
        return Err(invalid(
            "invalid_client_id",
            "/destination/auth/oauth2/client_id",
            format!("a client id is 1 to {MAX_CLIENT_ID} characters of printable ASCII"),
        ));
    }
    if config.scopes.len() > MAX_SCOPES {
        return Err(invalid(
            "invalid_scope",
            "/destination/auth/oauth2/scopes",
            format!("at most {MAX_SCOPES} scopes, not {}", config.scopes.len()),
        ));
    }
    for (i, s) in config.scopes.iter().enumerate() {
        if s.is_empty() || s.len() > MAX_SCOPE || !nqchar(s) {
            return Err(invalid(
                "invalid_scope",
                "/destination/auth/oauth2/scopes",
                format!(
                    "scope {i}: a scope is 1 to {MAX_SCOPE} characters of printable ASCII without space, '\"' or '\\'"
                ),
            ));
        }
        if config.scopes[..i].contains(s) {
            return Err(invalid(
                "invalid_scope",
                "/destination/auth/oauth2/scopes",
                format!("scope {i} ({s}) is listed twice"),
            ));
        }
    }
    if let Some(a) = &config.audience
        && (a.is_empty() || a.len() > MAX_AUDIENCE || !vschar(a) || a.trim() != a)
    {
        return Err(invalid(
            "invalid_audience",
            "/destination/auth/oauth2/audience",
            format!(
                "an audience is 1 to {MAX_AUDIENCE} characters of printable ASCII without leading or trailing space"
            ),
        ));
    }
    Ok(())
}

/// The token request's headers and form body. `client_secret_basic`: the
/// id and secret are each form-urlencoded, then joined by `:` and base64
/// encoded (RFC 6749 §2.3.1); `client_secret_post`: both in the form.
/// The `Authorization` value is marked sensitive.
pub fn token_request(
    config: &OAuth2ClientCredentials,
    secret: &[u8],
) -> (Vec<(HeaderName, HeaderValue)>, Bytes) {
    use base64::Engine as _;
    let mut form = form_urlencoded::Serializer::new(String::new());
    form.append_pair("grant_type", "client_credentials");
    if !config.scopes.is_empty() {
        form.append_pair("scope", &config.scopes.join(" "));
    }
    if let Some(a) = &config.audience {
        form.append_pair("audience", a);
    }
    let mut headers = vec![
        (
            HeaderName::from_static("content-type"),
            HeaderValue::from_static("application/x-www-form-urlencoded"),
        ),
        (
            HeaderName::from_static("accept"),
            HeaderValue::from_static("application/json"),
        ),
    ];
    match config.method {
        ClientAuthMethod::ClientSecretBasic => {
            let mut pair: String =
                form_urlencoded::byte_serialize(config.client_id.as_bytes()).collect();
            pair.push(':');
            pair.extend(form_urlencoded::byte_serialize(secret));
            let mut value = b"Basic ".to_vec();
            value.extend(
                base64::engine::general_purpose::STANDARD
                    .encode(pair)
                    .bytes(),
            );
            if let Ok(mut v) = HeaderValue::from_bytes(&value) {
                v.set_sensitive(true);
                headers.push((HeaderName::from_static("authorization"), v));
            }
        }
        ClientAuthMethod::ClientSecretPost => {
            form.append_pair("client_id", &config.client_id);
            let encoded: String = form_urlencoded::byte_serialize(secret).collect();
            let mut body = form.finish();
            body.push_str("&client_secret=");
            body.push_str(&encoded);
            return (headers, Bytes::from(body));
        }
    }
    (headers, Bytes::from(form.finish()))
}

/// A token from the token endpoint: the ready `Authorization` value
/// (sensitive) and its lifetime.
#[derive(Clone)]
pub struct Token {
    pub authorization: HeaderValue,
    /// `expires_in`, when the answer had one.
    pub expires_in: Option<u64>,
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("authorization", &"<redacted>")
            .field("expires_in", &self.expires_in)
            .finish()
    }
}

/// Why a token could not be had, without the token or the secret: what the
/// attempt record shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenError {
    pub failure: TokenFailure,
    /// The guard's or the connection's error kind, when there was no answer.
    pub kind: Option<ErrorKind>,
    /// The guard's or the connection's text (hosts and addresses only).
    pub text: Option<String>,
    /// The token endpoint's address, when one was reached.
    pub addr: Option<SocketAddr>,
    /// The answer's status code.
    pub status: Option<u16>,
    /// The answer's `error` code as sent (RFC 6749 characters, bounded).
    pub error: Option<String>,
    /// The answer's `error_description` (RFC 6749 characters, bounded, the
    /// client secret cut out).
    pub description: Option<String>,
}

impl TokenError {
    /// No answer: the guard refused the URL or the exchange failed.
    pub fn transport(kind: ErrorKind, text: String, addr: Option<SocketAddr>) -> TokenError {
        TokenError {
            failure: TokenFailure::Unreachable,
            kind: Some(kind),
            text: Some(text),
            addr,
            status: None,
            error: None,
            description: None,
        }
    }

    /// The attempt record's `detail.oauth2` for a failed fetch.
    pub fn detail(&self, after_401: bool) -> serde_json::Value {
        serde_json::json!({
            "token_fetch_failed": true,
            "failure": self.failure.to_string(),
            "status_code": self.status,
            "error": self.error,
            "error_description": self.description,
            "after_endpoint_401": after_401,
        })
    }
}

/// `text` when it is made of RFC 6749 error characters (%x20-21, %x23-5B,
/// %x5D-7E), at most `max` long, with `secret` cut out.
fn bounded(text: &str, max: usize, secret: &[u8]) -> Option<String> {
    let ok = text.bytes().all(|b| {
        b == 0x20 || b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b)
    });
    if !ok || text.is_empty() {
        return None;
    }
    let mut t = text.to_string();
    if let Ok(s) = std::str::from_utf8(secret)
        && !s.is_empty()
    {
        t = t.replace(s, "[redacted]");
    }
    if t.len() > max {
        t.truncate(max);
    }
    Some(t)
}

/// Reads the token endpoint's answer (`status`, the first
/// [`MAX_ANSWER_BYTES`] of `body`, whether it was `truncated`). 2xx: a
/// JSON object with a non-empty `access_token` usable in a header,
/// `token_type` `Bearer` (any case; absent is taken as Bearer) and an
/// optional `expires_in` (a number, or a numeric string as some servers
/// send). Otherwise: the RFC 6749 §5.2 `error` code when the body has one,
/// else the status. `secret` is cut out of any text kept.
pub fn read_answer(
    status: u16,
    body: &[u8],
    truncated: bool,
    secret: &[u8],
) -> Result<Token, TokenError> {
    let fail = |failure| TokenError {
        failure,
        kind: None,
        text: None,
        addr: None,
        status: Some(status),
        error: None,
        description: None,
    };
    let json: Option<serde_json::Map<String, serde_json::Value>> = if truncated {
        None
    } else {
        serde_json::from_slice(body).ok()
    };
    if !(200..=299).contains(&status) {
        let code = json
            .as_ref()
            .and_then(|j| j.get("error"))
            .and_then(|e| e.as_str())
            .and_then(|e| bounded(e, MAX_ERROR_CODE, secret))
            .filter(|e| !e.contains(' '));
        let Some(code) = code else {
            return Err(fail(TokenFailure::HttpStatus(status)));
        };
        let mut e = fail(TokenFailure::OAuth(OAuthError::from_code(&code)));
        e.description = json
            .as_ref()
            .and_then(|j| j.get("error_description"))
            .and_then(|d| d.as_str())
            .and_then(|d| bounded(d, MAX_DESCRIPTION, secret));
        e.error = Some(code);
        return Err(e);
    }
    let invalid = || fail(TokenFailure::InvalidResponse);
    let json = json.ok_or_else(invalid)?;
    let bearer = match json.get("token_type") {
        None => true,
        Some(t) => t.as_str().is_some_and(|t| t.eq_ignore_ascii_case("bearer")),
    };
    let token = json.get("access_token").and_then(|t| t.as_str());
    let (Some(token), true) = (token, bearer) else {
        return Err(invalid());
    };
    if token.is_empty() || !token.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(invalid());
    }
    let expires_in = match json.get("expires_in") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Number(n)) => Some(n.as_u64().ok_or_else(invalid)?),
        Some(serde_json::Value::String(s)) => Some(s.parse::<u64>().map_err(|_| invalid())?),
        Some(_) => return Err(invalid()),
    };
    let mut value = b"Bearer ".to_vec();
    value.extend_from_slice(token.as_bytes());
    let mut authorization = HeaderValue::from_bytes(&value).map_err(|_| invalid())?;
    authorization.set_sensitive(true);
    Ok(Token {
        authorization,
        expires_in,
    })
}

/// When a token fetched at `fetched_at` is fetched again: its lifetime
/// (`expires_in`, else [`DEFAULT_EXPIRES_IN`]; at most [`MAX_EXPIRES_IN`])
/// less the earlier of [`REFRESH_MARGIN_SECONDS`] and a tenth of it. A
/// lifetime of 0 is not reused at all.
pub fn refresh_at(fetched_at: Timestamp, expires_in: Option<u64>) -> Timestamp {
    let life_ms = expires_in.unwrap_or(DEFAULT_EXPIRES_IN).min(MAX_EXPIRES_IN) * 1000;
    let margin_ms = (REFRESH_MARGIN_SECONDS * 1000).min(life_ms / 10);
    Timestamp::from_millis(
        fetched_at
            .millis()
            .saturating_add((life_ms - margin_ms) as i64),
    )
}

#[cfg(test)]
mod tests;

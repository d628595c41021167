//! The failure codes of an OAuth 2.0 token fetch (`token_…`): an HTTPS
//! endpoint with client credentials whose token could not be had, so the
//! endpoint itself was not tried.

use std::fmt;

/// Why an OAuth 2.0 token fetch failed (`token_…` failure codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenFailure {
    /// No answer from the token endpoint (connect, DNS, TLS, timeout,
    /// blocked address; the attempt's `error_kind` says which).
    Unreachable,
    /// A non-2xx answer without a usable OAuth error code (`token_http_<status>`).
    HttpStatus(u16),
    /// An OAuth error answer (RFC 6749 section 5.2).
    OAuth(OAuthError),
    /// A 2xx answer that holds no usable bearer token.
    InvalidResponse,
}

/// The error codes of RFC 6749 section 5.2; any other is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OAuthError {
    InvalidRequest,
    InvalidClient,
    InvalidGrant,
    UnauthorizedClient,
    UnsupportedGrantType,
    InvalidScope,
    /// An extension or unknown code (kept, bounded, in the attempt's detail).
    Other,
}

impl OAuthError {
    pub const ALL: [OAuthError; 7] = [
        OAuthError::InvalidRequest,
        OAuthError::InvalidClient,
        OAuthError::InvalidGrant,
        OAuthError::UnauthorizedClient,
        OAuthError::UnsupportedGrantType,
        OAuthError::InvalidScope,
        OAuthError::Other,
    ];

    /// The code as RFC 6749 writes it (`other_error` for `Other`).
    pub const fn as_str(self) -> &'static str {
        match self {
            OAuthError::InvalidRequest => "invalid_request",
            OAuthError::InvalidClient => "invalid_client",
            OAuthError::InvalidGrant => "invalid_grant",
            OAuthError::UnauthorizedClient => "unauthorized_client",
            OAuthError::UnsupportedGrantType => "unsupported_grant_type",
            OAuthError::InvalidScope => "invalid_scope",
            OAuthError::Other => "other_error",
        }
    }

    /// The code of an error answer's `error` member.
    pub fn from_code(code: &str) -> OAuthError {
        Self::ALL
            .into_iter()
            .find(|e| *e != OAuthError::Other && e.as_str() == code)
            .unwrap_or(OAuthError::Other)
    }
}

impl fmt::Display for TokenFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenFailure::Unreachable => f.write_str("token_unreachable"),
            TokenFailure::HttpStatus(s) => write!(f, "token_http_{s}"),
            TokenFailure::OAuth(e) => write!(f, "token_{}", e.as_str()),
            TokenFailure::InvalidResponse => f.write_str("token_invalid_response"),
        }
    }
}

impl TokenFailure {
    pub(super) fn parse(s: &str) -> Option<Self> {
        let rest = s.strip_prefix("token_")?;
        match rest {
            "unreachable" => return Some(TokenFailure::Unreachable),
            "invalid_response" => return Some(TokenFailure::InvalidResponse),
            _ => {}
        }
        if let Some(status) = rest.strip_prefix("http_") {
            let status: u16 = status.parse().ok()?;
            return (100..=599)
                .contains(&status)
                .then_some(TokenFailure::HttpStatus(status));
        }
        OAuthError::ALL
            .into_iter()
            .find(|e| e.as_str() == rest)
            .map(TokenFailure::OAuth)
    }
}

//! [`Secret`]: a string the SDK never prints.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A secret the API takes or gives once (an API key, an endpoint's
/// `whsec_` secret, a portal token and its links, a tenant secret's value).
/// Its `Debug` and `Display` show `***`; [`Secret::expose`] gives the text.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself: print it only where it is meant to be shown.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{ApiKeyCreated, PortalTokenCreated};

    #[test]
    fn debug_and_display_hide_it_and_serde_keeps_it() {
        let s = Secret::from("whsec_c2VjcmV0LXNlY3JldA==");
        assert_eq!(format!("{s:?} {s}"), "Secret(***) ***");
        assert_eq!(s.expose(), "whsec_c2VjcmV0LXNlY3JldA==");
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            "\"whsec_c2VjcmV0LXNlY3JldA==\""
        );
    }

    /// The generated answers that carry a secret print none of it.
    #[test]
    fn generated_answers_with_secrets_debug_without_them() {
        let token: PortalTokenCreated = serde_json::from_value(serde_json::json!({
            "id": "pt_1", "token": "rpt_SECRETTOKEN", "consumer_id": "con_1",
            "capabilities": [], "allowed_origins": [],
            "created_at": "2026-01-01T00:00:00.000Z", "expires_at": "2026-01-01T01:00:00.000Z",
            "url": "https://relay.example/portal#token=rpt_SECRETTOKEN",
            "embed_url": "https://relay.example/portal/embed#token=rpt_SECRETTOKEN",
        }))
        .unwrap();
        assert_eq!(token.token.expose(), "rpt_SECRETTOKEN");
        let printed = format!("{token:?}");
        assert!(!printed.contains("SECRETTOKEN"), "{printed}");
        let key: ApiKeyCreated = serde_json::from_value(serde_json::json!({
            "id": "key_1", "tenant_id": "ten_1", "environment": "live", "name": "ci",
            "prefix": "rk_live_ab", "created_at": "2026-01-01T00:00:00.000Z",
            "key": "rk_live_SECRETKEY",
        }))
        .unwrap();
        assert!(!format!("{key:?}").contains("SECRETKEY"), "{key:?}");
    }
}

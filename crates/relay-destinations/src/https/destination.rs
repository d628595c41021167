//! The HTTPS kind's configuration, `destination` of an endpoint whose
//! `kind` is `https` (see `docs/destinations.md`). Its OpenAPI schema is
//! derived from the types: their doc comments are the API's descriptions.

use relay_core::secret::SecretRef;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::a2a::A2aPush;
use super::auth::HttpsAuth;

/// An HTTPS URL that receives each message as a signed POST.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpsDestination {
    /// The `https://` URL Relay POSTs each message to. Checked against the
    /// operator's outbound policy at registration and at every connection.
    pub url: String,
    /// Client authentication besides the signature; `null` or absent: none.
    /// See docs/destinations.md.
    #[serde(default)]
    #[schema(inline)]
    pub auth: Option<HttpsAuth>,
    /// Static headers sent with every request, in order. Each has a `name`
    /// (an HTTP token, at most 256 bytes, unique ignoring case) and exactly
    /// one of `value` (printable ASCII, at most 1024 bytes, no leading or
    /// trailing space) or `secret` (a secret reference to the value, which
    /// must satisfy the same rule once resolved). They cannot set `Host`,
    /// `Content-Type`, `Content-Length`, `Content-Encoding`, hop-by-hop
    /// headers (`Connection`, `Transfer-Encoding`, `TE`, `Trailer`,
    /// `Upgrade`, `Keep-Alive`, `Expect`, `Proxy-*`), the Standard Webhooks
    /// headers (`webhook-*`) or Relay's own (`relay-*`). Absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(inline, max_items = 10)]
    pub headers: Vec<HttpsHeader>,
    /// The A2A push profile: the endpoint is an A2A task's push
    /// notification configuration and receives that task's updates as the
    /// A2A `StreamResponse` JSON (`application/a2a+json`), with the config's
    /// `Authorization` and `X-A2A-Notification-Token`. Absent: CloudEvents,
    /// as every endpoint. See docs/a2a.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(inline)]
    pub a2a_push: Option<A2aPush>,
}

/// One custom header of an HTTPS endpoint: its `name` and either a literal
/// `value` or a `secret` reference to the value (exactly one of them; the
/// kind checks it at registration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpsHeader {
    /// The header's name (an HTTP token, unique ignoring case).
    #[schema(min_length = 1, max_length = 256)]
    pub name: String,
    /// The header's literal value (printable ASCII, no leading or trailing
    /// space); not for credentials: use `secret` for those.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, max_length = 1024)]
    pub value: Option<String>,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// header's value, never the value itself. See docs/destinations.md (Credentials: secret references).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = false, pattern = "^(secret:|env:|file:/)")]
    pub secret: Option<SecretRef>,
}

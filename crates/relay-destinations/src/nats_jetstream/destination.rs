//! The NATS JetStream kind's configuration (see `docs/destinations.md`).
//! Its OpenAPI schema is derived from the types: their doc comments are the
//! API's descriptions.

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A NATS JetStream subject: each message is one JetStream publish (the
/// CloudEvent structured or binary by `content_mode`, the Standard Webhooks
/// values as NATS headers, `Nats-Msg-Id` the event id); the PubAck naming
/// the stream and sequence is the acknowledgement. See docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NatsJetstreamDestination {
    /// A host name or IP address, checked by the outbound guard at
    /// registration and at every connect.
    pub host: String,
    /// Default 4222; the operator's `allow_ports` must include it.
    #[serde(default = "default_nats_port")]
    #[schema(default = default_nats_port, minimum = 1, maximum = 65535)]
    pub port: u16,
    /// Upgrade to TLS after the server's INFO (default false).
    #[serde(default)]
    #[schema(default = false)]
    pub tls: bool,
    /// The subject published to: dot-separated tokens, each a literal
    /// (printable ASCII without `*`, `>`, `{`, `}`) or a whole-token
    /// placeholder `{event_type}`, `{environment}`, `{ordering_key}` (the
    /// event's ordering key, else its subject, as one token: bytes a token
    /// may not hold written `%XX`; `_` when it has neither); the first token
    /// does not start with `$`.
    #[schema(min_length = 1, max_length = 256)]
    pub subject: String,
    /// The stream the subject must be bound to (sent as
    /// `Nats-Expected-Stream`); a publish that lands elsewhere is refused.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 256)]
    pub stream: Option<String>,
    /// The NATS user to connect as; needs `password`.
    #[serde(default)]
    pub username: Option<String>,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// user's password, never the password itself. See docs/destinations.md (Credentials: secret references).
    #[serde(default)]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub password: Option<SecretRef>,
    /// A secret reference to an authentication token (instead of `username`
    /// and `password`), never the token itself.
    #[serde(default)]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub token: Option<SecretRef>,
    /// `structured` (default): the CloudEvents JSON as the payload
    /// (`content-type: application/cloudevents+json`); `binary`: `data` as
    /// the payload and each context attribute as a header `ce-<name>` (the
    /// CloudEvents NATS binding; values percent-encoded), `content-type` =
    /// `datacontenttype`.
    #[serde(default)]
    #[schema(default = ContentMode::default, inline)]
    pub content_mode: ContentMode,
}

const fn default_nats_port() -> u16 {
    4222
}

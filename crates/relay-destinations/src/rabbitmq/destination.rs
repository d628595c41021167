//! The RabbitMQ kind's configuration (see `docs/destinations.md`). Its
//! OpenAPI schema is derived from the types: their doc comments are the
//! API's descriptions.

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A RabbitMQ (AMQP 0-9-1) exchange: each message is one persistent publish
/// with `mandatory` set, on a channel in confirm mode; the broker's
/// `basic.ack` of that publish is the acknowledgement, a `basic.nack` a
/// failure, a `basic.return` (unroutable) not a success. The Standard
/// Webhooks values are message headers. See docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RabbitMqDestination {
    /// A host name or IP address, checked by the outbound guard at
    /// registration and at every connect.
    pub host: String,
    /// Default 5672; the operator's `allow_ports` must include it.
    #[serde(default = "default_amqp_port")]
    #[schema(default = default_amqp_port, minimum = 1, maximum = 65535)]
    pub port: u16,
    /// Connect with TLS (default false; usually port 5671).
    #[serde(default)]
    #[schema(default = false)]
    pub tls: bool,
    /// Default `/`.
    #[serde(default = "default_virtual_host")]
    #[schema(default = default_virtual_host, min_length = 1, max_length = 255)]
    pub virtual_host: String,
    /// The exchange published to; `""` is the default exchange (the routing
    /// key names a queue).
    #[schema(max_length = 255)]
    pub exchange: String,
    /// The routing key, a template: `{event_type}` (the event type),
    /// `{environment}` (`live` or `test`) and `{ordering_key}` (the event's
    /// ordering key, else its subject) are filled in per message, `{{` and
    /// `}}` are literal braces; at most 255 bytes once filled in. Default
    /// `{event_type}`.
    #[serde(default = "default_routing_key")]
    #[schema(default = default_routing_key)]
    pub routing_key: String,
    /// The user to log in as (PLAIN); needs `password`. Both `null`: the
    /// broker's default `guest`/`guest`.
    #[serde(default)]
    pub username: Option<String>,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never
    /// the password itself; needs `username`. See docs/destinations.md (Credentials: secret references).
    #[serde(default)]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub password: Option<SecretRef>,
    /// `structured` (default): the CloudEvents JSON as the body
    /// (`application/cloudevents+json`); `binary`: `data` as the body,
    /// `content-type` = `datacontenttype`, and each other context attribute
    /// as a header `cloudEvents_<name>` (the CloudEvents AMQP binding).
    #[serde(default)]
    #[schema(default = ContentMode::default, inline)]
    pub content_mode: ContentMode,
}

const fn default_amqp_port() -> u16 {
    5672
}

fn default_virtual_host() -> String {
    "/".into()
}

fn default_routing_key() -> String {
    "{event_type}".into()
}

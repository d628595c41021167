//! The Kafka destination's configuration (see `docs/destinations.md`). Its
//! OpenAPI schema is derived from the types: their doc comments are the
//! API's descriptions.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;

/// A Kafka topic: each message is one record keyed by the message's
/// ordering key (so one key's events go to one partition), produced with
/// `acks=all` by an idempotent producer; the delivery report of that record
/// is the acknowledgement. The Standard Webhooks values are record headers.
/// Every broker the cluster advertises is checked by the outbound guard.
/// See docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KafkaDestination {
    /// The bootstrap brokers, checked by the outbound guard at registration
    /// and at every connect, as is every broker the cluster's metadata
    /// advertises.
    #[schema(inline, min_items = 1, max_items = 16)]
    pub bootstrap: Vec<KafkaBroker>,
    /// The topic every record goes to (not `.` or `..`).
    #[schema(min_length = 1, max_length = 249, pattern = "^[A-Za-z0-9._-]+$")]
    pub topic: String,
    /// `structured` (default): the CloudEvents JSON as the value
    /// (`content-type: application/cloudevents+json; charset=UTF-8`);
    /// `binary`: `data` as the value, `content-type` = `datacontenttype`, and
    /// each other context attribute as a header `ce_<name>` (the CloudEvents
    /// Kafka binding).
    #[serde(default)]
    #[schema(default = ContentMode::default, inline)]
    pub content_mode: ContentMode,
    /// Connect with TLS (default false).
    #[serde(default)]
    #[schema(default = false)]
    pub tls: bool,
    /// With `tls`: the client certificate (PEM, its chain after it)
    /// presented in the handshake, as a secret reference. Needs
    /// `client_key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = false, pattern = "^(secret:|env:|file:/)")]
    pub client_certificate: Option<SecretRef>,
    /// The client certificate's private key (PEM), as a secret reference,
    /// never the key itself. Needs `client_certificate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = false, pattern = "^(secret:|env:|file:/)")]
    pub client_key: Option<SecretRef>,
    /// SASL authentication (default none).
    #[serde(default)]
    #[schema(inline)]
    pub sasl: Option<KafkaSasl>,
}

/// One bootstrap broker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KafkaBroker {
    /// A host name or IP address.
    pub host: String,
    /// Default 9092; the operator's `allow_ports` must include it (and every
    /// advertised broker's port).
    #[serde(default = "default_kafka_port")]
    #[schema(default = default_kafka_port, minimum = 1, maximum = 65535)]
    pub port: u16,
}

const fn default_kafka_port() -> u16 {
    9092
}

/// SASL credentials: the password is a reference, never the password.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KafkaSasl {
    #[schema(inline)]
    pub mechanism: SaslMechanism,
    /// The SASL user name.
    #[schema(min_length = 1, max_length = 256)]
    pub username: String,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never
    /// the password itself. See docs/destinations.md (Credentials: secret references).
    #[schema(value_type = String, pattern = "^(secret:|env:|file:/)")]
    pub password: SecretRef,
}

/// The SASL mechanisms Relay speaks to Kafka.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum SaslMechanism {
    #[serde(rename = "PLAIN")]
    Plain,
    #[serde(rename = "SCRAM-SHA-256")]
    ScramSha256,
    #[serde(rename = "SCRAM-SHA-512")]
    ScramSha512,
}

impl SaslMechanism {
    pub const fn as_str(self) -> &'static str {
        match self {
            SaslMechanism::Plain => "PLAIN",
            SaslMechanism::ScramSha256 => "SCRAM-SHA-256",
            SaslMechanism::ScramSha512 => "SCRAM-SHA-512",
        }
    }
}

//! The Kafka destination's configuration (see `Destination`'s schema and
//! `docs/destinations.md`).

use serde::{Deserialize, Serialize};

use super::ContentMode;
use crate::secret::SecretRef;

/// A Kafka topic: each message is one record, keyed by the message's
/// ordering key, produced with `acks=all` by an idempotent producer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KafkaDestination {
    /// The bootstrap brokers (1 to 16). Every broker the cluster's metadata
    /// advertises is checked by the outbound guard as these are.
    pub bootstrap: Vec<KafkaBroker>,
    /// The topic every record goes to.
    pub topic: String,
    /// Structured (the default) or binary (`ce_` headers).
    #[serde(default)]
    pub content_mode: ContentMode,
    /// Connect with TLS.
    #[serde(default)]
    pub tls: bool,
    /// The client certificate (PEM, its chain after it) presented in the
    /// TLS handshake, a secret reference; with `client_key`, and `tls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_certificate: Option<SecretRef>,
    /// The client certificate's private key (PEM), a secret reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_key: Option<SecretRef>,
    /// SASL authentication (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512).
    #[serde(default)]
    pub sasl: Option<KafkaSasl>,
}

/// One bootstrap broker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KafkaBroker {
    pub host: String,
    #[serde(default = "default_kafka_port")]
    pub port: u16,
}

const fn default_kafka_port() -> u16 {
    9092
}

/// SASL credentials: the password is a reference, never the password.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KafkaSasl {
    pub mechanism: SaslMechanism,
    pub username: String,
    pub password: SecretRef,
}

/// The SASL mechanisms Relay speaks to Kafka.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

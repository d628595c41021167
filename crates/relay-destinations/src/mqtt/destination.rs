//! The MQTT destination's configuration (see `docs/destinations.md`). Its
//! OpenAPI schema is derived from the types: their doc comments are the
//! API's descriptions.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;

/// An MQTT topic (MQTT 5 or 3.1.1): each message is one QoS 1 PUBLISH; the
/// broker's PUBACK of that very packet identifier is the acknowledgement
/// (MQTT 5: a reason code of 0x80 or more is a failure; 0x10 "no matching
/// subscribers" is a success). MQTT 5 carries the Standard Webhooks values
/// as user properties; MQTT 3.1.1 has no properties and carries no
/// signature. See docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MqttDestination {
    /// A host name or IP address, checked by the outbound guard at
    /// registration and at every connect.
    pub host: String,
    /// Default 1883; with TLS usually 8883. The operator's `allow_ports`
    /// must include it.
    #[serde(default = "default_mqtt_port")]
    #[schema(default = default_mqtt_port, minimum = 1, maximum = 65535)]
    pub port: u16,
    /// Connect with TLS (default false).
    #[serde(default)]
    #[schema(default = false)]
    pub tls: bool,
    /// The topic published to, a template: `{event_type}`, `{environment}`
    /// (`live` or `test`) and `{ordering_key}` (the event's ordering key,
    /// else its subject) are filled in per message, `{{` and `}}` are
    /// literal braces. No wildcards (`+`, `#`), no NUL, not starting with
    /// `$`.
    #[schema(min_length = 1, max_length = 1024)]
    pub topic: String,
    /// Default `5`. MQTT 3.1.1 allows only `structured` content mode and
    /// carries no signature values (no properties).
    #[serde(default)]
    #[schema(default = MqttVersion::default, inline)]
    pub protocol_version: MqttVersion,
    /// The connection's client identifier (printable ASCII without spaces);
    /// `null` (default): `relay` and 18 random hex digits, new per
    /// connection. Two connections with one identifier take each other over:
    /// leave it `null` when several Relay processes deliver.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 128)]
    pub client_id: Option<String>,
    /// The user name sent in CONNECT.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 256)]
    pub username: Option<String>,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never
    /// the password itself; needs `username`. See docs/destinations.md (Credentials: secret references).
    #[serde(default)]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub password: Option<SecretRef>,
    /// `structured` (default): the CloudEvents JSON as the payload (MQTT 5:
    /// content type `application/cloudevents+json`); `binary` (MQTT 5 only):
    /// `data` as the payload, the content type property = `datacontenttype`,
    /// and each other context attribute as a user property of its own name
    /// (the CloudEvents MQTT binding).
    #[serde(default)]
    #[schema(default = ContentMode::default, inline)]
    pub content_mode: ContentMode,
}

const fn default_mqtt_port() -> u16 {
    1883
}

/// The MQTT protocol version a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, ToSchema)]
pub enum MqttVersion {
    /// MQTT 5.0: reason codes, user properties, content type.
    #[default]
    #[serde(rename = "5")]
    V5,
    /// MQTT 3.1.1: no properties; structured content mode only.
    #[serde(rename = "3.1.1")]
    V311,
}

impl MqttVersion {
    pub const fn as_str(self) -> &'static str {
        match self {
            MqttVersion::V5 => "5",
            MqttVersion::V311 => "3.1.1",
        }
    }
}

//! The MQTT destination's configuration (see `Destination`'s schema and
//! `docs/destinations.md`).

use serde::{Deserialize, Serialize};

use super::ContentMode;
use crate::secret::SecretRef;

/// An MQTT topic on a broker speaking MQTT 5 or 3.1.1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MqttDestination {
    pub host: String,
    #[serde(default = "default_mqtt_port")]
    pub port: u16,
    #[serde(default)]
    pub tls: bool,
    /// A template: `{event_type}`, `{environment}`, `{ordering_key}`.
    pub topic: String,
    /// `"5"` (the default) or `"3.1.1"`.
    #[serde(default)]
    pub protocol_version: MqttVersion,
    /// The client identifier of the endpoint's connection; `null`: a
    /// random `relay-…` identifier per connection.
    #[serde(default)]
    pub client_id: Option<String>,
    #[serde(default)]
    pub username: Option<String>,
    /// A reference to the password, never the password itself.
    #[serde(default)]
    pub password: Option<SecretRef>,
    /// Structured (the default) or binary (MQTT 5 only).
    #[serde(default)]
    pub content_mode: ContentMode,
}

const fn default_mqtt_port() -> u16 {
    1883
}

/// The MQTT protocol version a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
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

//! The Azure Service Bus kind's configuration (see
//! `docs/destinations.md`). Its OpenAPI schema is derived from the types:
//! their doc comments are the API's descriptions. The rules of the fields
//! are checked at registration by the kind (`service_bus/config.rs`).
//!
//! Its reading is the one place a kind looks at the destination before
//! serde does: anything that looks like a connection string
//! (`Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…`) or a SAS
//! token, in any field or where a field should be, makes a configuration
//! that registration refuses with `connection_string_refused` (the key in
//! it is never echoed, not even by serde's error of an unknown variant).

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An Azure Service Bus queue or topic: each message is one `POST
/// /{entity}/messages` of Service Bus's REST API, the body the message's
/// body, `BrokerProperties` its `MessageId` (the event id) and, on a
/// session-enabled entity (`sessions`), its `SessionId` (the ordering
/// key); Service Bus's `201 Created` is the acknowledgement. Authenticated
/// with a shared access key (a SAS token signed per request window) or
/// Microsoft Entra client credentials. A connection string is refused:
/// the key is a secret reference. See docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ServiceBusDestination {
    /// The namespace's host, `<namespace>.servicebus.windows.net` (or
    /// another Azure cloud's: `.servicebus.chinacloudapi.cn`,
    /// `.servicebus.usgovcloudapi.net`). Give it or `endpoint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 253)]
    pub namespace: Option<String>,
    /// Instead of `namespace`: the service's base URL,
    /// `https://host[:port]` (a private endpoint's name, a proxy; Relay's
    /// tests use it for their judge). Checked by the outbound guard like
    /// any host, at registration and at every connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 2048)]
    pub endpoint: Option<String>,
    /// The queue's or topic's name (a topic is sent to the same way): 1 to
    /// 260 of letters, digits, `.`, `-`, `_` and `/`, starting and ending
    /// with a letter or digit.
    #[schema(min_length = 1, max_length = 260)]
    pub entity: String,
    /// How Relay authenticates: `{"sas": {"key_name", "key"}}` or
    /// `{"entra": {"tenant_id", "client_id", "client_secret"}}`.
    #[schema(value_type = ServiceBusAuthFields, inline)]
    pub auth: ServiceBusAuth,
    /// `true` for a session-enabled entity: the event's ordering key (the
    /// one it was published with, else its subject) is the message's
    /// `SessionId`, so a session receiver gets one key's messages in
    /// order. Service Bus refuses a `SessionId` on an entity without
    /// sessions, and a message without one on an entity with them: set it
    /// as the entity is. Default `false`.
    #[serde(default)]
    #[schema(default = false)]
    pub sessions: bool,
    /// `structured` (default): the body is the CloudEvents JSON,
    /// `Content-Type` `application/cloudevents+json`; `binary`: the body is
    /// the event's `data` and every other context attribute is a user
    /// property `cloudEvents_<name>` (the CloudEvents AMQP binding).
    #[serde(default)]
    #[schema(default = ContentMode::default, inline)]
    pub content_mode: ContentMode,
    /// The largest message the entity takes, counted as Service Bus
    /// counts it (the body and the properties): 262144 (256 KiB, the
    /// Standard tier's, default) up to 104857600 (100 MiB, Premium's
    /// largest).
    #[serde(default = "default_max_message_bytes")]
    #[schema(default = default_max_message_bytes, minimum = 1024, maximum = 104857600)]
    pub max_message_bytes: u32,
    /// Set when the destination as given held a connection string or a
    /// SAS token: registration refuses it (`connection_string_refused`)
    /// before anything else. Never read from or written to JSON.
    #[serde(skip)]
    #[schema(ignore)]
    pub refused: Option<&'static str>,
}

/// How a Service Bus destination authenticates: exactly one of its two
/// ways (in JSON, an object with one member, `sas` or `entra`:
/// [`ServiceBusAuthFields`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ServiceBusAuthFields", into = "ServiceBusAuthFields")]
pub enum ServiceBusAuth {
    Sas(SasKey),
    Entra(EntraCredentials),
}

/// The credentials, one of two (the JSON form of [`ServiceBusAuth`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(min_properties = 1, max_properties = 1)]
pub struct ServiceBusAuthFields {
    /// A shared access authorization rule: its name and its key (a secret
    /// reference). Each request carries a SAS token signed with the key
    /// for the entity's URI, renewed before it expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(inline, nullable = false)]
    pub sas: Option<SasKey>,
    /// Microsoft Entra ID client credentials (an app registration with the
    /// `Azure Service Bus Data Sender` role on the entity): a token of
    /// scope `https://servicebus.azure.net/.default`, cached until shortly
    /// before it expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(inline, nullable = false)]
    pub entra: Option<EntraCredentials>,
}

impl TryFrom<ServiceBusAuthFields> for ServiceBusAuth {
    type Error = &'static str;

    fn try_from(f: ServiceBusAuthFields) -> Result<Self, Self::Error> {
        match (f.sas, f.entra) {
            (Some(s), None) => Ok(ServiceBusAuth::Sas(s)),
            (None, Some(e)) => Ok(ServiceBusAuth::Entra(e)),
            _ => Err("`auth` is exactly one of `sas` and `entra`"),
        }
    }
}

impl From<ServiceBusAuth> for ServiceBusAuthFields {
    fn from(a: ServiceBusAuth) -> Self {
        match a {
            ServiceBusAuth::Sas(s) => ServiceBusAuthFields {
                sas: Some(s),
                entra: None,
            },
            ServiceBusAuth::Entra(e) => ServiceBusAuthFields {
                sas: None,
                entra: Some(e),
            },
        }
    }
}

/// A shared access authorization rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SasKey {
    /// The rule's name (`SharedAccessKeyName`, e.g. `RootManageSharedAccessKey`;
    /// a rule with the `Send` claim is enough).
    #[schema(min_length = 1, max_length = 256)]
    pub key_name: String,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// rule's key (`SharedAccessKey`), never the key itself, never a
    /// connection string.
    #[schema(value_type = String, pattern = "^(secret:|env:|file:/)")]
    pub key: SecretRef,
}

/// Microsoft Entra ID client credentials (OAuth 2.0, RFC 6749 §4.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EntraCredentials {
    /// The directory (tenant) id: a GUID or a domain name.
    #[schema(min_length = 1, max_length = 256)]
    pub tenant_id: String,
    /// The application (client) id.
    #[schema(min_length = 1, max_length = 256)]
    pub client_id: String,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// client secret, never the secret itself.
    #[schema(value_type = String, pattern = "^(secret:|env:|file:/)")]
    pub client_secret: SecretRef,
    /// The token endpoint; default the namespace's cloud's,
    /// `https://login.microsoftonline.com/<tenant_id>/oauth2/v2.0/token`.
    /// Checked by the outbound guard like the service's host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 2048)]
    pub token_url: Option<String>,
}

/// The bounds of [`ServiceBusDestination::max_message_bytes`], inclusive.
pub const SERVICE_BUS_MAX_MESSAGE_BYTES: (u32, u32) = (1024, 100 * 1024 * 1024);

const fn default_max_message_bytes() -> u32 {
    256 * 1024
}

/// The fields as serde reads them, once no connection string was found.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Fields {
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    endpoint: Option<String>,
    entity: String,
    auth: ServiceBusAuth,
    #[serde(default)]
    sessions: bool,
    #[serde(default)]
    content_mode: ContentMode,
    #[serde(default = "default_max_message_bytes")]
    max_message_bytes: u32,
}

impl<'de> Deserialize<'de> for ServiceBusDestination {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        if let Some(pointer) = super::config::connection_string_in(&value) {
            return Ok(ServiceBusDestination::refused(pointer));
        }
        let f = Fields::deserialize(value).map_err(serde::de::Error::custom)?;
        Ok(ServiceBusDestination {
            namespace: f.namespace,
            endpoint: f.endpoint,
            entity: f.entity,
            auth: f.auth,
            sessions: f.sessions,
            content_mode: f.content_mode,
            max_message_bytes: f.max_message_bytes,
            refused: None,
        })
    }
}

impl ServiceBusDestination {
    /// A destination that held a connection string at `pointer`: nothing
    /// of it is kept.
    fn refused(pointer: &'static str) -> ServiceBusDestination {
        ServiceBusDestination {
            namespace: None,
            endpoint: None,
            entity: String::new(),
            auth: ServiceBusAuth::Sas(SasKey {
                key_name: String::new(),
                key: SecretRef::Secret("refused".into()),
            }),
            sessions: false,
            content_mode: ContentMode::Structured,
            max_message_bytes: default_max_message_bytes(),
            refused: Some(pointer),
        }
    }

    /// Every secret reference, with the JSON pointer of its field.
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        if self.refused.is_some() {
            return Vec::new();
        }
        match &self.auth {
            ServiceBusAuth::Sas(s) => vec![("/destination/auth/sas/key", &s.key)],
            ServiceBusAuth::Entra(e) => {
                vec![("/destination/auth/entra/client_secret", &e.client_secret)]
            }
        }
    }
}

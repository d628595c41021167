//! The domain model: what Relay stores and what the API returns.
//!
//! These types are the wire shapes of the HTTP API as well (field names are
//! `snake_case`, timestamps RFC 3339). Internal columns such as key hashes or
//! lease owners never appear here, so a value of these types is always safe to
//! return to its owner.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::ToSchema;

use crate::secret::SecretRef;
use crate::time::Timestamp;

mod bulk_retry;
mod https_auth;
mod kafka;
mod mqtt;
mod object_storage;
pub use bulk_retry::BulkRetry;
pub use https_auth::{
    CLIENT_CERTIFICATE_CHAIN_POINTER, CLIENT_CERTIFICATE_KEY_POINTER, ClientAuthMethod,
    ClientCertificate, HttpsAuth, OAUTH2_CLIENT_SECRET_POINTER, OAuth2ClientCredentials,
};
pub use kafka::{KafkaBroker, KafkaDestination, KafkaSasl, SaslMechanism};
pub use mqtt::{MqttDestination, MqttVersion};
pub use object_storage::{
    S3_MAX_BYTES, S3_MAX_EVENTS, S3_MAX_WAIT_SECONDS, S3Addressing, S3Batch, S3Compression,
    S3Destination,
};

/// Each tenant has two separate worlds of data: `live` and `test`.
/// An API key belongs to exactly one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Environment {
    Live,
    Test,
}

impl Environment {
    pub const fn as_str(self) -> &'static str {
        match self {
            Environment::Live => "live",
            Environment::Test => "test",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "live" => Some(Environment::Live),
            "test" => Some(Environment::Test),
            _ => None,
        }
    }
}

/// The life of a message (one event for one endpoint).
///
/// `scheduled`, `in_flight` and `held` are live states; every other state is
/// terminal. See `docs/state-machine.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MessageState {
    /// Waiting for `next_attempt_at`.
    Scheduled,
    /// Leased by a worker; an attempt is being made.
    InFlight,
    /// Not attempted for now: the endpoint is paused or disabled, or its circuit is open.
    Held,
    Delivered,
    FailedPermanent,
    Exhausted,
    Expired,
    WindowExceeded,
    DeadLettered,
    Cancelled,
}

impl MessageState {
    pub const ALL: [MessageState; 10] = [
        MessageState::Scheduled,
        MessageState::InFlight,
        MessageState::Held,
        MessageState::Delivered,
        MessageState::FailedPermanent,
        MessageState::Exhausted,
        MessageState::Expired,
        MessageState::WindowExceeded,
        MessageState::DeadLettered,
        MessageState::Cancelled,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            MessageState::Scheduled => "scheduled",
            MessageState::InFlight => "in_flight",
            MessageState::Held => "held",
            MessageState::Delivered => "delivered",
            MessageState::FailedPermanent => "failed_permanent",
            MessageState::Exhausted => "exhausted",
            MessageState::Expired => "expired",
            MessageState::WindowExceeded => "window_exceeded",
            MessageState::DeadLettered => "dead_lettered",
            MessageState::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|st| st.as_str() == s)
    }

    pub const fn is_terminal(self) -> bool {
        !matches!(
            self,
            MessageState::Scheduled | MessageState::InFlight | MessageState::Held
        )
    }
}

/// What a durable job does. Stored and answered as its name (`bulk_retry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// Restarts the failed messages a filter selects (`POST /v1/messages/retry`).
    BulkRetry,
}

impl JobKind {
    pub const ALL: [JobKind; 1] = [JobKind::BulkRetry];

    pub const fn as_str(self) -> &'static str {
        match self {
            JobKind::BulkRetry => "bulk_retry",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Where a durable job is: `queued` until a worker leases it, `running`
/// while it advances batch by batch (a lapsed lease is taken over), `done`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Queued,
    Running,
    Done,
}

impl JobState {
    pub const ALL: [JobState; 3] = [JobState::Queued, JobState::Running, JobState::Done];

    pub const fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

/// A tenant of the installation (or a sub-tenant when `parent_id` is set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Tenant {
    pub id: String,
    pub name: String,
    pub parent_id: Option<String>,
    pub created_at: Timestamp,
}

/// A tenant API key as listed: never the secret itself, only its visible prefix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ApiKey {
    pub id: String,
    pub tenant_id: String,
    pub environment: Environment,
    pub name: Option<String>,
    /// The first characters of the key (`rk_live_ab12`), enough to recognise it.
    pub prefix: String,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

/// One version of an event type's schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EventTypeVersion {
    pub version: i64,
    /// The JSON Schema that published payloads must satisfy.
    #[schema(schema_with = json_schema_field)]
    pub schema: serde_json::Value,
    /// A sample payload (valid against `schema`), used by the test action and the portal.
    #[schema(value_type = Option<Object>)]
    pub sample: Option<serde_json::Value>,
    /// Fields always sent, even to a thin endpoint: identifiers a consumer
    /// needs to fetch the rest (field paths, `relay_core::shape`). Never
    /// personal data.
    pub thin_fields: Vec<String>,
    /// Fields (field paths such as `/customer/email`) that carry personal
    /// data: an endpoint's allow list takes them only by explicit choice.
    pub personal_data_fields: Vec<String>,
    pub created_at: Timestamp,
}

/// A catalog event type with all of its schema versions, newest last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EventType {
    pub name: String,
    pub description: String,
    pub environment: Environment,
    pub current_version: i64,
    /// Whom its events published without a `consumer_id` reach:
    /// `addressed` (the default: the tenant's own consumer only) or
    /// `all_consumers` (every subscribed consumer, customers included).
    /// An event published with a `consumer_id` reaches that consumer only,
    /// whatever this says (`relay_core::audience`).
    #[serde(default)]
    pub audience: crate::audience::Audience,
    pub versions: Vec<EventTypeVersion>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl EventType {
    pub fn current(&self) -> Option<&EventTypeVersion> {
        self.versions
            .iter()
            .find(|v| v.version == self.current_version)
    }
}

/// Whom a consumer stands for. Relay's operational events (about the
/// tenant's endpoints: `relay_core::operational`) go only to the endpoints
/// of the `tenant` consumer, never to a customer's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConsumerKind {
    /// One of the tenant's customers.
    #[default]
    Customer,
    /// The tenant itself (its own systems); at most one per tenant and environment.
    Tenant,
}

impl ConsumerKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ConsumerKind::Customer => "customer",
            ConsumerKind::Tenant => "tenant",
        }
    }

    pub fn parse(s: &str) -> Option<ConsumerKind> {
        match s {
            "customer" => Some(ConsumerKind::Customer),
            "tenant" => Some(ConsumerKind::Tenant),
            _ => None,
        }
    }
}

/// The party that receives events: the tenant itself or one of its customers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Consumer {
    pub id: String,
    /// The tenant's own identifier for this consumer; unique per tenant and environment.
    pub external_id: String,
    /// `tenant` (the tenant itself: the only consumer whose endpoints may
    /// receive operational events) or `customer`; set at creation.
    #[serde(default)]
    pub kind: ConsumerKind,
    pub name: Option<String>,
    /// The CloudEvents `source` deliveries to this consumer carry.
    pub source: String,
    pub environment: Environment,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// The OpenAPI schema of a field that holds a JSON Schema: an object, or one
/// of the boolean schemas `true` (every payload) and `false` (none).
pub fn json_schema_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::Array(vec![Type::Object, Type::Boolean]))
        .description(Some(
            "The JSON Schema that published payloads must satisfy: an object, \
             or `true` (every payload) or `false` (none).",
        ))
        .build()
}

/// Where an endpoint's messages go. New kinds (brokers, queues, object
/// storage) are new variants; the endpoint object keeps its shape.
///
/// Its OpenAPI schema is written out below: the derived one combined the
/// variant's closed object (`deny_unknown_fields`) with the `kind` tag in an
/// `allOf`, a schema no value satisfies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Destination {
    Https(HttpsDestination),
    RedisStream(RedisStreamDestination),
    NatsJetstream(NatsJetstreamDestination),
    #[serde(rename = "rabbitmq")]
    RabbitMq(RabbitMqDestination),
    Mqtt(MqttDestination),
    #[serde(rename = "s3")]
    S3(S3Destination),
    Kafka(KafkaDestination),
}

impl utoipa::PartialSchema for Destination {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let schema = serde_json::json!({
            "description": "Where an endpoint's messages go, by `kind`. New kinds (brokers, queues, object storage) are new variants; the endpoint object keeps its shape.",
            "oneOf": [{
                "type": "object",
                "title": "https",
                "description": "An HTTPS URL that receives each message as a signed POST.",
                "properties": {
                    "kind": {"type": "string", "enum": ["https"]},
                    "url": {"type": "string"},
                    "auth": {
                        "type": ["object", "null"],
                        "description": "Client authentication besides the signature; `null` or absent: none. See docs/destinations.md.",
                        "properties": {
                            "client_certificate": {
                                "type": ["object", "null"],
                                "description": "Mutual TLS: the certificate chain and private key Relay presents when the receiver asks for a client certificate. Both are secret references, never the PEM itself; at registration they must resolve, the chain must be PEM certificates (leaf first), the key an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC) matching the leaf.",
                                "properties": {
                                    "chain": {
                                        "type": "string",
                                        "pattern": "^(secret:|env:|file:/)",
                                        "description": "A secret reference to the PEM certificate chain, the leaf first."
                                    },
                                    "key": {
                                        "type": "string",
                                        "pattern": "^(secret:|env:|file:/)",
                                        "description": "A secret reference to the leaf's PEM private key."
                                    }
                                },
                                "required": ["chain", "key"],
                                "additionalProperties": false
                            },
                            "oauth2": {
                                "type": ["object", "null"],
                                "description": "OAuth 2.0 client credentials (RFC 6749 section 4.4): Relay fetches a token from `token_url` (through the outbound guard, like the endpoint), caches it until shortly before it expires, and sends `Authorization: Bearer <token>` with every request; a `401` from the endpoint fetches a new token and tries once more in the same attempt. Cannot be combined with a custom `Authorization` header.",
                                "properties": {
                                    "token_url": {"type": "string", "maxLength": 2048, "description": "The token endpoint: `https://`, a port the operator allows, no credentials in it."},
                                    "client_id": {"type": "string", "minLength": 1, "maxLength": 256, "description": "Printable ASCII (RFC 6749 VSCHAR)."},
                                    "client_secret": {
                                        "type": "string",
                                        "pattern": "^(secret:|env:|file:/)",
                                        "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the client secret, never the secret itself. See docs/secrets.md."
                                    },
                                    "scopes": {"type": "array", "maxItems": 32, "items": {"type": "string", "minLength": 1, "maxLength": 128}, "description": "Scope tokens (RFC 6749 NQCHAR, no spaces), sent space-separated as `scope`; default none."},
                                    "audience": {"type": ["string", "null"], "minLength": 1, "maxLength": 512, "description": "Sent as the `audience` parameter when set (printable ASCII)."},
                                    "method": {"type": "string", "enum": ["client_secret_basic", "client_secret_post"], "description": "`client_secret_basic` (default): HTTP Basic with the form-urlencoded id and secret; `client_secret_post`: both in the form body."}
                                },
                                "required": ["token_url", "client_id", "client_secret"],
                                "additionalProperties": false
                            }
                        },
                        "additionalProperties": false
                    },
                    "headers": {
                        "type": "array",
                        "maxItems": 10,
                        "description": "Static headers sent with every request, in order. Each has a `name` (an HTTP token, at most 256 bytes, unique ignoring case) and exactly one of `value` (printable ASCII, at most 1024 bytes, no leading or trailing space) or `secret` (a secret reference to the value, which must satisfy the same rule once resolved). They cannot set `Host`, `Content-Type`, `Content-Length`, `Content-Encoding`, hop-by-hop headers (`Connection`, `Transfer-Encoding`, `TE`, `Trailer`, `Upgrade`, `Keep-Alive`, `Expect`, `Proxy-*`), the Standard Webhooks headers (`webhook-*`) or Relay's own (`relay-*`). Absent when empty.",
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string", "minLength": 1, "maxLength": 256},
                                "value": {"type": "string", "maxLength": 1024},
                                "secret": {
                                    "type": "string",
                                    "pattern": "^(secret:|env:|file:/)",
                                    "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the header's value, never the value itself. See docs/secrets.md."
                                }
                            },
                            "required": ["name"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["kind", "url"],
                "additionalProperties": false
            }, {
                "type": "object",
                "title": "redis_stream",
                "description": "A Redis stream: each message is one entry added with XADD (the CloudEvent in the `body` field, structured or binary by `content_mode`, the Standard Webhooks values in their own fields); the entry id Redis answers is the acknowledgement. See docs/destinations.md for what Redis durability means.",
                "properties": {
                    "kind": {"type": "string", "enum": ["redis_stream"]},
                    "host": {"type": "string", "description": "A host name or IP address, checked by the outbound guard at registration and at every connect."},
                    "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 6379; the operator's `allow_ports` must include it."},
                    "tls": {"type": "boolean", "description": "Connect with TLS (default false)."},
                    "database": {"type": ["integer", "null"], "minimum": 0, "maximum": 15, "description": "SELECT this database first (default: none, database 0)."},
                    "stream": {"type": "string", "minLength": 1, "maxLength": 256, "description": "The stream key."},
                    "max_len": {"type": ["integer", "null"], "minimum": 1, "description": "Trim with `MAXLEN ~ max_len` on each XADD."},
                    "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON in `body`; `binary`: `data` in `body` and each context attribute in a field `ce-<name>`."},
                    "wait_aof": {
                        "type": ["object", "null"],
                        "description": "Send `WAITAOF local replicas timeout_ms` after each XADD (Redis 7.2+) and count the delivery only when the server confirms the fsyncs asked for; fewer is retried, a server without WAITAOF (or `local: 1` with `appendonly no`) dead-letters the message as `invalid_destination`. Default: none (the XADD reply alone).",
                        "properties": {
                            "local": {"type": "integer", "enum": [0, 1], "description": "1 (default): the server's own AOF must be fsynced."},
                            "replicas": {"type": "integer", "minimum": 0, "description": "Replicas whose AOF must be fsynced (default 0)."},
                            "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 60000, "description": "How long the server waits (default 1000)."}
                        },
                        "additionalProperties": false
                    },
                    "username": {"type": ["string", "null"], "description": "The ACL user (Redis 6+) to `AUTH` as; needs `password`."},
                    "password": {
                        "type": ["string", "null"],
                        "pattern": "^(secret:|env:|file:/)",
                        "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never the password itself: Relay sends `AUTH [username] password` on every new connection. See docs/secrets.md."
                    }
                },
                "required": ["kind", "host", "stream"],
                "additionalProperties": false
            }, {
                "type": "object",
                "title": "nats_jetstream",
                "description": "A NATS JetStream subject: each message is one JetStream publish (the CloudEvent structured or binary by `content_mode`, the Standard Webhooks values as NATS headers, `Nats-Msg-Id` the event id); the PubAck naming the stream and sequence is the acknowledgement. See docs/destinations.md.",
                "properties": {
                    "kind": {"type": "string", "enum": ["nats_jetstream"]},
                    "host": {"type": "string", "description": "A host name or IP address, checked by the outbound guard at registration and at every connect."},
                    "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 4222; the operator's `allow_ports` must include it."},
                    "tls": {"type": "boolean", "description": "Upgrade to TLS after the server's INFO (default false)."},
                    "subject": {"type": "string", "minLength": 1, "maxLength": 256, "description": "The subject published to: dot-separated tokens, each a literal (printable ASCII without `*`, `>`, `{`, `}`) or a whole-token placeholder `{event_type}`, `{environment}`, `{ordering_key}` (the event's ordering key, else its subject, as one token: bytes a token may not hold written `%XX`; `_` when it has neither); the first token does not start with `$`."},
                    "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON as the payload (`content-type: application/cloudevents+json`); `binary`: `data` as the payload and each context attribute as a header `ce-<name>` (the CloudEvents NATS binding; values percent-encoded), `content-type` = `datacontenttype`."},
                    "stream": {"type": ["string", "null"], "minLength": 1, "maxLength": 256, "description": "The stream the subject must be bound to (sent as `Nats-Expected-Stream`); a publish that lands elsewhere is refused."},
                    "username": {"type": ["string", "null"], "description": "The NATS user to connect as; needs `password`."},
                    "password": {
                        "type": ["string", "null"],
                        "pattern": "^(secret:|env:|file:/)",
                        "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the user's password, never the password itself. See docs/secrets.md."
                    },
                    "token": {
                        "type": ["string", "null"],
                        "pattern": "^(secret:|env:|file:/)",
                        "description": "A secret reference to an authentication token (instead of `username` and `password`), never the token itself."
                    }
                },
                "required": ["kind", "host", "subject"],
                "additionalProperties": false
            }, {
                "type": "object",
                "title": "rabbitmq",
                "description": "A RabbitMQ (AMQP 0-9-1) exchange: each message is one persistent publish with `mandatory` set, on a channel in confirm mode; the broker's `basic.ack` of that publish is the acknowledgement, a `basic.nack` a failure, a `basic.return` (unroutable) not a success. The Standard Webhooks values are message headers. See docs/destinations.md.",
                "properties": {
                    "kind": {"type": "string", "enum": ["rabbitmq"]},
                    "host": {"type": "string", "description": "A host name or IP address, checked by the outbound guard at registration and at every connect."},
                    "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 5672; the operator's `allow_ports` must include it."},
                    "tls": {"type": "boolean", "description": "Connect with TLS (default false; usually port 5671)."},
                    "virtual_host": {"type": "string", "minLength": 1, "maxLength": 255, "description": "Default `/`."},
                    "exchange": {"type": "string", "maxLength": 255, "description": "The exchange published to; `\"\"` is the default exchange (the routing key names a queue)."},
                    "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON as the body (`application/cloudevents+json`); `binary`: `data` as the body, `content-type` = `datacontenttype`, and each other context attribute as a header `cloudEvents_<name>` (the CloudEvents AMQP binding)."},
                    "routing_key": {"type": "string", "description": "The routing key, a template: `{event_type}` (the event type), `{environment}` (`live` or `test`) and `{ordering_key}` (the event's ordering key, else its subject) are filled in per message, `{{` and `}}` are literal braces; at most 255 bytes once filled in. Default `{event_type}`."},
                    "username": {"type": ["string", "null"], "description": "The user to log in as (PLAIN); needs `password`. Both `null`: the broker's default `guest`/`guest`."},
                    "password": {
                        "type": ["string", "null"],
                        "pattern": "^(secret:|env:|file:/)",
                        "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never the password itself; needs `username`. See docs/secrets.md."
                    }
                },
                "required": ["kind", "host", "exchange"],
                "additionalProperties": false
            }, {
                "type": "object",
                "title": "mqtt",
                "description": "An MQTT topic (MQTT 5 or 3.1.1): each message is one QoS 1 PUBLISH; the broker's PUBACK of that very packet identifier is the acknowledgement (MQTT 5: a reason code of 0x80 or more is a failure; 0x10 \"no matching subscribers\" is a success). MQTT 5 carries the Standard Webhooks values as user properties; MQTT 3.1.1 has no properties and carries no signature. See docs/destinations.md.",
                "properties": {
                    "kind": {"type": "string", "enum": ["mqtt"]},
                    "host": {"type": "string", "description": "A host name or IP address, checked by the outbound guard at registration and at every connect."},
                    "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 1883; with TLS usually 8883. The operator's `allow_ports` must include it."},
                    "tls": {"type": "boolean", "description": "Connect with TLS (default false)."},
                    "topic": {"type": "string", "minLength": 1, "maxLength": 1024, "description": "The topic published to, a template: `{event_type}`, `{environment}` (`live` or `test`) and `{ordering_key}` (the event's ordering key, else its subject) are filled in per message, `{{` and `}}` are literal braces. No wildcards (`+`, `#`), no NUL, not starting with `$`."},
                    "protocol_version": {"type": "string", "enum": ["5", "3.1.1"], "description": "Default `5`. MQTT 3.1.1 allows only `structured` content mode and carries no signature values (no properties)."},
                    "client_id": {"type": ["string", "null"], "minLength": 1, "maxLength": 128, "description": "The connection's client identifier (printable ASCII without spaces); `null` (default): `relay` and 18 random hex digits, new per connection. Two connections with one identifier take each other over: leave it `null` when several Relay processes deliver."},
                    "username": {"type": ["string", "null"], "minLength": 1, "maxLength": 256, "description": "The user name sent in CONNECT."},
                    "password": {
                        "type": ["string", "null"],
                        "pattern": "^(secret:|env:|file:/)",
                        "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never the password itself; needs `username`. See docs/secrets.md."
                    },
                    "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON as the payload (MQTT 5: content type `application/cloudevents+json`); `binary` (MQTT 5 only): `data` as the payload, the content type property = `datacontenttype`, and each other context attribute as a user property of its own name (the CloudEvents MQTT binding)."}
                },
                "required": ["kind", "host", "topic"],
                "additionalProperties": false
            }, {
                "type": "object",
                "title": "kafka",
                "description": "A Kafka topic: each message is one record keyed by the message's ordering key (so one key's events go to one partition), produced with `acks=all` by an idempotent producer; the delivery report of that record is the acknowledgement. The Standard Webhooks values are record headers. Every broker the cluster advertises is checked by the outbound guard. See docs/destinations.md.",
                "properties": {
                    "kind": {"type": "string", "enum": ["kafka"]},
                    "bootstrap": {
                        "type": "array", "minItems": 1, "maxItems": 16,
                        "description": "The bootstrap brokers, checked by the outbound guard at registration and at every connect, as is every broker the cluster's metadata advertises.",
                        "items": {
                            "type": "object",
                            "properties": {
                                "host": {"type": "string", "description": "A host name or IP address."},
                                "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 9092; the operator's `allow_ports` must include it (and every advertised broker's port)."}
                            },
                            "required": ["host"],
                            "additionalProperties": false
                        }
                    },
                    "topic": {"type": "string", "minLength": 1, "maxLength": 249, "pattern": "^[A-Za-z0-9._-]+$", "description": "The topic every record goes to (not `.` or `..`)."},
                    "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON as the value (`content-type: application/cloudevents+json; charset=UTF-8`); `binary`: `data` as the value, `content-type` = `datacontenttype`, and each other context attribute as a header `ce_<name>` (the CloudEvents Kafka binding)."},
                    "tls": {"type": "boolean", "description": "Connect with TLS (default false)."},
                    "client_certificate": {"type": "string", "pattern": "^(secret:|env:|file:/)", "description": "With `tls`: the client certificate (PEM, its chain after it) presented in the handshake, as a secret reference. Needs `client_key`."},
                    "client_key": {"type": "string", "pattern": "^(secret:|env:|file:/)", "description": "The client certificate's private key (PEM), as a secret reference, never the key itself. Needs `client_certificate`."},
                    "sasl": {
                        "type": ["object", "null"],
                        "description": "SASL authentication (default none).",
                        "properties": {
                            "mechanism": {"type": "string", "enum": ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]},
                            "username": {"type": "string", "minLength": 1, "maxLength": 256},
                            "password": {"type": "string", "pattern": "^(secret:|env:|file:/)", "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never the password itself. See docs/secrets.md."}
                        },
                        "required": ["mechanism", "username", "password"],
                        "additionalProperties": false
                    }
                },
                "required": ["kind", "bootstrap", "topic"],
                "additionalProperties": false
            }]
        });
        let mut schema = schema;
        if let Some(kinds) = schema["oneOf"].as_array_mut() {
            kinds.push(object_storage::schema());
        }
        serde_json::from_value(schema).expect("the Destination schema is a valid schema")
    }
}

impl ToSchema for Destination {}

impl Destination {
    pub const fn kind(&self) -> &'static str {
        match self {
            Destination::Https(_) => "https",
            Destination::RedisStream(_) => "redis_stream",
            Destination::NatsJetstream(_) => "nats_jetstream",
            Destination::RabbitMq(_) => "rabbitmq",
            Destination::Mqtt(_) => "mqtt",
            Destination::S3(_) => "s3",
            Destination::Kafka(_) => "kafka",
        }
    }

    /// Every secret reference of the configuration, with the JSON pointer of
    /// its field in the endpoint (for the API's `422`). A client is built
    /// from their resolved values (`relay_destinations::build`).
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        match self {
            Destination::Https(h) => h
                .headers
                .iter()
                .filter_map(|h| h.secret.as_ref())
                .map(|s| ("/destination/headers", s))
                .chain(h.auth.iter().flat_map(HttpsAuth::secret_refs))
                .collect(),
            Destination::RedisStream(r) => r
                .password
                .iter()
                .map(|p| ("/destination/password", p))
                .collect(),
            Destination::NatsJetstream(n) => n
                .password
                .iter()
                .map(|p| ("/destination/password", p))
                .chain(n.token.iter().map(|t| ("/destination/token", t)))
                .collect(),
            Destination::RabbitMq(r) => r
                .password
                .iter()
                .map(|p| ("/destination/password", p))
                .collect(),
            Destination::Mqtt(m) => m
                .password
                .iter()
                .map(|p| ("/destination/password", p))
                .collect(),
            Destination::S3(s) => s.secret_refs(),
            Destination::Kafka(k) => k
                .sasl
                .iter()
                .map(|s| ("/destination/sasl/password", &s.password))
                .chain(
                    k.client_certificate
                        .iter()
                        .map(|c| ("/destination/client_certificate", c)),
                )
                .chain(k.client_key.iter().map(|c| ("/destination/client_key", c)))
                .collect(),
        }
    }

    /// A broker destination that carries credentials (a password, a token,
    /// SASL) with `tls` off: the hosts they would travel to in clear.
    /// `None` when nothing would (HTTPS and object storage always use TLS;
    /// a broker without credentials sends none). The rule behind
    /// "credentials never travel in clear" (docs/destinations.md).
    pub fn credentials_in_clear(&self) -> Option<Vec<&str>> {
        let (tls, hosts): (bool, Vec<&str>) = match self {
            Destination::Https(_) | Destination::S3(_) => return None,
            Destination::RedisStream(r) => (r.tls, vec![r.host.as_str()]),
            Destination::NatsJetstream(n) => (n.tls, vec![n.host.as_str()]),
            Destination::RabbitMq(r) => (r.tls, vec![r.host.as_str()]),
            Destination::Mqtt(m) => (m.tls, vec![m.host.as_str()]),
            Destination::Kafka(k) => (k.tls, k.bootstrap.iter().map(|b| b.host.as_str()).collect()),
        };
        (!tls && !self.secret_refs().is_empty()).then_some(hosts)
    }

    /// How its messages carry the CloudEvent (HTTPS and object storage: always structured).
    pub const fn content_mode(&self) -> ContentMode {
        match self {
            Destination::Https(_) | Destination::S3(_) => ContentMode::Structured,
            Destination::NatsJetstream(c) => c.content_mode,
            Destination::RedisStream(c) => c.content_mode,
            Destination::RabbitMq(c) => c.content_mode,
            Destination::Mqtt(c) => c.content_mode,
            Destination::Kafka(c) => c.content_mode,
        }
    }

    /// The same destination in content mode `mode`, or `None` when the
    /// kind has no such mode (HTTPS and object storage are structured only).
    pub fn with_content_mode(mut self, mode: ContentMode) -> Option<Destination> {
        match &mut self {
            Destination::Https(_) | Destination::S3(_) => {
                if mode != ContentMode::Structured {
                    return None;
                }
            }
            Destination::NatsJetstream(c) => c.content_mode = mode,
            Destination::RedisStream(c) => c.content_mode = mode,
            Destination::RabbitMq(c) => c.content_mode = mode,
            Destination::Mqtt(c) => c.content_mode = mode,
            Destination::Kafka(c) => c.content_mode = mode,
        }
        Some(self)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpsDestination {
    pub url: String,
    /// Client authentication besides the signature (mutual TLS, OAuth 2.0
    /// client credentials); `null` or absent: none.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub auth: Option<HttpsAuth>,
    /// Static headers sent with every request, in order (at most 10; see
    /// `docs/destinations.md`). Absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(value_type = Vec<Object>)]
    pub headers: Vec<HttpsHeader>,
}

/// One custom header of an HTTPS endpoint: its `name` and either a literal
/// `value` or a `secret` reference to the value (exactly one of them; the
/// kind checks it at registration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpsHeader {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A reference to the value, never the value itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<SecretRef>,
}

/// A Redis stream (see `Destination`'s schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedisStreamDestination {
    pub host: String,
    #[serde(default = "default_redis_port")]
    pub port: u16,
    #[serde(default)]
    pub tls: bool,
    #[serde(default)]
    pub database: Option<u32>,
    pub stream: String,
    #[serde(default)]
    pub max_len: Option<u64>,
    #[serde(default)]
    pub username: Option<String>,
    /// A reference to the password, never the password itself.
    #[serde(default)]
    pub password: Option<SecretRef>,
    /// Structured (the default) or binary: see `docs/destinations.md`.
    #[serde(default)]
    pub content_mode: ContentMode,
    /// Wait for the AOF fsync after each `XADD` (`WAITAOF`, Redis 7.2+).
    #[serde(default)]
    pub wait_aof: Option<WaitAof>,
}

/// `WAITAOF numlocal numreplicas timeout` after each `XADD`: success only
/// once the entry is fsynced to the AOF of the server (`local: 1`) and of
/// `replicas` replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitAof {
    /// 1: the server itself must have fsynced it (needs `appendonly yes`); 0: not.
    #[serde(default = "default_wait_aof_local")]
    pub local: u8,
    /// How many replicas must have fsynced it.
    #[serde(default)]
    pub replicas: u32,
    /// How long the server waits for them (1 to 60000).
    #[serde(default = "default_wait_aof_timeout_ms")]
    pub timeout_ms: u32,
}

const fn default_wait_aof_local() -> u8 {
    1
}

const fn default_wait_aof_timeout_ms() -> u32 {
    1000
}

const fn default_redis_port() -> u16 {
    6379
}

/// A NATS JetStream subject (see `Destination`'s schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NatsJetstreamDestination {
    pub host: String,
    #[serde(default = "default_nats_port")]
    pub port: u16,
    #[serde(default)]
    pub tls: bool,
    /// The subject, or a template of it (`docs/destinations.md`).
    pub subject: String,
    /// The stream the subject must be bound to (`Nats-Expected-Stream`).
    #[serde(default)]
    pub stream: Option<String>,
    #[serde(default)]
    pub username: Option<String>,
    /// A reference to the user's password, never the password itself.
    #[serde(default)]
    pub password: Option<SecretRef>,
    /// A reference to an authentication token, never the token itself.
    #[serde(default)]
    pub token: Option<SecretRef>,
    /// Structured (the default) or binary: see `docs/destinations.md`.
    #[serde(default)]
    pub content_mode: ContentMode,
}

const fn default_nats_port() -> u16 {
    4222
}

/// How a message carries its CloudEvent (the CloudEvents protocol bindings'
/// two content modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum ContentMode {
    /// The whole event as one `application/cloudevents+json` body (the
    /// default): the signature covers every attribute and the data.
    #[default]
    Structured,
    /// `data` is the body (`application/json`); the context attributes are
    /// headers or properties named by the kind's binding. The signature
    /// covers the body, so the attributes are not signed.
    Binary,
}

impl ContentMode {
    pub const fn as_str(self) -> &'static str {
        match self {
            ContentMode::Structured => "structured",
            ContentMode::Binary => "binary",
        }
    }
}

/// A RabbitMQ exchange (see `Destination`'s schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RabbitMqDestination {
    pub host: String,
    #[serde(default = "default_amqp_port")]
    pub port: u16,
    #[serde(default)]
    pub tls: bool,
    #[serde(default = "default_virtual_host")]
    pub virtual_host: String,
    pub exchange: String,
    /// A template: `{event_type}`, `{environment}` (see docs/destinations.md).
    #[serde(default = "default_routing_key")]
    pub routing_key: String,
    /// The user to log in as; `null` with `password` `null`: `guest`.
    #[serde(default)]
    pub username: Option<String>,
    /// A reference to the password, never the password itself.
    #[serde(default)]
    pub password: Option<SecretRef>,
    /// Structured (the default) or binary: see `docs/destinations.md`.
    #[serde(default)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum SignatureScheme {
    /// Ed25519 (the default).
    #[default]
    V1a,
    /// HMAC-SHA256, for compatibility.
    V1,
}

impl SignatureScheme {
    pub const fn as_str(self) -> &'static str {
        match self {
            SignatureScheme::V1a => "v1a",
            SignatureScheme::V1 => "v1",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "v1a" => Some(SignatureScheme::V1a),
            "v1" => Some(SignatureScheme::V1),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndpointState {
    Active,
    Paused,
    Disabled,
}

impl EndpointState {
    pub const fn as_str(self) -> &'static str {
        match self {
            EndpointState::Active => "active",
            EndpointState::Paused => "paused",
            EndpointState::Disabled => "disabled",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "active" => Some(EndpointState::Active),
            "paused" => Some(EndpointState::Paused),
            "disabled" => Some(EndpointState::Disabled),
            _ => None,
        }
    }

    /// The state a new message for an endpoint in this state starts in.
    pub const fn initial_message_state(self) -> MessageState {
        match self {
            EndpointState::Active => MessageState::Scheduled,
            EndpointState::Paused | EndpointState::Disabled => MessageState::Held,
        }
    }
}

/// A consumer's delivery address and how to deliver to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Endpoint {
    pub id: String,
    pub consumer_id: String,
    pub environment: Environment,
    pub description: Option<String>,
    pub destination: Destination,
    /// Subscribed event types; empty receives nothing; `*` (explicit) receives all.
    pub event_types: Vec<String>,
    pub signature_scheme: SignatureScheme,
    /// Waits in seconds before each attempt after the first; `null` uses the default schedule.
    pub retry_schedule_seconds: Option<Vec<u32>>,
    pub max_concurrency: u32,
    pub rate_limit_per_second: Option<u32>,
    /// The snapshot allow list: fields (JSON Pointers) sent beyond the
    /// event type version's thin fields, or `["*"]` for every field. Empty:
    /// thin.
    pub snapshot_fields: Vec<String>,
    /// Whether the snapshot may carry fields the event type marks as
    /// personal data; without it they are never sent.
    pub allow_personal_data: bool,
    /// The event type version that shapes this endpoint's payloads, by
    /// event type. A type not named here is shaped by the version that was
    /// current when the endpoint version started (else its first).
    #[schema(value_type = Object, additional_properties = true)]
    pub event_type_versions: BTreeMap<String, i64>,
    /// The endpoint version: 1 at creation; each change of
    /// `snapshot_fields`, `allow_personal_data` or `event_type_versions`
    /// opens the next. Messages keep the version they were produced for.
    pub version: i64,
    /// When the current version started.
    pub version_started_at: Timestamp,
    pub state: EndpointState,
    pub disabled_reason: Option<String>,
    pub auto_disable: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Counts every change of the endpoint (its settings, its state, its
    /// keys), from 1 at creation. Reads answer it as the `ETag`
    /// (`"<revision>"`); `PATCH` with `If-Match` applies only while it is
    /// still the one read.
    #[serde(default = "first_revision")]
    pub revision: i64,
}

fn first_revision() -> i64 {
    1
}

/// One version of an endpoint's payload settings, kept after the next
/// opens: the messages produced for it are shaped by it for life.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EndpointVersion {
    pub version: i64,
    pub snapshot_fields: Vec<String>,
    pub allow_personal_data: bool,
    #[schema(value_type = Object, additional_properties = true)]
    pub event_type_versions: BTreeMap<String, i64>,
    pub started_at: Timestamp,
}

impl Endpoint {
    /// The payload settings of its current version.
    pub fn current_version(&self) -> EndpointVersion {
        EndpointVersion {
            version: self.version,
            snapshot_fields: self.snapshot_fields.clone(),
            allow_personal_data: self.allow_personal_data,
            event_type_versions: self.event_type_versions.clone(),
            started_at: self.version_started_at,
        }
    }

    /// Whether `next` changes what this endpoint's payloads hold, so that it
    /// must open a new endpoint version.
    pub fn payload_changed(&self, next: &Endpoint) -> bool {
        self.snapshot_fields != next.snapshot_fields
            || self.allow_personal_data != next.allow_personal_data
            || self.event_type_versions != next.event_type_versions
    }
}

/// A published event as stored. `data` keeps the exact bytes the tenant sent.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    /// The event type's schema version the payload was validated against.
    pub type_version: i64,
    pub environment: Environment,
    pub subject: Option<String>,
    #[schema(value_type = Object)]
    pub data: Box<RawValue>,
    pub consumer_id: Option<String>,
    pub ordering_key: Option<String>,
    /// Monotonic per subject within the tenant and environment; absent without a subject.
    pub seq: Option<i64>,
    pub traceparent: String,
    pub expires_at: Option<Timestamp>,
    /// When the event happened (the CloudEvents `time`): the publish's `time`,
    /// or when Relay accepted it.
    pub time: Timestamp,
    /// When Relay accepted it; retention and replay ranges count from here.
    pub created_at: Timestamp,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.event_type == other.event_type
            && self.type_version == other.type_version
            && self.environment == other.environment
            && self.subject == other.subject
            && self.data.get() == other.data.get()
            && self.consumer_id == other.consumer_id
            && self.ordering_key == other.ordering_key
            && self.seq == other.seq
            && self.traceparent == other.traceparent
            && self.expires_at == other.expires_at
            && self.time == other.time
            && self.created_at == other.created_at
    }
}

/// The job of delivering one event to one endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Message {
    pub id: String,
    pub event_id: String,
    pub endpoint_id: String,
    pub event_type: String,
    pub environment: Environment,
    /// The endpoint version the message was produced for, whose settings
    /// shape its payload at every attempt; absent for messages produced
    /// before endpoint versions existed (they carry the event's whole data).
    pub endpoint_version: Option<i64>,
    /// The event type version whose fields (thin, personal data) shaped
    /// the payload its attempts sent: recorded at its first attempt that
    /// sent a shaped payload and kept, whatever versions the type gets
    /// later. Absent before such an attempt, for a message sent whole
    /// (produced before endpoint versions), and for a type without versions.
    pub event_type_version: Option<i64>,
    pub state: MessageState,
    /// Attempts that counted against the schedule.
    pub attempts_used: i64,
    /// `Retry-After` deferrals used (at most 3).
    pub deferrals_used: i64,
    pub next_attempt_at: Option<Timestamp>,
    pub last_error_code: Option<String>,
    /// Why a message in a terminal state other than `delivered` ended there.
    pub terminal_reason: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// What started an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AttemptTrigger {
    Scheduled,
    Manual,
    Probe,
}

impl AttemptTrigger {
    pub const fn as_str(self) -> &'static str {
        match self {
            AttemptTrigger::Scheduled => "scheduled",
            AttemptTrigger::Manual => "manual",
            AttemptTrigger::Probe => "probe",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "scheduled" => Some(AttemptTrigger::Scheduled),
            "manual" => Some(AttemptTrigger::Manual),
            "probe" => Some(AttemptTrigger::Probe),
            _ => None,
        }
    }
}

/// The record of one try at delivering a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Attempt {
    pub id: String,
    pub message_id: String,
    pub endpoint_id: String,
    /// 1-based position in the message's attempts.
    pub number: i64,
    pub trigger: AttemptTrigger,
    pub started_at: Timestamp,
    pub duration_ms: i64,
    /// The address the delivery actually went to (or last tried).
    pub destination_ip: Option<String>,
    /// HTTPS: the response's status code (from `detail`; `null` for other kinds).
    pub status_code: Option<i64>,
    /// The guard's or the connection's kind of failure without a usable
    /// answer (`connect`, `timeout`, `tls`, `blocked_address`, `invalid_url`, …).
    pub error_kind: Option<String>,
    /// Why the attempt failed: `http_<status>`, `invalid_status`, or a
    /// transport kind; `null` on success and when the message was
    /// dead-lettered without an answer.
    #[schema(value_type = Option<String>)]
    pub error_code: Option<crate::outcome::FailureCode>,
    /// Hex SHA-256 of the exact body sent.
    pub body_sha256: String,
    /// The `webhook-signature` sent (HTTPS header, broker property).
    pub signature: String,
    /// HTTPS: the first 8 kB of the response body, byte for byte: as text
    /// when they are valid UTF-8, else base64 (`response_body_encoding`
    /// says which; from `detail`; `null` for other kinds).
    pub response_body: Option<String>,
    /// How `response_body` is written: `utf8` (the bytes are the text) or
    /// `base64` (the bytes were not valid UTF-8); `null` with no body.
    pub response_body_encoding: Option<BodyEncoding>,
    pub outcome: crate::outcome::AttemptOutcome,
    /// What the destination kind answered, its own shape: HTTPS
    /// `{"status_code", "response_body"}`; a broker, what it acknowledged.
    #[schema(value_type = Object)]
    pub detail: serde_json::Value,
}

/// How a kept response body is written in an attempt record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BodyEncoding {
    /// The bytes are valid UTF-8 and written as that text.
    Utf8,
    /// The bytes are not valid UTF-8 and written in base64 (standard alphabet, padded).
    Base64,
}

impl BodyEncoding {
    pub const fn as_str(self) -> &'static str {
        match self {
            BodyEncoding::Utf8 => "utf8",
            BodyEncoding::Base64 => "base64",
        }
    }
}

/// A response body prefix as an attempt's `detail` keeps it, losslessly:
/// `response_body` with the text when the bytes are valid UTF-8, else with
/// their base64 and `response_body_encoding: "base64"`.
pub fn body_detail(bytes: &[u8], detail: &mut serde_json::Map<String, serde_json::Value>) {
    use base64::Engine as _;
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            detail.insert("response_body".into(), text.into());
        }
        Err(_) => {
            detail.insert(
                "response_body".into(),
                base64::engine::general_purpose::STANDARD
                    .encode(bytes)
                    .into(),
            );
            detail.insert(
                "response_body_encoding".into(),
                BodyEncoding::Base64.as_str().into(),
            );
        }
    }
}

/// The HTTPS fields of an attempt's wire format, `status_code`,
/// `response_body` and its encoding, read from its `detail` (absent for
/// other kinds).
pub fn https_fields(
    detail: &serde_json::Value,
) -> (Option<i64>, Option<String>, Option<BodyEncoding>) {
    let body = detail
        .get("response_body")
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    let encoding = body.as_ref().map(|_| {
        match detail
            .get("response_body_encoding")
            .and_then(|v| v.as_str())
        {
            Some("base64") => BodyEncoding::Base64,
            _ => BodyEncoding::Utf8,
        }
    });
    (
        detail.get("status_code").and_then(|v| v.as_i64()),
        body,
        encoding,
    )
}

/// One page of a keyset-paginated list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Page<T> {
    pub data: Vec<T>,
    /// Pass as `after` to get the next page; `null` on the last page.
    pub next_after: Option<String>,
}

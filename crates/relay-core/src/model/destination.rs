//! Where an endpoint's messages go: [`Destination`] and the configurations
//! of the kinds that have no module of their own (HTTPS, Redis Streams, NATS
//! JetStream, RabbitMQ). Each configuration derives its OpenAPI schema: its
//! doc comments are the API's descriptions, its `#[schema(...)]` attributes
//! the bounds and patterns (`model/destination_schema.rs` composes them).

use super::*;

/// Where an endpoint's messages go. New kinds (brokers, queues, object
/// storage) are new variants; the endpoint object keeps its shape.
///
/// Its OpenAPI schema is composed from the kinds' derived schemas, each with
/// its `kind` added (`model/destination_schema.rs`): utoipa's own derive
/// for the enum combines the variant's closed object (`deny_unknown_fields`)
/// with the `kind` tag in an `allOf`, a schema no value satisfies.
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
    /// A test-only batching kind (feature `test-kinds`, never in Relay).
    #[cfg(feature = "test-kinds")]
    LocalDir(LocalDirDestination),
}

impl utoipa::PartialSchema for Destination {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        super::destination_schema::schema()
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
            #[cfg(feature = "test-kinds")]
            Destination::LocalDir(_) => "local_dir",
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
            #[cfg(feature = "test-kinds")]
            Destination::LocalDir(_) => Vec::new(),
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
            #[cfg(feature = "test-kinds")]
            Destination::LocalDir(_) => return None,
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
            #[cfg(feature = "test-kinds")]
            Destination::LocalDir(_) => ContentMode::Structured,
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
            #[cfg(feature = "test-kinds")]
            Destination::LocalDir(_) if mode != ContentMode::Structured => return None,
            #[cfg(feature = "test-kinds")]
            Destination::LocalDir(_) => {}
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

/// An HTTPS URL that receives each message as a signed POST.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpsDestination {
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
}

/// One custom header of an HTTPS endpoint: its `name` and either a literal
/// `value` or a `secret` reference to the value (exactly one of them; the
/// kind checks it at registration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpsHeader {
    #[schema(min_length = 1, max_length = 256)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, max_length = 1024)]
    pub value: Option<String>,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// header's value, never the value itself. See docs/destinations.md (Credentials: secret references).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = false, pattern = "^(secret:|env:|file:/)")]
    pub secret: Option<SecretRef>,
}

/// A Redis stream: each message is one entry added with XADD (the
/// CloudEvent in the `body` field, structured or binary by `content_mode`,
/// the Standard Webhooks values in their own fields); the entry id Redis
/// answers is the acknowledgement. See docs/destinations.md for what Redis
/// durability means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RedisStreamDestination {
    /// A host name or IP address, checked by the outbound guard at
    /// registration and at every connect.
    pub host: String,
    /// Default 6379; the operator's `allow_ports` must include it.
    #[serde(default = "default_redis_port")]
    #[schema(default = default_redis_port, minimum = 1, maximum = 65535)]
    pub port: u16,
    /// Connect with TLS (default false).
    #[serde(default)]
    #[schema(default = false)]
    pub tls: bool,
    /// SELECT this database first (default: none, database 0).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 15)]
    pub database: Option<u32>,
    /// The stream key.
    #[schema(min_length = 1, max_length = 256)]
    pub stream: String,
    /// Trim with `MAXLEN ~ max_len` on each XADD.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub max_len: Option<u64>,
    /// The ACL user (Redis 6+) to `AUTH` as; needs `password`.
    #[serde(default)]
    pub username: Option<String>,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never
    /// the password itself: Relay sends `AUTH [username] password` on every
    /// new connection. See docs/destinations.md (Credentials: secret references).
    #[serde(default)]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub password: Option<SecretRef>,
    /// `structured` (default): the CloudEvents JSON in `body`; `binary`:
    /// `data` in `body` and each context attribute in a field `ce-<name>`.
    #[serde(default)]
    #[schema(default = ContentMode::default, inline)]
    pub content_mode: ContentMode,
    /// Send `WAITAOF local replicas timeout_ms` after each XADD (Redis 7.2+)
    /// and count the delivery only when the server confirms the fsyncs asked
    /// for; fewer is retried, a server without WAITAOF (or `local: 1` with
    /// `appendonly no`) dead-letters the message as `invalid_destination`.
    /// Default: none (the XADD reply alone).
    #[serde(default)]
    #[schema(inline)]
    pub wait_aof: Option<WaitAof>,
}

/// `WAITAOF numlocal numreplicas timeout` after each `XADD`: success only
/// once the entry is fsynced to the AOF of the server (`local: 1`) and of
/// `replicas` replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitAof {
    /// 1 (default): the server's own AOF must be fsynced.
    #[serde(default = "default_wait_aof_local")]
    #[schema(default = default_wait_aof_local, minimum = 0, maximum = 1)]
    pub local: u8,
    /// Replicas whose AOF must be fsynced (default 0).
    #[serde(default)]
    #[schema(default = 0, minimum = 0)]
    pub replicas: u32,
    /// How long the server waits (default 1000).
    #[serde(default = "default_wait_aof_timeout_ms")]
    #[schema(default = default_wait_aof_timeout_ms, minimum = 1, maximum = 60000)]
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

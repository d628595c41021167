//! Where an endpoint's messages go: [`Destination`], its hand-written
//! OpenAPI schema, and the configurations of the kinds that have no module
//! of their own (HTTPS, Redis Streams, NATS JetStream, RabbitMQ).

use super::*;

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

//! The Redis Streams kind's configuration (see `docs/destinations.md`).
//! Its OpenAPI schema is derived from the types: their doc comments are the
//! API's descriptions.

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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

//! Relay's destinations: where a message goes and what the answer means.
//!
//! One folder per kind (`https/`, `redis_stream/`, `nats_jetstream/`, `rabbitmq/`, `mqtt/`, `kafka/`, `s3/`), each with the same parts, the
//! [`Kind`] trait:
//!
//! | Part | What it is |
//! |---|---|
//! | `Config` | the kind's configuration, what the API validates and stores (a variant of [`relay_core::model::Destination`]) |
//! | [`Kind::validate`] | the check at registration, through the outbound guard |
//! | [`Kind::build`] | the client built once per endpoint from its configuration and the resolved values of its secret references ([`Secrets`]); the engine caches it and builds it again when the endpoint or a referenced secret changes |
//! | [`Kind::deliver`] | one attempt |
//! | [`Kind::classify`] | pure: the kind's result to the generic [`Verdict`], table-tested |
//! | [`Kind::record`] | the attempt record's address, error and per-kind `detail` |
//! | [`Kind::capacity`] | what the kind can carry, as data (`<kind>/limits.rs`): its largest message and address; [`admit`] checks a prepared message against it before any attempt |
//! | [`Batching`] (some kinds) | many messages, one write: how an endpoint's batches close ([`BatchPolicy`]), the line a message adds, the closed batch's object (name, bytes, signature) and its write; the engine's `batches.rs` does the rest for every batching kind ([`batching`]) |
//!
//! Around them, the attempt is a pipeline that is the same for every kind
//! (`relay-engine/src/attempt.rs`): [`prepare`] (CloudEvents envelope, size
//! limit, signatures: generic), deliver and classify (per kind), then
//! [`relay_core::outcome::resolve`] (schedule, deferrals) and the state
//! transition of `relay_core::transition` (generic).
//!
//! The `test-kinds` feature adds a test-only kind, `local_dir`
//! ([`relay_core::model::Destination`]'s `LocalDir` variant, which the
//! feature adds in relay-core too): a batching kind that writes each batch
//! as one file in a local directory, so the engine's tests show that any
//! kind implementing [`Batching`] is batched with no engine change. Only
//! relay-engine's dev-dependency enables it; Relay never has it.
//!
//! Kinds are dispatched statically: [`Client`] and [`Delivery`] are enums
//! with one variant per kind, so an attempt costs no allocation or virtual
//! call for the dispatch.
//!
//! Credentials are never in a configuration: a password, token or key is a
//! [`relay_core::secret::SecretRef`] field (`Option<SecretRef>`), listed by
//! [`Destination::secret_refs`]. The caller (the engine) resolves every
//! reference before [`build`], which is synchronous; the kind's `build`
//! takes its values with [`Secrets::require`] and keeps them as
//! [`relay_core::secret::SecretValue`]s, which never show in `Debug`, logs,
//! errors or attempt records.
//!
//! Every connection a kind's client opens goes through the outbound guard of
//! `relay-net` (resolve, check every address, connect to the verified
//! address): client libraries get a connector, a resolver or a pinned,
//! checked address from it, never a socket of their own.
//!
//! # Adding a destination kind
//!
//! 1. A variant of `relay_core::model::Destination` with its config type
//!    (and its OpenAPI schema in `Destination`'s schema); its credentials
//!    are `Option<SecretRef>` fields, listed in `Destination::secret_refs`.
//! 2. A folder `src/<kind>/` with `mod.rs` implementing [`Kind`] and
//!    `classify.rs` with the pure classification and its table tests, and
//!    `limits.rs` with its [`Capacity`].
//! 3. A variant in [`Client`] and [`Delivery`] and an arm in [`validate`],
//!    [`build`], [`Client::deliver`], [`Delivery::classify`] and
//!    [`Delivery::record`] (the compiler lists every place).
//! 4. A kind that writes many messages as one object (object storage)
//!    also implements [`Batching`] (its [`BatchPolicy`], how a closed
//!    batch is sealed into its object, how the object is written) and gets
//!    an arm in `batching.rs`; the engine batches it with no change.
//! 5. The compliance suite (`crates/relay-compliance`) run against the
//!    kind's real peer: one test file that implements its `Peer`.

mod batching;
mod capacity;
pub mod https;
pub mod kafka;
#[cfg(feature = "test-kinds")]
pub mod local_dir;
pub mod mqtt;
pub mod nats_jetstream;
mod prepare;
pub mod rabbitmq;
pub mod redis_stream;
pub mod s3;
mod template;
#[cfg(test)]
mod test_message;

use std::future::Future;
use std::net::SocketAddr;

use relay_core::model::Destination;
use relay_core::outcome::{TransportError, Verdict};
use relay_core::secret::{Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{ErrorKind, Guard, HttpsClient, Limits};

pub use batching::{BatchObject, BatchPolicy, Batching, Closing, batching};
pub use capacity::{Capacity, HEADROOM_BYTES, Unfit, fits};
pub use prepare::{Input, Prepared, Shaped, prepare};

/// The transport kind of a failed exchange, or `None` when the guard
/// refused the target itself (nothing was tried; no retry can help).
pub fn transport_error(kind: ErrorKind) -> Option<TransportError> {
    Some(match kind {
        ErrorKind::Dns => TransportError::Dns,
        ErrorKind::BlockedAddress => TransportError::BlockedAddress,
        ErrorKind::Connect => TransportError::Connect,
        ErrorKind::Timeout => TransportError::Timeout,
        ErrorKind::Tls => TransportError::Tls,
        ErrorKind::Http | ErrorKind::Protocol => TransportError::Protocol,
        ErrorKind::InvalidUrl
        | ErrorKind::SchemeNotAllowed
        | ErrorKind::CredentialsInUrl
        | ErrorKind::PortNotAllowed => return None,
    })
}

/// What every kind's client is built from: the process's shared clients
/// and its clock.
#[derive(Clone)]
pub struct Shared {
    /// The pooled, guarded HTTPS client (its guard checks every target).
    pub https: HttpsClient,
    /// The engine's clock (a client that keeps time-bound state, such as
    /// the HTTPS kind's OAuth 2.0 tokens, reads "now" from it).
    pub clock: std::sync::Arc<dyn relay_core::time::Clock>,
}

/// A destination refused at registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// The stable code of the API's `422`.
    pub code: &'static str,
    /// The JSON pointer of the field at fault in the endpoint.
    pub pointer: &'static str,
    pub message: String,
}

/// What an attempt record keeps of one delivery, for every kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The address actually used (or last tried).
    pub destination: Option<SocketAddr>,
    /// How the delivery failed without an answer, with its text (never
    /// secret-bearing: the guard's and client's messages name hosts and
    /// addresses, not credentials or URL paths).
    pub error: Option<(ErrorKind, String)>,
    /// The kind's own part: HTTPS `{status_code, response_body}`; a broker,
    /// what it acknowledged.
    pub detail: serde_json::Value,
}

/// One destination kind. See the crate documentation.
pub trait Kind {
    /// The kind's name, the endpoint's `destination.kind`.
    const NAME: &'static str;
    type Config;
    type Client: Clone + Send + Sync;
    type Result: Send;

    /// Checks a configuration at registration, through the guard.
    fn validate(
        config: &Self::Config,
        guard: &Guard,
    ) -> impl Future<Output = Result<(), Invalid>> + Send;

    /// Builds the client of one endpoint, with the resolved values of its
    /// secret references ([`Secrets::require`]).
    fn build(
        config: &Self::Config,
        shared: &Shared,
        secrets: &Secrets,
    ) -> Result<Self::Client, Unresolved>;

    /// Makes one attempt.
    fn deliver(
        client: &Self::Client,
        message: &Prepared,
        limits: Limits,
    ) -> impl Future<Output = Self::Result> + Send;

    /// What the result means. Pure.
    fn classify(result: &Self::Result, now: Timestamp) -> Verdict;

    /// What the attempt record keeps of the result.
    fn record(result: &Self::Result) -> Record;

    /// What an endpoint of this configuration can carry (`limits.rs`).
    fn capacity(config: &Self::Config) -> Capacity;

    /// How many bytes of `message` count against
    /// [`Capacity::max_message_bytes`]: the body, unless the peer counts
    /// more (Kafka: the key and headers too).
    fn message_bytes(_config: &Self::Config, message: &Prepared) -> u64 {
        message.body.len() as u64
    }

    /// The length in bytes of the address filled in for `message`
    /// (routing key, topic), for a kind whose [`Capacity::max_address`]
    /// is set; `None` when it cannot be filled in (the attempt says why).
    fn address_len(_config: &Self::Config, _message: &Prepared) -> Option<usize> {
        None
    }
}

/// Whether `message` can be carried by `destination`'s kind, checked
/// before any attempt: `Err` dead-letters it unsent
/// ([`Unfit::reason`]).
pub fn admit(destination: &Destination, message: &Prepared) -> Result<(), Unfit> {
    fn check<K: Kind>(c: &K::Config, m: &Prepared) -> Result<(), Unfit> {
        fits(
            &K::capacity(c),
            K::message_bytes(c, m),
            K::address_len(c, m),
        )
    }
    match destination {
        Destination::Https(c) => check::<https::Https>(c, message),
        Destination::RedisStream(c) => check::<redis_stream::RedisStream>(c, message),
        Destination::NatsJetstream(c) => check::<nats_jetstream::NatsJetstream>(c, message),
        Destination::RabbitMq(c) => check::<rabbitmq::RabbitMq>(c, message),
        Destination::Mqtt(c) => check::<mqtt::Mqtt>(c, message),
        Destination::S3(c) => check::<s3::S3>(c, message),
        Destination::Kafka(c) => check::<kafka::Kafka>(c, message),
        #[cfg(feature = "test-kinds")]
        Destination::LocalDir(c) => check::<local_dir::LocalDir>(c, message),
    }
}

/// What `destination`'s kind, as configured, can carry.
pub fn capacity(destination: &Destination) -> Capacity {
    match destination {
        Destination::Https(c) => https::Https::capacity(c),
        Destination::RedisStream(c) => redis_stream::RedisStream::capacity(c),
        Destination::NatsJetstream(c) => nats_jetstream::NatsJetstream::capacity(c),
        Destination::RabbitMq(c) => rabbitmq::RabbitMq::capacity(c),
        Destination::Mqtt(c) => mqtt::Mqtt::capacity(c),
        Destination::S3(c) => s3::S3::capacity(c),
        Destination::Kafka(c) => kafka::Kafka::capacity(c),
        #[cfg(feature = "test-kinds")]
        Destination::LocalDir(c) => local_dir::LocalDir::capacity(c),
    }
}

/// The registration warning for an endpoint whose destination cannot
/// carry the largest body Relay may deliver (`largest_body`: the delivery
/// limit); `None` when it can.
pub fn capacity_warning(destination: &Destination, largest_body: u64) -> Option<String> {
    capacity::warning(&capacity(destination), largest_body)
}

/// Credentials never travel in clear: a broker destination with
/// credentials needs `tls`, unless the operator allowed plaintext to
/// loopback hosts for development (`[outbound]
/// allow_plaintext_credentials_to_loopback`) and every host is one.
pub async fn credentials_in_clear(destination: &Destination, guard: &Guard) -> Result<(), Invalid> {
    let Some(hosts) = destination.credentials_in_clear() else {
        return Ok(());
    };
    for host in hosts {
        if !guard.plaintext_credentials_allowed(host).await {
            return Err(Invalid {
                code: "credentials_without_tls",
                pointer: "/destination/tls",
                message: "the destination carries credentials, which are never sent without TLS: set `tls: true` (plaintext is allowed only to a loopback host, for development, when the operator sets [outbound] allow_plaintext_credentials_to_loopback)".into(),
            });
        }
    }
    Ok(())
}

/// Checks an endpoint's destination at registration.
pub async fn validate(destination: &Destination, guard: &Guard) -> Result<(), Invalid> {
    match destination {
        Destination::Https(c) => https::Https::validate(c, guard).await,
        Destination::RedisStream(c) => redis_stream::RedisStream::validate(c, guard).await,
        Destination::NatsJetstream(c) => nats_jetstream::NatsJetstream::validate(c, guard).await,
        Destination::RabbitMq(c) => rabbitmq::RabbitMq::validate(c, guard).await,
        Destination::Mqtt(c) => mqtt::Mqtt::validate(c, guard).await,
        Destination::S3(c) => s3::S3::validate(c, guard).await,
        Destination::Kafka(c) => kafka::Kafka::validate(c, guard).await,
        #[cfg(feature = "test-kinds")]
        Destination::LocalDir(c) => local_dir::LocalDir::validate(c, guard).await,
    }?;
    credentials_in_clear(destination, guard).await
}

/// Checks the resolved values of an endpoint's secret references at
/// registration, where a kind needs more of them than that they resolve
/// (HTTPS: a client certificate chain and key that parse and match).
/// `secrets` holds the value of every reference of
/// [`Destination::secret_refs`].
pub fn check_values(destination: &Destination, secrets: &Secrets) -> Result<(), Invalid> {
    match destination {
        Destination::Https(c) => https::mtls::check(c, secrets),
        Destination::Kafka(c) => kafka::check_values(c, secrets),
        Destination::RedisStream(_)
        | Destination::NatsJetstream(_)
        | Destination::RabbitMq(_)
        | Destination::Mqtt(_)
        | Destination::S3(_) => Ok(()),
        #[cfg(feature = "test-kinds")]
        Destination::LocalDir(_) => Ok(()),
    }
}

/// Builds an endpoint's client. `secrets` holds the resolved value of
/// every reference of [`Destination::secret_refs`]; a missing one is
/// [`Unresolved`].
pub fn build(
    destination: &Destination,
    shared: &Shared,
    secrets: &Secrets,
) -> Result<Client, Unresolved> {
    Ok(match destination {
        Destination::Https(c) => Client::Https(https::Https::build(c, shared, secrets)?),
        Destination::RedisStream(c) => {
            Client::RedisStream(redis_stream::RedisStream::build(c, shared, secrets)?)
        }
        Destination::NatsJetstream(c) => {
            Client::NatsJetstream(nats_jetstream::NatsJetstream::build(c, shared, secrets)?)
        }
        Destination::RabbitMq(c) => {
            Client::RabbitMq(rabbitmq::RabbitMq::build(c, shared, secrets)?)
        }
        Destination::Mqtt(c) => Client::Mqtt(mqtt::Mqtt::build(c, shared, secrets)?),
        Destination::S3(c) => Client::S3(s3::S3::build(c, shared, secrets)?),
        Destination::Kafka(c) => Client::Kafka(kafka::Kafka::build(c, shared, secrets)?),
        #[cfg(feature = "test-kinds")]
        Destination::LocalDir(c) => {
            Client::LocalDir(local_dir::LocalDir::build(c, shared, secrets)?)
        }
    })
}

/// An endpoint's built client, of its kind.
#[derive(Clone)]
pub enum Client {
    Https(<https::Https as Kind>::Client),
    RedisStream(<redis_stream::RedisStream as Kind>::Client),
    NatsJetstream(<nats_jetstream::NatsJetstream as Kind>::Client),
    RabbitMq(<rabbitmq::RabbitMq as Kind>::Client),
    Mqtt(<mqtt::Mqtt as Kind>::Client),
    S3(<s3::S3 as Kind>::Client),
    Kafka(<kafka::Kafka as Kind>::Client),
    #[cfg(feature = "test-kinds")]
    LocalDir(<local_dir::LocalDir as Kind>::Client),
}

/// The result of one attempt, of its kind.
pub enum Delivery {
    Https(<https::Https as Kind>::Result),
    RedisStream(<redis_stream::RedisStream as Kind>::Result),
    NatsJetstream(<nats_jetstream::NatsJetstream as Kind>::Result),
    RabbitMq(<rabbitmq::RabbitMq as Kind>::Result),
    Mqtt(<mqtt::Mqtt as Kind>::Result),
    S3(<s3::S3 as Kind>::Result),
    Kafka(<kafka::Kafka as Kind>::Result),
    #[cfg(feature = "test-kinds")]
    LocalDir(<local_dir::LocalDir as Kind>::Result),
}

impl Client {
    /// Makes one attempt.
    pub async fn deliver(&self, message: &Prepared, limits: Limits) -> Delivery {
        match self {
            Client::Https(c) => Delivery::Https(https::Https::deliver(c, message, limits).await),
            Client::RedisStream(c) => {
                Delivery::RedisStream(redis_stream::RedisStream::deliver(c, message, limits).await)
            }
            Client::NatsJetstream(c) => Delivery::NatsJetstream(
                nats_jetstream::NatsJetstream::deliver(c, message, limits).await,
            ),
            Client::RabbitMq(c) => {
                Delivery::RabbitMq(rabbitmq::RabbitMq::deliver(c, message, limits).await)
            }
            Client::Mqtt(c) => Delivery::Mqtt(mqtt::Mqtt::deliver(c, message, limits).await),
            Client::S3(c) => Delivery::S3(s3::S3::deliver(c, message, limits).await),
            Client::Kafka(c) => Delivery::Kafka(kafka::Kafka::deliver(c, message, limits).await),
            #[cfg(feature = "test-kinds")]
            Client::LocalDir(c) => {
                Delivery::LocalDir(local_dir::LocalDir::deliver(c, message, limits).await)
            }
        }
    }
}

impl Delivery {
    /// The kind's verdict on this result.
    pub fn classify(&self, now: Timestamp) -> Verdict {
        match self {
            Delivery::Https(r) => https::Https::classify(r, now),
            Delivery::RedisStream(r) => redis_stream::RedisStream::classify(r, now),
            Delivery::NatsJetstream(r) => nats_jetstream::NatsJetstream::classify(r, now),
            Delivery::RabbitMq(r) => rabbitmq::RabbitMq::classify(r, now),
            Delivery::Mqtt(r) => mqtt::Mqtt::classify(r, now),
            Delivery::S3(r) => s3::S3::classify(r, now),
            Delivery::Kafka(r) => kafka::Kafka::classify(r, now),
            #[cfg(feature = "test-kinds")]
            Delivery::LocalDir(r) => local_dir::LocalDir::classify(r, now),
        }
    }

    /// A health warning the result calls for beside its verdict (HTTPS: a
    /// token endpoint that refused the client credentials); redirect
    /// warnings come with their permanent verdict instead.
    pub fn health_warning(&self) -> Option<relay_core::outcome::HealthWarning> {
        match self {
            Delivery::Https(r) => r.health_warning(),
            _ => None,
        }
    }

    /// What the attempt record keeps.
    pub fn record(&self) -> Record {
        match self {
            Delivery::Https(r) => https::Https::record(r),
            Delivery::RedisStream(r) => redis_stream::RedisStream::record(r),
            Delivery::NatsJetstream(r) => nats_jetstream::NatsJetstream::record(r),
            Delivery::RabbitMq(r) => rabbitmq::RabbitMq::record(r),
            Delivery::Mqtt(r) => mqtt::Mqtt::record(r),
            Delivery::S3(r) => s3::S3::record(r),
            Delivery::Kafka(r) => kafka::Kafka::record(r),
            #[cfg(feature = "test-kinds")]
            Delivery::LocalDir(r) => local_dir::LocalDir::record(r),
        }
    }
}

//! Relay's destinations: where a message goes and what the answer means.
//!
//! One folder per kind (`https/`, `redis_stream/`, `nats_jetstream/`, `rabbitmq/`, `mqtt/`, `kafka/`, `s3/`, `sqs/`, `sns/`, `eventbridge/`, `pubsub/`, `service_bus/`), each with the same parts, the
//! [`Kind`] trait:
//!
//! | Part | What it is |
//! |---|---|
//! | `Config` | the kind's configuration type (`<kind>/destination.rs`, deriving its OpenAPI schema, [`Kind::schema`]): the members of the endpoint's `destination` object besides `kind`, what the API validates and the store keeps (as the generic [`relay_core::model::Destination`]); a variant of [`Config`] |
//! | [`Kind::secret_refs`], [`Kind::hosts_in_clear`], [`Kind::content_mode`] | what the configuration says of its credentials (its secret references, the hosts it would send them to without TLS) and of how a message carries its CloudEvent |
//! | [`Kind::validate`] | the check at registration, through the outbound guard |
//! | [`Kind::build`] | the client built once per endpoint from its configuration and the resolved values of its secret references ([`Secrets`]); the engine caches it and builds it again when the endpoint or a referenced secret changes |
//! | [`Kind::deliver`] | one attempt |
//! | [`Kind::classify`] | pure: the kind's result to the generic [`Verdict`], table-tested |
//! | [`Kind::record`] | the attempt record's address, error and per-kind `detail` |
//! | [`Kind::capacity`] | what the kind can carry, as data (`<kind>/limits.rs`): its largest message and address; [`admit`] checks a prepared message against it before any attempt |
//! | [`Kind::credential_hosts`] | the hosts its credentials are sent to: a change of them drops the credentials the change does not restate (the API) |
//! | [`Kind::describe`] | where its messages go, in one line for the audit log |
//! | [`Batching`] (some kinds) | many messages, one write: how an endpoint's batches close ([`BatchPolicy`]), the line a message adds, the closed batch's object (name, bytes, signature) and its write; the engine's `batches.rs` does the rest for every batching kind ([`batching`](fn@batching)) |
//! | [`Kind::check_values`], [`Kind::literal_credentials`], [`Kind::redact`], [`Kind::health_warning`] | defaults that do nothing, for what only some kinds have: values checked beyond resolving (HTTPS's client certificate, Kafka's), literal credentials stored before those were refused and hidden from reads (HTTPS headers), a health warning beside the verdict (HTTPS's token endpoint) |
//!
//! Around them, the attempt is a pipeline that is the same for every kind
//! (`relay-engine/src/attempt.rs`): [`prepare`] (CloudEvents envelope, size
//! limit, signatures: generic), deliver and classify (per kind), then
//! [`relay_core::outcome::resolve`] (schedule, deferrals) and the state
//! transition of `relay_core::transition` (generic).
//!
//! The kinds are listed once, in the `kinds!` invocation at the end of
//! this file (`src/dispatch.rs` holds the macro): from that list come
//! [`Config`], [`Client`] and [`Delivery`], enums with one variant per
//! kind, the API's `Destination` schema and one per kind ([`components`]), and every function
//! that dispatches a configuration, a client or a result to its kind
//! ([`Config::try_from`] a [`Destination`], [`Config::secret_refs`],
//! [`Config::content_mode`], [`admit`], [`capacity`], [`validate`], [`check_values`],
//! [`build`], [`credential_hosts`], [`describe`], [`literal_credentials`],
//! [`redact`], [`Client::deliver`], [`Delivery::classify`],
//! [`Delivery::record`], [`Delivery::health_warning`]). The dispatch is
//! static: an attempt costs no allocation or virtual call for it. The
//! engine and the API call only these: they never name a kind, and
//! relay-core knows none (the tidy test `engine_and_api_name_no_kind`
//! holds it; the consumer portal, whose endpoints are HTTPS by product
//! rule, goes through [`https::portal`]). The engine reads an endpoint's
//! [`Destination`] as its [`Config`] once per endpoint version (its client
//! cache), never per attempt.
//!
//! The `test-kinds` feature adds a test-only kind, `local_dir`
//! (`src/local_dir.rs`, configuration included, and its line in the
//! list: nothing else): a batching kind that writes each batch as one file
//! in a local directory, so the engine's tests show that any kind
//! implementing [`Batching`] is batched with no change outside its folder.
//! Only relay-engine's dev-dependency enables it; Relay never has it.
//!
//! Credentials are never in a configuration: a password, token or key is a
//! [`relay_core::secret::SecretRef`] field (`Option<SecretRef>`), listed by
//! [`Kind::secret_refs`] ([`Config::secret_refs`]). That list, and which
//! hosts would get credentials in clear ([`Config::credentials_in_clear`],
//! checked by [`credentials_in_clear`]), are what the API (which secrets
//! an endpoint uses) and the engine's client cache ask of any
//! destination. The caller (the engine)
//! resolves every reference before [`build`], which is synchronous; the
//! kind's `build` takes its values with [`Secrets::require`] and keeps them as
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
//! 1. A folder `src/<kind>/` with `destination.rs`, its configuration
//!    type (serde, `deny_unknown_fields`; deriving `utoipa::ToSchema`, its
//!    doc comments the API's descriptions; its credentials
//!    `Option<SecretRef>` fields), `mod.rs` implementing [`Kind`] (the
//!    required methods, among them [`Kind::schema`] and
//!    [`Kind::secret_refs`], and the defaults the kind needs:
//!    [`Kind::hosts_in_clear`] for a kind with a `tls` switch,
//!    [`Kind::content_mode`] for one with content modes),
//!    `classify.rs` with the pure classification and its table tests, and
//!    `limits.rs` with its [`Capacity`].
//! 2. Its module here and one line in the `kinds!` list at the end of this
//!    file (`Variant => module::Type`): [`Config`], its reading from a
//!    [`Destination`], the API's schema, the dispatch, [`Client`] and
//!    [`Delivery`] follow. relay-core, the engine and the API need no
//!    change.
//! 3. A kind that writes many messages as one object (object storage)
//!    also implements [`Batching`] (its [`BatchPolicy`], how a closed
//!    batch is sealed into its object, how the object is written) and its
//!    line in `kinds!` ends in `[batching]`; the engine batches it with no
//!    change.
//! 4. The compliance suite (`crates/relay-compliance`) run against the
//!    kind's real peer: one test file that implements its `Peer`.

/// The most any kind's attempt outlasts its request timeout
/// (`relay_net::Limits::total_timeout`): Kafka waits this much longer for
/// the record's delivery report, for its timer's granularity; every other
/// kind ends within the timeout. The engine's shortest lease counts it
/// (`relay_engine::EngineConfig::shortest_lease`).
pub const ATTEMPT_OVERRUN: std::time::Duration = std::time::Duration::from_secs(2);

pub mod aws;
mod batching;
mod broker;
mod capacity;
mod config;
mod dispatch;
pub mod eventbridge;
pub mod gcp;
mod hosts;
pub mod https;
pub mod kafka;
#[cfg(feature = "test-kinds")]
pub mod local_dir;
pub mod mqtt;
pub mod nats_jetstream;
mod prepare;
pub mod pubsub;
pub mod rabbitmq;
pub mod redis_stream;
pub mod s3;
mod schema;
pub mod service_bus;
pub mod sns;
pub mod sqs;
mod template;
#[cfg(test)]
mod test_message;

use std::collections::BTreeSet;
use std::future::Future;
use std::net::SocketAddr;

use relay_core::model::{ContentMode, Destination, Profile};
use relay_core::outcome::{HealthWarning, TransportError, Verdict};
use relay_core::secret::{SecretRef, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{ErrorKind, Guard, HttpsClient, Limits};

pub use batching::{BatchObject, BatchPolicy, Batching, Closing};
pub use capacity::{Capacity, HEADROOM_BYTES, Unfit, fits};
pub use prepare::{Input, Prepared, Shaped, prepare};
pub use schema::components;

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

/// Whom an endpoint's client is built for, beside [`Shared`]: its tenant,
/// the installation's AWS identity, with which a tenant's role is assumed
/// ([`aws::identity`]), and its Google workload identity
/// ([`gcp`]). Only the AWS kinds and Pub/Sub read it.
#[derive(Clone, Copy, Default)]
pub struct Tenancy<'a> {
    /// The endpoint's tenant (its `ExternalId` derives from it).
    pub tenant: &'a str,
    /// The operator's `[aws]` identity, when configured.
    pub aws: Option<&'a std::sync::Arc<aws::identity::Installation>>,
    /// The operator's `[gcp]` workload identity, when configured.
    pub gcp: Option<&'a std::sync::Arc<gcp::Installation>>,
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
    /// The kind's configuration: what the API validates and the store
    /// keeps, as the members of the destination object besides `kind`.
    type Config: serde::Serialize
        + serde::de::DeserializeOwned
        + Clone
        + std::fmt::Debug
        + PartialEq
        + Send
        + Sync;
    type Client: Clone + Send + Sync;
    type Result: Send;

    /// The configuration's OpenAPI schema, derived from its type (its doc
    /// comments and `#[schema(...)]` attributes); `None` for a test-only
    /// kind, never in the API's document.
    fn schema() -> Option<utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>>;

    /// Every secret reference of the configuration (its credentials are
    /// `Option<SecretRef>` fields, never values), with the JSON pointer of
    /// its field in the endpoint.
    fn secret_refs(config: &Self::Config) -> Vec<(&'static str, &SecretRef)>;

    /// The hosts the configuration connects to without TLS (a broker with
    /// `tls` off), where credentials would travel in clear; `None` when it
    /// always uses TLS (HTTPS, object storage) or connects to no host.
    fn hosts_in_clear(_config: &Self::Config) -> Option<Vec<&str>> {
        None
    }

    /// How its messages carry the CloudEvent: structured, unless the kind
    /// has a `content_mode` field.
    fn content_mode(_config: &Self::Config) -> ContentMode {
        ContentMode::Structured
    }

    /// What its deliveries are: CloudEvents, unless the configuration
    /// chooses another profile (HTTPS: `a2a_push`, docs/a2a.md).
    fn profile(_config: &Self::Config) -> Profile {
        Profile::CloudEvents
    }

    /// Whether the configuration admits `message` beside its size and
    /// address ([`admit`]): an A2A push endpoint, only the updates of its
    /// own task. Most kinds: every message.
    fn admits(_config: &Self::Config, _message: &Prepared) -> Result<(), Unfit> {
        Ok(())
    }

    /// Sets the content mode; `false` when the kind has no such mode
    /// (structured only, the default).
    fn set_content_mode(_config: &mut Self::Config, mode: ContentMode) -> bool {
        mode == ContentMode::Structured
    }

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

    /// Builds the client of one endpoint of `tenancy`'s tenant: a kind
    /// whose credentials depend on the tenant (an AWS role, assumed with
    /// the tenant's `ExternalId`) overrides it; the others build as
    /// [`Kind::build`] does.
    fn build_for(
        config: &Self::Config,
        shared: &Shared,
        secrets: &Secrets,
        _tenancy: Tenancy<'_>,
    ) -> Result<Self::Client, Unresolved> {
        Self::build(config, shared, secrets)
    }

    /// Checks at registration, after [`Kind::validate`] and
    /// [`Kind::check_values`], what only a call to the service can tell
    /// (an AWS role: that it can be assumed with the tenant's
    /// `ExternalId`). Most kinds: nothing (a test send proves the rest).
    fn check_access(
        _config: &Self::Config,
        _shared: &Shared,
        _tenancy: Tenancy<'_>,
    ) -> impl Future<Output = Result<(), Invalid>> + Send {
        async { Ok(()) }
    }

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

    /// Checks the resolved values of the configuration's secret
    /// references at registration, where the kind needs more of them than
    /// that they resolve (HTTPS: a client certificate chain and key that
    /// parse and match; Kafka: its client certificate). Most kinds: nothing.
    fn check_values(_config: &Self::Config, _secrets: &Secrets) -> Result<(), Invalid> {
        Ok(())
    }

    /// The hosts (with their ports) the configuration's credentials are
    /// sent to: the endpoint URL's and the token URL's origins (HTTPS), the
    /// broker's, the bootstrap brokers', the object store's. A change of
    /// them is a move to another host, which drops the credentials the
    /// change does not restate (the API's `PATCH`).
    fn credential_hosts(config: &Self::Config, guard: &Guard) -> BTreeSet<String>;

    /// Where the messages go, in one line for the audit log: the URL, or
    /// the broker's address and stream, topic or bucket. Never a
    /// credential.
    fn describe(config: &Self::Config) -> String;

    /// Credentials the configuration still stores as literals (HTTPS: a
    /// credential header stored before those were refused), as the JSON
    /// pointer of their field and their name, never their value. Most
    /// kinds: none (every credential is a secret reference).
    fn literal_credentials(_config: &Self::Config) -> Vec<(&'static str, &str)> {
        Vec::new()
    }

    /// Hides the values of [`Kind::literal_credentials`] from a copy of
    /// the configuration that is shown (an endpoint read).
    fn redact(_config: &mut Self::Config) {}

    /// A health warning `result` calls for beside its verdict (HTTPS: a
    /// token endpoint that refused the client credentials); redirect
    /// warnings come with their permanent verdict instead. Most kinds:
    /// none.
    fn health_warning(_result: &Self::Result) -> Option<HealthWarning> {
        None
    }
}

/// What the engine sends in an ownership challenge ([`challenge_ownership`]).
pub use https::ownership::Challenge as OwnershipChallenge;

/// Sends the ownership challenge to the receiver of the endpoint `client`
/// was built for (`docs/security.md`, "Proof of endpoint ownership"):
/// `None` when its kind has no receiver that can answer one (only an HTTPS
/// endpoint's can).
pub async fn challenge_ownership(
    client: &Client,
    challenge: &OwnershipChallenge<'_>,
    limits: Limits,
) -> Option<Result<(), relay_core::ownership::Failure>> {
    match client {
        Client::Https(c) => Some(c.challenge(challenge, limits).await),
        _ => None,
    }
}

/// The origin (`host:port`) whose receiver proves ownership of an
/// endpoint with this destination: its URL's, for an HTTPS endpoint;
/// `None` for every other kind (`docs/security.md`, "Proof of endpoint
/// ownership").
pub fn ownership_origin(config: &Config, guard: &Guard) -> Option<String> {
    match config {
        Config::Https(c) => Some(hosts::origin(guard, &c.url)),
        _ => None,
    }
}

/// The registration warning for an endpoint whose destination cannot
/// carry the largest body Relay may deliver (`largest_body`: the delivery
/// limit); `None` when it can.
pub fn capacity_warning(config: &Config, largest_body: u64) -> Option<String> {
    capacity::warning(&capacity(config), largest_body)
}

/// Credentials never travel in clear: a broker destination with
/// credentials needs `tls`, unless the operator allowed plaintext to
/// loopback hosts for development (`[outbound]
/// allow_plaintext_credentials_to_loopback`) and every host is one.
pub async fn credentials_in_clear(config: &Config, guard: &Guard) -> Result<(), Invalid> {
    let Some(hosts) = config.credentials_in_clear() else {
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

// The kinds, listed once: each line is a variant of `Config` (and of
// `Client` and `Delivery`) and the type implementing `Kind` for it. Their
// order is the order of the API schema's `oneOf`.
dispatch::kinds! {
    Https => https::Https,
    RedisStream => redis_stream::RedisStream,
    NatsJetstream => nats_jetstream::NatsJetstream,
    RabbitMq => rabbitmq::RabbitMq,
    Mqtt => mqtt::Mqtt,
    Kafka => kafka::Kafka,
    S3 => s3::S3 [batching],
    Sqs => sqs::Sqs,
    Sns => sns::Sns,
    EventBridge => eventbridge::EventBridge,
    Pubsub => pubsub::Pubsub,
    ServiceBus => service_bus::ServiceBus,
    #[cfg(feature = "test-kinds")]
    LocalDir => local_dir::LocalDir [batching],
}

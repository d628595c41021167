//! RabbitMQ (AMQP 0-9-1): each message is one persistent publish with
//! `mandatory` set on a channel in confirm mode; the broker's `basic.ack`
//! of that very delivery tag is the acknowledgement.
//!
//! - config: [`RabbitMqDestination`] (host, port, TLS,
//!   virtual host, exchange, routing key template, `username` and a
//!   `password` secret reference; both `null`: the broker's `guest`/`guest`);
//! - validation: the routing key template ([`routing`]), the names' lengths,
//!   and the guard resolves and checks the host and port, as for an HTTPS
//!   host;
//! - client: up to 16 idle connections kept per endpoint
//!   (`broker::Kept::exclusive`: each attempt holds one alone; one that
//!   broke when reused is replaced and the publish sent once more), each
//!   opened through the guard ([`relay_net::Guard::connect_checked`] or
//!   [`relay_net::Guard::connect_tls`]) and then over our own AMQP 0-9-1
//!   publisher ([`conn`], [`wire`]), reused across attempts, dropped on any
//!   failure or close;
//! - deliver: `basic.publish` (delivery mode 2, `mandatory`), then the
//!   frames until the confirm of its delivery tag;
//! - classify: [`classify::classify`];
//! - record: the address, the delivery tag, the return or the close.
//!
//! Why our own publisher rather than `lapin`: the publisher needs ten
//! methods, and it must run over the guard's already-connected tokio
//! stream (TCP or rustls); `lapin` opens and drives its connections through
//! its own connector and I/O loop, and brings its generated protocol crates
//! into the build. See `docs/destinations.md`.

mod destination;
pub use destination::*;
pub mod classify;
pub mod conn;
pub mod limits;
pub mod routing;
pub mod wire;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

use relay_core::model::ContentMode;
use relay_core::outcome::Verdict;
use relay_core::secret::SecretRef;
use relay_core::secret::{SecretValue, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{ErrorKind, Guard, Limits};
use tokio::time::Instant;
use utoipa::PartialSchema as _;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use self::classify::Answer;
use self::conn::{Confirm, Connection, Failure, Io, Login};
use self::routing::{MAX_ROUTING_KEY, Template};
use self::wire::{Properties, Table, Value};
use crate::broker::{
    self, Exchange, INVALID_CREDENTIALS, Kept, Outcome, PASSWORD_NEEDS_USERNAME,
    USERNAME_NEEDS_PASSWORD, check_host, failed, guard_failed, invalid, server_text,
};
use crate::{Invalid, Kind, Prepared, Record, Shared, hosts};

/// The RabbitMQ kind.
pub struct RabbitMq;

/// Idle connections kept per endpoint.
const MAX_IDLE: usize = 16;

/// AMQP's default credentials, used when none are configured.
const GUEST: &str = "guest";

/// An endpoint's client: its configuration and idle connections.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    guard: Guard,
    config: RabbitMqDestination,
    /// The parsed routing key (`None`: refused at registration, so only a
    /// configuration stored before a rule changed).
    routing_key: Option<Template>,
    /// The resolved `password` reference.
    password: Option<SecretValue>,
    kept: Kept<Connection>,
}

/// What one attempt came to.
#[derive(Debug)]
pub enum Result {
    /// The broker's answer to the publish.
    Confirmed {
        confirm: Confirm,
        routing_key: String,
        addr: SocketAddr,
    },
    /// No answer; the text names the failure (never a credential).
    Failed {
        kind: ErrorKind,
        text: String,
        addr: Option<SocketAddr>,
    },
    /// The broker closed the channel or connection (at most 512
    /// characters of its text).
    Closed {
        code: u16,
        text: String,
        addr: SocketAddr,
    },
    /// Nothing was sent: the routing key cannot be made for this message.
    Unaddressable { reason: String },
}

impl Outcome for Result {
    fn failed(kind: ErrorKind, text: String, addr: Option<SocketAddr>) -> Result {
        Result::Failed { kind, text, addr }
    }

    fn failure(&self) -> Option<ErrorKind> {
        match self {
            Result::Failed { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    /// A connection is kept only after a confirm: a close ends its
    /// channel.
    fn keeps_connection(&self) -> bool {
        matches!(self, Result::Confirmed { .. })
    }
}

/// One attempt's publish on the endpoint's kept connections.
struct Publish<'a> {
    inner: &'a Inner,
    message: &'a Prepared,
    routing_key: &'a str,
    deadline: Instant,
    limits: Limits,
}

impl Exchange for Publish<'_> {
    type Conn = Connection;
    type Result = Result;

    async fn open(&self) -> std::result::Result<Connection, Result> {
        self.inner.connect(self.deadline, self.limits).await
    }

    async fn run(&self, conn: &mut Connection) -> Result {
        self.inner
            .publish(conn, self.message, self.routing_key, self.deadline)
            .await
    }
}

impl Inner {
    async fn connect(
        &self,
        deadline: Instant,
        limits: Limits,
    ) -> std::result::Result<Connection, Result> {
        let c = &self.config;
        let fail = guard_failed::<Result>;
        let (io, addr): (Box<dyn Io>, SocketAddr) = if c.tls {
            let (s, addr) = self
                .guard
                .connect_tls(&c.host, c.port, limits.connect_timeout)
                .await
                .map_err(fail)?;
            (Box::new(s), addr)
        } else {
            let (s, addr) = self
                .guard
                .connect_checked(&c.host, c.port, limits.connect_timeout)
                .await
                .map_err(fail)?;
            (Box::new(s), addr)
        };
        let login = Login {
            username: c.username.as_deref().unwrap_or(GUEST),
            password: self
                .password
                .as_ref()
                .map_or(GUEST.as_bytes(), SecretValue::expose),
            virtual_host: &c.virtual_host,
        };
        Connection::open(io, addr, &login, deadline)
            .await
            .map_err(|f| self.outcome_of(f, Some(addr)))
    }

    async fn publish(
        &self,
        conn: &mut Connection,
        m: &Prepared,
        routing_key: &str,
        deadline: Instant,
    ) -> Result {
        let addr = conn.addr;
        match conn
            .publish(
                &self.config.exchange,
                routing_key,
                &properties(m),
                &m.body,
                deadline,
            )
            .await
        {
            Ok(confirm) => Result::Confirmed {
                confirm,
                routing_key: routing_key.to_owned(),
                addr,
            },
            Err(f) => self.outcome_of(f, Some(addr)),
        }
    }

    /// A failure as the attempt's result; a close's text without the
    /// password in it (a broker could quote what it was sent), at most 512
    /// characters.
    fn outcome_of(&self, f: Failure, addr: Option<SocketAddr>) -> Result {
        match (f, addr) {
            (Failure::Closed { code, text }, Some(addr)) => Result::Closed {
                code,
                text: server_text(&text, &self.password),
                addr,
            },
            (Failure::Closed { code, text }, None) => failed(
                ErrorKind::Protocol,
                format!("closed {code}: {}", server_text(&text, &self.password)),
                None,
            ),
            (Failure::Io(kind, text), addr) => failed(kind, text, addr),
        }
    }
}

/// The message's properties: persistent, the event id as `message-id`,
/// the Standard Webhooks values as headers, and the CloudEvent by content
/// mode: structured, `application/cloudevents+json`; binary (the
/// CloudEvents AMQP binding), `content-type` = `datacontenttype` and every
/// other context attribute as a header `cloudEvents_<name>`.
pub fn properties(m: &Prepared) -> Properties {
    let s = |v: &str| Value::Str(v.as_bytes().to_vec());
    let mut headers = Table::new()
        .with("webhook-id", s(&m.webhook_id))
        .with("webhook-timestamp", s(&m.webhook_timestamp))
        .with("webhook-signature", s(&m.webhook_signature))
        .with("relay-event-type", s(&m.event_type))
        .with("relay-attempt", Value::Int(m.attempt_number));
    for (name, value) in &m.attributes {
        if *name != "datacontenttype" {
            headers = headers.with(&format!("{CE_PREFIX}{name}"), s(value));
        }
    }
    Properties {
        content_type: Some(m.content_type.into()),
        headers: Some(headers),
        delivery_mode: Some(2),
        message_id: Some(m.webhook_id.clone()),
        timestamp: m.webhook_timestamp.parse().ok(),
        kind: Some(m.event_type.clone()),
        app_id: Some("relay".into()),
    }
}

/// The CloudEvents AMQP binding's prefix of an attribute's application
/// property.
pub const CE_PREFIX: &str = "cloudEvents_";

impl Kind for RabbitMq {
    const NAME: &'static str = "rabbitmq";
    type Config = RabbitMqDestination;
    type Client = Client;
    type Result = Result;

    fn schema() -> Option<RefOr<Schema>> {
        Some(RabbitMqDestination::schema())
    }

    fn secret_refs(config: &RabbitMqDestination) -> Vec<(&'static str, &SecretRef)> {
        config
            .password
            .iter()
            .map(|p| ("/destination/password", p))
            .collect()
    }

    fn hosts_in_clear(config: &RabbitMqDestination) -> Option<Vec<&str>> {
        (!config.tls).then(|| vec![config.host.as_str()])
    }

    fn content_mode(config: &RabbitMqDestination) -> ContentMode {
        config.content_mode
    }

    fn set_content_mode(config: &mut RabbitMqDestination, mode: ContentMode) -> bool {
        config.content_mode = mode;
        true
    }

    fn capacity(_config: &RabbitMqDestination) -> crate::Capacity {
        limits::CAPACITY
    }

    fn credential_hosts(c: &RabbitMqDestination, _guard: &Guard) -> BTreeSet<String> {
        [hosts::host(&c.host, c.port)].into()
    }

    fn describe(c: &RabbitMqDestination) -> String {
        format!(
            "amqp://{}:{}/{}/{}",
            c.host, c.port, c.virtual_host, c.exchange
        )
    }

    fn address_len(config: &RabbitMqDestination, message: &Prepared) -> Option<usize> {
        limits::routing_key_len(&config.routing_key, message)
    }

    async fn validate(c: &RabbitMqDestination, guard: &Guard) -> std::result::Result<(), Invalid> {
        if c.username.is_some() && c.password.is_none() {
            return Err(invalid(
                INVALID_CREDENTIALS,
                "/destination/password",
                USERNAME_NEEDS_PASSWORD,
            ));
        }
        if c.password.is_some() && c.username.is_none() {
            return Err(invalid(
                INVALID_CREDENTIALS,
                "/destination/username",
                PASSWORD_NEEDS_USERNAME,
            ));
        }
        if c.username
            .as_deref()
            .is_some_and(|u| u.is_empty() || u.len() > 255 || u.chars().any(char::is_control))
        {
            return Err(invalid(
                INVALID_CREDENTIALS,
                "/destination/username",
                "the username must be 1 to 255 bytes without control characters",
            ));
        }
        if c.virtual_host.is_empty() || c.virtual_host.len() > 255 {
            return Err(invalid(
                "invalid_virtual_host",
                "/destination/virtual_host",
                "the virtual host must be 1 to 255 bytes",
            ));
        }
        if c.exchange.len() > 255 || c.exchange.chars().any(char::is_control) {
            return Err(invalid(
                "invalid_exchange",
                "/destination/exchange",
                "the exchange name must be at most 255 bytes, without control characters",
            ));
        }
        Template::parse(&c.routing_key)
            .map_err(|e| invalid("invalid_routing_key", "/destination/routing_key", e))?;
        check_host(guard, &c.host, c.port).await
    }

    fn build(
        config: &RabbitMqDestination,
        shared: &Shared,
        secrets: &Secrets,
    ) -> std::result::Result<Client, Unresolved> {
        let password = match &config.password {
            Some(r) => Some(secrets.require(r)?.clone()),
            None => None,
        };
        Ok(Client {
            inner: Arc::new(Inner {
                guard: shared.https.guard().clone(),
                config: config.clone(),
                routing_key: Template::parse(&config.routing_key).ok(),
                password,
                kept: Kept::exclusive(MAX_IDLE),
            }),
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Result {
        let inner = &client.inner;
        let Some(template) = &inner.routing_key else {
            return Result::Unaddressable {
                reason: "the routing key template is invalid".into(),
            };
        };
        let routing_key = template.expand(
            &message.event_type,
            message.environment.as_str(),
            message.ordering_key.as_deref().unwrap_or_default(),
        );
        if routing_key.len() > MAX_ROUTING_KEY {
            return Result::Unaddressable {
                reason: format!(
                    "the routing key is {} bytes, more than AMQP's {MAX_ROUTING_KEY}",
                    routing_key.len()
                ),
            };
        }
        let deadline = Instant::now() + limits.total_timeout;
        let publish = Publish {
            inner,
            message,
            routing_key: &routing_key,
            deadline,
            limits,
        };
        inner.kept.with(deadline, &publish).await
    }

    fn classify(result: &Result, _now: Timestamp) -> Verdict {
        classify::classify(&match result {
            Result::Confirmed { confirm, .. } => match confirm {
                Confirm::Ack { .. } => Answer::Acked,
                Confirm::Nack { .. } => Answer::Nacked,
                Confirm::Returned { code, .. } => Answer::Returned(*code),
            },
            Result::Failed { kind, .. } => Answer::Failed(*kind),
            Result::Closed { code, text, .. } => Answer::Closed(*code, text),
            Result::Unaddressable { .. } => Answer::Unaddressable,
        })
    }

    fn record(result: &Result) -> Record {
        match result {
            Result::Confirmed {
                confirm,
                routing_key,
                addr,
            } => Record {
                destination: Some(*addr),
                error: None,
                detail: match confirm {
                    Confirm::Ack { tag } => serde_json::json!({
                        "confirm": "ack", "delivery_tag": tag, "routing_key": routing_key,
                    }),
                    Confirm::Nack { tag } => serde_json::json!({
                        "confirm": "nack", "delivery_tag": tag, "routing_key": routing_key,
                    }),
                    Confirm::Returned { tag, code, text } => serde_json::json!({
                        "confirm": "ack", "delivery_tag": tag, "routing_key": routing_key,
                        "returned": {"reply_code": code, "reply_text": text},
                    }),
                },
            },
            Result::Failed { kind, text, addr } => broker::failed_record(*kind, text, *addr),
            Result::Closed { code, text, addr } => Record {
                destination: Some(*addr),
                error: None,
                detail: serde_json::json!({ "closed": {"reply_code": code, "reply_text": text} }),
            },
            Result::Unaddressable { reason } => Record {
                destination: None,
                error: None,
                detail: serde_json::json!({ "error": reason }),
            },
        }
    }
}

//! MQTT (5 and 3.1.1): each message is one QoS 1 `PUBLISH`; the broker's
//! `PUBACK` of that very packet identifier is the acknowledgement.
//!
//! - config: [`MqttDestination`] (host, port, TLS, topic
//!   template, protocol version, client identifier, `username` and a
//!   `password` secret reference, content mode);
//! - validation: the topic template ([`topic`]), the client identifier and
//!   credentials, binary content mode only with MQTT 5, and the guard
//!   resolves and checks the host and port, as for an HTTPS host;
//! - client: Relay's own minimal MQTT publisher ([`wire`], [`conn`]): one
//!   connection per endpoint, opened through the guard
//!   ([`relay_net::Guard::connect_checked`] or
//!   [`relay_net::Guard::connect_tls`]), shared by the endpoint's attempts,
//!   packet identifiers tracked by the connection, rebuilt after any
//!   failure (`broker::Kept::shared`); a kept one that broke is replaced
//!   and the publish sent once more (consumers deduplicate on
//!   `webhook-id`);
//! - deliver: `PUBLISH` at QoS 1 with, in MQTT 5, the Standard Webhooks
//!   values as user properties and the CloudEvent by content mode (the
//!   CloudEvents MQTT binding); then the `PUBACK` of its identifier;
//! - classify: [`classify::classify`];
//! - record: the address, the topic, the packet identifier and reason code,
//!   or the refusal (`detail`).
//!
//! Why our own publisher rather than `rumqttc` or `paho-mqtt`: each
//! connection must be the guard's already-connected tokio stream (TCP or
//! rustls), and an attempt must end on the `PUBACK` of its own publish.
//! `rumqttc` dials its own sockets from its event loop and reports
//! `PUBACK`s as events for the caller to correlate; `paho-mqtt` wraps a C
//! library with its own networking. The publisher needs six packets. See
//! `docs/destinations.md`.

mod destination;
pub use destination::*;
pub mod classify;
pub mod conn;
pub mod limits;
pub mod topic;
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
use self::conn::{Ack, Conn, ConnectError, Login, Sent};
use self::topic::Template;
use self::wire::Properties;
use crate::broker::{
    self, Exchange, INVALID_CREDENTIALS, INVALID_TOPIC, Kept, Outcome, PASSWORD_NEEDS_USERNAME,
    check_host, failed, invalid,
};
use crate::{Invalid, Kind, Prepared, Record, Shared, hosts};

/// The MQTT kind.
pub struct Mqtt;

/// The longest configured client identifier.
pub const MAX_CLIENT_ID: usize = 128;

/// An endpoint's client: its configuration and its connection.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    guard: Guard,
    config: MqttDestination,
    /// The resolved `password` reference.
    password: Option<SecretValue>,
    /// Checked at registration; `None` only for a stored configuration
    /// that no longer parses (every attempt is then refused).
    topic: Option<Template>,
    conn: Kept<Arc<Conn>>,
}

/// How the broker refused a publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A `PUBACK` with a reason code of 0x80 or more (MQTT 5).
    PubAck {
        packet_id: u16,
        code: u8,
        reason: Option<String>,
    },
    /// A `CONNACK` with a non-zero code.
    ConnAck {
        version: MqttVersion,
        code: u8,
        reason: Option<String>,
    },
    /// The broker's `DISCONNECT` before the `PUBACK` (MQTT 5).
    Disconnect { code: u8, reason: Option<String> },
    /// Larger than the broker's Maximum Packet Size; not sent.
    TooLarge { size: usize, max: usize },
    /// The broker takes no QoS 1 publish.
    NoQos1,
}

/// What one attempt came to.
#[derive(Debug)]
pub enum Result {
    /// The `PUBACK` of the publish's packet identifier, with reason code
    /// 0x00 (success) or 0x10 (no matching subscribers).
    Acked {
        topic: String,
        packet_id: u16,
        code: u8,
        version: MqttVersion,
        addr: SocketAddr,
    },
    /// No answer; the text names the failure (never a credential).
    Failed {
        kind: ErrorKind,
        text: String,
        addr: Option<SocketAddr>,
    },
    /// The broker said no.
    Refused {
        topic: String,
        refusal: Refusal,
        addr: Option<SocketAddr>,
    },
    /// Nothing was sent: the message cannot be published as configured.
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
}

/// The PUBLISH's MQTT 5 properties: the Standard Webhooks values and the
/// attempt as user properties, and the CloudEvent by content mode:
/// structured, content type `application/cloudevents+json`; binary (the
/// CloudEvents MQTT binding, §3.1), content type = `datacontenttype` and
/// every other context attribute as a user property of its own name.
/// CloudEvents attribute names are lowercase letters and digits only, so
/// `webhook-…` and `relay-…` never read as attributes.
pub fn properties(m: &Prepared) -> Properties {
    let mut user = vec![
        ("webhook-id".to_string(), m.webhook_id.clone()),
        ("webhook-timestamp".to_string(), m.webhook_timestamp.clone()),
        ("webhook-signature".to_string(), m.webhook_signature.clone()),
        ("relay-event-type".to_string(), m.event_type.clone()),
        ("relay-attempt".to_string(), m.attempt_number.to_string()),
    ];
    for (name, value) in &m.attributes {
        if *name != "datacontenttype" {
            user.push(((*name).to_string(), value.clone()));
        }
    }
    Properties {
        content_type: Some(m.content_type.to_string()),
        user,
    }
}

/// A client identifier for one connection: `relay` and 18 random hex
/// digits (23 characters of `0-9 a-z`, which every broker must accept).
fn random_client_id() -> String {
    let mut b = [0u8; 9];
    if getrandom::fill(&mut b).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        b.copy_from_slice(&t.to_le_bytes()[..9]);
    }
    format!("relay{}", hex::encode(b))
}

impl Inner {
    /// The broker's text without the password in it (a broker could quote
    /// what it was sent), at most 512 characters.
    fn redact(&self, text: Option<String>) -> Option<String> {
        Some(broker::server_text(&text?, &self.password))
    }

    /// A new connection: `CONNECT` with the configured (or a random)
    /// client identifier and credentials.
    async fn open(
        &self,
        topic: &str,
        limits: Limits,
        deadline: Instant,
    ) -> std::result::Result<Arc<Conn>, Result> {
        let client_id = match &self.config.client_id {
            Some(id) => id.clone(),
            None => random_client_id(),
        };
        let login = Login {
            client_id: &client_id,
            username: self.config.username.as_deref(),
            password: self.password.as_ref().map(SecretValue::expose),
        };
        let refused = |refusal, addr| Result::Refused {
            topic: topic.to_string(),
            refusal,
            addr: Some(addr),
        };
        match Conn::open(&self.guard, &self.config, &login, limits, deadline).await {
            Ok(c) => Ok(c),
            Err(ConnectError::Failed { kind, text, addr }) => Err(failed(kind, text, addr)),
            Err(ConnectError::Refused { code, reason, addr }) => Err(refused(
                Refusal::ConnAck {
                    version: self.config.protocol_version,
                    code,
                    reason: self.redact(reason),
                },
                addr,
            )),
            Err(ConnectError::NoQos1 { addr }) => Err(refused(Refusal::NoQos1, addr)),
        }
    }

    async fn publish(&self, conn: &Conn, topic: &str, m: &Prepared, deadline: Instant) -> Result {
        let addr = Some(conn.addr);
        let refused = |refusal| Result::Refused {
            topic: topic.to_string(),
            refusal,
            addr,
        };
        let props = match conn.version {
            MqttVersion::V5 => properties(m),
            MqttVersion::V311 => Properties::default(),
        };
        match conn.publish(topic, &props, &m.body, deadline).await {
            Sent::Answered {
                id,
                ack: Ack::PubAck { code, reason },
            } => {
                if code < 0x80 {
                    Result::Acked {
                        topic: topic.to_string(),
                        packet_id: id,
                        code,
                        version: conn.version,
                        addr: conn.addr,
                    }
                } else {
                    refused(Refusal::PubAck {
                        packet_id: id,
                        code,
                        reason: self.redact(reason),
                    })
                }
            }
            Sent::Answered {
                ack: Ack::Disconnect { code, reason },
                ..
            } => refused(Refusal::Disconnect {
                code,
                reason: self.redact(reason),
            }),
            Sent::Answered {
                ack: Ack::Closed(why),
                ..
            } => failed(
                ErrorKind::Protocol,
                format!("the connection closed: {why}"),
                addr,
            ),
            Sent::TooLarge { size, max } => refused(Refusal::TooLarge { size, max }),
            Sent::TimedOut => failed(ErrorKind::Timeout, "no PUBACK before the timeout", addr),
            Sent::Broken(why) => failed(ErrorKind::Protocol, why, addr),
        }
    }
}

/// One attempt's publish on the endpoint's connection.
struct Publish<'a> {
    inner: &'a Inner,
    topic: &'a str,
    message: &'a Prepared,
    deadline: Instant,
    limits: Limits,
}

impl Exchange for Publish<'_> {
    type Conn = Arc<Conn>;
    type Result = Result;

    async fn open(&self) -> std::result::Result<Arc<Conn>, Result> {
        self.inner
            .open(self.topic, self.limits, self.deadline)
            .await
    }

    async fn run(&self, conn: &mut Arc<Conn>) -> Result {
        self.inner
            .publish(conn, self.topic, self.message, self.deadline)
            .await
    }
}

impl Kind for Mqtt {
    const NAME: &'static str = "mqtt";
    type Config = MqttDestination;
    type Client = Client;
    type Result = Result;

    fn schema() -> Option<RefOr<Schema>> {
        Some(MqttDestination::schema())
    }

    fn secret_refs(config: &MqttDestination) -> Vec<(&'static str, &SecretRef)> {
        config
            .password
            .iter()
            .map(|p| ("/destination/password", p))
            .collect()
    }

    fn hosts_in_clear(config: &MqttDestination) -> Option<Vec<&str>> {
        (!config.tls).then(|| vec![config.host.as_str()])
    }

    fn content_mode(config: &MqttDestination) -> ContentMode {
        config.content_mode
    }

    fn set_content_mode(config: &mut MqttDestination, mode: ContentMode) -> bool {
        config.content_mode = mode;
        true
    }

    fn capacity(_config: &MqttDestination) -> crate::Capacity {
        limits::CAPACITY
    }

    fn credential_hosts(c: &MqttDestination, _guard: &Guard) -> BTreeSet<String> {
        [hosts::host(&c.host, c.port)].into()
    }

    fn describe(c: &MqttDestination) -> String {
        let scheme = if c.tls { "mqtts" } else { "mqtt" };
        format!("{scheme}://{}:{}/{}", c.host, c.port, c.topic)
    }

    fn address_len(config: &MqttDestination, message: &Prepared) -> Option<usize> {
        limits::topic_len(&config.topic, message)
    }

    async fn validate(c: &MqttDestination, guard: &Guard) -> std::result::Result<(), Invalid> {
        if c.password.is_some() && c.username.is_none() {
            return Err(invalid(
                INVALID_CREDENTIALS,
                "/destination/username",
                PASSWORD_NEEDS_USERNAME,
            ));
        }
        if c.username
            .as_deref()
            .is_some_and(|u| u.is_empty() || u.len() > 256 || u.chars().any(char::is_control))
        {
            return Err(invalid(
                INVALID_CREDENTIALS,
                "/destination/username",
                "the username must be 1 to 256 bytes without control characters",
            ));
        }
        if c.client_id.as_deref().is_some_and(|id| {
            id.is_empty() || id.len() > MAX_CLIENT_ID || !id.bytes().all(|b| b.is_ascii_graphic())
        }) {
            return Err(invalid(
                "invalid_client_id",
                "/destination/client_id",
                format!(
                    "the client identifier must be 1 to {MAX_CLIENT_ID} printable ASCII characters without spaces"
                ),
            ));
        }
        if c.content_mode == ContentMode::Binary && c.protocol_version == MqttVersion::V311 {
            return Err(invalid(
                "binary_needs_mqtt5",
                "/destination/content_mode",
                "binary content mode needs MQTT 5 (protocol_version \"5\"): MQTT 3.1.1 has no properties to carry the CloudEvents attributes",
            ));
        }
        Template::parse(&c.topic).map_err(|e| invalid(INVALID_TOPIC, "/destination/topic", e))?;
        check_host(guard, &c.host, c.port).await
    }

    fn build(
        config: &MqttDestination,
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
                password,
                topic: Template::parse(&config.topic).ok(),
                conn: Kept::shared(),
            }),
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Result {
        let inner = &client.inner;
        let Some(template) = &inner.topic else {
            return Result::Unaddressable {
                reason: "the stored topic is not a valid topic template".into(),
            };
        };
        if message.content_mode == ContentMode::Binary
            && inner.config.protocol_version == MqttVersion::V311
        {
            return Result::Unaddressable {
                reason: "binary content mode needs MQTT 5".into(),
            };
        }
        let topic = match template.expand(
            &message.event_type,
            message.environment.as_str(),
            message.ordering_key.as_deref().unwrap_or_default(),
        ) {
            Ok(t) => t,
            Err(reason) => return Result::Unaddressable { reason },
        };
        let deadline = Instant::now() + limits.total_timeout;
        let publish = Publish {
            inner,
            topic: &topic,
            message,
            deadline,
            limits,
        };
        inner.conn.with(deadline, &publish).await
    }

    fn classify(result: &Result, _now: Timestamp) -> Verdict {
        classify::classify(&match result {
            Result::Acked { .. } => Answer::Acked,
            Result::Failed { kind, .. } => Answer::Failed(*kind),
            Result::Refused { refusal, .. } => match refusal {
                Refusal::PubAck { code, .. } => Answer::PubAck(*code),
                Refusal::ConnAck { version, code, .. } => Answer::ConnAck(*version, *code),
                Refusal::Disconnect { code, .. } => Answer::Disconnect(*code),
                Refusal::TooLarge { .. } => Answer::TooLarge,
                Refusal::NoQos1 => Answer::NoQos1,
            },
            Result::Unaddressable { .. } => Answer::Unaddressable,
        })
    }

    fn record(result: &Result) -> Record {
        match result {
            Result::Acked {
                topic,
                packet_id,
                code,
                version,
                addr,
            } => {
                let mut detail = serde_json::json!({
                    "topic": topic, "packet_id": packet_id, "reason_code": code,
                    "protocol_version": version.as_str(),
                });
                if *code == classify::NO_MATCHING_SUBSCRIBERS {
                    detail["no_matching_subscribers"] = true.into();
                }
                Record {
                    destination: Some(*addr),
                    error: None,
                    detail,
                }
            }
            Result::Failed { kind, text, addr } => broker::failed_record(*kind, text, *addr),
            Result::Refused {
                topic,
                refusal,
                addr,
            } => Record {
                destination: *addr,
                error: None,
                detail: serde_json::json!({ "topic": topic, "error": refusal_detail(refusal) }),
            },
            Result::Unaddressable { reason } => Record {
                destination: None,
                error: None,
                detail: serde_json::json!({ "error": reason }),
            },
        }
    }
}

fn refusal_detail(r: &Refusal) -> serde_json::Value {
    match r {
        Refusal::PubAck {
            packet_id,
            code,
            reason,
        } => serde_json::json!({
            "puback": {"packet_id": packet_id, "reason_code": code, "reason": reason,
                       "description": classify::describe(*code)},
        }),
        Refusal::ConnAck {
            version,
            code,
            reason,
        } => serde_json::json!({
            "connack": {"reason_code": code, "reason": reason,
                        "description": classify::describe_connack(*version, *code)},
        }),
        Refusal::Disconnect { code, reason } => serde_json::json!({
            "disconnect": {"reason_code": code, "reason": reason,
                           "description": classify::describe(*code)},
        }),
        Refusal::TooLarge { size, max } => {
            serde_json::json!({ "size": size, "maximum_packet_size": max })
        }
        Refusal::NoQos1 => serde_json::json!({
            "description": "the broker accepts no QoS 1 publish (CONNACK Maximum QoS 0)",
        }),
    }
}

#[cfg(test)]
mod tests;

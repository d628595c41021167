//! Kafka: each message is one record on the endpoint's topic, keyed by the
//! message's ordering key; the record's delivery report is the
//! acknowledgement.
//!
//! - config: [`KafkaDestination`] (bootstrap brokers,
//!   topic, content mode, TLS, SASL with a `password` secret reference);
//! - validation: the guard resolves and checks every bootstrap broker, as
//!   for an HTTPS host;
//! - client: one librdkafka producer per endpoint ([`producer`], its
//!   settings in `config`), created
//!   at the first attempt, idempotent with `acks=all`, every broker
//!   address it connects to (bootstrap or advertised by the cluster)
//!   answered by the guard; built again when it raised a fatal error;
//! - deliver: one record (the key, the value, the headers of the
//!   CloudEvents Kafka binding and the signature), then its delivery
//!   report, within the attempt's timeout (`message.timeout.ms`);
//! - classify: [`classify::classify`];
//! - record: the address of the broker that acknowledged, the partition and
//!   offset, or the error's code, name and persistence status (`detail`).

mod destination;
pub use destination::*;
pub mod classify;
mod config;
pub mod limits;
pub mod producer;

pub use config::{Credentials, Trust, settings};

use std::collections::BTreeSet;
use std::ffi::CString;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use relay_core::model::ContentMode;
use relay_core::outcome::Verdict;
use relay_core::secret::SecretRef;
use relay_core::secret::{SecretValue, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{ErrorKind, Guard, Limits};
use utoipa::PartialSchema as _;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use self::classify::{Answer, code};
use self::producer::{Persisted, Producer, Report};
use crate::broker::{INVALID_CREDENTIALS, INVALID_TOPIC, invalid};
use crate::{Invalid, Kind, Prepared, Record, Shared, hosts};

/// The Kafka kind.
pub struct Kafka;

/// The most bootstrap brokers an endpoint names.
pub const MAX_BOOTSTRAP: usize = 16;

/// The longest topic name Kafka accepts.
pub const MAX_TOPIC: usize = 249;

/// The prefix of the binding's attribute headers.
pub const CE_PREFIX: &str = "ce_";

/// An endpoint's client: its configuration and its producer.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    guard: Guard,
    config: KafkaDestination,
    topic: CString,
    /// The resolved secret references: the SASL `password`, the client
    /// certificate and its key.
    secrets: Credentials,
    /// What verifies the brokers' certificates with `tls`.
    trust: Trust,
    producer: Mutex<Option<Arc<Producer>>>,
}

/// What one attempt came to.
#[derive(Debug)]
pub enum Result {
    /// The delivery report without an error.
    Acked {
        partition: i32,
        offset: i64,
        broker: i32,
        addr: Option<SocketAddr>,
    },
    /// The record timed out in the client; what failed meanwhile on the
    /// way to a broker, if anything.
    TimedOut {
        cause: Option<(ErrorKind, String)>,
        persisted: Persisted,
    },
    /// librdkafka or the broker refused the record.
    Refused {
        code: i32,
        name: String,
        text: String,
        persisted: Persisted,
        /// The broker that answered, `-1` when none did.
        broker: i32,
        addr: Option<SocketAddr>,
    },
    /// Nothing was sent; the text names the failure (never a credential).
    Failed { kind: ErrorKind, text: String },
}

/// Whether `topic` is a Kafka topic name: 1 to 249 of `A-Z a-z 0-9 . _ -`,
/// not `.` or `..`.
pub fn valid_topic(topic: &str) -> bool {
    !topic.is_empty()
        && topic.len() <= MAX_TOPIC
        && topic != "."
        && topic != ".."
        && topic
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

impl Inner {
    /// The endpoint's producer, created at the first attempt (and again
    /// after a fatal error).
    fn producer(&self, limits: Limits) -> std::result::Result<Arc<Producer>, Result> {
        let mut slot = self.producer.lock().map_err(|_| Result::Failed {
            kind: ErrorKind::Protocol,
            text: "the producer's lock was poisoned".into(),
        })?;
        if let Some(p) = slot.as_ref().filter(|p| !p.is_fatal()) {
            return Ok(p.clone());
        }
        let settings = settings(&self.config, &self.secrets, &self.trust, limits);
        let borrowed: Vec<(&str, &[u8])> =
            settings.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        let p = Producer::new(
            &borrowed,
            self.guard.clone(),
            tokio::runtime::Handle::current(),
            limits.connect_timeout,
        )
        .map_err(|text| Result::Failed {
            kind: ErrorKind::Protocol,
            text: redact(text, &self.secrets),
        })?;
        let p = Arc::new(p);
        *slot = Some(p.clone());
        Ok(p)
    }

    /// Forgets the producer (a fatal error): the next attempt builds one.
    fn reset(&self, p: &Arc<Producer>) {
        if let Ok(mut slot) = self.producer.lock()
            && slot.as_ref().is_some_and(|s| Arc::ptr_eq(s, p))
        {
            *slot = None;
        }
    }
}

/// `text` without any secret's text in it.
fn redact(mut text: String, secrets: &Credentials) -> String {
    for s in secrets.all().filter_map(SecretValue::expose_str) {
        if !s.is_empty() && text.contains(s) {
            text = text.replace(s, "<redacted>");
        }
    }
    text
}

/// At registration, with the references resolved: the client certificate
/// and its key parse and match (as an HTTPS client certificate's do), so a
/// wrong pair is refused then rather than at every attempt.
pub fn check_values(c: &KafkaDestination, secrets: &Secrets) -> std::result::Result<(), Invalid> {
    let (Some(cert), Some(key)) = (&c.client_certificate, &c.client_key) else {
        return Ok(());
    };
    let (Some(cert), Some(key)) = (secrets.get(cert), secrets.get(key)) else {
        // The references are checked (and refused) before the values.
        return Ok(());
    };
    relay_net::ClientIdentity::from_pem(cert.expose(), key.expose())
        .map(drop)
        .map_err(|e| Invalid {
            code: e.code(),
            pointer: match e.part() {
                relay_net::IdentityPart::Chain => "/destination/client_certificate",
                relay_net::IdentityPart::Key => "/destination/client_key",
            },
            message: e.to_string(),
        })
}

/// The record's headers: the signature values, Relay's own, the content
/// type and, in binary mode, the binding's `ce_<attribute>` headers
/// (`datacontenttype` is `content-type`).
pub fn headers(m: &Prepared) -> Vec<(CString, Vec<u8>)> {
    let attempt = m.attempt_number.to_string();
    let mut h: Vec<(String, Vec<u8>)> = vec![
        ("webhook-id".into(), m.webhook_id.clone().into_bytes()),
        (
            "webhook-timestamp".into(),
            m.webhook_timestamp.clone().into_bytes(),
        ),
        (
            "webhook-signature".into(),
            m.webhook_signature.clone().into_bytes(),
        ),
        ("content-type".into(), m.content_type.as_bytes().to_vec()),
        ("relay-event-type".into(), m.event_type.clone().into_bytes()),
        ("relay-attempt".into(), attempt.into_bytes()),
    ];
    if m.content_mode == ContentMode::Binary {
        h.extend(
            m.attributes
                .iter()
                .filter(|(name, _)| *name != "datacontenttype")
                .map(|(name, value)| (format!("{CE_PREFIX}{name}"), value.clone().into_bytes())),
        );
    }
    h.into_iter()
        .filter_map(|(n, v)| CString::new(n).ok().map(|n| (n, v)))
        .collect()
}

impl Kind for Kafka {
    const NAME: &'static str = "kafka";
    type Config = KafkaDestination;
    type Client = Client;
    type Result = Result;

    fn schema() -> Option<RefOr<Schema>> {
        Some(KafkaDestination::schema())
    }

    fn secret_refs(config: &KafkaDestination) -> Vec<(&'static str, &SecretRef)> {
        config
            .sasl
            .iter()
            .map(|s| ("/destination/sasl/password", &s.password))
            .chain(
                config
                    .client_certificate
                    .iter()
                    .map(|c| ("/destination/client_certificate", c)),
            )
            .chain(
                config
                    .client_key
                    .iter()
                    .map(|c| ("/destination/client_key", c)),
            )
            .collect()
    }

    fn hosts_in_clear(config: &KafkaDestination) -> Option<Vec<&str>> {
        (!config.tls).then(|| config.bootstrap.iter().map(|b| b.host.as_str()).collect())
    }

    fn content_mode(config: &KafkaDestination) -> ContentMode {
        config.content_mode
    }

    fn set_content_mode(config: &mut KafkaDestination, mode: ContentMode) -> bool {
        config.content_mode = mode;
        true
    }

    fn capacity(_config: &KafkaDestination) -> crate::Capacity {
        limits::CAPACITY
    }

    fn check_values(c: &KafkaDestination, secrets: &Secrets) -> std::result::Result<(), Invalid> {
        check_values(c, secrets)
    }

    fn credential_hosts(c: &KafkaDestination, _guard: &Guard) -> BTreeSet<String> {
        c.bootstrap
            .iter()
            .map(|b| hosts::host(&b.host, b.port))
            .collect()
    }

    fn describe(c: &KafkaDestination) -> String {
        let brokers: Vec<String> = c
            .bootstrap
            .iter()
            .map(|b| format!("{}:{}", b.host, b.port))
            .collect();
        format!("kafka://{}/{}", brokers.join(","), c.topic)
    }

    fn message_bytes(_config: &KafkaDestination, message: &Prepared) -> u64 {
        limits::record_bytes(message)
    }

    async fn validate(c: &KafkaDestination, guard: &Guard) -> std::result::Result<(), Invalid> {
        if c.bootstrap.is_empty() || c.bootstrap.len() > MAX_BOOTSTRAP {
            return Err(Invalid {
                code: "invalid_bootstrap",
                pointer: "/destination/bootstrap",
                message: format!("name 1 to {MAX_BOOTSTRAP} bootstrap brokers"),
            });
        }
        if !valid_topic(&c.topic) {
            return Err(invalid(
                INVALID_TOPIC,
                "/destination/topic",
                format!("a topic is 1 to {MAX_TOPIC} of A-Z a-z 0-9 . _ - (not . or ..)"),
            ));
        }
        if let Some(sasl) = &c.sasl {
            let u = &sasl.username;
            if u.is_empty() || u.len() > 256 || u.chars().any(|ch| ch.is_control()) {
                return Err(invalid(
                    INVALID_CREDENTIALS,
                    "/destination/sasl/username",
                    "the username must be 1 to 256 characters without control characters",
                ));
            }
        }
        if c.client_certificate.is_some() != c.client_key.is_some()
            || (c.client_certificate.is_some() && !c.tls)
        {
            return Err(invalid(
                INVALID_CREDENTIALS,
                "/destination/client_certificate",
                "a client certificate needs its client_key, and tls",
            ));
        }
        for b in &c.bootstrap {
            guard
                .resolve_checked(&b.host, b.port)
                .await
                .map_err(|e| Invalid {
                    code: e.kind().as_str(),
                    pointer: "/destination/bootstrap",
                    message: e.to_string(),
                })?;
        }
        Ok(())
    }

    fn build(
        config: &KafkaDestination,
        shared: &Shared,
        secrets: &Secrets,
    ) -> std::result::Result<Client, Unresolved> {
        let resolve = |r: Option<&relay_core::secret::SecretRef>| match r {
            Some(r) => secrets.require(r).map(|v| Some(v.clone())),
            None => Ok(None),
        };
        let credentials = Credentials {
            password: resolve(config.sasl.as_ref().map(|s| &s.password))?,
            client_certificate: resolve(config.client_certificate.as_ref())?,
            client_key: resolve(config.client_key.as_ref())?,
        };
        // `validate` refused any other topic; a NUL cannot pass it.
        let topic = CString::new(config.topic.clone()).unwrap_or_default();
        Ok(Client {
            inner: Arc::new(Inner {
                guard: shared.https.guard().clone(),
                config: config.clone(),
                topic,
                secrets: credentials,
                trust: Trust::of(shared.https.guard()),
                producer: Mutex::new(None),
            }),
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Result {
        let inner = &client.inner;
        let producer = match inner.producer(limits) {
            Ok(p) => p,
            Err(r) => return r,
        };
        let headers = headers(message);
        let borrowed: Vec<(CString, &[u8])> = headers
            .iter()
            .map(|(n, v)| (n.clone(), v.as_slice()))
            .collect();
        let record = producer::Record {
            topic: &inner.topic,
            key: message.ordering_key.as_deref().map(str::as_bytes),
            value: &message.body,
            headers: &borrowed,
        };
        let rx = match producer.send(&record) {
            Ok(rx) => rx,
            Err((code, name, text)) => {
                forget_on_refusal(inner, &producer, code);
                return Result::Refused {
                    code,
                    name,
                    text: redact(text, &inner.secrets),
                    persisted: Persisted::No,
                    broker: -1,
                    addr: None,
                };
            }
        };
        // librdkafka reports the record by `message.timeout.ms` (the
        // attempt's timeout); the margin covers its timer's granularity.
        let report =
            match tokio::time::timeout(limits.total_timeout + crate::ATTEMPT_OVERRUN, rx).await {
                Ok(Ok(r)) => r,
                Ok(Err(_)) => {
                    return Result::Failed {
                        kind: ErrorKind::Protocol,
                        text: "the producer ended without reporting the record".into(),
                    };
                }
                Err(_) => return timed_out(inner, &producer, Persisted::Possibly),
            };
        let mut result = outcome(inner, &producer, report);
        // The acknowledging (or refusing) broker's checked address: a
        // Metadata request the first time a broker is seen, off the runtime.
        if let Result::Acked { broker, addr, .. } | Result::Refused { broker, addr, .. } =
            &mut result
            && *broker >= 0
        {
            let (p, id) = (producer.clone(), *broker);
            let timeout = limits.connect_timeout;
            *addr = tokio::task::spawn_blocking(move || p.broker_addr(id, timeout))
                .await
                .ok()
                .flatten();
        }
        result
    }

    fn classify(result: &Result, _now: Timestamp) -> Verdict {
        classify::classify(&match result {
            Result::Acked { .. } => Answer::Acked,
            Result::TimedOut { cause, .. } => Answer::TimedOut(cause.as_ref().map(|(k, _)| *k)),
            Result::Refused { code, .. } => Answer::Refused(*code),
            Result::Failed { kind, .. } => Answer::Failed(*kind),
        })
    }

    fn record(result: &Result) -> Record {
        match result {
            Result::Acked {
                partition,
                offset,
                broker,
                addr,
            } => Record {
                destination: *addr,
                error: None,
                detail: serde_json::json!({
                    "partition": partition, "offset": offset, "broker_id": broker,
                }),
            },
            Result::TimedOut { cause, persisted } => Record {
                destination: None,
                error: Some(match cause {
                    Some((kind, text)) => (*kind, format!("the record timed out: {text}")),
                    None => (
                        ErrorKind::Timeout,
                        "the record timed out: no broker acknowledged it in time".into(),
                    ),
                }),
                detail: serde_json::json!({"persisted": persisted.as_str()}),
            },
            Result::Refused {
                code,
                name,
                text,
                persisted,
                addr,
                ..
            } => Record {
                destination: *addr,
                error: None,
                detail: serde_json::json!({
                    "error": {"code": code, "name": name, "text": text},
                    "persisted": persisted.as_str(),
                }),
            },
            Result::Failed { kind, text } => Record {
                destination: None,
                error: Some((*kind, text.clone())),
                detail: serde_json::json!({}),
            },
        }
    }
}

/// After a refusal that a change on the cluster fixes (an ACL, a topic
/// created), forgets the producer: librdkafka keeps such a topic error
/// until its next metadata refresh (minutes) and refuses every record of
/// the topic meanwhile, so the next attempt builds a producer that asks the
/// cluster afresh.
fn forget_on_refusal(inner: &Inner, producer: &Arc<Producer>, code: i32) {
    use relay_core::outcome::{FailureCode, Refusal};
    let stale = match classify::classify(&Answer::Refused(code)) {
        Verdict::Retry { code, .. } | Verdict::Permanent { code, .. } => matches!(
            code,
            FailureCode::Refused(Refusal::AuthRefused | Refusal::UnknownTarget)
        ),
        _ => false,
    };
    if stale {
        inner.reset(producer);
    }
}

/// A record that timed out in the client. When the cluster refused the
/// client meanwhile (its SASL authentication failed), that refusal is the
/// answer: librdkafka reports it to the error callback alone and keeps the
/// record queued until it times out, which would read as a broker that
/// never answered. Otherwise, what failed on the way to a broker, if
/// anything.
fn timed_out(inner: &Inner, producer: &Arc<Producer>, persisted: Persisted) -> Result {
    let cause = producer.failure();
    let Some((code, reason)) = producer.refusal() else {
        return Result::TimedOut { cause, persisted };
    };
    forget_on_refusal(inner, producer, code);
    Result::Refused {
        code,
        name: "_AUTHENTICATION".into(),
        text: redact(
            format!("the record timed out: the cluster refused the client: {reason}"),
            &inner.secrets,
        ),
        persisted,
        broker: -1,
        addr: None,
    }
}

/// The attempt's result from its delivery report.
fn outcome(inner: &Inner, producer: &Arc<Producer>, r: Report) -> Result {
    if r.code == 0 {
        // A success clears what failed before it.
        producer.acknowledged();
        return Result::Acked {
            partition: r.partition,
            offset: r.offset,
            broker: r.broker,
            addr: None,
        };
    }
    if r.code == code::FATAL || producer.is_fatal() {
        inner.reset(producer);
    }
    forget_on_refusal(inner, producer, r.code);
    if r.code == code::MSG_TIMED_OUT {
        return timed_out(inner, producer, r.persisted);
    }
    Result::Refused {
        code: r.code,
        name: r.name,
        text: redact(r.text, &inner.secrets),
        persisted: r.persisted,
        broker: r.broker,
        addr: None,
    }
}

#[cfg(test)]
mod tests;

//! NATS JetStream: each message is one JetStream publish; the PubAck
//! naming the stream and sequence is the acknowledgement.
//!
//! - config: [`NatsJetstreamDestination`] (host, port,
//!   TLS, subject or subject template, expected stream, `username` and a
//!   `password` secret reference or a `token` secret reference, whose
//!   resolved values are held as [`SecretValue`]s and sent only in
//!   `CONNECT`);
//! - validation: the subject template ([`subject`]), then the guard
//!   resolves and checks the host and port, as for an HTTPS host;
//! - client: Relay's own minimal NATS client (`wire.rs`, `conn.rs`): one
//!   connection per endpoint, opened through the guard
//!   ([`relay_net::Guard::connect_checked`], then
//!   [`relay_net::Guard::upgrade_tls`] after the server's `INFO` when TLS is
//!   on), shared by the endpoint's attempts (`broker::Kept::shared`),
//!   rebuilt after any failure; a kept one that broke is replaced and the
//!   publish sent once more (the server drops it if it was stored);
//! - deliver: `HPUB <subject> <inbox>.<n>` with `Nats-Msg-Id` = the event
//!   id (the server drops a retried publish it already stored and answers
//!   `duplicate: true`), the Standard Webhooks values as headers and the
//!   CloudEvents JSON as the payload (structured mode), or the data as the
//!   payload and the attributes as `ce-` headers ([`binding`], binary
//!   mode); then the reply on `<inbox>.<n>`;
//! - classify: [`classify::classify`];
//! - record: the address, the subject, the stream and sequence, or the
//!   refusal (`detail`).

mod destination;
pub use destination::*;
pub mod binding;
pub mod classify;
mod conn;
pub mod limits;
pub mod subject;
mod wire;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

use relay_core::model::ContentMode;
use relay_core::outcome::Verdict;
use relay_core::secret::SecretRef;
use relay_core::secret::{SecretValue, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{ErrorKind, Guard, Limits};
use tokio::time::{Instant, timeout_at};
use utoipa::PartialSchema as _;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use self::classify::Answer;
use self::conn::{Conn, ConnectError, Reply};
use self::subject::{Template, Values};
use self::wire::{Credentials, Headers};
use crate::broker::{
    self, Exchange, INVALID_CREDENTIALS, INVALID_STREAM, Kept, Outcome, PASSWORD_NEEDS_USERNAME,
    USERNAME_NEEDS_PASSWORD, check_host, failed, invalid,
};
use crate::{Invalid, Kind, Prepared, Record, Shared, hosts};

/// The NATS JetStream kind.
pub struct NatsJetstream;

/// The longest expected stream name accepted.
pub const MAX_STREAM_NAME: usize = 256;

/// An endpoint's client: its configuration and its connection.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    guard: Guard,
    config: NatsJetstreamDestination,
    /// The resolved `password` and `token` references.
    password: Option<SecretValue>,
    token: Option<SecretValue>,
    /// Checked at registration; `None` only for a stored configuration
    /// that no longer parses (every attempt is then refused).
    subject: Option<Template>,
    conn: Kept<Arc<Conn>>,
}

/// How the destination refused a publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A reply with a status and no PubAck (503: no responders).
    Status(u16),
    /// The PubAck's `error`.
    Api {
        code: u16,
        err_code: u32,
        description: String,
    },
    /// The server's `-ERR` (at most 512 characters of it).
    Server(String),
    /// Larger than the server's `max_payload`; not sent.
    TooLarge { size: usize, max_payload: usize },
    /// A header value with CR or LF; not sent.
    BadHeader(&'static str),
}

/// What one attempt came to.
#[derive(Debug)]
pub enum Result {
    /// The PubAck.
    Acked {
        subject: String,
        stream: String,
        seq: u64,
        duplicate: bool,
        addr: SocketAddr,
    },
    /// No answer; the text names the failure (never a credential).
    Failed {
        kind: ErrorKind,
        text: String,
        addr: Option<SocketAddr>,
    },
    /// The destination said no.
    Refused {
        subject: String,
        refusal: Refusal,
        addr: Option<SocketAddr>,
    },
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

/// A server's text, at most 512 characters.
fn server_text(text: &str) -> String {
    broker::server_text(text, [])
}

/// Reads a PubAck (or its error) from a reply's payload.
fn pub_ack(subject: String, payload: &[u8], addr: SocketAddr) -> Result {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(payload) else {
        return failed(
            ErrorKind::Protocol,
            "the reply is not a PubAck (not JSON)",
            Some(addr),
        );
    };
    if let Some(e) = v.get("error") {
        return Result::Refused {
            subject,
            refusal: Refusal::Api {
                code: e["code"]
                    .as_u64()
                    .and_then(|c| u16::try_from(c).ok())
                    .unwrap_or(0),
                err_code: e["err_code"]
                    .as_u64()
                    .and_then(|c| u32::try_from(c).ok())
                    .unwrap_or(0),
                description: server_text(e["description"].as_str().unwrap_or("")),
            },
            addr: Some(addr),
        };
    }
    match (v["stream"].as_str(), v["seq"].as_u64()) {
        (Some(stream), Some(seq)) if !stream.is_empty() => Result::Acked {
            subject,
            stream: stream.to_string(),
            seq,
            duplicate: v["duplicate"].as_bool().unwrap_or(false),
            addr,
        },
        _ => failed(
            ErrorKind::Protocol,
            "the reply is not a PubAck (no stream and sequence)",
            Some(addr),
        ),
    }
}

impl Inner {
    fn credentials(&self) -> Credentials<'_> {
        Credentials {
            user: self.config.username.as_deref(),
            pass: self.password.as_ref().and_then(SecretValue::expose_str),
            token: self.token.as_ref().and_then(SecretValue::expose_str),
        }
    }

    /// The server's text without a secret's value in it (a server could
    /// quote what it was sent), at most 512 characters.
    fn redact(&self, text: &str) -> String {
        broker::server_text(text, [&self.password, &self.token].into_iter().flatten())
    }

    async fn publish(&self, conn: &Conn, subject: &str, m: &Prepared, deadline: Instant) -> Result {
        let addr = Some(conn.addr);
        let refused = |refusal| Result::Refused {
            subject: subject.to_string(),
            refusal,
            addr,
        };
        let attempt = m.attempt_number.to_string();
        let ce = binding::ce_headers(m);
        let mut headers: Vec<(&str, &str)> = vec![
            ("Nats-Msg-Id", &m.webhook_id),
            ("webhook-id", &m.webhook_id),
            ("webhook-timestamp", &m.webhook_timestamp),
            ("webhook-signature", &m.webhook_signature),
            // Structured: `application/cloudevents+json`; binary: the
            // `datacontenttype` (also in `ce-datacontenttype`).
            ("content-type", m.content_type),
            ("relay-event-type", &m.event_type),
            ("relay-attempt", &attempt),
        ];
        if let Some(stream) = &self.config.stream {
            headers.push(("Nats-Expected-Stream", stream));
        }
        if let Some((name, _)) = headers.iter().find(|(_, v)| !wire::header_value_ok(v)) {
            return refused(Refusal::BadHeader(name));
        }
        // The binding's headers: percent-encoded, so always valid.
        let mut headers: Vec<(&str, &str)> = headers;
        headers.extend(ce.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if m.body.len() > conn.max_payload {
            return refused(Refusal::TooLarge {
                size: m.body.len(),
                max_payload: conn.max_payload,
            });
        }
        let Some((token, reply, rx)) = conn.register(subject) else {
            return failed(ErrorKind::Protocol, "the connection closed", addr);
        };
        let frame = wire::hpub(subject, &reply, &headers, &m.body);
        let sent = async {
            conn.write(&frame).await?;
            Ok::<_, std::io::Error>(rx.await)
        };
        match timeout_at(deadline, sent).await {
            Err(_) => {
                conn.forget(token);
                // Unanswered: the connection is suspect; the next attempt
                // opens a new one (a retried publish is deduplicated).
                conn.kill("an attempt timed out");
                failed(ErrorKind::Timeout, "no PubAck before the timeout", addr)
            }
            Ok(Err(e)) => {
                conn.kill("a write failed");
                failed(ErrorKind::Protocol, format!("connection: {e}"), addr)
            }
            Ok(Ok(Err(_))) => failed(ErrorKind::Protocol, "the connection closed", addr),
            Ok(Ok(Ok(Reply::Closed(why)))) => failed(
                ErrorKind::Protocol,
                format!("the connection closed: {why}"),
                addr,
            ),
            Ok(Ok(Ok(Reply::ServerErr(text)))) => refused(Refusal::Server(self.redact(&text))),
            Ok(Ok(Ok(Reply::Msg { headers, payload }))) => {
                let status = headers.as_deref().and_then(|h| Headers::parse(h).status);
                match status {
                    Some(s) => refused(Refusal::Status(s)),
                    None => pub_ack(subject.to_string(), &payload, conn.addr),
                }
            }
        }
    }
}

/// One attempt's publish on the endpoint's connection.
struct Publish<'a> {
    inner: &'a Inner,
    subject: &'a str,
    message: &'a Prepared,
    deadline: Instant,
    limits: Limits,
}

impl Exchange for Publish<'_> {
    type Conn = Arc<Conn>;
    type Result = Result;

    async fn open(&self) -> std::result::Result<Arc<Conn>, Result> {
        let i = self.inner;
        match Conn::open(
            &i.guard,
            &i.config,
            i.credentials(),
            self.limits,
            self.deadline,
        )
        .await
        {
            Ok(c) => Ok(c),
            Err(ConnectError::Failed { kind, text, addr }) => Err(failed(kind, text, addr)),
            Err(ConnectError::Refused { text, addr }) => Err(Result::Refused {
                subject: self.subject.to_string(),
                refusal: Refusal::Server(i.redact(&text)),
                addr: Some(addr),
            }),
        }
    }

    async fn run(&self, conn: &mut Arc<Conn>) -> Result {
        self.inner
            .publish(conn, self.subject, self.message, self.deadline)
            .await
    }
}

impl Kind for NatsJetstream {
    const NAME: &'static str = "nats_jetstream";
    type Config = NatsJetstreamDestination;
    type Client = Client;
    type Result = Result;

    fn schema() -> Option<RefOr<Schema>> {
        Some(NatsJetstreamDestination::schema())
    }

    fn secret_refs(config: &NatsJetstreamDestination) -> Vec<(&'static str, &SecretRef)> {
        config
            .password
            .iter()
            .map(|p| ("/destination/password", p))
            .chain(config.token.iter().map(|t| ("/destination/token", t)))
            .collect()
    }

    fn hosts_in_clear(config: &NatsJetstreamDestination) -> Option<Vec<&str>> {
        (!config.tls).then(|| vec![config.host.as_str()])
    }

    fn content_mode(config: &NatsJetstreamDestination) -> ContentMode {
        config.content_mode
    }

    fn set_content_mode(config: &mut NatsJetstreamDestination, mode: ContentMode) -> bool {
        config.content_mode = mode;
        true
    }

    fn capacity(_config: &NatsJetstreamDestination) -> crate::Capacity {
        limits::CAPACITY
    }

    fn credential_hosts(c: &NatsJetstreamDestination, _guard: &Guard) -> BTreeSet<String> {
        [hosts::host(&c.host, c.port)].into()
    }

    fn describe(c: &NatsJetstreamDestination) -> String {
        format!("nats://{}:{}/{}", c.host, c.port, c.subject)
    }

    async fn validate(
        c: &NatsJetstreamDestination,
        guard: &Guard,
    ) -> std::result::Result<(), Invalid> {
        let credentials = |pointer, message: &str| invalid(INVALID_CREDENTIALS, pointer, message);
        match (&c.username, &c.password, &c.token) {
            (Some(_), None, _) => {
                return Err(credentials(
                    "/destination/password",
                    USERNAME_NEEDS_PASSWORD,
                ));
            }
            (None, Some(_), _) => {
                return Err(credentials(
                    "/destination/username",
                    PASSWORD_NEEDS_USERNAME,
                ));
            }
            (Some(_), Some(_), Some(_)) => {
                return Err(credentials(
                    "/destination/token",
                    "either a token or a username and password, not both",
                ));
            }
            _ => {}
        }
        if c.username.as_deref().is_some_and(|u| {
            u.is_empty() || u.len() > 256 || u.chars().any(|ch| ch.is_control() || ch == ' ')
        }) {
            return Err(credentials(
                "/destination/username",
                "the username must be 1 to 256 characters without spaces or control characters",
            ));
        }
        Template::parse(&c.subject)
            .map_err(|message| invalid("invalid_subject", "/destination/subject", message))?;
        if let Some(s) = &c.stream
            && (s.is_empty()
                || s.len() > MAX_STREAM_NAME
                || !s.bytes().all(|b| {
                    b.is_ascii_graphic() && !matches!(b, b'.' | b'*' | b'>' | b'/' | b'\\')
                }))
        {
            return Err(invalid(
                INVALID_STREAM,
                "/destination/stream",
                format!(
                    "the stream name must be 1 to {MAX_STREAM_NAME} printable ASCII characters without `.`, `*`, `>`, `/`, `\\` or spaces"
                ),
            ));
        }
        check_host(guard, &c.host, c.port).await
    }

    fn build(
        config: &NatsJetstreamDestination,
        shared: &Shared,
        secrets: &Secrets,
    ) -> std::result::Result<Client, Unresolved> {
        let resolve = |r: &Option<relay_core::secret::SecretRef>| match r {
            Some(r) => secrets.require(r).map(|v| Some(v.clone())),
            None => Ok(None),
        };
        Ok(Client {
            inner: Arc::new(Inner {
                guard: shared.https.guard().clone(),
                config: config.clone(),
                password: resolve(&config.password)?,
                token: resolve(&config.token)?,
                subject: Template::parse(&config.subject).ok(),
                conn: Kept::shared(),
            }),
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Result {
        let inner = &client.inner;
        let deadline = Instant::now() + limits.total_timeout;
        let Some(template) = &inner.subject else {
            return failed(
                ErrorKind::InvalidUrl,
                "the stored subject is not a valid subject template",
                None,
            );
        };
        let subject = template.render(&Values {
            event_type: &message.event_type,
            environment: message.environment,
            ordering_key: message.ordering_key.as_deref(),
        });
        let publish = Publish {
            inner,
            subject: &subject,
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
                Refusal::Status(s) => Answer::Status(*s),
                Refusal::Api { code, err_code, .. } => Answer::Api {
                    code: *code,
                    err_code: *err_code,
                },
                Refusal::Server(text) => Answer::Server(text),
                Refusal::TooLarge { .. } => Answer::TooLarge,
                Refusal::BadHeader(_) => Answer::BadHeader,
            },
        })
    }

    fn record(result: &Result) -> Record {
        match result {
            Result::Acked {
                subject,
                stream,
                seq,
                duplicate,
                addr,
            } => Record {
                destination: Some(*addr),
                error: None,
                detail: serde_json::json!({
                    "subject": subject, "stream": stream, "seq": seq, "duplicate": duplicate,
                }),
            },
            Result::Failed { kind, text, addr } => broker::failed_record(*kind, text, *addr),
            Result::Refused {
                subject,
                refusal,
                addr,
            } => Record {
                destination: *addr,
                error: None,
                detail: serde_json::json!({ "subject": subject, "error": refusal_detail(refusal) }),
            },
        }
    }
}

fn refusal_detail(r: &Refusal) -> serde_json::Value {
    match r {
        Refusal::Status(503) => {
            serde_json::json!({"status": 503, "description": "no responders: no stream is bound to the subject"})
        }
        Refusal::Status(s) => serde_json::json!({ "status": s }),
        Refusal::Api {
            code,
            err_code,
            description,
        } => serde_json::json!({ "code": code, "err_code": err_code, "description": description }),
        Refusal::Server(text) => serde_json::json!({ "server_error": text }),
        Refusal::TooLarge { size, max_payload } => {
            serde_json::json!({ "size": size, "max_payload": max_payload })
        }
        Refusal::BadHeader(name) => {
            serde_json::json!({ "description": format!("the {name} header would hold CR or LF") })
        }
    }
}

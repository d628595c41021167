//! Redis Streams: each message is one `XADD` entry; the entry id Redis
//! answers is the acknowledgement.
//!
//! - config: [`RedisStreamDestination`] (host, port,
//!   TLS, database, stream, `MAXLEN ~`, `username` and a `password`
//!   secret reference);
//! - validation: the guard resolves and checks the host and port, as for an
//!   HTTPS host;
//! - client: up to 16 idle connections kept per endpoint
//!   (`broker::Kept::exclusive`: each attempt holds one alone; one
//!   that broke when reused is replaced and the `XADD` sent once more),
//!   each opened through the guard ([`relay_net::Guard::connect_checked`]
//!   or [`relay_net::Guard::connect_tls`]) and authenticated with `AUTH
//!   [username] password` when a password is configured (its resolved value
//!   is held as a [`SecretValue`], never logged or recorded) (`conn.rs`;
//!   RESP itself in `wire.rs`), dropped on any failure;
//! - deliver: `XADD <stream> [MAXLEN ~ n] * webhook-id … body <body>`: in
//!   structured mode the CloudEvents JSON; in binary mode `ce-<attribute>`
//!   fields and the data (the fields are in `docs/destinations.md`); with
//!   `wait_aof`, `WAITAOF local replicas timeout` pipelined after it, and
//!   success only when it confirms the fsyncs asked for;
//! - classify: [`classify::classify`];
//! - record: the address, the entry id or the error reply (`detail`).

mod destination;
pub use destination::*;
pub mod classify;
mod conn;
pub mod limits;
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
use tokio::time::Instant;
use utoipa::PartialSchema as _;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use self::classify::{Answer, error_code};
use self::conn::Conn;
use self::wire::Reply;
use crate::broker::{
    self, Exchange, INVALID_CREDENTIALS, INVALID_STREAM, Kept, Outcome, USERNAME_NEEDS_PASSWORD,
    check_host, failed, invalid, server_text,
};
use crate::{Invalid, Kind, Prepared, Record, Shared, hosts};

/// The Redis Streams kind.
pub struct RedisStream;

/// The longest stream key accepted.
pub const MAX_STREAM_KEY: usize = 256;

/// Idle connections kept per endpoint.
const MAX_IDLE: usize = 16;

/// An endpoint's client: its configuration and idle connections.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    guard: Guard,
    config: RedisStreamDestination,
    /// The resolved `password` reference.
    password: Option<SecretValue>,
    kept: Kept<Conn>,
}

/// What one attempt came to.
#[derive(Debug)]
pub enum Result {
    /// The entry's id (and, with `wait_aof`, the fsyncs `WAITAOF`
    /// confirmed: local, replicas).
    Added {
        id: String,
        addr: SocketAddr,
        aof: Option<(i64, i64)>,
    },
    /// The entry was added but `WAITAOF` confirmed fewer fsyncs than asked
    /// (local, replicas) before its timeout.
    Unconfirmed {
        id: String,
        local: i64,
        replicas: i64,
        addr: SocketAddr,
    },
    /// The entry was added but the server refused `WAITAOF` (at most 512
    /// characters of its error: no such command before Redis 7.2,
    /// `appendonly no` with `local: 1`, a replica).
    AofRefused {
        id: String,
        line: String,
        addr: SocketAddr,
    },
    /// No answer; the text names the failure (never a credential).
    Failed {
        kind: ErrorKind,
        text: String,
        addr: Option<SocketAddr>,
    },
    /// An error reply (at most 512 characters of it).
    Refused { line: String, addr: SocketAddr },
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

/// One attempt's `XADD` on the endpoint's kept connections.
struct Xadd<'a> {
    inner: &'a Inner,
    message: &'a Prepared,
    deadline: Instant,
    limits: Limits,
}

impl Exchange for Xadd<'_> {
    type Conn = Conn;
    type Result = Result;

    async fn open(&self) -> std::result::Result<Conn, Result> {
        let i = self.inner;
        Conn::open(
            &i.guard,
            &i.config,
            i.password.as_ref(),
            self.deadline,
            self.limits,
        )
        .await
    }

    async fn run(&self, conn: &mut Conn) -> Result {
        self.inner.xadd(conn, self.message, self.deadline).await
    }
}

impl Inner {
    async fn xadd(&self, conn: &mut Conn, m: &Prepared, deadline: Instant) -> Result {
        let c = &self.config;
        let attempt = m.attempt_number.to_string();
        let max_len = c.max_len.map(|n| n.to_string());
        // Binary mode: `ce-<attribute>` fields; `datacontenttype` is the
        // entry's `content-type`, as in the HTTP binding.
        let ce_fields: Vec<(String, &str)> = m
            .attributes
            .iter()
            .filter(|(name, _)| *name != "datacontenttype")
            .map(|(name, value)| (format!("ce-{name}"), value.as_str()))
            .collect();
        let mut args: Vec<&[u8]> = vec![b"XADD", c.stream.as_bytes()];
        if let Some(n) = &max_len {
            args.extend([&b"MAXLEN"[..], b"~", n.as_bytes()]);
        }
        args.extend([
            &b"*"[..],
            b"webhook-id",
            m.webhook_id.as_bytes(),
            b"webhook-timestamp",
            m.webhook_timestamp.as_bytes(),
            b"webhook-signature",
            m.webhook_signature.as_bytes(),
            b"content-type",
            m.content_type.as_bytes(),
            b"relay-event-type",
            m.event_type.as_bytes(),
            b"relay-attempt",
            attempt.as_bytes(),
        ]);
        for (name, value) in &ce_fields {
            args.extend([name.as_bytes(), value.as_bytes()]);
        }
        args.extend([&b"body"[..], &m.body]);
        let mut out = wire::command(&args);
        let wait = c.wait_aof;
        if let Some(w) = wait {
            let (l, r, t) = (
                w.local.to_string(),
                w.replicas.to_string(),
                w.timeout_ms.to_string(),
            );
            out.extend(wire::command(&[
                &b"WAITAOF"[..],
                l.as_bytes(),
                r.as_bytes(),
                t.as_bytes(),
            ]));
        }
        let replies = match conn
            .exchange_raw(&out, 1 + usize::from(wait.is_some()), deadline)
            .await
        {
            Ok(r) => r,
            Err(r) => return r,
        };
        let addr = conn.addr;
        let mut replies = replies.into_iter();
        let id = match replies.next() {
            Some(Reply::Bulk(Some(id))) => String::from_utf8_lossy(&id).into_owned(),
            Some(Reply::Error(line)) => return refused(&line, addr),
            _ => return failed(ErrorKind::Protocol, "unexpected reply to XADD", Some(addr)),
        };
        let Some(w) = wait else {
            return Result::Added {
                id,
                addr,
                aof: None,
            };
        };
        match replies.next() {
            Some(Reply::Array(Some(a))) => match a.as_slice() {
                [Reply::Integer(local), Reply::Integer(replicas)] => {
                    if *local >= i64::from(w.local) && *replicas >= i64::from(w.replicas) {
                        Result::Added {
                            id,
                            addr,
                            aof: Some((*local, *replicas)),
                        }
                    } else {
                        Result::Unconfirmed {
                            id,
                            local: *local,
                            replicas: *replicas,
                            addr,
                        }
                    }
                }
                _ => failed(
                    ErrorKind::Protocol,
                    "unexpected reply to WAITAOF",
                    Some(addr),
                ),
            },
            Some(Reply::Error(line)) => Result::AofRefused {
                id,
                line: server_text(&line, []),
                addr,
            },
            _ => failed(
                ErrorKind::Protocol,
                "unexpected reply to WAITAOF",
                Some(addr),
            ),
        }
    }
}

/// An error reply (at most 512 characters of it).
fn refused(line: &str, addr: SocketAddr) -> Result {
    Result::Refused {
        line: server_text(line, []),
        addr,
    }
}

impl Kind for RedisStream {
    const NAME: &'static str = "redis_stream";
    type Config = RedisStreamDestination;
    type Client = Client;
    type Result = Result;

    fn schema() -> Option<RefOr<Schema>> {
        Some(RedisStreamDestination::schema())
    }

    fn secret_refs(config: &RedisStreamDestination) -> Vec<(&'static str, &SecretRef)> {
        config
            .password
            .iter()
            .map(|p| ("/destination/password", p))
            .collect()
    }

    fn hosts_in_clear(config: &RedisStreamDestination) -> Option<Vec<&str>> {
        (!config.tls).then(|| vec![config.host.as_str()])
    }

    fn content_mode(config: &RedisStreamDestination) -> ContentMode {
        config.content_mode
    }

    fn set_content_mode(config: &mut RedisStreamDestination, mode: ContentMode) -> bool {
        config.content_mode = mode;
        true
    }

    fn capacity(_config: &RedisStreamDestination) -> crate::Capacity {
        limits::CAPACITY
    }

    fn credential_hosts(c: &RedisStreamDestination, _guard: &Guard) -> BTreeSet<String> {
        [hosts::host(&c.host, c.port)].into()
    }

    fn describe(c: &RedisStreamDestination) -> String {
        format!("redis://{}:{}/{}", c.host, c.port, c.stream)
    }

    async fn validate(
        c: &RedisStreamDestination,
        guard: &Guard,
    ) -> std::result::Result<(), Invalid> {
        if c.username.is_some() && c.password.is_none() {
            return Err(invalid(
                INVALID_CREDENTIALS,
                "/destination/password",
                USERNAME_NEEDS_PASSWORD,
            ));
        }
        if c.username.as_deref().is_some_and(|u| {
            u.is_empty() || u.len() > 256 || u.chars().any(|ch| ch.is_control() || ch == ' ')
        }) {
            return Err(invalid(
                INVALID_CREDENTIALS,
                "/destination/username",
                "the username must be 1 to 256 characters without spaces or control characters",
            ));
        }
        if c.stream.is_empty() || c.stream.len() > MAX_STREAM_KEY {
            return Err(invalid(
                INVALID_STREAM,
                "/destination/stream",
                format!("the stream key must be 1 to {MAX_STREAM_KEY} bytes"),
            ));
        }
        if c.database.is_some_and(|d| d > 15) {
            return Err(Invalid {
                code: "invalid_database",
                pointer: "/destination/database",
                message: "the database must be 0 to 15".into(),
            });
        }
        if let Some(w) = c.wait_aof
            && (w.local > 1
                || (w.local == 0 && w.replicas == 0)
                || !(1..=60_000).contains(&w.timeout_ms))
        {
            return Err(Invalid {
                code: "invalid_wait_aof",
                pointer: "/destination/wait_aof",
                message: "wait_aof needs local 0 or 1, at least one fsync to wait for (local 1 or replicas 1 or more), and timeout_ms from 1 to 60000".into(),
            });
        }
        if c.max_len == Some(0) {
            return Err(Invalid {
                code: "invalid_max_len",
                pointer: "/destination/max_len",
                message: "max_len must be at least 1 (or null for no trimming)".into(),
            });
        }
        check_host(guard, &c.host, c.port).await
    }

    fn build(
        config: &RedisStreamDestination,
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
                kept: Kept::exclusive(MAX_IDLE),
            }),
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Result {
        let inner = &client.inner;
        let deadline = Instant::now() + limits.total_timeout;
        let xadd = Xadd {
            inner,
            message,
            deadline,
            limits,
        };
        inner.kept.with(deadline, &xadd).await
    }

    fn classify(result: &Result, _now: Timestamp) -> Verdict {
        classify::classify(&match result {
            Result::Added { .. } => Answer::Added,
            Result::Unconfirmed { .. } => Answer::Unconfirmed,
            Result::AofRefused { line, .. } => Answer::AofRefused(error_code(line)),
            Result::Failed { kind, .. } => Answer::Failed(*kind),
            Result::Refused { line, .. } => Answer::Refused(error_code(line)),
        })
    }

    fn record(result: &Result) -> Record {
        match result {
            Result::Added { id, addr, aof } => Record {
                destination: Some(*addr),
                error: None,
                detail: match aof {
                    None => serde_json::json!({ "entry_id": id }),
                    Some((local, replicas)) => serde_json::json!({
                        "entry_id": id,
                        "wait_aof": {"local": local, "replicas": replicas, "confirmed": true},
                    }),
                },
            },
            Result::Unconfirmed {
                id,
                local,
                replicas,
                addr,
            } => Record {
                destination: Some(*addr),
                error: None,
                detail: serde_json::json!({
                    "entry_id": id,
                    "wait_aof": {"local": local, "replicas": replicas, "confirmed": false},
                }),
            },
            Result::AofRefused { id, line, addr } => Record {
                destination: Some(*addr),
                error: None,
                detail: serde_json::json!({
                    "entry_id": id,
                    "wait_aof": {"error": line, "confirmed": false},
                }),
            },
            Result::Failed { kind, text, addr } => broker::failed_record(*kind, text, *addr),
            Result::Refused { line, addr } => Record {
                destination: Some(*addr),
                error: None,
                detail: serde_json::json!({ "error": line }),
            },
        }
    }
}

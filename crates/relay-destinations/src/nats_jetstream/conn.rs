//! One endpoint's NATS connection: opened through the guard, shared by the
//! endpoint's concurrent attempts, replies correlated by inbox token.
//!
//! The connection subscribes once to `_INBOX.<random>.*`; each publish
//! names its own reply subject `_INBOX.<random>.<n>` and waits for the
//! message on it. A reader task answers the server's `PING`s and hands each
//! reply to its waiting publish. When the connection breaks (end of
//! stream, a protocol error, a fatal `-ERR`), every waiting publish fails
//! at once and the connection is marked dead: the next attempt opens a new
//! one.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::nats_jetstream::NatsJetstreamDestination;
use relay_net::{ErrorKind, Guard, Limits};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, ReadHalf, WriteHalf};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::{Instant, timeout_at};

use super::wire::{self, Credentials, ServerOp};
use crate::broker::{Link, Outcome, failed, guard_failed};

pub(super) trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

type Stream = BufReader<Box<dyn Io>>;

/// What a publish's wait ends with.
#[derive(Debug)]
pub enum Reply {
    /// The message on the publish's reply subject.
    Msg {
        headers: Option<Vec<u8>>,
        payload: Vec<u8>,
    },
    /// The server's `-ERR` that concerns this publish.
    ServerErr(String),
    /// The connection broke before the reply.
    Closed(String),
}

/// Why a connection could not be opened.
#[derive(Debug)]
pub enum ConnectError {
    Failed {
        kind: ErrorKind,
        text: String,
        addr: Option<SocketAddr>,
    },
    /// The server refused the `CONNECT` (`-ERR 'Authorization Violation'`).
    Refused { text: String, addr: SocketAddr },
}

struct Pending {
    dead: bool,
    /// Token → the publish's subject and its waiter.
    waiting: HashMap<u64, (String, oneshot::Sender<Reply>)>,
}

/// An open connection.
pub struct Conn {
    pub addr: SocketAddr,
    /// The server's `max_payload`.
    pub max_payload: usize,
    inbox: String,
    next: AtomicU64,
    write: tokio::sync::Mutex<WriteHalf<Stream>>,
    pending: Mutex<Pending>,
    reader: Mutex<Option<JoinHandle<()>>>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Ok(mut r) = self.reader.lock()
            && let Some(h) = r.take()
        {
            h.abort();
        }
    }
}

impl Outcome for ConnectError {
    fn failed(kind: ErrorKind, text: String, addr: Option<SocketAddr>) -> ConnectError {
        ConnectError::Failed { kind, text, addr }
    }

    fn failure(&self) -> Option<ErrorKind> {
        match self {
            ConnectError::Failed { kind, .. } => Some(*kind),
            ConnectError::Refused { .. } => None,
        }
    }
}

/// The endpoint's attempts share its connection.
impl Link for Arc<Conn> {
    fn share(&self) -> Option<Arc<Conn>> {
        Some(Arc::clone(self))
    }

    fn is_live(&self) -> bool {
        !self.is_dead()
    }

    fn retire(&self) {
        self.kill("replaced");
    }
}

/// Reads one operation before `deadline`.
async fn read_op<R: tokio::io::AsyncBufRead + Unpin + Send>(
    r: &mut R,
    deadline: Instant,
    addr: SocketAddr,
    what: &str,
) -> Result<ServerOp, ConnectError> {
    match timeout_at(deadline, wire::read(r)).await {
        Ok(Ok(op)) => Ok(op),
        Ok(Err(e)) => Err(failed(
            ErrorKind::Protocol,
            format!("{what}: {e}"),
            Some(addr),
        )),
        Err(_) => Err(failed(
            ErrorKind::Timeout,
            format!("{what} timed out"),
            Some(addr),
        )),
    }
}

/// A random inbox prefix: replies of two connections never mix.
fn inbox() -> String {
    let mut b = [0u8; 12];
    // Without randomness, the address of a fresh allocation and the time
    // still make two connections' inboxes differ.
    if getrandom::fill(&mut b).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        b[..12].copy_from_slice(&t.to_le_bytes()[..12]);
    }
    format!("_INBOX.{}", hex_lower(&b))
}

fn hex_lower(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Conn {
    /// Opens a connection: the guard's checked TCP connection, the
    /// server's `INFO`, TLS when configured (the guard's upgrade, verified
    /// against the host name), `CONNECT` and its `PONG`, the inbox
    /// subscription, and the reader task.
    pub async fn open(
        guard: &Guard,
        c: &NatsJetstreamDestination,
        creds: Credentials<'_>,
        limits: Limits,
        deadline: Instant,
    ) -> Result<Arc<Conn>, ConnectError> {
        let (tcp, addr) = guard
            .connect_checked(&c.host, c.port, limits.connect_timeout)
            .await
            .map_err(guard_failed::<ConnectError>)?;
        let mut plain = BufReader::new(tcp);
        let info = match read_op(&mut plain, deadline, addr, "the server's INFO").await? {
            ServerOp::Info(info) => info,
            _ => {
                return Err(failed(
                    ErrorKind::Protocol,
                    "the server did not start with INFO",
                    Some(addr),
                ));
            }
        };
        if !plain.buffer().is_empty() && c.tls {
            return Err(failed(
                ErrorKind::Protocol,
                "data after INFO before the TLS handshake",
                Some(addr),
            ));
        }
        if info.tls_required && !c.tls {
            return Err(failed(
                ErrorKind::Tls,
                "the server requires TLS; set tls to true",
                Some(addr),
            ));
        }
        if !info.headers {
            return Err(failed(
                ErrorKind::Protocol,
                "the server does not support headers (NATS 2.2 or later is needed)",
                Some(addr),
            ));
        }
        let io: Box<dyn Io> = if c.tls {
            let tcp = plain.into_inner();
            let left = deadline.saturating_duration_since(Instant::now());
            Box::new(
                guard
                    .upgrade_tls(&c.host, tcp, addr, left)
                    .await
                    .map_err(guard_failed::<ConnectError>)?,
            )
        } else {
            Box::new(plain)
        };
        let mut io = BufReader::new(io);
        let inbox = inbox();
        let mut hello = wire::connect(creds, c.tls);
        hello.extend_from_slice(&wire::sub(&format!("{inbox}.*"), 1));
        let written = async {
            io.get_mut().write_all(&hello).await?;
            io.get_mut().flush().await
        };
        match timeout_at(deadline, written).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                return Err(failed(
                    ErrorKind::Protocol,
                    format!("connection: {e}"),
                    Some(addr),
                ));
            }
            Err(_) => return Err(failed(ErrorKind::Timeout, "CONNECT timed out", Some(addr))),
        }
        loop {
            match read_op(&mut io, deadline, addr, "the answer to CONNECT").await? {
                ServerOp::Pong => break,
                ServerOp::Ok | ServerOp::Info(_) => {}
                ServerOp::Ping => {
                    let _ = io.get_mut().write_all(b"PONG\r\n").await;
                }
                ServerOp::Err(text) => return Err(ConnectError::Refused { text, addr }),
                ServerOp::Msg { .. } => {
                    return Err(failed(
                        ErrorKind::Protocol,
                        "a message before the answer to CONNECT",
                        Some(addr),
                    ));
                }
            }
        }
        let (read, write) = tokio::io::split(io);
        let conn = Arc::new(Conn {
            addr,
            max_payload: info.max_payload,
            inbox,
            next: AtomicU64::new(1),
            write: tokio::sync::Mutex::new(write),
            pending: Mutex::new(Pending {
                dead: false,
                waiting: HashMap::new(),
            }),
            reader: Mutex::new(None),
        });
        let handle = tokio::spawn(read_loop(Arc::downgrade(&conn), BufReader::new(read)));
        if let Ok(mut r) = conn.reader.lock() {
            *r = Some(handle);
        }
        Ok(conn)
    }

    pub fn is_dead(&self) -> bool {
        self.pending.lock().map(|p| p.dead).unwrap_or(true)
    }

    /// Marks the connection dead and fails every waiting publish.
    pub fn kill(&self, why: &str) {
        let waiting = match self.pending.lock() {
            Ok(mut p) => {
                p.dead = true;
                std::mem::take(&mut p.waiting)
            }
            Err(_) => return,
        };
        for (_, (_, tx)) in waiting {
            let _ = tx.send(Reply::Closed(why.to_string()));
        }
        if let Ok(mut r) = self.reader.lock()
            && let Some(h) = r.take()
        {
            h.abort();
        }
    }

    /// Registers a publish: its reply subject and the receiver of its
    /// reply. `None` when the connection is dead.
    pub fn register(&self, subject: &str) -> Option<(u64, String, oneshot::Receiver<Reply>)> {
        let token = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let mut p = self.pending.lock().ok()?;
        if p.dead {
            return None;
        }
        p.waiting.insert(token, (subject.to_string(), tx));
        Some((token, format!("{}.{token}", self.inbox), rx))
    }

    /// Forgets a publish that stopped waiting.
    pub fn forget(&self, token: u64) {
        if let Ok(mut p) = self.pending.lock() {
            p.waiting.remove(&token);
        }
    }

    /// Writes one frame (whole: the write lock is held for it).
    pub async fn write(&self, frame: &[u8]) -> std::io::Result<()> {
        let mut w = self.write.lock().await;
        w.write_all(frame).await?;
        w.flush().await
    }

    fn deliver(&self, subject: &str, reply: Reply) {
        let Some(token) = subject
            .strip_prefix(self.inbox.as_str())
            .and_then(|t| t.strip_prefix('.'))
            .and_then(|t| t.parse::<u64>().ok())
        else {
            return;
        };
        let waiter = self
            .pending
            .lock()
            .ok()
            .and_then(|mut p| p.waiting.remove(&token));
        if let Some((_, tx)) = waiter {
            let _ = tx.send(reply);
        }
    }

    /// A `-ERR` that names one subject's publishes (permissions): those
    /// fail, the connection stays.
    fn fail_subject(&self, subject: &str, text: &str) {
        let failing: Vec<oneshot::Sender<Reply>> = match self.pending.lock() {
            Ok(mut p) => {
                let tokens: Vec<u64> = p
                    .waiting
                    .iter()
                    .filter(|(_, (s, _))| s == subject)
                    .map(|(t, _)| *t)
                    .collect();
                tokens
                    .into_iter()
                    .filter_map(|t| p.waiting.remove(&t).map(|(_, tx)| tx))
                    .collect()
            }
            Err(_) => return,
        };
        for tx in failing {
            let _ = tx.send(Reply::ServerErr(text.to_string()));
        }
    }

    /// A fatal `-ERR`: every waiting publish gets it, the connection dies.
    fn fail_all(&self, text: &str) {
        let waiting = match self.pending.lock() {
            Ok(mut p) => {
                p.dead = true;
                std::mem::take(&mut p.waiting)
            }
            Err(_) => return,
        };
        for (_, (_, tx)) in waiting {
            let _ = tx.send(Reply::ServerErr(text.to_string()));
        }
    }
}

/// The subject a `Permissions Violation for Publish to "<subject>"` names.
fn publish_violation(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("Permissions Violation for Publish to ")?;
    Some(rest.trim_matches('"'))
}

async fn read_loop(conn: Weak<Conn>, mut r: BufReader<ReadHalf<Stream>>) {
    let why = loop {
        let op = wire::read(&mut r).await;
        let Some(c) = conn.upgrade() else { return };
        match op {
            Ok(ServerOp::Msg {
                subject,
                headers,
                payload,
            }) => c.deliver(&subject, Reply::Msg { headers, payload }),
            Ok(ServerOp::Ping) => {
                if let Err(e) = c.write(b"PONG\r\n").await {
                    break format!("connection: {e}");
                }
            }
            Ok(ServerOp::Pong | ServerOp::Ok | ServerOp::Info(_)) => {}
            Ok(ServerOp::Err(text)) => match publish_violation(&text) {
                Some(subject) => c.fail_subject(subject, &text),
                None => {
                    c.fail_all(&text);
                    return;
                }
            },
            Err(e) => break e.to_string(),
        }
    };
    if let Some(c) = conn.upgrade() {
        c.kill(&why);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_violations_name_their_subject() {
        assert_eq!(
            publish_violation("Permissions Violation for Publish to \"orders.x\""),
            Some("orders.x")
        );
        assert_eq!(
            publish_violation("Permissions Violation for Subscription to \"_INBOX.a.*\""),
            None
        );
        assert_eq!(publish_violation("Authorization Violation"), None);
    }

    #[test]
    fn inboxes_differ() {
        let a = inbox();
        assert!(
            a.starts_with("_INBOX.") && a.len() == "_INBOX.".len() + 24,
            "{a}"
        );
        assert_ne!(a, inbox());
    }
}

//! One endpoint's MQTT connection: opened through the guard, shared by the
//! endpoint's concurrent attempts, each QoS 1 `PUBLISH` matched to the
//! `PUBACK` of its own packet identifier.
//!
//! The connection hands out packet identifiers itself (1 to 65535, never
//! one still waiting for its `PUBACK`) and keeps at most the broker's
//! Receive Maximum publishes unacknowledged (MQTT 5's `CONNACK` says it;
//! 65535 otherwise). A reader task hands each `PUBACK` to the publish
//! waiting on its identifier; a `PUBACK` for no waiting publish is
//! ignored. A pinger sends `PINGREQ` every half keep-alive and declares
//! the connection dead when nothing came back for one and a half. When the
//! connection breaks (end of stream, a malformed packet, the server's
//! `DISCONNECT`, a publish that timed out), every waiting publish fails at
//! once and the connection is marked dead: the next attempt opens a new one.
//! An identifier is never reused on a connection while its publish may
//! still be answered, since a publish that stops waiting kills the
//! connection.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use crate::mqtt::{MqttDestination, MqttVersion};
use relay_net::{ErrorKind, Guard, Limits};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, ReadHalf, WriteHalf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio::task::JoinHandle;
use tokio::time::{Instant, timeout_at};

use super::wire::{self, Connect, Incoming, Properties};
use crate::broker::{Link, Outcome, failed, guard_failed};

pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

type Stream = Box<dyn Io>;

/// The keep-alive this client asks for (MQTT 5's server may set another).
pub const KEEP_ALIVE_SECS: u16 = 30;

/// The largest packet read from the server (acknowledgements are small; a
/// `DISCONNECT` with a long reason string is the largest).
const MAX_INCOMING: usize = 64 * 1024;

/// What a publish's wait ends with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ack {
    /// The `PUBACK` of the publish's packet identifier.
    PubAck { code: u8, reason: Option<String> },
    /// The server's `DISCONNECT` (MQTT 5) before the `PUBACK`.
    Disconnect { code: u8, reason: Option<String> },
    /// The connection broke before the `PUBACK`.
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
    /// A `CONNACK` with a non-zero code.
    Refused {
        code: u8,
        reason: Option<String>,
        addr: SocketAddr,
    },
    /// The broker takes no QoS 1 publish (MQTT 5 `CONNACK`: Maximum QoS 0).
    NoQos1 { addr: SocketAddr },
}

/// What a connection logs in with.
pub struct Login<'a> {
    pub client_id: &'a str,
    pub username: Option<&'a str>,
    /// A resolved secret: only ever written into `CONNECT`.
    pub password: Option<&'a [u8]>,
}

/// How one publish ended.
#[derive(Debug)]
pub enum Sent {
    /// The wait ended: a `PUBACK`, a `DISCONNECT` or the connection's end.
    Answered { id: u16, ack: Ack },
    /// Larger than the broker's Maximum Packet Size; not sent.
    TooLarge { size: usize, max: usize },
    /// No answer before the deadline.
    TimedOut,
    /// The connection was dead or broke while writing.
    Broken(String),
}

struct Pending {
    dead: bool,
    next_id: u16,
    /// Packet identifier → the waiting publish and its place in the
    /// broker's receive window.
    waiting: HashMap<u16, (oneshot::Sender<Ack>, OwnedSemaphorePermit)>,
}

/// An open connection.
pub struct Conn {
    pub addr: SocketAddr,
    pub version: MqttVersion,
    /// The broker's Maximum Packet Size (MQTT 5), else MQTT's largest.
    pub max_packet: usize,
    window: Arc<Semaphore>,
    write: tokio::sync::Mutex<WriteHalf<BufReader<Stream>>>,
    pending: Mutex<Pending>,
    last_read: Mutex<Instant>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Ok(mut t) = self.tasks.lock() {
            for h in t.drain(..) {
                h.abort();
            }
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
            ConnectError::Refused { .. } | ConnectError::NoQos1 { .. } => None,
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

impl Conn {
    /// Opens a connection: the guard's checked TCP connection (TLS when
    /// configured, verified against the host name), `CONNECT` with a clean
    /// start, its `CONNACK`, then the reader and the pinger.
    pub async fn open(
        guard: &Guard,
        c: &MqttDestination,
        login: &Login<'_>,
        limits: Limits,
        deadline: Instant,
    ) -> Result<Arc<Conn>, ConnectError> {
        let (io, addr): (Stream, SocketAddr) = if c.tls {
            let (s, addr) = guard
                .connect_tls(&c.host, c.port, limits.connect_timeout)
                .await
                .map_err(guard_failed::<ConnectError>)?;
            (Box::new(s), addr)
        } else {
            let (s, addr) = guard
                .connect_checked(&c.host, c.port, limits.connect_timeout)
                .await
                .map_err(guard_failed::<ConnectError>)?;
            (Box::new(s), addr)
        };
        let version = c.protocol_version;
        let mut io = BufReader::new(io);
        let hello = wire::connect(&Connect {
            version,
            client_id: login.client_id,
            username: login.username,
            password: login.password,
            keep_alive_secs: KEEP_ALIVE_SECS,
            clean_start: true,
            session_expiry_secs: 0,
        });
        let answered = async {
            io.get_mut().write_all(&hello).await?;
            io.get_mut().flush().await?;
            wire::read(&mut io, MAX_INCOMING).await
        };
        let raw = match timeout_at(deadline, answered).await {
            Ok(Ok(raw)) => raw,
            Ok(Err(e)) => {
                return Err(failed(
                    ErrorKind::Protocol,
                    format!("connection: {e}"),
                    Some(addr),
                ));
            }
            Err(_) => {
                return Err(failed(
                    ErrorKind::Timeout,
                    "no CONNACK before the timeout",
                    Some(addr),
                ));
            }
        };
        let props = match wire::decode(version, &raw) {
            Ok(Incoming::ConnAck { code: 0, props, .. }) => props,
            Ok(Incoming::ConnAck { code, props, .. }) => {
                return Err(ConnectError::Refused {
                    code,
                    reason: props.reason,
                    addr,
                });
            }
            Ok(_) => {
                return Err(failed(
                    ErrorKind::Protocol,
                    "the broker did not answer CONNECT with CONNACK",
                    Some(addr),
                ));
            }
            Err(e) => return Err(failed(ErrorKind::Protocol, e.to_string(), Some(addr))),
        };
        if props.maximum_qos == Some(0) {
            return Err(ConnectError::NoQos1 { addr });
        }
        let window = usize::from(props.receive_maximum.unwrap_or(u16::MAX).max(1));
        let max_packet = props
            .maximum_packet_size
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(wire::MAX_REMAINING + 5);
        let keep_alive = props.server_keep_alive.unwrap_or(KEEP_ALIVE_SECS);
        let (read, write) = tokio::io::split(io);
        let conn = Arc::new(Conn {
            addr,
            version,
            max_packet,
            window: Arc::new(Semaphore::new(window)),
            write: tokio::sync::Mutex::new(write),
            pending: Mutex::new(Pending {
                dead: false,
                next_id: 1,
                waiting: HashMap::new(),
            }),
            last_read: Mutex::new(Instant::now()),
            tasks: Mutex::new(Vec::new()),
        });
        let mut tasks = vec![tokio::spawn(read_loop(
            Arc::downgrade(&conn),
            BufReader::new(read),
        ))];
        if keep_alive > 0 {
            let every = Duration::from_millis(u64::from(keep_alive) * 500);
            tasks.push(tokio::spawn(ping_loop(Arc::downgrade(&conn), every)));
        }
        if let Ok(mut t) = conn.tasks.lock() {
            *t = tasks;
        }
        Ok(conn)
    }

    pub fn is_dead(&self) -> bool {
        self.pending.lock().map(|p| p.dead).unwrap_or(true)
    }

    /// Marks the connection dead and fails every waiting publish.
    pub fn kill(&self, why: &str) {
        self.fail_all(&Ack::Closed(why.to_string()));
    }

    fn fail_all(&self, ack: &Ack) {
        let waiting = match self.pending.lock() {
            Ok(mut p) => {
                p.dead = true;
                std::mem::take(&mut p.waiting)
            }
            Err(_) => return,
        };
        self.window.close();
        for (_, (tx, _)) in waiting {
            let _ = tx.send(ack.clone());
        }
        if let Ok(mut t) = self.tasks.lock() {
            for h in t.drain(..) {
                h.abort();
            }
        }
    }

    /// A packet identifier no waiting publish holds, and the receiver of
    /// its answer; `None` when the connection is dead.
    fn register(&self, permit: OwnedSemaphorePermit) -> Option<(u16, oneshot::Receiver<Ack>)> {
        let (tx, rx) = oneshot::channel();
        let mut p = self.pending.lock().ok()?;
        if p.dead {
            return None;
        }
        // At most Receive Maximum (≤ 65535) publishes wait, one of them
        // this one: a free identifier exists.
        loop {
            let id = p.next_id;
            p.next_id = p.next_id.checked_add(1).unwrap_or(1);
            if let Entry::Vacant(e) = p.waiting.entry(id) {
                e.insert((tx, permit));
                return Some((id, rx));
            }
        }
    }

    fn forget(&self, id: u16) {
        if let Ok(mut p) = self.pending.lock() {
            p.waiting.remove(&id);
        }
    }

    fn answer(&self, id: u16, ack: Ack) {
        let waiter = self
            .pending
            .lock()
            .ok()
            .and_then(|mut p| p.waiting.remove(&id));
        if let Some((tx, _permit)) = waiter {
            let _ = tx.send(ack);
        }
    }

    fn touch(&self) {
        if let Ok(mut t) = self.last_read.lock() {
            *t = Instant::now();
        }
    }

    /// Writes one packet whole (the write lock is held for it).
    async fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut w = self.write.lock().await;
        w.write_all(bytes).await?;
        w.flush().await
    }

    /// Publishes at QoS 1 and waits for the `PUBACK` of its identifier.
    pub async fn publish(
        &self,
        topic: &str,
        props: &Properties,
        payload: &[u8],
        deadline: Instant,
    ) -> Sent {
        let permit = match timeout_at(deadline, Arc::clone(&self.window).acquire_owned()).await {
            Ok(Ok(p)) => p,
            Ok(Err(_)) => return Sent::Broken("the connection closed".into()),
            Err(_) => return Sent::TimedOut,
        };
        let Some((id, rx)) = self.register(permit) else {
            return Sent::Broken("the connection closed".into());
        };
        let frame = wire::publish(self.version, topic, id, props, payload);
        if frame.len() > self.max_packet {
            self.forget(id);
            return Sent::TooLarge {
                size: frame.len(),
                max: self.max_packet,
            };
        }
        let sent = async {
            self.write(&frame).await?;
            Ok::<_, std::io::Error>(rx.await)
        };
        match timeout_at(deadline, sent).await {
            Err(_) => {
                self.forget(id);
                // Unanswered: the identifier may still be acknowledged
                // later, so this connection is done.
                self.kill("an attempt timed out");
                Sent::TimedOut
            }
            Ok(Err(e)) => {
                self.kill("a write failed");
                Sent::Broken(format!("connection: {e}"))
            }
            Ok(Ok(Err(_))) => Sent::Broken("the connection closed".into()),
            Ok(Ok(Ok(ack))) => Sent::Answered { id, ack },
        }
    }
}

async fn read_loop(conn: Weak<Conn>, mut r: BufReader<ReadHalf<BufReader<Stream>>>) {
    let version = match conn.upgrade() {
        Some(c) => c.version,
        None => return,
    };
    let why = loop {
        let raw = wire::read(&mut r, MAX_INCOMING).await;
        let Some(c) = conn.upgrade() else { return };
        let raw = match raw {
            Ok(raw) => raw,
            Err(e) => break format!("connection: {e}"),
        };
        c.touch();
        match wire::decode(version, &raw) {
            Ok(Incoming::PubAck { id, code, reason }) => c.answer(id, Ack::PubAck { code, reason }),
            Ok(Incoming::Disconnect { code, reason }) => {
                c.fail_all(&Ack::Disconnect { code, reason });
                return;
            }
            Ok(_) => {}
            Err(e) => break e.to_string(),
        }
    };
    if let Some(c) = conn.upgrade() {
        c.kill(&why);
    }
}

async fn ping_loop(conn: Weak<Conn>, every: Duration) {
    let every = every.max(Duration::from_millis(500));
    let mut tick = tokio::time::interval_at(Instant::now() + every, every);
    loop {
        tick.tick().await;
        let Some(c) = conn.upgrade() else { return };
        if c.is_dead() {
            return;
        }
        let quiet = c.last_read.lock().map(|t| t.elapsed()).unwrap_or_default();
        if quiet > every * 3 {
            c.kill("no PINGRESP within one and a half keep-alives");
            return;
        }
        match tokio::time::timeout(every, c.write(&wire::PINGREQ)).await {
            Ok(Ok(())) => {}
            _ => {
                c.kill("PINGREQ could not be written");
                return;
            }
        }
    }
}

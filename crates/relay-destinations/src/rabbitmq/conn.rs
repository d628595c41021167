//! One AMQP 0-9-1 connection with one channel in confirm mode, over a
//! stream the caller opened (the kind: through the outbound guard).
//!
//! Opening is `connection.start`/`start-ok` (PLAIN), `tune`/`tune-ok` (no
//! heartbeats: every exchange has its own deadline instead), `open`,
//! `channel.open` and `confirm.select`. A publish is `basic.publish`
//! (`mandatory` set) with its content header and body frames, then the
//! frames the server sends until the `basic.ack` or `basic.nack` of that
//! very delivery tag; a `basic.return` before it marks the message
//! unroutable. One publish is in flight per connection at a time, so a
//! return always belongs to the publish waiting for its confirm.
//!
//! Every step has a deadline; after a failure or a close the connection is
//! not used again (the caller drops it).

use std::net::SocketAddr;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::time::{Instant, timeout_at};

use super::wire::{self, Args, Frame, Properties, Table, Value, id};
use crate::broker::Link;
use relay_net::ErrorKind;

/// The byte stream under a connection (TCP or TLS).
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// The only channel this client uses.
const CHANNEL: u16 = 1;

/// What a connection is opened with.
pub struct Login<'a> {
    pub username: &'a str,
    /// The password's bytes (a resolved secret: never logged or echoed).
    pub password: &'a [u8],
    pub virtual_host: &'a str,
}

/// Why an exchange with the server did not complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No usable answer: the connection broke, timed out, or the server
    /// broke the protocol. The text never holds a credential.
    Io(ErrorKind, String),
    /// The server closed the channel or the connection with this reply
    /// code and text (`403 ACCESS_REFUSED`, `404 NOT_FOUND`, …).
    Closed { code: u16, text: String },
}

/// The server's answer to one publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirm {
    /// `basic.ack` of its delivery tag: the broker took responsibility.
    Ack { tag: u64 },
    /// `basic.nack` of its delivery tag.
    Nack { tag: u64 },
    /// `basic.return` (then its ack): no queue took it.
    Returned { tag: u64, code: u16, text: String },
}

/// An open connection with channel 1 in confirm mode.
pub struct Connection {
    io: BufReader<Box<dyn Io>>,
    pub addr: SocketAddr,
    /// The negotiated largest frame.
    frame_max: usize,
    /// The delivery tag of the next publish on the channel.
    next_tag: u64,
}

/// Each attempt holds its connection alone (one publish in flight).
impl Link for Connection {
    fn share(&self) -> Option<Connection> {
        None
    }
}

fn broken(e: impl std::fmt::Display) -> Failure {
    Failure::Io(ErrorKind::Protocol, format!("connection: {e}"))
}

fn malformed(what: &str) -> Failure {
    Failure::Io(ErrorKind::Protocol, format!("a malformed {what}"))
}

/// Runs `f` before `deadline`.
async fn within<T>(
    deadline: Instant,
    f: impl std::future::Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    match timeout_at(deadline, f).await {
        Ok(r) => r,
        Err(_) => Err(Failure::Io(
            ErrorKind::Timeout,
            "the broker did not answer in time".into(),
        )),
    }
}

impl Connection {
    /// Opens the AMQP connection and its confirm channel over `io`.
    pub async fn open(
        io: Box<dyn Io>,
        addr: SocketAddr,
        login: &Login<'_>,
        deadline: Instant,
    ) -> Result<Connection, Failure> {
        let mut c = Connection {
            io: BufReader::new(io),
            addr,
            frame_max: wire::FRAME_MIN_SIZE as usize,
            next_tag: 1,
        };
        within(deadline, c.handshake(login)).await?;
        Ok(c)
    }

    async fn handshake(&mut self, login: &Login<'_>) -> Result<(), Failure> {
        self.write(wire::PROTOCOL_HEADER).await?;
        let start = self.expect(0, id::CONNECTION_START).await?;
        let (_, mut r) = start.method().ok_or_else(|| malformed("start"))?;
        let mechanisms = (|| {
            r.octet()?;
            r.octet()?;
            r.table()?;
            r.longstr()
        })()
        .map_err(|_| malformed("connection.start"))?;
        if !mechanisms.split(|b| *b == b' ').any(|m| m == b"PLAIN") {
            return Err(Failure::Io(
                ErrorKind::Protocol,
                "the broker does not offer PLAIN authentication".into(),
            ));
        }
        let capabilities = Table::new()
            .with("publisher_confirms", Value::Bool(true))
            .with("basic.nack", Value::Bool(true))
            .with("authentication_failure_close", Value::Bool(true));
        let properties = Table::new()
            .with("product", Value::Str(b"relay".to_vec()))
            .with("capabilities", Value::Table(capabilities));
        let mut response = Vec::with_capacity(2 + login.username.len() + login.password.len());
        response.push(0);
        response.extend_from_slice(login.username.as_bytes());
        response.push(0);
        response.extend_from_slice(login.password);
        let start_ok = wire::method_frame(
            0,
            id::CONNECTION_START_OK,
            Args::new()
                .table(&properties)
                .shortstr(b"PLAIN")
                .longstr(&response)
                .shortstr(b"en_US"),
        );
        self.write(&start_ok).await?;
        let tune = self.expect(0, id::CONNECTION_TUNE).await?;
        let (_, mut r) = tune.method().ok_or_else(|| malformed("tune"))?;
        let (_channel_max, frame_max) = (|| Ok::<_, wire::Malformed>((r.short()?, r.long()?)))()
            .map_err(|_| malformed("connection.tune"))?;
        let frame_max = match frame_max {
            0 => wire::FRAME_MAX,
            n => n.clamp(wire::FRAME_MIN_SIZE, wire::FRAME_MAX),
        };
        self.frame_max = frame_max as usize;
        // tune-ok, open, channel.open and confirm.select in one write.
        let mut out = wire::method_frame(
            0,
            id::CONNECTION_TUNE_OK,
            Args::new().short(1).long(frame_max).short(0),
        );
        out.extend(wire::method_frame(
            0,
            id::CONNECTION_OPEN,
            Args::new()
                .shortstr(login.virtual_host.as_bytes())
                .shortstr(b"")
                .bits(&[false]),
        ));
        out.extend(wire::method_frame(
            CHANNEL,
            id::CHANNEL_OPEN,
            Args::new().shortstr(b""),
        ));
        out.extend(wire::method_frame(
            CHANNEL,
            id::CONFIRM_SELECT,
            Args::new().bits(&[false]),
        ));
        self.write(&out).await?;
        self.expect(0, id::CONNECTION_OPEN_OK).await?;
        self.expect(CHANNEL, id::CHANNEL_OPEN_OK).await?;
        self.expect(CHANNEL, id::CONFIRM_SELECT_OK).await?;
        Ok(())
    }

    /// Publishes one persistent message with `mandatory` set and waits for
    /// its confirm.
    pub async fn publish(
        &mut self,
        exchange: &str,
        routing_key: &str,
        properties: &Properties,
        body: &[u8],
        deadline: Instant,
    ) -> Result<Confirm, Failure> {
        let mut out = wire::method_frame(
            CHANNEL,
            id::BASIC_PUBLISH,
            Args::new()
                .short(0)
                .shortstr(exchange.as_bytes())
                .shortstr(routing_key.as_bytes())
                .bits(&[true, false]),
        );
        out.reserve(body.len() + 512);
        let header = wire::content_header(body.len() as u64, properties);
        wire::push_frame(&mut out, wire::FRAME_HEADER, CHANNEL, &header);
        for chunk in body.chunks(self.frame_max - wire::FRAME_OVERHEAD) {
            wire::push_frame(&mut out, wire::FRAME_BODY, CHANNEL, chunk);
        }
        let tag = self.next_tag;
        self.next_tag += 1;
        within(deadline, async {
            self.write(&out).await?;
            self.confirm_of(tag).await
        })
        .await
    }

    async fn confirm_of(&mut self, tag: u64) -> Result<Confirm, Failure> {
        let mut returned = None;
        loop {
            let frame = self.next_method().await?;
            let Some((method, mut r)) = frame.method() else {
                return Err(malformed("frame"));
            };
            match method {
                id::BASIC_RETURN => {
                    let (code, text) = (|| {
                        Ok::<_, wire::Malformed>((
                            r.short()?,
                            String::from_utf8_lossy(r.shortstr()?).into_owned(),
                        ))
                    })()
                    .map_err(|_| malformed("basic.return"))?;
                    self.read_content().await?;
                    returned = Some((code, text));
                }
                id::BASIC_ACK | id::BASIC_NACK => {
                    let (acked, multiple) =
                        (|| Ok::<_, wire::Malformed>((r.longlong()?, r.bit()?)))()
                            .map_err(|_| malformed("confirm"))?;
                    if acked != tag && !(multiple && acked >= tag) {
                        continue;
                    }
                    return Ok(match (method, returned) {
                        (id::BASIC_NACK, _) => Confirm::Nack { tag },
                        (_, Some((code, text))) => Confirm::Returned { tag, code, text },
                        _ => Confirm::Ack { tag },
                    });
                }
                other => {
                    return Err(Failure::Io(
                        ErrorKind::Protocol,
                        format!(
                            "unexpected method {}.{} awaiting a confirm",
                            other.0, other.1
                        ),
                    ));
                }
            }
        }
    }

    /// Sends a method on the channel and waits for `reply` (for the test's
    /// consumer and administration: declare, bind, unbind, …).
    pub async fn call(
        &mut self,
        method: (u16, u16),
        args: Args,
        reply: (u16, u16),
        deadline: Instant,
    ) -> Result<Frame, Failure> {
        let out = wire::method_frame(CHANNEL, method, args);
        within(deadline, async {
            self.write(&out).await?;
            self.expect(CHANNEL, reply).await
        })
        .await
    }

    /// `basic.get` with automatic acknowledgement: the next message of
    /// `queue`, if any.
    pub async fn get(
        &mut self,
        queue: &str,
        deadline: Instant,
    ) -> Result<Option<(Properties, Vec<u8>)>, Failure> {
        let out = wire::method_frame(
            CHANNEL,
            id::BASIC_GET,
            Args::new()
                .short(0)
                .shortstr(queue.as_bytes())
                .bits(&[true]),
        );
        within(deadline, async {
            self.write(&out).await?;
            let frame = self.next_method().await?;
            match frame.method().map(|(m, _)| m) {
                Some(id::BASIC_GET_EMPTY) => Ok(None),
                Some(id::BASIC_GET_OK) => self.read_content().await.map(Some),
                _ => Err(malformed("basic.get answer")),
            }
        })
        .await
    }

    /// Closes the connection politely.
    pub async fn close(mut self, deadline: Instant) {
        let out = wire::method_frame(
            0,
            id::CONNECTION_CLOSE,
            Args::new().short(200).shortstr(b"bye").short(0).short(0),
        );
        let _ = within(deadline, async {
            self.write(&out).await?;
            self.expect(0, id::CONNECTION_CLOSE_OK).await
        })
        .await;
    }

    /// The content header and body frames that follow a return or a get.
    async fn read_content(&mut self) -> Result<(Properties, Vec<u8>), Failure> {
        let header = self.read_frame().await?;
        if header.kind != wire::FRAME_HEADER {
            return Err(malformed("content header"));
        }
        let (size, properties) = wire::Reader::new(&header.payload)
            .content_header()
            .map_err(|_| malformed("content header"))?;
        let size = usize::try_from(size).map_err(|_| malformed("content size"))?;
        let mut body = Vec::with_capacity(size.min(1 << 20));
        while body.len() < size {
            let frame = self.read_frame().await?;
            if frame.kind != wire::FRAME_BODY || body.len() + frame.payload.len() > size {
                return Err(malformed("content body"));
            }
            body.extend_from_slice(&frame.payload);
        }
        Ok((properties, body))
    }

    /// The next method frame, answering closes and skipping heartbeats and
    /// flow notices.
    async fn next_method(&mut self) -> Result<Frame, Failure> {
        loop {
            let frame = self.read_frame().await?;
            if frame.kind == wire::FRAME_HEARTBEAT {
                continue;
            }
            let Some((method, mut r)) = frame.method() else {
                return Err(malformed("frame where a method was due"));
            };
            match method {
                id::CONNECTION_CLOSE | id::CHANNEL_CLOSE => {
                    let (code, text) = (|| {
                        Ok::<_, wire::Malformed>((
                            r.short()?,
                            String::from_utf8_lossy(r.shortstr()?).into_owned(),
                        ))
                    })()
                    .map_err(|_| malformed("close"))?;
                    let ok = if method == id::CONNECTION_CLOSE {
                        wire::method_frame(0, id::CONNECTION_CLOSE_OK, Args::new())
                    } else {
                        wire::method_frame(frame.channel, id::CHANNEL_CLOSE_OK, Args::new())
                    };
                    let _ = self.write(&ok).await;
                    return Err(Failure::Closed { code, text });
                }
                id::CONNECTION_BLOCKED | id::CONNECTION_UNBLOCKED => continue,
                _ => return Ok(frame),
            }
        }
    }

    /// Reads method frames until `method` on `channel`.
    async fn expect(&mut self, channel: u16, method: (u16, u16)) -> Result<Frame, Failure> {
        let frame = self.next_method().await?;
        match frame.method() {
            Some((m, _)) if m == method && frame.channel == channel => Ok(frame),
            Some((m, _)) => Err(Failure::Io(
                ErrorKind::Protocol,
                format!(
                    "expected method {}.{}, the broker sent {}.{}",
                    method.0, method.1, m.0, m.1
                ),
            )),
            None => Err(malformed("frame")),
        }
    }

    async fn read_frame(&mut self) -> Result<Frame, Failure> {
        let mut head = [0u8; 7];
        self.io.read_exact(&mut head).await.map_err(broken)?;
        if &head[..4] == b"AMQP" {
            return Err(Failure::Io(
                ErrorKind::Protocol,
                "the broker does not speak AMQP 0-9-1".into(),
            ));
        }
        let size = u32::from_be_bytes([head[3], head[4], head[5], head[6]]) as usize;
        // The negotiated frame-max bounds every frame (before tuning: the
        // minimum or the server's start, whichever is larger).
        if size > self.frame_max.max(wire::FRAME_MAX as usize) {
            return Err(Failure::Io(
                ErrorKind::Protocol,
                format!("a {size}-byte frame is larger than the frame-max"),
            ));
        }
        let mut payload = vec![0u8; size + 1];
        self.io.read_exact(&mut payload).await.map_err(broken)?;
        if payload.pop() != Some(wire::FRAME_END) {
            return Err(malformed("frame end"));
        }
        Ok(Frame {
            kind: head[0],
            channel: u16::from_be_bytes([head[1], head[2]]),
            payload,
        })
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        let io = self.io.get_mut();
        io.write_all(bytes).await.map_err(broken)?;
        io.flush().await.map_err(broken)
    }
}

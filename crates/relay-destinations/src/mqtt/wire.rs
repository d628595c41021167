//! MQTT control packets, 3.1.1 and 5.0: what a QoS 1 publisher sends
//! (`CONNECT`, `PUBLISH`, `PINGREQ`, `DISCONNECT`) and reads (`CONNACK`,
//! `PUBACK`, `PINGRESP`, `DISCONNECT`), plus what a test's subscriber needs
//! (`SUBSCRIBE`, `SUBACK`, incoming `PUBLISH`, its `PUBACK`). Pure encoding
//! and decoding, and [`read`] of one packet from a stream.
//!
//! Section numbers refer to MQTT 5.0 (OASIS, 2019) and MQTT 3.1.1 (OASIS,
//! 2014).

use crate::mqtt::MqttVersion;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Control packet types (the fixed header's high nibble, §2.1.2).
pub mod kind {
    pub const CONNECT: u8 = 1;
    pub const CONNACK: u8 = 2;
    pub const PUBLISH: u8 = 3;
    pub const PUBACK: u8 = 4;
    pub const SUBSCRIBE: u8 = 8;
    pub const SUBACK: u8 = 9;
    pub const PINGREQ: u8 = 12;
    pub const PINGRESP: u8 = 13;
    pub const DISCONNECT: u8 = 14;
}

/// MQTT 5 property identifiers (§2.2.2.2) this client writes or reads.
pub mod prop {
    pub const CONTENT_TYPE: u8 = 0x03;
    pub const SESSION_EXPIRY: u8 = 0x11;
    pub const ASSIGNED_CLIENT_ID: u8 = 0x12;
    pub const SERVER_KEEP_ALIVE: u8 = 0x13;
    pub const REASON_STRING: u8 = 0x1F;
    pub const RECEIVE_MAXIMUM: u8 = 0x21;
    pub const MAXIMUM_QOS: u8 = 0x24;
    pub const USER_PROPERTY: u8 = 0x26;
    pub const MAXIMUM_PACKET_SIZE: u8 = 0x27;
}

/// The largest Remaining Length (§1.5.5: four bytes of variable integer).
pub const MAX_REMAINING: usize = 268_435_455;

/// A packet that does not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed(pub &'static str);

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a malformed {}", self.0)
    }
}

const fn level(v: MqttVersion) -> u8 {
    match v {
        MqttVersion::V311 => 4,
        MqttVersion::V5 => 5,
    }
}

fn put_varint(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let mut b = (n % 128) as u8;
        n /= 128;
        if n > 0 {
            b |= 0x80;
        }
        out.push(b);
        if n == 0 {
            return;
        }
    }
}

fn put_str(out: &mut Vec<u8>, s: &[u8]) {
    // Callers bound every string to 65535 bytes (topic, properties, ids).
    let len = u16::try_from(s.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&s[..usize::from(len)]);
}

/// A packet: the fixed header byte, the Remaining Length and the rest.
fn packet(first: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 5);
    out.push(first);
    put_varint(&mut out, body.len());
    out.extend_from_slice(body);
    out
}

/// A property section: its length, then the properties.
fn put_props(out: &mut Vec<u8>, props: &[u8]) {
    put_varint(out, props.len());
    out.extend_from_slice(props);
}

/// What `CONNECT` carries.
pub struct Connect<'a> {
    pub version: MqttVersion,
    pub client_id: &'a str,
    pub username: Option<&'a str>,
    /// A resolved secret: only ever written into the packet.
    pub password: Option<&'a [u8]>,
    pub keep_alive_secs: u16,
    /// Clean start (3.1.1: clean session).
    pub clean_start: bool,
    /// MQTT 5's session expiry interval (0: the session ends with the
    /// connection).
    pub session_expiry_secs: u32,
}

/// `CONNECT` (§3.1).
pub fn connect(c: &Connect<'_>) -> Vec<u8> {
    let mut b = Vec::with_capacity(64);
    put_str(&mut b, b"MQTT");
    b.push(level(c.version));
    let mut flags = 0u8;
    if c.username.is_some() {
        flags |= 0x80;
    }
    if c.password.is_some() {
        flags |= 0x40;
    }
    if c.clean_start {
        flags |= 0x02;
    }
    b.push(flags);
    b.extend_from_slice(&c.keep_alive_secs.to_be_bytes());
    if c.version == MqttVersion::V5 {
        let mut p = Vec::new();
        if c.session_expiry_secs > 0 {
            p.push(prop::SESSION_EXPIRY);
            p.extend_from_slice(&c.session_expiry_secs.to_be_bytes());
        }
        put_props(&mut b, &p);
    }
    put_str(&mut b, c.client_id.as_bytes());
    if let Some(u) = c.username {
        put_str(&mut b, u.as_bytes());
    }
    if let Some(p) = c.password {
        put_str(&mut b, p);
    }
    packet(kind::CONNECT << 4, &b)
}

/// A PUBLISH's MQTT 5 properties (ignored with 3.1.1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    pub content_type: Option<String>,
    /// In order; a name may repeat.
    pub user: Vec<(String, String)>,
}

impl Properties {
    /// The first user property named `name`.
    pub fn user(&self, name: &str) -> Option<&str> {
        self.user
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A QoS 1 `PUBLISH` (§3.3) with packet identifier `id`.
pub fn publish(
    version: MqttVersion,
    topic: &str,
    id: u16,
    props: &Properties,
    payload: &[u8],
) -> Vec<u8> {
    let mut b = Vec::with_capacity(topic.len() + payload.len() + 256);
    put_str(&mut b, topic.as_bytes());
    b.extend_from_slice(&id.to_be_bytes());
    if version == MqttVersion::V5 {
        let mut p = Vec::with_capacity(256);
        if let Some(ct) = &props.content_type {
            p.push(prop::CONTENT_TYPE);
            put_str(&mut p, ct.as_bytes());
        }
        for (name, value) in &props.user {
            p.push(prop::USER_PROPERTY);
            put_str(&mut p, name.as_bytes());
            put_str(&mut p, value.as_bytes());
        }
        put_props(&mut b, &p);
    }
    b.extend_from_slice(payload);
    // QoS 1 (bits 2-1 = 01), not a duplicate, not retained.
    packet((kind::PUBLISH << 4) | 0x02, &b)
}

/// `PUBACK` (§3.4) of packet `id` with `reason` (MQTT 5; 3.1.1 has none).
pub fn puback(version: MqttVersion, id: u16, reason: u8) -> Vec<u8> {
    let mut b = id.to_be_bytes().to_vec();
    if version == MqttVersion::V5 && reason != 0 {
        b.push(reason);
    }
    packet(kind::PUBACK << 4, &b)
}

/// `SUBSCRIBE` (§3.8) to one filter at QoS 1.
pub fn subscribe(version: MqttVersion, id: u16, filter: &str) -> Vec<u8> {
    let mut b = id.to_be_bytes().to_vec();
    if version == MqttVersion::V5 {
        put_props(&mut b, &[]);
    }
    put_str(&mut b, filter.as_bytes());
    b.push(1);
    packet((kind::SUBSCRIBE << 4) | 0x02, &b)
}

/// `PINGREQ` (§3.12).
pub const PINGREQ: [u8; 2] = [kind::PINGREQ << 4, 0];

/// A normal `DISCONNECT` (§3.14).
pub fn disconnect() -> Vec<u8> {
    packet(kind::DISCONNECT << 4, &[])
}

/// One packet as read: the fixed header byte and the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raw {
    pub first: u8,
    pub body: Vec<u8>,
}

/// Reads one packet; one whose Remaining Length exceeds `max` is an error
/// (nothing of it is buffered).
pub async fn read<R: AsyncRead + Unpin>(r: &mut R, max: usize) -> std::io::Result<Raw> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    let first = r.read_u8().await?;
    let mut len = 0usize;
    let mut shift = 0;
    loop {
        let b = r.read_u8().await?;
        len |= usize::from(b & 0x7F) << shift;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
        if shift > 21 {
            return Err(bad("a malformed remaining length"));
        }
    }
    if len > max {
        return Err(bad(&format!(
            "a {len}-byte packet is larger than the {max} bytes accepted"
        )));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).await?;
    Ok(Raw { first, body })
}

/// What a packet from the server says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    ConnAck {
        session_present: bool,
        /// 3.1.1: the return code; 5: the reason code.
        code: u8,
        props: ConnAckProps,
    },
    PubAck {
        id: u16,
        /// 0 when absent (MQTT 5 §3.4.2.1; always with 3.1.1).
        code: u8,
        reason: Option<String>,
    },
    Publish {
        topic: String,
        qos: u8,
        /// `None` for QoS 0.
        id: Option<u16>,
        props: Properties,
        payload: Vec<u8>,
    },
    SubAck {
        id: u16,
        codes: Vec<u8>,
    },
    PingResp,
    Disconnect {
        code: u8,
        reason: Option<String>,
    },
    /// A packet this client has no use for (its type).
    Other(u8),
}

/// What a MQTT 5 `CONNACK` says of the server's limits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnAckProps {
    pub receive_maximum: Option<u16>,
    pub maximum_packet_size: Option<u32>,
    pub maximum_qos: Option<u8>,
    pub server_keep_alive: Option<u16>,
    pub assigned_client_id: Option<String>,
    pub reason: Option<String>,
}

/// A cursor over a packet's bytes.
struct Cur<'a>(&'a [u8]);

impl<'a> Cur<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], Malformed> {
        if self.0.len() < n {
            return Err(Malformed(what));
        }
        let (h, t) = self.0.split_at(n);
        self.0 = t;
        Ok(h)
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, Malformed> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, Malformed> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, Malformed> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn varint(&mut self, what: &'static str) -> Result<usize, Malformed> {
        let mut n = 0usize;
        for i in 0..4 {
            let b = self.u8(what)?;
            n |= usize::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(Malformed(what))
    }
    fn bytes(&mut self, what: &'static str) -> Result<&'a [u8], Malformed> {
        let n = self.u16(what)?;
        self.take(usize::from(n), what)
    }
    fn string(&mut self, what: &'static str) -> Result<String, Malformed> {
        String::from_utf8(self.bytes(what)?.to_vec()).map_err(|_| Malformed(what))
    }
}

/// One MQTT 5 property's value, by the type its identifier has (§2.2.2.2).
enum Value {
    Byte(u8),
    Two(u16),
    Four(u32),
    Str(String),
    Pair(String, String),
    /// A variable integer or binary data (skipped).
    Skipped,
}

fn property(c: &mut Cur<'_>) -> Result<(u8, Value), Malformed> {
    const W: &str = "property";
    let id = c.u8(W)?;
    let v = match id {
        0x01 | 0x17 | 0x19 | 0x24 | 0x25 | 0x28 | 0x29 | 0x2A => Value::Byte(c.u8(W)?),
        0x13 | 0x21 | 0x22 | 0x23 => Value::Two(c.u16(W)?),
        0x02 | 0x11 | 0x18 | 0x27 => Value::Four(c.u32(W)?),
        0x0B => {
            c.varint(W)?;
            Value::Skipped
        }
        0x03 | 0x08 | 0x12 | 0x15 | 0x1A | 0x1C | 0x1F => Value::Str(c.string(W)?),
        0x09 | 0x16 => {
            c.bytes(W)?;
            Value::Skipped
        }
        0x26 => Value::Pair(c.string(W)?, c.string(W)?),
        _ => return Err(Malformed("property identifier")),
    };
    Ok((id, v))
}

/// The property section at the cursor, each passed to `f`.
fn properties(c: &mut Cur<'_>, mut f: impl FnMut(u8, Value)) -> Result<(), Malformed> {
    let len = c.varint("property length")?;
    let mut p = Cur(c.take(len, "properties")?);
    while !p.0.is_empty() {
        let (id, v) = property(&mut p)?;
        f(id, v);
    }
    Ok(())
}

/// Decodes a packet read with [`read`] for a connection of `version`.
pub fn decode(version: MqttVersion, raw: &Raw) -> Result<Incoming, Malformed> {
    let v5 = version == MqttVersion::V5;
    let mut c = Cur(&raw.body);
    Ok(match raw.first >> 4 {
        kind::CONNACK => {
            let flags = c.u8("connack")?;
            let code = c.u8("connack")?;
            let mut props = ConnAckProps::default();
            // A server that refuses the protocol level may answer in 3.1.1
            // form, without properties.
            if v5 && !c.0.is_empty() {
                properties(&mut c, |id, v| match (id, v) {
                    (prop::RECEIVE_MAXIMUM, Value::Two(n)) => props.receive_maximum = Some(n),
                    (prop::MAXIMUM_PACKET_SIZE, Value::Four(n)) => {
                        props.maximum_packet_size = Some(n);
                    }
                    (prop::MAXIMUM_QOS, Value::Byte(n)) => props.maximum_qos = Some(n),
                    (prop::SERVER_KEEP_ALIVE, Value::Two(n)) => props.server_keep_alive = Some(n),
                    (prop::ASSIGNED_CLIENT_ID, Value::Str(s)) => {
                        props.assigned_client_id = Some(s);
                    }
                    (prop::REASON_STRING, Value::Str(s)) => props.reason = Some(s),
                    _ => {}
                })?;
            }
            Incoming::ConnAck {
                session_present: flags & 1 == 1,
                code,
                props,
            }
        }
        kind::PUBACK => {
            let id = c.u16("puback")?;
            let code = if v5 && !c.0.is_empty() {
                c.u8("puback")?
            } else {
                0
            };
            let mut reason = None;
            if v5 && !c.0.is_empty() {
                properties(&mut c, |id, v| {
                    if let (prop::REASON_STRING, Value::Str(s)) = (id, v) {
                        reason = Some(s);
                    }
                })?;
            }
            Incoming::PubAck { id, code, reason }
        }
        kind::PUBLISH => {
            let qos = (raw.first >> 1) & 0x03;
            let topic = c.string("publish topic")?;
            let id = if qos > 0 {
                Some(c.u16("publish")?)
            } else {
                None
            };
            let mut props = Properties::default();
            if v5 {
                properties(&mut c, |id, v| match (id, v) {
                    (prop::CONTENT_TYPE, Value::Str(s)) => props.content_type = Some(s),
                    (prop::USER_PROPERTY, Value::Pair(n, v)) => props.user.push((n, v)),
                    _ => {}
                })?;
            }
            Incoming::Publish {
                topic,
                qos,
                id,
                props,
                payload: c.0.to_vec(),
            }
        }
        kind::SUBACK => {
            let id = c.u16("suback")?;
            if v5 {
                properties(&mut c, |_, _| {})?;
            }
            Incoming::SubAck {
                id,
                codes: c.0.to_vec(),
            }
        }
        kind::PINGRESP => Incoming::PingResp,
        kind::DISCONNECT => {
            let code = if c.0.is_empty() {
                0
            } else {
                c.u8("disconnect")?
            };
            let mut reason = None;
            if !c.0.is_empty() {
                properties(&mut c, |id, v| {
                    if let (prop::REASON_STRING, Value::Str(s)) = (id, v) {
                        reason = Some(s);
                    }
                })?;
            }
            Incoming::Disconnect { code, reason }
        }
        other => Incoming::Other(other),
    })
}

#[cfg(test)]
mod tests;

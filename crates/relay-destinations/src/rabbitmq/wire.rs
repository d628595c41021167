//! The AMQP 0-9-1 wire format, as much of it as a publisher with confirms
//! needs (and the few queue methods the compliance test's consumer uses):
//! frames, the method arguments' types, field tables, the `basic` content
//! header. Pure encoding and decoding over bytes; no IO.
//!
//! The grammar is the AMQP 0-9-1 specification's (section 4.2, "Frame
//! format", and the generated class/method list), with RabbitMQ's field
//! table types (its "errata": `s` is a signed 16-bit integer, `l` a signed
//! 64-bit one, `x` a byte array).

/// What a client sends first.
pub const PROTOCOL_HEADER: &[u8; 8] = b"AMQP\x00\x00\x09\x01";

pub const FRAME_METHOD: u8 = 1;
pub const FRAME_HEADER: u8 = 2;
pub const FRAME_BODY: u8 = 3;
pub const FRAME_HEARTBEAT: u8 = 8;
pub const FRAME_END: u8 = 0xCE;

/// The smallest `frame-max` a peer may propose (the specification's
/// `frame-min-size`).
pub const FRAME_MIN_SIZE: u32 = 4096;

/// The frame-max this client proposes when the server sets none.
pub const FRAME_MAX: u32 = 131_072;

/// A frame's header plus its end octet: what a body frame adds to its bytes.
pub const FRAME_OVERHEAD: usize = 8;

/// Class and method ids.
pub mod id {
    pub const CONNECTION_START: (u16, u16) = (10, 10);
    pub const CONNECTION_START_OK: (u16, u16) = (10, 11);
    pub const CONNECTION_SECURE: (u16, u16) = (10, 20);
    pub const CONNECTION_TUNE: (u16, u16) = (10, 30);
    pub const CONNECTION_TUNE_OK: (u16, u16) = (10, 31);
    pub const CONNECTION_OPEN: (u16, u16) = (10, 40);
    pub const CONNECTION_OPEN_OK: (u16, u16) = (10, 41);
    pub const CONNECTION_CLOSE: (u16, u16) = (10, 50);
    pub const CONNECTION_CLOSE_OK: (u16, u16) = (10, 51);
    pub const CONNECTION_BLOCKED: (u16, u16) = (10, 60);
    pub const CONNECTION_UNBLOCKED: (u16, u16) = (10, 61);
    pub const CHANNEL_OPEN: (u16, u16) = (20, 10);
    pub const CHANNEL_OPEN_OK: (u16, u16) = (20, 11);
    pub const CHANNEL_CLOSE: (u16, u16) = (20, 40);
    pub const CHANNEL_CLOSE_OK: (u16, u16) = (20, 41);
    pub const EXCHANGE_DECLARE: (u16, u16) = (40, 10);
    pub const EXCHANGE_DECLARE_OK: (u16, u16) = (40, 11);
    pub const EXCHANGE_DELETE: (u16, u16) = (40, 20);
    pub const EXCHANGE_DELETE_OK: (u16, u16) = (40, 21);
    pub const QUEUE_DECLARE: (u16, u16) = (50, 10);
    pub const QUEUE_DECLARE_OK: (u16, u16) = (50, 11);
    pub const QUEUE_BIND: (u16, u16) = (50, 20);
    pub const QUEUE_BIND_OK: (u16, u16) = (50, 21);
    pub const QUEUE_DELETE: (u16, u16) = (50, 40);
    pub const QUEUE_DELETE_OK: (u16, u16) = (50, 41);
    pub const QUEUE_UNBIND: (u16, u16) = (50, 50);
    pub const QUEUE_UNBIND_OK: (u16, u16) = (50, 51);
    pub const BASIC_PUBLISH: (u16, u16) = (60, 40);
    pub const BASIC_RETURN: (u16, u16) = (60, 50);
    pub const BASIC_GET: (u16, u16) = (60, 70);
    pub const BASIC_GET_OK: (u16, u16) = (60, 71);
    pub const BASIC_GET_EMPTY: (u16, u16) = (60, 72);
    pub const BASIC_ACK: (u16, u16) = (60, 80);
    pub const BASIC_NACK: (u16, u16) = (60, 120);
    pub const CONFIRM_SELECT: (u16, u16) = (85, 10);
    pub const CONFIRM_SELECT_OK: (u16, u16) = (85, 11);
}

/// The `basic` class id (content headers carry it).
pub const CLASS_BASIC: u16 = 60;

/// Reply codes of the specification that this client tells apart.
pub mod reply {
    pub const CONTENT_TOO_LARGE: u16 = 311;
    pub const NO_ROUTE: u16 = 312;
    pub const NO_CONSUMERS: u16 = 313;
    pub const CONNECTION_FORCED: u16 = 320;
    pub const ACCESS_REFUSED: u16 = 403;
    pub const NOT_FOUND: u16 = 404;
    pub const RESOURCE_LOCKED: u16 = 405;
    pub const PRECONDITION_FAILED: u16 = 406;
    pub const FRAME_ERROR: u16 = 501;
    pub const RESOURCE_ERROR: u16 = 506;
    pub const NOT_ALLOWED: u16 = 530;
    pub const INTERNAL_ERROR: u16 = 541;
}

/// A method's arguments, written in order.
#[derive(Default)]
pub struct Args(Vec<u8>);

impl Args {
    pub fn new() -> Args {
        Args(Vec::with_capacity(64))
    }
    pub fn octet(mut self, v: u8) -> Args {
        self.0.push(v);
        self
    }
    pub fn short(mut self, v: u16) -> Args {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn long(mut self, v: u32) -> Args {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn longlong(mut self, v: u64) -> Args {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    /// A short string; the caller keeps it to 255 bytes (longer is cut).
    pub fn shortstr(mut self, v: &[u8]) -> Args {
        let v = &v[..v.len().min(255)];
        self.0.push(v.len() as u8);
        self.0.extend_from_slice(v);
        self
    }
    pub fn longstr(mut self, v: &[u8]) -> Args {
        self.0
            .extend_from_slice(&u32::try_from(v.len()).unwrap_or(u32::MAX).to_be_bytes());
        self.0.extend_from_slice(v);
        self
    }
    /// Consecutive bits, packed into one octet, the first in the low bit.
    pub fn bits(mut self, bits: &[bool]) -> Args {
        let mut octet = 0u8;
        for (i, b) in bits.iter().enumerate() {
            if *b {
                octet |= 1 << i;
            }
        }
        self.0.push(octet);
        self
    }
    pub fn table(mut self, t: &Table) -> Args {
        t.encode(&mut self.0);
        self
    }
}

/// A field value this client writes.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    /// A signed 64-bit integer (`l`; decoded from every integer type).
    Int(i64),
    /// A long string (`S`).
    Str(Vec<u8>),
    Table(Table),
    /// Any other type, decoded only to be skipped.
    Other,
}

/// A field table: names and values, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table(pub Vec<(String, Value)>);

impl Table {
    pub fn new() -> Table {
        Table(Vec::new())
    }
    pub fn with(mut self, name: &str, value: Value) -> Table {
        self.0.push((name.to_owned(), value));
        self
    }
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    /// A string field's value.
    pub fn str(&self, name: &str) -> Option<&[u8]> {
        match self.get(name) {
            Some(Value::Str(s)) => Some(s),
            _ => None,
        }
    }

    fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        for (name, value) in &self.0 {
            let name = &name.as_bytes()[..name.len().min(128)];
            out.push(name.len() as u8);
            out.extend_from_slice(name);
            match value {
                Value::Bool(b) => out.extend_from_slice(&[b't', u8::from(*b)]),
                Value::Int(i) => {
                    out.push(b'l');
                    out.extend_from_slice(&i.to_be_bytes());
                }
                Value::Str(s) => {
                    out.push(b'S');
                    out.extend_from_slice(&(s.len() as u32).to_be_bytes());
                    out.extend_from_slice(s);
                }
                Value::Table(t) => {
                    out.push(b'F');
                    t.encode(out);
                }
                Value::Other => out.push(b'V'),
            }
        }
        let len = (out.len() - start - 4) as u32;
        out[start..start + 4].copy_from_slice(&len.to_be_bytes());
    }
}

/// One method frame's bytes.
pub fn method_frame(channel: u16, method: (u16, u16), args: Args) -> Vec<u8> {
    let mut payload = Vec::with_capacity(4 + args.0.len());
    payload.extend_from_slice(&method.0.to_be_bytes());
    payload.extend_from_slice(&method.1.to_be_bytes());
    payload.extend_from_slice(&args.0);
    let mut out = Vec::with_capacity(payload.len() + FRAME_OVERHEAD);
    push_frame(&mut out, FRAME_METHOD, channel, &payload);
    out
}

/// Appends one frame.
pub fn push_frame(out: &mut Vec<u8>, kind: u8, channel: u16, payload: &[u8]) {
    out.push(kind);
    out.extend_from_slice(&channel.to_be_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out.push(FRAME_END);
}

/// The `basic` content properties this client sets or reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Properties {
    pub content_type: Option<String>,
    pub headers: Option<Table>,
    pub delivery_mode: Option<u8>,
    pub message_id: Option<String>,
    pub timestamp: Option<u64>,
    pub kind: Option<String>,
    pub app_id: Option<String>,
}

// Property flags, from the high bit down (the `basic` class's property list).
const P_CONTENT_TYPE: u16 = 1 << 15;
const P_CONTENT_ENCODING: u16 = 1 << 14;
const P_HEADERS: u16 = 1 << 13;
const P_DELIVERY_MODE: u16 = 1 << 12;
const P_PRIORITY: u16 = 1 << 11;
const P_CORRELATION_ID: u16 = 1 << 10;
const P_REPLY_TO: u16 = 1 << 9;
const P_EXPIRATION: u16 = 1 << 8;
const P_MESSAGE_ID: u16 = 1 << 7;
const P_TIMESTAMP: u16 = 1 << 6;
const P_TYPE: u16 = 1 << 5;
const P_USER_ID: u16 = 1 << 4;
const P_APP_ID: u16 = 1 << 3;
const P_CLUSTER_ID: u16 = 1 << 2;

/// A `basic` content header frame's payload.
pub fn content_header(body_size: u64, p: &Properties) -> Vec<u8> {
    let mut flags = 0u16;
    let mut args = Args::new();
    if let Some(v) = &p.content_type {
        flags |= P_CONTENT_TYPE;
        args = args.shortstr(v.as_bytes());
    }
    if let Some(t) = &p.headers {
        flags |= P_HEADERS;
        args = args.table(t);
    }
    if let Some(v) = p.delivery_mode {
        flags |= P_DELIVERY_MODE;
        args = args.octet(v);
    }
    if let Some(v) = &p.message_id {
        flags |= P_MESSAGE_ID;
        args = args.shortstr(v.as_bytes());
    }
    if let Some(v) = p.timestamp {
        flags |= P_TIMESTAMP;
        args = args.longlong(v);
    }
    if let Some(v) = &p.kind {
        flags |= P_TYPE;
        args = args.shortstr(v.as_bytes());
    }
    if let Some(v) = &p.app_id {
        flags |= P_APP_ID;
        args = args.shortstr(v.as_bytes());
    }
    let mut out = Vec::with_capacity(14 + args.0.len());
    out.extend_from_slice(&CLASS_BASIC.to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&body_size.to_be_bytes());
    out.extend_from_slice(&flags.to_be_bytes());
    out.extend_from_slice(&args.0);
    out
}

/// A payload that ended early or held an unknown type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed;

/// Reads a method's or a header's arguments, in order.
pub struct Reader<'a> {
    buf: &'a [u8],
    /// Bits already read from the current octet (consecutive bit arguments).
    bit: Option<(u8, u8)>,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, bit: None }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        self.bit = None;
        if self.buf.len() < n {
            return Err(Malformed);
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }
    pub fn octet(&mut self) -> Result<u8, Malformed> {
        Ok(self.take(1)?[0])
    }
    pub fn short(&mut self) -> Result<u16, Malformed> {
        Ok(u16::from_be_bytes(
            self.take(2)?.try_into().unwrap_or([0; 2]),
        ))
    }
    pub fn long(&mut self) -> Result<u32, Malformed> {
        Ok(u32::from_be_bytes(
            self.take(4)?.try_into().unwrap_or([0; 4]),
        ))
    }
    pub fn longlong(&mut self) -> Result<u64, Malformed> {
        Ok(u64::from_be_bytes(
            self.take(8)?.try_into().unwrap_or([0; 8]),
        ))
    }
    pub fn shortstr(&mut self) -> Result<&'a [u8], Malformed> {
        let n = self.octet()? as usize;
        self.take(n)
    }
    pub fn longstr(&mut self) -> Result<&'a [u8], Malformed> {
        let n = self.long()? as usize;
        self.take(n)
    }
    /// The next bit argument (consecutive bits share an octet).
    pub fn bit(&mut self) -> Result<bool, Malformed> {
        let (octet, i) = match self.bit {
            Some((octet, i)) if i < 8 => (octet, i),
            _ => (self.octet()?, 0),
        };
        self.bit = Some((octet, i + 1));
        Ok(octet & (1 << i) != 0)
    }
    pub fn table(&mut self) -> Result<Table, Malformed> {
        let bytes = self.longstr()?;
        let mut r = Reader::new(bytes);
        let mut t = Table::new();
        while !r.buf.is_empty() {
            let name = String::from_utf8_lossy(r.shortstr()?).into_owned();
            let value = r.value()?;
            t.0.push((name, value));
        }
        Ok(t)
    }
    fn value(&mut self) -> Result<Value, Malformed> {
        Ok(match self.octet()? {
            b't' => Value::Bool(self.octet()? != 0),
            b'b' | b'B' => Value::Int(i64::from(self.octet()?)),
            b's' | b'u' => Value::Int(i64::from(self.short()?)),
            b'I' | b'i' => Value::Int(i64::from(self.long()?)),
            b'l' | b'L' | b'T' => Value::Int(self.longlong()? as i64),
            b'f' => {
                self.take(4)?;
                Value::Other
            }
            b'd' => {
                self.take(8)?;
                Value::Other
            }
            b'D' => {
                self.take(5)?;
                Value::Other
            }
            b'S' | b'x' => Value::Str(self.longstr()?.to_vec()),
            b'F' => Value::Table(self.table()?),
            b'A' => {
                self.longstr()?;
                Value::Other
            }
            b'V' => Value::Other,
            _ => return Err(Malformed),
        })
    }

    /// A content header's body size and properties.
    pub fn content_header(&mut self) -> Result<(u64, Properties), Malformed> {
        let _class = self.short()?;
        let _weight = self.short()?;
        let size = self.longlong()?;
        let flags = self.short()?;
        let mut p = Properties::default();
        let s = |r: &mut Reader<'_>| -> Result<String, Malformed> {
            Ok(String::from_utf8_lossy(r.shortstr()?).into_owned())
        };
        if flags & P_CONTENT_TYPE != 0 {
            p.content_type = Some(s(self)?);
        }
        if flags & P_CONTENT_ENCODING != 0 {
            s(self)?;
        }
        if flags & P_HEADERS != 0 {
            p.headers = Some(self.table()?);
        }
        if flags & P_DELIVERY_MODE != 0 {
            p.delivery_mode = Some(self.octet()?);
        }
        if flags & P_PRIORITY != 0 {
            self.octet()?;
        }
        for flag in [P_CORRELATION_ID, P_REPLY_TO, P_EXPIRATION] {
            if flags & flag != 0 {
                s(self)?;
            }
        }
        if flags & P_MESSAGE_ID != 0 {
            p.message_id = Some(s(self)?);
        }
        if flags & P_TIMESTAMP != 0 {
            p.timestamp = Some(self.longlong()?);
        }
        if flags & P_TYPE != 0 {
            p.kind = Some(s(self)?);
        }
        if flags & P_USER_ID != 0 {
            s(self)?;
        }
        if flags & P_APP_ID != 0 {
            p.app_id = Some(s(self)?);
        }
        if flags & P_CLUSTER_ID != 0 {
            s(self)?;
        }
        Ok((size, p))
    }
}

/// One frame read off the connection.
#[derive(Debug)]
pub struct Frame {
    pub kind: u8,
    pub channel: u16,
    pub payload: Vec<u8>,
}

impl Frame {
    /// A method frame's class and method ids and its arguments.
    pub fn method(&self) -> Option<((u16, u16), Reader<'_>)> {
        if self.kind != FRAME_METHOD || self.payload.len() < 4 {
            return None;
        }
        let class = u16::from_be_bytes([self.payload[0], self.payload[1]]);
        let method = u16::from_be_bytes([self.payload[2], self.payload[3]]);
        Some(((class, method), Reader::new(&self.payload[4..])))
    }
}

#[cfg(test)]
mod tests;

//! What the receiver saw of one request.

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Instant, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use bytes::Bytes;
use serde_json::{Map, Value};

/// One received request, recorded once its body has been read completely and
/// before its [`Behavior`](crate::Behavior) is applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// Position among the requests recorded by this receiver, from 0.
    pub seq: u64,
    /// The method, e.g. `POST`.
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query string, without `?`.
    pub query: Option<String>,
    /// Headers in the order received; names lower-case, values as text
    /// (bytes that are not UTF-8 are replaced with U+FFFD).
    pub headers: Vec<(String, String)>,
    /// The raw body bytes.
    pub body: Bytes,
    /// When the whole request had been read (monotonic clock).
    pub received_at: Instant,
    /// When the whole request had been read (wall clock).
    pub received_at_system: SystemTime,
    /// The client's address.
    pub remote_addr: SocketAddr,
    /// The TLS SNI server name the client sent; `None` when it sent none
    /// (clients send none when connecting to an IP address).
    pub sni: Option<String>,
    /// With mutual TLS: SHA-256 (lower-case hex) of the leaf certificate
    /// the client presented ([`LeafCert::sha256_hex`](crate::LeafCert::sha256_hex));
    /// `None` when it presented none.
    pub client_cert_sha256: Option<String>,
    /// Which TCP connection the request came on (one id per accepted
    /// connection, from 0): equal ids prove keep-alive reuse.
    pub connection_id: u64,
    /// Position of the request on its connection, from 0.
    pub request_on_connection: u64,
    /// `Some(valid)` when the receiver verifies signatures
    /// ([`ReceiverConfig::verify`](crate::ReceiverConfig::verify)): whether
    /// the Standard Webhooks headers verify over the raw body with any of the
    /// keys, within the timestamp tolerance. `None` when it does not verify.
    pub signature_valid: Option<bool>,
}

impl Recorded {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of header `name` (any case), in order.
    pub fn header_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text, when it is UTF-8.
    pub fn body_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.body).ok()
    }

    /// The request as the judges read a captured request
    /// (`scripts/judges/README.md`): `{"headers": {...}, "body": "..."}`,
    /// with `body_b64` (standard base64) instead of `body` when the body is
    /// not UTF-8. Header names are lower-case; a repeated header's values are
    /// joined with `", "`.
    pub fn to_judge_json(&self) -> String {
        let mut headers = Map::new();
        for (name, value) in &self.headers {
            match headers.get_mut(name) {
                Some(Value::String(existing)) => {
                    existing.push_str(", ");
                    existing.push_str(value);
                }
                _ => {
                    headers.insert(name.clone(), Value::String(value.clone()));
                }
            }
        }
        let mut out = Map::new();
        out.insert("headers".into(), Value::Object(headers));
        match self.body_str() {
            Some(text) => out.insert("body".into(), Value::String(text.to_owned())),
            None => out.insert("body_b64".into(), Value::String(BASE64.encode(&self.body))),
        };
        Value::Object(out).to_string()
    }

    /// Writes [`Recorded::to_judge_json`] to `path`.
    pub fn write_judge_json(&self, path: &Path) -> io::Result<()> {
        std::fs::write(path, self.to_judge_json())
    }
}

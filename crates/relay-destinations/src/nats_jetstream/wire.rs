//! Just enough of the NATS client protocol for one JetStream publisher:
//! the server's `INFO`, `MSG`/`HMSG` (replies to our inbox), `PING`,
//! `PONG`, `+OK` and `-ERR`; the client's `CONNECT`, `PING`, `PONG`, `SUB`
//! and `HPUB`. The connection comes from the outbound guard; nothing here
//! opens a socket.

use tokio::io::{AsyncBufRead, AsyncReadExt};

/// The longest control line read (an `INFO` with its cluster URLs).
const MAX_LINE: usize = 64 * 1024;
/// The largest reply payload read (a PubAck is a few dozen bytes).
const MAX_REPLY: usize = 64 * 1024;

/// One operation from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerOp {
    Info(Info),
    /// `MSG` or `HMSG` (`headers` is `None` for `MSG`).
    Msg {
        subject: String,
        headers: Option<Vec<u8>>,
        payload: Vec<u8>,
    },
    Ping,
    Pong,
    Ok,
    /// `-ERR '<text>'`, the text without its quotes.
    Err(String),
}

/// What Relay reads of the server's `INFO`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Info {
    pub max_payload: usize,
    pub headers: bool,
    pub tls_required: bool,
    pub tls_available: bool,
    pub jetstream: bool,
}

pub use crate::broker::ReadError;
use crate::broker::{LineErrors, read_line};

/// The credentials `CONNECT` carries.
#[derive(Clone, Copy, Default)]
pub struct Credentials<'a> {
    pub user: Option<&'a str>,
    pub pass: Option<&'a str>,
    pub token: Option<&'a str>,
}

/// `CONNECT {…}` and a `PING`, whose `PONG` says the server took it.
/// `verbose` off (no `+OK` per publish), headers and no-responders on.
pub fn connect(creds: Credentials<'_>, tls: bool) -> Vec<u8> {
    let mut o = serde_json::json!({
        "verbose": false,
        "pedantic": false,
        "tls_required": tls,
        "name": "relay",
        "lang": "rust",
        "version": env!("CARGO_PKG_VERSION"),
        "protocol": 1,
        "headers": true,
        "no_responders": true,
        "echo": false,
    });
    if let Some(u) = creds.user {
        o["user"] = u.into();
    }
    if let Some(p) = creds.pass {
        o["pass"] = p.into();
    }
    if let Some(t) = creds.token {
        o["auth_token"] = t.into();
    }
    format!("CONNECT {o}\r\nPING\r\n").into_bytes()
}

/// `SUB <subject> <sid>`.
pub fn sub(subject: &str, sid: u64) -> Vec<u8> {
    format!("SUB {subject} {sid}\r\n").into_bytes()
}

/// A header value NATS can carry (no CR or LF).
pub fn header_value_ok(v: &str) -> bool {
    !v.bytes().any(|b| b == b'\r' || b == b'\n')
}

/// `HPUB <subject> <reply> <header bytes> <total bytes>` with the headers
/// block (`NATS/1.0`, one `Name: value` per header) and the payload.
/// Header values must satisfy [`header_value_ok`].
pub fn hpub(subject: &str, reply: &str, headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::with_capacity(
        64 + headers
            .iter()
            .map(|(k, v)| k.len() + v.len() + 4)
            .sum::<usize>(),
    );
    h.extend_from_slice(b"NATS/1.0\r\n");
    for (k, v) in headers {
        h.extend_from_slice(k.as_bytes());
        h.extend_from_slice(b": ");
        h.extend_from_slice(v.as_bytes());
        h.extend_from_slice(b"\r\n");
    }
    h.extend_from_slice(b"\r\n");
    let mut out = Vec::with_capacity(h.len() + payload.len() + subject.len() + reply.len() + 40);
    out.extend_from_slice(
        format!(
            "HPUB {subject} {reply} {} {}\r\n",
            h.len(),
            h.len() + payload.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
    out.extend_from_slice(b"\r\n");
    out
}

/// The headers block of a reply: its status (`NATS/1.0 503` → 503) and
/// its fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Headers {
    pub status: Option<u16>,
    pub fields: Vec<(String, String)>,
}

impl Headers {
    pub fn parse(block: &[u8]) -> Headers {
        let text = String::from_utf8_lossy(block);
        let mut lines = text.split("\r\n");
        let status = lines
            .next()
            .and_then(|l| l.strip_prefix("NATS/1.0"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|code| code.parse().ok());
        let fields = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect();
        Headers { status, fields }
    }

    #[cfg(test)]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

async fn line<R: AsyncBufRead + Unpin + Send>(r: &mut R) -> Result<String, ReadError> {
    const ERRORS: LineErrors = LineErrors {
        no_crlf: "a line without CRLF",
        not_utf8: "a line that is not UTF-8",
    };
    read_line(r, MAX_LINE, &ERRORS).await
}

fn size(s: &str) -> Result<usize, ReadError> {
    let n: usize = s
        .parse()
        .map_err(|_| ReadError::Protocol("a size that is not a number"))?;
    if n > MAX_REPLY {
        return Err(ReadError::Protocol("a message larger than expected"));
    }
    Ok(n)
}

fn info(json: &str) -> Result<Info, ReadError> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|_| ReadError::Protocol("an INFO that is not JSON"))?;
    let flag = |k: &str| v[k].as_bool().unwrap_or(false);
    Ok(Info {
        max_payload: v["max_payload"]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(1024 * 1024),
        headers: flag("headers"),
        tls_required: flag("tls_required"),
        tls_available: flag("tls_available"),
        jetstream: flag("jetstream"),
    })
}

/// Reads one server operation.
pub async fn read<R: AsyncBufRead + Unpin + Send>(r: &mut R) -> Result<ServerOp, ReadError> {
    let l = line(r).await?;
    let (op, rest) = l.split_once(' ').unwrap_or((l.as_str(), ""));
    let rest = rest.trim();
    Ok(match op.to_ascii_uppercase().as_str() {
        "INFO" => ServerOp::Info(info(rest)?),
        "PING" => ServerOp::Ping,
        "PONG" => ServerOp::Pong,
        "+OK" => ServerOp::Ok,
        "-ERR" => ServerOp::Err(rest.trim_matches('\'').to_string()),
        "MSG" | "HMSG" => {
            let args: Vec<&str> = rest.split_whitespace().collect();
            // MSG <subject> <sid> [reply] <bytes>; HMSG … <hdr bytes> <total bytes>
            let with_headers = op.eq_ignore_ascii_case("HMSG");
            let counts = if with_headers { 2 } else { 1 };
            if args.len() < 2 + counts || args.len() > 3 + counts {
                return Err(ReadError::Protocol("a MSG line with the wrong arguments"));
            }
            let total = size(args[args.len() - 1])?;
            let header_len = if with_headers {
                size(args[args.len() - 2])?
            } else {
                0
            };
            if header_len > total {
                return Err(ReadError::Protocol("headers longer than the message"));
            }
            let mut data = vec![0; total + 2];
            r.read_exact(&mut data).await?;
            if !data.ends_with(b"\r\n") {
                return Err(ReadError::Protocol("a message without CRLF"));
            }
            data.truncate(total);
            let payload = data.split_off(header_len);
            ServerOp::Msg {
                subject: args[0].to_string(),
                headers: with_headers.then_some(data),
                payload,
            }
        }
        _ => return Err(ReadError::Protocol("an unknown operation")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn parse(bytes: &[u8]) -> Result<ServerOp, ReadError> {
        let mut r = tokio::io::BufReader::new(bytes);
        read(&mut r).await
    }

    #[test]
    fn client_operations() {
        assert_eq!(
            hpub("a.b", "_INBOX.x.1", &[("Nats-Msg-Id", "evt_1")], b"{}"),
            b"HPUB a.b _INBOX.x.1 32 34\r\nNATS/1.0\r\nNats-Msg-Id: evt_1\r\n\r\n{}\r\n".to_vec()
        );
        assert_eq!(sub("_INBOX.x.*", 1), b"SUB _INBOX.x.* 1\r\n".to_vec());
        let c = String::from_utf8(connect(
            Credentials {
                user: Some("u"),
                pass: Some("p"),
                token: None,
            },
            true,
        ))
        .unwrap();
        assert!(
            c.starts_with("CONNECT {") && c.ends_with("}\r\nPING\r\n"),
            "{c}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&c["CONNECT ".len()..c.len() - "\r\nPING\r\n".len()]).unwrap();
        assert_eq!(json["verbose"], false);
        assert_eq!(json["headers"], true);
        assert_eq!(json["no_responders"], true);
        assert_eq!(json["tls_required"], true);
        assert_eq!(json["user"], "u");
        assert_eq!(json["pass"], "p");
        assert!(json.get("auth_token").is_none());
        assert!(header_value_ok("v1,abc="));
        assert!(!header_value_ok("a\r\nInjected: 1"));
    }

    #[tokio::test]
    async fn server_operations() {
        assert_eq!(
            parse(b"INFO {\"max_payload\":1024,\"headers\":true,\"jetstream\":true}\r\n")
                .await
                .unwrap(),
            ServerOp::Info(Info {
                max_payload: 1024,
                headers: true,
                jetstream: true,
                ..Info::default()
            })
        );
        assert_eq!(parse(b"PING\r\n").await.unwrap(), ServerOp::Ping);
        assert_eq!(parse(b"PONG\r\n").await.unwrap(), ServerOp::Pong);
        assert_eq!(parse(b"+OK\r\n").await.unwrap(), ServerOp::Ok);
        assert_eq!(
            parse(b"-ERR 'Authorization Violation'\r\n").await.unwrap(),
            ServerOp::Err("Authorization Violation".into())
        );
        assert_eq!(
            parse(b"MSG _INBOX.x.1 1 5\r\nhello\r\n").await.unwrap(),
            ServerOp::Msg {
                subject: "_INBOX.x.1".into(),
                headers: None,
                payload: b"hello".to_vec()
            }
        );
        assert_eq!(
            parse(b"HMSG _INBOX.x.2 1 16 16\r\nNATS/1.0 503\r\n\r\n\r\n")
                .await
                .unwrap(),
            ServerOp::Msg {
                subject: "_INBOX.x.2".into(),
                headers: Some(b"NATS/1.0 503\r\n\r\n".to_vec()),
                payload: vec![]
            }
        );
        assert_eq!(
            parse(b"HMSG a 1 reply.to 12 14\r\nNATS/1.0\r\n\r\nhi\r\n")
                .await
                .unwrap(),
            ServerOp::Msg {
                subject: "a".into(),
                headers: Some(b"NATS/1.0\r\n\r\n".to_vec()),
                payload: b"hi".to_vec()
            }
        );
        for bad in [
            &b"PING\n"[..],
            b"WHAT\r\n",
            b"MSG a 1 5\r\nab\r\n",
            b"MSG a 1 x\r\n",
            b"MSG a\r\n",
            b"HMSG a 1 9 3\r\nabc\r\n",
            b"MSG a 1 99999999\r\n",
            b"INFO nope\r\n",
            b"",
        ] {
            assert!(parse(bad).await.is_err(), "{bad:?}");
        }
    }

    #[test]
    fn reply_headers() {
        let h = Headers::parse(b"NATS/1.0 503\r\n\r\n");
        assert_eq!(h.status, Some(503));
        let h = Headers::parse(b"NATS/1.0\r\nNats-Msg-Id: e1\r\nce-type: a.b\r\n\r\n");
        assert_eq!(h.status, None);
        assert_eq!(h.get("nats-msg-id"), Some("e1"));
        assert_eq!(h.get("ce-type"), Some("a.b"));
        assert_eq!(h.get("missing"), None);
        let h = Headers::parse(b"NATS/1.0 408 Request Timeout\r\n\r\n");
        assert_eq!(h.status, Some(408));
    }
}

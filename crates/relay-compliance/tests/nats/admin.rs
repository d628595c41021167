//! The test's own side of a NATS server: a private `nats-server` with
//! JetStream on a free port, and a small blocking client (written apart
//! from Relay's, so the two check each other) that manages the stream
//! through the JetStream API and reads back every stored message.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// A stored message: its subject, headers and payload.
#[derive(Debug, Clone)]
pub struct Stored {
    pub subject: String,
    pub headers: Vec<(String, String)>,
    pub data: Vec<u8>,
}

impl Stored {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .unwrap_or_default()
    }
}

/// `nats-server` is installed.
pub fn available() -> bool {
    Command::new("nats-server")
        .arg("--version")
        .output()
        .is_ok()
}

pub use relay_compliance::process::free_port;

/// A fresh store directory (removed by [`remove_dir`]).
pub fn store_dir(port: u16) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("relay-nats-{}-{port}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a store directory");
    dir
}

pub fn remove_dir(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
}

/// The user every private server requires.
pub const USER: &str = "relay";

/// The subject mapping every private server applies: NATS's partitioning
/// by a subject token (docs/destinations.md, "Ordering key"), the token
/// after `relay.part.` hashed into one of 4 partitions.
pub const PARTITIONS: &str =
    r#"mappings = { "relay.part.*": "relay.part.{{partition(4,1)}}.{{wildcard(1)}}" }"#;

/// Starts `nats-server -js` on `port` with its store in `dir`, requiring
/// the user [`USER`] with `password`, with the mapping [`PARTITIONS`], and
/// waits until it answers.
pub fn start_server(port: u16, dir: &Path, password: &str) -> Child {
    let config = dir.join("partitions.conf");
    std::fs::write(&config, PARTITIONS).expect("write the server's configuration");
    let child = Command::new("nats-server")
        .arg("-c")
        .arg(&config)
        .args(["-a", "127.0.0.1", "-p", &port.to_string(), "-js", "-sd"])
        .arg(dir)
        .args(["--user", USER, "--pass", password])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nats-server");
    let deadline = Instant::now() + Duration::from_secs(10);
    while Admin::connect(port, password).is_err() {
        assert!(Instant::now() < deadline, "nats-server did not answer");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

pub fn signal(child: &Child, sig: &str) {
    let _ = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status();
}

/// Stops the server the way an operator does (SIGTERM) and waits for it.
pub fn stop_server(child: &mut Child) {
    signal(child, "-CONT");
    signal(child, "-TERM");
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().ok().flatten().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One connection of the test's client.
pub struct Admin {
    io: BufReader<TcpStream>,
    next: u64,
}

fn line(io: &mut BufReader<TcpStream>) -> std::io::Result<String> {
    let mut l = String::new();
    if io.read_line(&mut l)? == 0 {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(l.trim_end().to_string())
}

impl Admin {
    pub fn connect(port: u16, password: &str) -> std::io::Result<Admin> {
        let tcp = TcpStream::connect(("127.0.0.1", port))?;
        tcp.set_read_timeout(Some(Duration::from_secs(5)))?;
        let mut io = BufReader::new(tcp);
        let info = line(&mut io)?;
        if !info.starts_with("INFO ") {
            return Err(std::io::Error::other(info));
        }
        let connect = json!({
            "verbose": false, "headers": true, "no_responders": true,
            "user": USER, "pass": password,
        });
        io.get_mut().write_all(
            format!("CONNECT {connect}\r\nPING\r\nSUB _INBOX.admin.* 1\r\n").as_bytes(),
        )?;
        loop {
            match line(&mut io)?.as_str() {
                "PONG" => break,
                "PING" => io.get_mut().write_all(b"PONG\r\n")?,
                other if other.starts_with("-ERR") => {
                    return Err(std::io::Error::other(other.to_string()));
                }
                _ => {}
            }
        }
        Ok(Admin { io, next: 0 })
    }

    /// A request and its reply: the reply's headers block and payload.
    pub fn request(&mut self, subject: &str, payload: &[u8]) -> std::io::Result<(String, Vec<u8>)> {
        self.next += 1;
        let reply = format!("_INBOX.admin.{}", self.next);
        let mut frame = format!("PUB {subject} {reply} {}\r\n", payload.len()).into_bytes();
        frame.extend_from_slice(payload);
        frame.extend_from_slice(b"\r\n");
        self.io.get_mut().write_all(&frame)?;
        self.read_reply(&reply)
    }

    fn read_reply(&mut self, reply: &str) -> std::io::Result<(String, Vec<u8>)> {
        loop {
            let l = line(&mut self.io)?;
            let args: Vec<&str> = l.split_whitespace().collect();
            match args.first().copied() {
                Some("PING") => self.io.get_mut().write_all(b"PONG\r\n")?,
                Some("MSG" | "HMSG") => {
                    let total: usize = args[args.len() - 1]
                        .parse()
                        .map_err(std::io::Error::other)?;
                    let hdr: usize = if args[0] == "HMSG" {
                        args[args.len() - 2]
                            .parse()
                            .map_err(std::io::Error::other)?
                    } else {
                        0
                    };
                    let mut buf = vec![0; total + 2];
                    self.io.read_exact(&mut buf)?;
                    buf.truncate(total);
                    let data = buf.split_off(hdr);
                    if args[1] == reply {
                        return Ok((String::from_utf8_lossy(&buf).into_owned(), data));
                    }
                }
                Some(e) if e.starts_with("-ERR") => return Err(std::io::Error::other(l.clone())),
                _ => {}
            }
        }
    }

    /// A JetStream publish with a `Nats-Msg-Id`; the PubAck.
    pub fn publish_with_id(&mut self, subject: &str, id: &str, payload: &[u8]) -> Value {
        self.next += 1;
        let reply = format!("_INBOX.admin.{}", self.next);
        let headers = format!("NATS/1.0\r\nNats-Msg-Id: {id}\r\n\r\n");
        let mut frame = format!(
            "HPUB {subject} {reply} {} {}\r\n{headers}",
            headers.len(),
            headers.len() + payload.len()
        )
        .into_bytes();
        frame.extend_from_slice(payload);
        frame.extend_from_slice(b"\r\n");
        self.io.get_mut().write_all(&frame).unwrap();
        self.read_reply(&reply)
            .map(|(_, d)| serde_json::from_slice(&d).unwrap())
            .unwrap()
    }

    /// A JetStream API request; its JSON answer (an `error` is an `Err`).
    pub fn api(&mut self, subject: &str, body: &Value) -> Result<Value, String> {
        let (_, data) = self
            .request(subject, body.to_string().as_bytes())
            .map_err(|e| e.to_string())?;
        let v: Value = serde_json::from_slice(&data).map_err(|e| e.to_string())?;
        match v.get("error") {
            Some(e) => Err(e.to_string()),
            None => Ok(v),
        }
    }

    /// Creates or updates the stream `name` over `subjects` with `limits`
    /// (JetStream's stream configuration fields).
    pub fn put_stream(
        &mut self,
        name: &str,
        subjects: &[&str],
        limits: Value,
    ) -> Result<Value, String> {
        let mut config = json!({
            "name": name,
            "subjects": subjects,
            "storage": "file",
            "retention": "limits",
            "discard": "new",
            "max_msgs": -1,
            "max_bytes": -1,
            "max_msg_size": -1,
            "max_age": 0,
            "num_replicas": 1,
            "duplicate_window": 120_000_000_000u64,
        });
        for (k, v) in limits.as_object().into_iter().flatten() {
            config[k] = v.clone();
        }
        match self.api(&format!("$JS.API.STREAM.UPDATE.{name}"), &config) {
            Ok(v) => Ok(v),
            Err(_) => self.api(&format!("$JS.API.STREAM.CREATE.{name}"), &config),
        }
    }

    /// Every message of the stream, oldest first.
    pub fn messages(&mut self, name: &str) -> Result<Vec<Stored>, String> {
        let info = self.api(&format!("$JS.API.STREAM.INFO.{name}"), &json!({}))?;
        let first = info["state"]["first_seq"].as_u64().unwrap_or(0);
        let last = info["state"]["last_seq"].as_u64().unwrap_or(0);
        let mut out = Vec::new();
        for seq in first.max(1)..=last {
            let Ok(v) = self.api(
                &format!("$JS.API.STREAM.MSG.GET.{name}"),
                &json!({"seq": seq}),
            ) else {
                continue;
            };
            let m = &v["message"];
            let decode = |f: &str| {
                m[f].as_str()
                    .map(|s| STANDARD.decode(s).unwrap_or_default())
                    .unwrap_or_default()
            };
            let hdrs = String::from_utf8_lossy(&decode("hdrs")).into_owned();
            let headers = hdrs
                .split("\r\n")
                .skip(1)
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect();
            out.push(Stored {
                subject: m["subject"].as_str().unwrap_or_default().to_string(),
                headers,
                data: decode("data"),
            });
        }
        Ok(out)
    }
}

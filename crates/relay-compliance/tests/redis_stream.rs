//! Redis Streams passes the compliance suite against a real `redis-server`,
//! a private instance on a free port (so the suite can stop it, pause its
//! writes or fill its memory), reached through the operator's allow list.
//! Its modes: retryable = `maxmemory 1` (every `XADD` answers `-OOM`);
//! permanent = the key holds a string (`-WRONGTYPE`); hang = `CLIENT PAUSE
//! WRITE`; down = the server stopped.

use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use relay_compliance::{Mode, Peer, Received, compliance_suite};
use relay_core::model::{Destination, RedisStreamDestination};
use relay_net::{OutboundConfig, StaticResolver};

const HOST: &str = "redis.compliance.test";
const STREAM: &str = "relay-events";

struct State {
    server: Option<Child>,
    mode: Mode,
    /// Entries read before the stream was replaced or the server stopped.
    saved: Vec<Received>,
}

struct RedisPeer {
    port: u16,
    state: Mutex<State>,
}

fn cli(port: u16, args: &[&str]) -> Result<String, String> {
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(args)
        .output()
        .map_err(|e| format!("redis-cli: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || text.starts_with("ERR") || text.contains("Could not connect") {
        return Err(text);
    }
    Ok(text)
}

fn start_server(port: u16) -> Child {
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--loglevel",
            "warning",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start redis-server");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while cli(port, &["PING"])
        .map(|o| o.trim() != "PONG")
        .unwrap_or(true)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "redis-server did not answer"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn stop_server(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The stream's entries (empty when the key is missing or not a stream).
fn entries(port: u16) -> Vec<Received> {
    let Ok(text) = cli(port, &["--json", "XRANGE", STREAM, "-", "+"]) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Array(items)) = serde_json::from_str(text.trim()) else {
        return Vec::new();
    };
    items
        .iter()
        .map(|item| {
            let fields = item[1].as_array().cloned().unwrap_or_default();
            let get = |name: &str| {
                fields
                    .chunks(2)
                    .find(|kv| kv[0] == name)
                    .and_then(|kv| kv[1].as_str())
                    .unwrap_or_default()
                    .to_string()
            };
            Received {
                body: get("body").into_bytes(),
                webhook_id: get("webhook-id"),
                webhook_timestamp: get("webhook-timestamp"),
                webhook_signature: get("webhook-signature"),
            }
        })
        .collect()
}

impl Drop for RedisPeer {
    fn drop(&mut self) {
        if let Ok(mut s) = self.state.lock()
            && let Some(mut c) = s.server.take()
        {
            stop_server(&mut c);
        }
    }
}

impl Peer for RedisPeer {
    const KIND: &'static str = "redis_stream";

    async fn start() -> Option<Self> {
        if Command::new("redis-server")
            .arg("--version")
            .output()
            .is_err()
        {
            relay_store::testenv::skip(
                "redis_stream compliance",
                "redis-server is not installed (Debian: apt-get install redis-server)",
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        Some(RedisPeer {
            port,
            state: Mutex::new(State {
                server: Some(start_server(port)),
                mode: Mode::Accept,
                saved: Vec::new(),
            }),
        })
    }

    fn destination(&self) -> Destination {
        Destination::RedisStream(RedisStreamDestination {
            host: HOST.into(),
            port: self.port,
            tls: false,
            database: None,
            stream: STREAM.into(),
            max_len: Some(10_000),
            username: None,
            password: None,
        })
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        (
            OutboundConfig {
                allow_ports: vec![self.port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![],
            },
            StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]),
        )
    }

    async fn set_mode(&self, mode: Mode) {
        let port = self.port;
        let mut s = self.state.lock().unwrap();
        // Leave the current mode.
        match s.mode {
            Mode::Down => {
                if mode != Mode::Down {
                    s.server = Some(start_server(port));
                }
            }
            Mode::FailRetryable => {
                cli(port, &["CONFIG", "SET", "maxmemory", "0"]).unwrap();
            }
            Mode::Hang => {
                cli(port, &["CLIENT", "UNPAUSE"]).unwrap();
            }
            Mode::FailPermanent => {
                cli(port, &["DEL", STREAM]).unwrap();
            }
            Mode::Accept => {}
        }
        // Enter the new one.
        match mode {
            Mode::Accept => {}
            Mode::FailRetryable => {
                cli(port, &["CONFIG", "SET", "maxmemory-policy", "noeviction"]).unwrap();
                cli(port, &["CONFIG", "SET", "maxmemory", "1"]).unwrap();
            }
            Mode::FailPermanent => {
                let kept = entries(port);
                s.saved.extend(kept);
                cli(port, &["DEL", STREAM]).unwrap();
                cli(port, &["SET", STREAM, "not a stream"]).unwrap();
            }
            Mode::Hang => {
                cli(port, &["CLIENT", "PAUSE", "60000", "WRITE"]).unwrap();
            }
            Mode::Down => {
                if s.mode != Mode::Down {
                    let kept = entries(port);
                    s.saved.extend(kept);
                    if let Some(mut c) = s.server.take() {
                        stop_server(&mut c);
                    }
                }
            }
        }
        s.mode = mode;
    }

    async fn received(&self) -> Vec<Received> {
        let s = self.state.lock().unwrap();
        let mut all = s.saved.clone();
        if s.server.is_some() {
            all.extend(entries(self.port));
        }
        all
    }

    fn down_error_kinds() -> &'static [&'static str] {
        &["connect"]
    }
}

compliance_suite!(RedisPeer);

//! Redis Streams passes the compliance suite against a real `redis-server`,
//! a private instance on a free port (so the suite can stop it, pause its
//! writes or fill its memory), reached through the operator's allow list.
//! The server requires a password (`requirepass`), which the endpoint names
//! by a `file:` secret reference the operator's policy allows: every
//! connection authenticates, and the secrets case proves the password never
//! reaches a log, a record or `Debug`.
//! Its modes: retryable = `maxmemory 1` (every `XADD` answers `-OOM`);
//! permanent = the key holds a string (`-WRONGTYPE`); hang = `CLIENT PAUSE
//! WRITE`; down = the server stopped.

use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use relay_compliance::{Mode, Peer, Received, compliance_suite};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::redis_stream::RedisStreamDestination;
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
    /// The server's `requirepass`, also written to `dir/redis-password`.
    password: String,
    dir: tempfile::TempDir,
    state: Mutex<State>,
}

fn cli(port: u16, pw: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(["--no-auth-warning", "-a", pw])
        .args(args)
        .output()
        .map_err(|e| format!("redis-cli: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || text.starts_with("ERR") || text.contains("Could not connect") {
        return Err(text);
    }
    Ok(text)
}

fn start_server(port: u16, pw: &str) -> Child {
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
            "--requirepass",
            pw,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start redis-server");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while cli(port, pw, &["PING"])
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
fn entries(port: u16, pw: &str) -> Vec<Received> {
    let Ok(text) = cli(port, pw, &["--json", "XRANGE", STREAM, "-", "+"]) else {
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
            // Binary mode (docs/destinations.md): `ce-<attribute>` fields,
            // `datacontenttype` as the entry's `content-type`.
            let ce: Vec<(String, String)> = fields
                .chunks(2)
                .filter_map(|kv| {
                    let name = kv[0].as_str()?.strip_prefix("ce-")?;
                    Some((name.to_string(), kv[1].as_str()?.to_string()))
                })
                .collect();
            let binary = (!ce.is_empty()).then(|| {
                let mut attributes = ce;
                attributes.push(("datacontenttype".into(), get("content-type")));
                attributes
            });
            Received {
                body: get("body").into_bytes(),
                webhook_id: get("webhook-id"),
                webhook_timestamp: get("webhook-timestamp"),
                webhook_signature: get("webhook-signature"),
                binary,
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
        let password = format!(
            "rpw-{}-{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let dir = tempfile::tempdir().expect("a temporary directory");
        // As an operator's secret file usually is: the value and a newline.
        std::fs::write(dir.path().join("redis-password"), format!("{password}\n"))
            .expect("write the password file");
        let pw = password.as_str();
        Some(RedisPeer {
            port,
            state: Mutex::new(State {
                server: Some(start_server(port, pw)),
                mode: Mode::Accept,
                saved: Vec::new(),
            }),
            password,
            dir,
        })
    }

    fn destination(&self) -> Config {
        Config::RedisStream(RedisStreamDestination {
            host: HOST.into(),
            port: self.port,
            tls: false,
            database: None,
            stream: STREAM.into(),
            max_len: Some(10_000),
            username: None,
            password: Some(SecretRef::File(format!(
                "{}/redis-password",
                self.dir.path().display()
            ))),
            content_mode: Default::default(),
            wait_aof: None,
        })
    }

    fn secret_grant(&self) -> SecretGrant {
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![self.dir.path().display().to_string()],
        }
    }

    fn secrets(&self) -> Vec<String> {
        vec![self.password.clone()]
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        (
            OutboundConfig {
                allow_ports: vec![self.port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![],
                allow_plaintext_credentials_to_loopback: true,
            },
            StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]),
        )
    }

    async fn set_mode(&self, mode: Mode) {
        let (port, pw) = (self.port, self.password.as_str());
        let mut s = self.state.lock().unwrap();
        // Leave the current mode.
        match s.mode {
            Mode::Down => {
                if mode != Mode::Down {
                    s.server = Some(start_server(port, pw));
                }
            }
            Mode::FailRetryable => {
                cli(port, pw, &["CONFIG", "SET", "maxmemory", "0"]).unwrap();
            }
            Mode::Hang => {
                cli(port, pw, &["CLIENT", "UNPAUSE"]).unwrap();
            }
            Mode::FailPermanent => {
                cli(port, pw, &["DEL", STREAM]).unwrap();
            }
            Mode::Accept => {}
        }
        // Enter the new one.
        match mode {
            Mode::Accept => {}
            Mode::FailRetryable => {
                cli(
                    port,
                    pw,
                    &["CONFIG", "SET", "maxmemory-policy", "noeviction"],
                )
                .unwrap();
                cli(port, pw, &["CONFIG", "SET", "maxmemory", "1"]).unwrap();
            }
            Mode::FailPermanent => {
                let kept = entries(port, pw);
                s.saved.extend(kept);
                cli(port, pw, &["DEL", STREAM]).unwrap();
                cli(port, pw, &["SET", STREAM, "not a stream"]).unwrap();
            }
            Mode::Hang => {
                cli(port, pw, &["CLIENT", "PAUSE", "60000", "WRITE"]).unwrap();
            }
            Mode::Down => {
                if s.mode != Mode::Down {
                    let kept = entries(port, pw);
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
            all.extend(entries(self.port, &self.password));
        }
        all
    }

    fn down_error_kinds() -> &'static [relay_core::model::ErrorKind] {
        &[relay_core::model::ErrorKind::Connect]
    }
}

compliance_suite!(RedisPeer; binary);

/// The password changes on the server: the endpoint's client, holding the
/// old value, is refused (`auth_refused`, retried); once the secret file
/// holds the new value and the refresh interval has passed, the engine
/// resolves it again, builds a new client and delivers. Neither password
/// reaches the logs or the attempt records.
async fn a_changed_password_is_picked_up(postgres: bool) {
    use relay_core::model::MessageState;
    use relay_core::outcome::AttemptOutcome;

    relay_compliance::cases::run::<RedisPeer, _, _>(postgres, "password_change", |h| async move {
        h.publish().await;
        assert_eq!(h.round().await, 1);
        assert_eq!(h.peer.received().await.len(), 1, "delivered with AUTH");

        let (port, old) = (h.peer.port, h.peer.password.clone());
        let new = format!("{old}-rotated");
        cli(port, &old, &["CONFIG", "SET", "requirepass", &new]).unwrap();
        // Drops Relay's pooled, already authenticated connection.
        cli(port, &new, &["CLIENT", "KILL", "TYPE", "normal"]).unwrap();

        h.publish().await;
        assert_eq!(h.round().await, 1);
        let waiting = h
            .messages()
            .await
            .into_iter()
            .find(|m| m.state != MessageState::Delivered)
            .expect("the second message waits");
        let failed = h.attempts(&waiting).await;
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].outcome, AttemptOutcome::Retry);
        assert_eq!(
            failed[0].error_code.map(|c| c.to_string()).as_deref(),
            Some("auth_refused"),
            "{:?}",
            failed[0]
        );

        std::fs::write(h.peer.dir.path().join("redis-password"), &new).unwrap();
        h.advance_to_next_attempt(&waiting);
        h.clock.advance_millis(30_000);
        assert_eq!(h.round().await, 1);
        let all = h.messages().await;
        assert!(
            all.iter().all(|m| m.state == MessageState::Delivered),
            "{all:?}"
        );
        let count = cli(port, &new, &["XLEN", STREAM]).unwrap();
        assert_eq!(count.trim(), "2");

        let logs = h.logs.text();
        let records = format!("{:?}", h.attempts(&waiting).await);
        for pw in [&old, &new] {
            assert!(!logs.contains(pw.as_str()), "a password in the logs");
            assert!(!records.contains(pw.as_str()), "a password in the records");
        }
    })
    .await;
}

#[tokio::test]
async fn a_changed_password_is_picked_up_sqlite() {
    a_changed_password_is_picked_up(false).await;
}

#[tokio::test]
async fn a_changed_password_is_picked_up_postgres() {
    a_changed_password_is_picked_up(true).await;
}

/// The server's version, as `(major, minor)`.
fn version(port: u16, pw: &str) -> (u32, u32) {
    let info = cli(port, pw, &["INFO", "server"]).unwrap();
    let v = info
        .lines()
        .find_map(|l| l.trim().strip_prefix("redis_version:"))
        .expect("INFO server names the version");
    let mut parts = v.split('.').map(|p| p.parse().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// `wait_aof`: `WAITAOF` after the `XADD`, success only when it confirms.
/// A server that cannot confirm (Redis before 7.2 has no `WAITAOF`; 7.2+
/// refuses `local: 1` with `appendonly no`, as this server runs) answers
/// `-ERR`: the configuration cannot work there, so the message is
/// dead-lettered as `invalid_destination`, with the server's answer in the
/// record. On 7.2+ the same endpoint delivers once AOF is turned on, its
/// record naming the confirmed fsync.
async fn wait_aof_is_required_when_asked(postgres: bool) {
    use relay_core::model::MessageState;
    use relay_core::time::Clock;
    use relay_destinations::redis_stream::WaitAof;

    relay_compliance::cases::run::<RedisPeer, _, _>(postgres, "wait_aof", |h| async move {
        let mut endpoint = h.endpoint.clone();
        let Ok(Config::RedisStream(mut d)) = Config::try_from(&endpoint.destination) else {
            unreachable!()
        };
        d.wait_aof = Some(WaitAof {
            local: 1,
            replicas: 0,
            timeout_ms: 500,
        });
        endpoint.destination = Config::RedisStream(d).into();
        endpoint.updated_at = h.clock.now();
        relay_store::conformance::update_endpoint(h.store(), &h.scope, &endpoint, &[])
            .await
            .unwrap();

        h.publish().await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, MessageState::DeadLettered, "{m:?}");
        assert_eq!(m.terminal_reason.as_deref(), Some("invalid_destination"));
        let a = &h.attempts(&m).await[0];
        let err = a.detail["wait_aof"]["error"].as_str().unwrap_or_default();
        assert!(err.starts_with("ERR"), "{:?}", a.detail);
        assert_eq!(a.detail["wait_aof"]["confirmed"], false);
        assert!(
            a.detail["entry_id"].is_string(),
            "the XADD itself succeeded"
        );

        let (port, pw) = (h.peer.port, h.peer.password.clone());
        if version(port, &pw) >= (7, 2) {
            cli(port, &pw, &["CONFIG", "SET", "appendonly", "yes"]).unwrap();
            h.publish().await;
            assert_eq!(h.round().await, 1);
            let m = h.messages().await.into_iter().last().unwrap();
            assert_eq!(m.state, MessageState::Delivered, "{m:?}");
            let a = &h.attempts(&m).await[0];
            assert_eq!(a.detail["wait_aof"]["confirmed"], true, "{:?}", a.detail);
            assert_eq!(a.detail["wait_aof"]["local"], 1);
        }
    })
    .await;
}

#[tokio::test]
async fn wait_aof_is_required_when_asked_sqlite() {
    wait_aof_is_required_when_asked(false).await;
}

#[tokio::test]
async fn wait_aof_is_required_when_asked_postgres() {
    wait_aof_is_required_when_asked(true).await;
}
